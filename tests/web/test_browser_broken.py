"""A table whose bots stop, seen in a real browser (Debian's chromium through Selenium).

The bots' loop fails the way tests/web/test_bot_failures.py provokes it (``BotMind.decide``
raises: a bug in the table's own code, not a bot's bad move, which would only forfeit): here
at the second round's vote, while the person has to vote too. The server marks the table
broken and refuses every move; the page must say so plainly (a visible alert with the reason,
at the top), stop asking the person to act (no vote, no card to pick, no "Leave: a bot takes
my seat", no "Your turn" in the tab's title, no timer) and offer a way out.

The screenshots go to ``$DIXIT_AI_ARTIFACTS/web_screenshots``, else to the run's temporary
folder (never the checkout).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from dixit_ai.web.bots import BotMind
from tests.web.test_browser import (
    CHROMEDRIVER,
    CHROMIUM,
    artifacts,
    browsers,
    click_cards,
    screen,
    server,
)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

__all__ = ["browsers", "server"]  # the fixtures, shared with test_browser

BUG = "a bug in the bots' loop"


def page_text(driver: Any) -> str:
    try:
        return str(driver.find_element(By.TAG_NAME, "main").text).lower()
    except StaleElementReferenceException:
        return ""


def left(driver: Any, current: str) -> bool:
    """The page moved on from ``current``, or the bots stopped."""
    return screen(driver) != current or "the bots stopped" in page_text(driver)


def test_a_table_whose_bots_stop_says_so_and_asks_nothing_more(
        server: str, browsers: Callable[[], Any], monkeypatch: pytest.MonkeyPatch,
        tmp_path_factory: pytest.TempPathFactory) -> None:
    decide = BotMind.decide

    def failing_decide(self: BotMind, history: Any, decision: int, phase_state: Any) -> Any:
        if phase_state.phase.value == "vote" and phase_state.storyteller != 0:
            raise KeyError(BUG)  # round 2's vote (seat 0 tells first): Ann has played, votes
        return decide(self, history, decision, phase_state)

    monkeypatch.setattr(BotMind, "decide", failing_decide)  # the server runs in this process
    for _ in range(200):  # the bots may still be warming up
        response = httpx.post(f"{server}/api/tables", json={
            "name": "Ann", "title": "Friday night", "seats": 3, "deck": "small",
            "bots": "random", "move_timer": 120})
        if response.status_code != 503:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    made = response.json()

    ann = browsers()
    ann.get(f"{server}/play#t={made['token']}")
    WebDriverWait(ann, 20).until(lambda d: screen(d) == "lobby")
    ann.find_element(By.ID, "start").click()

    # Ann plays through the page until the bots stop: she tells round 1, plays in round 2.
    seen: list[str] = []
    deadline = time.monotonic() + 30
    while "the bots stopped" not in page_text(ann):
        assert time.monotonic() < deadline, (seen, page_text(ann))
        current = screen(ann)
        if not seen or seen[-1] != current:
            seen.append(current)
        try:
            if current == "tell":
                click_cards(ann, 1)
                ann.find_element(By.ID, "clue").send_keys("a quiet storm")
                ann.find_element(By.ID, "tell").click()
                WebDriverWait(ann, 10).until(lambda d: left(d, "tell"))
            elif current == "reveal":
                ann.find_element(By.ID, "continue").click()
            elif current == "play":  # 3 players: 2 cards each
                count = 2 if "2" in ann.find_element(By.ID, "play").text else 1
                click_cards(ann, count)
                ann.find_element(By.ID, "play").click()
                WebDriverWait(ann, 10).until(lambda d: left(d, "play"))
        except (StaleElementReferenceException, IndexError):
            pass
        time.sleep(0.05)
    assert "tell" in seen and "play" in seen, seen  # she did play before it broke
    state = httpx.get(f"{server}/api/state", headers={"X-Seat-Token": made["token"]}).json()
    broken = state["table"]["broken"]
    assert broken and "KeyError" in broken and BUG not in broken  # its text stays in the log
    assert state["game"]["phase"] == "vote" and 0 in state["game"]["pending"]

    shots = artifacts(tmp_path_factory.getbasetemp())
    time.sleep(0.3)
    ann.execute_script("window.scrollTo(0, 0)")
    ann.save_screenshot(str(shots / "web-broken.png"))

    # A clear, visible alert in the banner's place: the table is broken, and why.
    assert screen(ann) == "broken"
    alert = ann.find_element(By.ID, "broken")
    assert alert.is_displayed() and alert.get_attribute("role") == "alert"
    assert "This table is broken" in alert.text
    assert "KeyError" in alert.text and BUG not in alert.text and "cannot go on" in alert.text
    assert ann.execute_script(  # in view without scrolling, and styled apart from the page
        "const r = arguments[0].getBoundingClientRect();"
        "return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 40", alert)
    colours = ann.execute_script(
        "const s = getComputedStyle(arguments[0]);"
        "return [s.backgroundColor, s.borderLeftColor, s.borderLeftWidth]", alert)
    assert colours[0] not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)", "rgb(255, 253, 248)")
    assert colours[2] != "0px", colours
    assert ann.find_element(By.CSS_SELECTOR, "#broken h2").text == (
        "This table is broken: the game cannot go on")
    # It takes the banner's place: no stale "Vote for the storyteller's card" beside it.
    assert not ann.find_element(By.ID, "banner").is_displayed()
    assert "round 2, during the vote" in ann.find_element(By.ID, "broken-where").text
    # Nothing asks Ann to act any more: no move, no card to pick, no takeover, no timer.
    assert not ann.find_elements(By.CSS_SELECTOR, "#vote, #play, #tell, #leave-game")
    assert not ann.find_elements(By.CSS_SELECTOR, "#stage .card.selectable")
    assert not [b for b in ann.find_elements(By.CSS_SELECTOR, "#stage button, #players button")
                if b.is_enabled() and b.is_displayed()]
    assert not ann.title.startswith("●") and "Your turn" not in ann.title
    assert "Your turn" not in ann.find_element(By.ID, "announce").text
    time.sleep(0.3)  # the timer ticks every 250 ms
    assert ann.find_element(By.ID, "timer").text == ""
    assert all(s.text == "" for s in ann.find_elements(By.CSS_SELECTOR, "#players .status"))
    # A way out: back to the start page.
    home = ann.find_element(By.ID, "broken-home")
    assert home.is_displayed() and home.get_attribute("href") == f"{server}/"

    # On a phone the alert is the first thing under the header too.
    ann.set_window_size(390, 844)
    time.sleep(0.3)
    ann.save_screenshot(str(shots / "web-phone-broken.png"))
    assert ann.execute_script(
        "const r = arguments[0].getBoundingClientRect(); return r.top >= 0 && r.top < 300",
        ann.find_element(By.ID, "broken"))
    assert ann.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")

    # A reload shows the same (the state comes from the server, not from the page's memory).
    ann.set_window_size(1280, 900)
    ann.refresh()
    WebDriverWait(ann, 20).until(lambda d: screen(d) == "broken")
    assert "cannot go on" in ann.find_element(By.ID, "broken").text
