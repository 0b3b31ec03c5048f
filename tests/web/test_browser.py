"""End to end in a real browser: Debian's chromium, headless, driven by Selenium through Debian's
chromium-driver (no browser download). A person opens a table with three bots, plays a whole game
through the page, and the final scores on the page match the game record.

Screenshots of every phase go to ``$DIXIT_AI_ARTIFACTS/web_screenshots`` (default
``runs/web_screenshots``).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from tests.web.servers import ROOT, free_port

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium "
           "chromium-driver)")

webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium")
from selenium.common.exceptions import (  # noqa: E402
    StaleElementReferenceException,
    WebDriverException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

HTML_CLUE = '<b>moon</b> & "stars"'


def artifacts() -> Path:
    base = Path(os.environ.get("DIXIT_AI_ARTIFACTS", ROOT / "runs"))
    folder = base / "web_screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The app on uvicorn in a thread of this process, on a free loopback port."""
    import uvicorn

    from dixit_ai.web.app import create_app

    port = free_port()
    config = uvicorn.Config(create_app(tmp_path / "browser.sqlite3", durable=False,
                                       bot_delay=0.05),
                            host="127.0.0.1", port=port, log_level="warning",
                            ws="websockets-sansio")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    try:
        driver = webdriver.Chrome(options=options, service=service)
    except WebDriverException as error:
        pytest.skip(f"chromium could not start: {error.msg}")
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def screen(driver: Any) -> str:
    try:
        value = driver.find_element(By.ID, "stage").get_attribute("data-screen")
        return str(value or "")
    except (StaleElementReferenceException, WebDriverException):
        return ""


def click_cards(driver: Any, selector: str, count: int) -> None:
    cards = driver.find_elements(By.CSS_SELECTOR, selector)
    for index in range(count):
        cards = driver.find_elements(By.CSS_SELECTOR, selector)
        cards[index].click()


def test_a_person_plays_a_whole_game_with_three_bots(server: str, browser: Any) -> None:
    shots = artifacts()
    taken: set[str] = set()

    def shot(name: str, *, wait: float = 0.4, phone: bool = False) -> None:
        """Save a screenshot of the screen ``name`` (once), if the page still shows it."""
        if name in taken:
            return
        browser.execute_script("window.scrollTo(0, 0)")
        time.sleep(wait)  # images decoded, rabbits hopped
        if screen(browser) != name and name != "create":
            return  # a bot moved meanwhile: take this one another time
        browser.save_screenshot(str(shots / f"{len(taken) + 1:02d}-{name}.png"))
        if phone:
            browser.set_window_size(412, 915)
            time.sleep(0.4)
            browser.save_screenshot(str(shots / f"phone-{name}.png"))
            browser.set_window_size(1280, 900)
            time.sleep(0.2)
        taken.add(name)

    wait = WebDriverWait(browser, 20)
    browser.get(server + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#create-edition option"))
    browser.find_element(By.ID, "create-name").send_keys("Ann")
    browser.find_element(By.ID, "create-title").send_keys("Friday night")
    Select(browser.find_element(By.ID, "create-edition")).select_by_value("refresh-2021")
    limit = browser.find_element(By.ID, "create-score-limit")
    limit.clear()
    limit.send_keys("10")
    deck = browser.find_element(By.ID, "create-deck")
    deck.clear()
    deck.send_keys("dream:size=40")
    bots = browser.find_elements(By.CSS_SELECTOR, "#create-bots select")
    assert len(bots) == 3 and all(Select(b).first_selected_option.text == "random" for b in bots)
    shot("create", wait=0.1)
    browser.find_element(By.ID, "create-submit").click()

    wait.until(lambda d: screen(d) == "lobby")
    invite = browser.find_element(By.ID, "invite-link").get_attribute("value")
    assert "/join/" in invite
    assert len(browser.find_elements(By.CSS_SELECTOR, "#stage .seat-list li")) == 4
    shot("lobby")
    # The invite link opens the join page (in another tab; nobody joins: bots fill the seats).
    lobby_tab = browser.current_window_handle
    browser.switch_to.new_window("tab")
    browser.get(invite)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#join-seats li")) == 4)
    assert "Friday night" in browser.find_element(By.ID, "join-title").text
    assert browser.find_element(By.ID, "join-submit").is_displayed()
    browser.save_screenshot(str(shots / "join.png"))
    browser.close()
    browser.switch_to.window(lobby_tab)
    browser.find_element(By.ID, "start").click()

    deadline = time.monotonic() + 60
    html_clue_checked = False
    while True:
        assert time.monotonic() < deadline, f"stuck on screen {screen(browser)!r}"
        current = screen(browser)
        try:
            if current == "tell":
                shot("tell")
                click_cards(browser, "#stage .card.selectable", 1)
                clue = browser.find_element(By.ID, "clue")
                clue.send_keys(HTML_CLUE if not html_clue_checked else "a quiet storm")
                browser.find_element(By.ID, "tell").click()
                wait.until(lambda d: screen(d) != "tell")
            elif current == "play":
                shot("play")
                button = browser.find_element(By.ID, "play")
                n = 2 if "2" in button.text else 1
                click_cards(browser, "#stage .card.selectable", n)
                browser.find_element(By.ID, "play").click()
                wait.until(lambda d: screen(d) != "play")
            elif current == "vote":
                assert browser.find_elements(By.CSS_SELECTOR, "#stage .card.mine")
                click_cards(browser, "#stage .card.selectable", 1)
                shot("vote", wait=0.2, phone=True)
                browser.find_element(By.ID, "vote").click()
                wait.until(lambda d: screen(d) != "vote")
            elif current == "reveal":
                clue_text = browser.find_element(By.CSS_SELECTOR, "#stage .reveal h2 .clue").text
                if HTML_CLUE in clue_text:
                    # Shown as text: the markup is visible, no element was made from it.
                    assert not browser.find_elements(By.CSS_SELECTOR, "#stage h2 b")
                    html_clue_checked = True
                shot("reveal", wait=1.6)
                browser.find_element(By.ID, "continue").click()
                time.sleep(0.05)
            elif current == "over":
                break
            elif current.startswith("wait-"):
                shot(current, wait=0.2)
                time.sleep(0.05)
            else:
                time.sleep(0.05)
        except (StaleElementReferenceException, IndexError):
            continue  # the page re-rendered under us (a bot moved): look again

    shot("over", wait=0.5)
    assert html_clue_checked
    rows = browser.find_elements(By.CSS_SELECTOR, "#final-scores tr")
    page_scores = {int(row.get_attribute("data-seat")):
                   int(row.find_element(By.CSS_SELECTOR, ".final-score").text) for row in rows}
    link = browser.find_element(By.ID, "record-link").get_attribute("href")
    record = GameRecord.from_json(httpx.get(link, timeout=10).text)
    replay_record(record)
    assert page_scores == dict(enumerate(record.final_scores))
    winners = browser.find_element(By.ID, "winners").text
    names = [record.header["web"]["players"][seat] for seat in record.winners]
    assert all(name in winners for name in names)
    assert ("share" in winners) == (len(names) > 1)
    assert record.header["agents"][0] == {"name": "human", "player": "Ann"}
    assert [a["name"] for a in record.header["agents"][1:]] == ["random"] * 3

    # The same page on a phone: one more look at the final screen.
    browser.set_window_size(412, 915)
    time.sleep(0.3)
    browser.save_screenshot(str(shots / "phone-over.png"))
    expected = {"create", "lobby", "tell", "play", "vote", "reveal", "over"}
    assert expected <= taken, taken
