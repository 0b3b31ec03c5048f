"""End to end in real browsers: Debian's chromium, headless, driven by Selenium through Debian's
chromium-driver (no browser download).

Two people (two browsers, each its own storage) and a spectator play a whole game with a bot:
Bea loses her ``/play`` link mid-game and returns to her seat through the invite link; Ann's
page goes offline as she tells, keeps her clue and sends it by itself once back; the final
scores on the page match the record; Ann asks for a rematch and both land in its lobby.

Screenshots of every phase go to ``$DIXIT_AI_ARTIFACTS/web_screenshots``; without
``DIXIT_AI_ARTIFACTS`` they go to the run's temporary folder, removed when the run ends (the
suite leaves nothing in the checkout). ``docs/screenshots/`` holds a copy.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.web.social import REACTIONS
from tests.web.conftest import server_offering
from tests.web.servers import free_port

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


def artifacts(run_temp: Path) -> Path:
    """Where the screenshots go: ``$DIXIT_AI_ARTIFACTS`` if set, else the run's temporary
    folder (removed when the run ends; never the checkout)."""
    chosen = os.environ.get("DIXIT_AI_ARTIFACTS")
    base = Path(chosen) if chosen else run_temp
    folder = base / "web_screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The app on uvicorn in a thread of this process, on a free loopback port."""
    import uvicorn

    from dixit_ai.web.app import create_app

    port = free_port()
    app = create_app(tmp_path / "browser.sqlite3", durable=False, bot_delay=0.05,
                     server=server_offering())
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
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
def browsers() -> Iterator[Callable[[], Any]]:
    """Start browsers, each with its own profile (its own localStorage)."""
    started: list[Any] = []

    def start() -> Any:
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
        started.append(driver)
        return driver

    yield start
    for driver in started:
        driver.quit()


def lobby_names(driver: Any) -> list[str] | None:
    """The names of the lobby's seat list, or None while it is being drawn again."""
    try:
        names = [n.text for n in driver.find_elements(By.CSS_SELECTOR, "#stage .seat-list li")]
    except StaleElementReferenceException:
        return None
    return names if len(names) >= 2 else None


def screen(driver: Any) -> str:
    try:
        value = driver.find_element(By.ID, "stage").get_attribute("data-screen")
        return str(value or "")
    except (StaleElementReferenceException, WebDriverException):
        return ""


def click_cards(driver: Any, count: int) -> None:
    for index in range(count):
        driver.find_elements(By.CSS_SELECTOR, "#stage .card.selectable")[index].click()


def test_two_people_a_spectator_a_lost_link_offline_and_a_rematch(
        server: str, browsers: Callable[[], Any],
        tmp_path_factory: pytest.TempPathFactory) -> None:
    shots = artifacts(tmp_path_factory.getbasetemp())
    taken: set[str] = set()

    def shot(driver: Any, name: str, *, phone: bool = False) -> None:
        if name in taken:
            return
        driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)
        driver.save_screenshot(str(shots / f"web-{name}.png"))
        if phone:
            driver.set_window_size(390, 844)
            time.sleep(0.3)
            driver.save_screenshot(str(shots / f"web-phone-{name}.png"))
            assert driver.execute_script(  # nothing wider than the phone
                "return document.documentElement.scrollWidth <= window.innerWidth")
            driver.set_window_size(1280, 900)
        taken.add(name)

    ann, bea = browsers(), browsers()
    wait_ann, wait_bea = WebDriverWait(ann, 20), WebDriverWait(bea, 20)
    ann.get(server + "/")
    wait_ann.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#create-deck option"))
    decks = [o.text for o in ann.find_elements(By.CSS_SELECTOR, "#create-deck option")]
    assert decks == ["small", "tiny", "mid"]  # the host's decks, nothing typed
    ann.find_element(By.ID, "create-name").send_keys("Ann")
    ann.find_element(By.ID, "create-title").send_keys("Friday night")
    seats = ann.find_element(By.ID, "create-seats")
    seats.clear()
    seats.send_keys("3")
    limit = ann.find_element(By.ID, "create-score-limit")
    limit.clear()
    limit.send_keys("8")
    Select(ann.find_element(By.ID, "create-deck")).select_by_value("small")
    shot(ann, "create")
    ann.find_element(By.ID, "create-submit").click()
    wait_ann.until(lambda d: screen(d) == "lobby")
    invite = ann.find_element(By.ID, "invite-link").get_attribute("value")
    watch = ann.find_element(By.ID, "watch-link").get_attribute("value")
    assert "_" not in invite.rsplit("/", 1)[1]
    assert ann.find_element(By.ID, "recovery-code").text

    bea.get(invite)
    wait_bea.until(lambda d: d.find_element(By.ID, "join-submit").is_displayed())
    shot(bea, "join")
    bea.find_element(By.ID, "join-name").send_keys("Bea")
    bea.find_element(By.ID, "join-submit").click()
    wait_bea.until(lambda d: screen(d) == "lobby")
    shot(ann, "lobby")
    bea_play_tab = bea.current_window_handle
    bea.switch_to.new_window("tab")  # the spectator, in a tab of Bea's browser
    bea.get(watch)
    spectator_tab = bea.current_window_handle
    bea.switch_to.window(bea_play_tab)
    ann.find_element(By.ID, "start").click()

    lost_link, offline_checked, html_checked = False, False, False
    deadline = time.monotonic() + 150
    done: set[str] = set()
    while done != {"ann", "bea"}:
        assert time.monotonic() < deadline, (screen(ann), screen(bea))
        for who, driver in (("ann", ann), ("bea", bea)):
            current = screen(driver)
            try:
                if current == "over":
                    done.add(who)
                elif current == "tell":
                    shot(driver, "tell")
                    assert driver.title.startswith("● Your turn")
                    assert "Your turn" in driver.find_element(By.ID, "announce").text
                    click_cards(driver, 1)
                    clue = driver.find_element(By.ID, "clue")
                    if who == "ann" and not offline_checked:
                        driver.execute_cdp_cmd("Network.enable", {})
                        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
                            "offline": True, "latency": 0, "downloadThroughput": -1,
                            "uploadThroughput": -1})
                        driver.execute_script("play.socket.close()")
                        WebDriverWait(driver, 10).until(
                            lambda d: d.find_element(By.ID, "offline").is_displayed())
                        clue.send_keys("a quiet storm")
                        driver.find_element(By.ID, "tell").click()
                        assert driver.find_element(By.ID, "clue").get_attribute(
                            "value") == "a quiet storm"  # the typed clue is kept
                        shot(driver, "offline")
                        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
                            "offline": False, "latency": 0, "downloadThroughput": -1,
                            "uploadThroughput": -1})
                        WebDriverWait(driver, 20).until(lambda d: screen(d) != "tell")
                        assert not driver.find_element(By.ID, "offline").is_displayed()
                        offline_checked = True
                        continue
                    clue.send_keys(HTML_CLUE)
                    driver.find_element(By.ID, "tell").click()
                    WebDriverWait(driver, 10).until(lambda d: screen(d) != "tell")
                elif current in ("play", "vote"):
                    shot(driver, current, phone=current == "vote")
                    count = 1
                    if current == "play":
                        count = 2 if "2" in driver.find_element(By.ID, "play").text else 1
                    click_cards(driver, count)
                    driver.find_element(By.ID, current).click()
                    WebDriverWait(driver, 10).until(lambda d, c=current: screen(d) != c)
                elif current == "reveal":
                    clue_text = driver.find_element(By.CSS_SELECTOR, ".reveal h2 .clue").text
                    if HTML_CLUE in clue_text:
                        assert not driver.find_elements(By.CSS_SELECTOR, "#stage h2 b")
                        html_checked = True
                    shot(driver, "reveal")
                    if who == "bea" and not lost_link:
                        # Bea loses her /play link: the invite link brings her back to her seat.
                        driver.get(server + "/")
                        driver.get(invite)
                        WebDriverWait(driver, 20).until(
                            lambda d: "/play" in d.current_url and screen(d))
                        names = driver.find_elements(By.CSS_SELECTOR, ".player.me .name")
                        assert names and names[0].text == "Bea"
                        lost_link = True
                        continue
                    driver.find_element(By.ID, "continue").click()
            except (StaleElementReferenceException, IndexError):
                continue
        time.sleep(0.05)

    assert lost_link and offline_checked and html_checked
    shot(ann, "over")
    rows = ann.find_elements(By.CSS_SELECTOR, "#final-scores tr")
    page_scores = {int(row.get_attribute("data-seat")):
                   int(row.find_element(By.CSS_SELECTOR, ".final-score").text) for row in rows}
    link = ann.find_element(By.ID, "record-link").get_attribute("href")
    record = GameRecord.from_json(httpx.get(link, timeout=10).text)
    replay_record(record)
    assert page_scores == dict(enumerate(record.final_scores))
    assert [a.get("player") for a in record.header["agents"][:2]] == ["Ann", "Bea"]
    assert str(record.header["seed"]) in ann.find_element(By.ID, "deal").text
    # Full bot names, never cut off.
    for name in ann.find_elements(By.CSS_SELECTOR, ".player .name"):
        assert name.text in ("Ann", "Bea", "random bot 1")
        assert ann.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth",
                                  name)
    # The spectator saw the game end and never a hand.
    bea.switch_to.window(spectator_tab)
    WebDriverWait(bea, 20).until(lambda d: screen(d) in ("reveal", "over"))
    assert "watching" in bea.find_element(By.ID, "table-title").text
    shot(bea, "spectator")
    alts = [img.get_attribute("alt") for img in bea.find_elements(By.CSS_SELECTOR, ".card img")]
    assert alts and all(alt.startswith("card: ") and len(alt) > 8 for alt in alts)
    bea.switch_to.window(bea_play_tab)
    # Rules help, history, and a rematch with the same seats.
    ann.find_element(By.ID, "help-button").click()
    assert "reaches 8 points" in ann.find_element(By.ID, "panel-body").text
    shot(ann, "help")
    ann.find_element(By.ID, "panel-close").click()
    ann.find_element(By.ID, "history-button").click()
    WebDriverWait(ann, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#history-list li"))
    assert len(ann.find_elements(By.CSS_SELECTOR, "#history-list li")) == len(record.rounds)
    shot(ann, "history")
    ann.find_element(By.ID, "panel-close").click()
    ann.find_element(By.ID, "rematch").click()
    for driver in (ann, bea):
        WebDriverWait(driver, 20).until(lambda d: screen(d) == "lobby")
        # The lobby is drawn again as each page reconnects: read its seats between drawings.
        names = WebDriverWait(driver, 10).until(lobby_names)
        assert "Ann" in names[0] and "Bea" in names[1]
        assert driver.find_element(By.ID, "recovery-code").text  # the code moved too
    shot(bea, "rematch")
    expected = {"create", "join", "lobby", "tell", "play", "vote", "reveal", "offline", "over",
                "spectator", "help", "history", "rematch"}
    assert expected <= taken, expected - taken


def test_my_tables_a_seat_given_by_the_creator_and_reactions(
        server: str, browsers: Callable[[], Any]) -> None:
    """Ann's browser lists her tables; Bea, with no token or code, asks Ann for her seat from
    the invite page, Ann gives it from her lobby, and a reaction reaches Bea's page."""
    for _ in range(200):  # the bots may still be warming up
        response = httpx.post(f"{server}/api/tables", json={
            "name": "Ann", "title": "Friday night", "seats": 3, "deck": "small",
            "bots": "random"})
        if response.status_code != 503:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    made = response.json()
    joined = httpx.post(f"{server}/api/invites/{made['invite']}/join",
                        json={"name": "Bea"}).json()
    ann, bea = browsers(), browsers()
    wait_ann, wait_bea = WebDriverWait(ann, 20), WebDriverWait(bea, 20)
    ann.get(f"{server}/")
    ann.execute_script("localStorage.setItem('dixit-seats', JSON.stringify(arguments[0]))",
                       {made["invite"]: {"token": made["token"], "code": None},
                        "gone": {"token": "stale-token", "code": None}})
    ann.get(f"{server}/")
    wait_ann.until(lambda d: d.find_element(By.ID, "my-tables").is_displayed())
    links = ann.find_elements(By.CSS_SELECTOR, "#my-tables-list a")
    assert [link.text for link in links] == ["Friday night"]  # the stale token dropped out
    links[0].click()
    wait_ann.until(lambda d: screen(d) == "lobby")

    bea.get(f"{server}/join/{made['invite']}")
    bea.find_element(By.CSS_SELECTOR, "#recover summary").click()
    wait_bea.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#recover-seat option")) == 2)
    Select(bea.find_element(By.ID, "recover-seat")).select_by_visible_text("Bea")
    bea.find_element(By.ID, "ask-name").send_keys("Bea on her phone")
    bea.find_element(By.ID, "ask-submit").click()
    wait_bea.until(lambda d: "waiting" in d.find_element(By.ID, "ask-status").text)
    wait_ann.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#reclaim-requests [data-approve]"))
    assert "Bea on her phone" in ann.find_element(By.ID, "reclaim-requests").text
    ann.find_element(By.CSS_SELECTOR, "#reclaim-requests [data-approve]").click()
    wait_bea.until(lambda d: "/play#t=" in d.current_url and screen(d) == "lobby")
    assert httpx.get(f"{server}/api/state",
                     headers={"X-Seat-Token": joined["token"]}).status_code == 401
    wait_ann.until(lambda d: not d.find_element(By.ID, "reclaim-requests").is_displayed())

    # The reactions are OpenMoji's images (not the browser's emoji font, which may lack some),
    # each with its emoji as alt text; all six load.
    bar = "#reactions button img.emoji"
    wait_bea.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, bar)) == 6)
    loaded = bea.execute_script(  # wait for each image, then report what it drew
        "return Promise.all([...document.querySelectorAll(arguments[0])].map((img) =>"
        " img.decode().catch(() => null).then(() => [img.getAttribute('src'), img.alt,"
        " img.complete, img.naturalWidth])));", bar)
    assert [(src, alt) for src, alt, _complete, _width in loaded] == [
        (f"/reactions/{name}.svg", emoji) for name, emoji in REACTIONS.items()]
    assert all(complete and width > 0 for _src, _alt, complete, width in loaded), loaded
    feed = bea.find_element(By.ID, "reaction-feed")
    assert feed.get_attribute("aria-live") == "polite"
    ann.find_element(By.CSS_SELECTOR, "#reactions [data-reaction=laugh]").click()
    wait_bea.until(lambda d: "Ann" in d.find_element(By.ID, "reaction-feed").text)
    shown = bea.find_element(By.CSS_SELECTOR, "#reaction-feed .reaction img.emoji")
    assert shown.get_attribute("alt") == "\U0001F602"
    assert shown.get_attribute("src") == f"{server}/reactions/laugh.svg"
    wait_bea.until(lambda d: d.execute_script(
        "const img = document.querySelector('#reaction-feed img.emoji');"
        " return img !== null && img.complete && img.naturalWidth > 0;"))


def test_the_second_tab_warning_goes_once_the_other_tab_closes(
        server: str, browsers: Callable[[], Any]) -> None:
    """Before, the warning stayed on the page for good after the second tab was closed."""
    made = httpx.post(server + "/api/tables", json={"name": "Ann", "seats": 3, "deck": "small",
                                                    "bots": "random"}).json()
    ann = browsers()
    wait = WebDriverWait(ann, 20)
    link = f"{server}/play#t={made['token']}"
    ann.get(link)
    wait.until(lambda d: screen(d) != "")
    first = ann.current_window_handle
    ann.switch_to.new_window("tab")
    ann.get(link)
    wait.until(lambda d: screen(d) != "")
    ann.switch_to.window(first)
    wait.until(lambda d: d.find_element(By.ID, "notice").is_displayed())
    assert "also open in another tab" in ann.find_element(By.ID, "notice").text
    ann.switch_to.window(next(h for h in ann.window_handles if h != first))
    ann.close()
    ann.switch_to.window(first)
    wait.until(lambda d: not d.find_element(By.ID, "notice").is_displayed())
    assert [entry for entry in ann.get_log("browser") if entry["level"] == "SEVERE"] == []
