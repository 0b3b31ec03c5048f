"""Time limits in a real browser (Debian's chromium through Selenium), for people who need more
time: the move timer is announced at 20 s and at 10 s left; a takeover is announced and puts
the focus on *Take my seat back*; the reveal's countdown does not move a person who stays on
it (the *Stay on this reveal* button, or the keyboard focus inside the reveal). Also the reveal
at 320 px wide (no sideways scrolling), its chips' contrast, and the create form's visible bot
descriptions."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.web.test_browser import CHROMEDRIVER, CHROMIUM, browsers, screen, server
from tests.web.test_browser_access import announced, focus, focused, keys

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

__all__ = ["browsers", "server"]  # the fixtures, shared with test_browser


def ann_with_bots(base: str, move_timer: int) -> dict[str, Any]:
    """A 4-seat table: Ann (seat 0) and three random bots, a move timer."""
    for _ in range(200):  # the bots may still be warming up
        response = httpx.post(f"{base}/api/tables", json={
            "name": "Ann", "seats": 4, "deck": "small", "bots": "random", "score_limit": 30,
            "move_timer": move_timer}, timeout=60)
        if response.status_code != 503:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    made: dict[str, Any] = response.json()
    return made


def open_and_start(driver: Any, base: str, made: dict[str, Any]) -> None:
    driver.get(f"{base}/play#t={made['token']}")
    WebDriverWait(driver, 20).until(lambda d: screen(d) == "lobby")
    driver.find_element(By.ID, "start").click()
    WebDriverWait(driver, 20).until(lambda d: screen(d) == "tell")


def contrast(fore: str, back: str) -> float:
    """WCAG contrast of two computed ``rgb(...)`` colours."""
    def luminance(colour: str) -> float:
        channels = [int(v) / 255 for v in re.findall(r"\d+", colour)[:3]]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
                   for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    high, low = sorted((luminance(fore), luminance(back)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_move_timer_warns_and_a_takeover_is_announced_with_the_focus_on_reclaim(
        server: str, browsers: Callable[[], Any]) -> None:
    ann = browsers()
    open_and_start(ann, server, ann_with_bots(server, 60))
    # The page's clock, moved on (nobody waits 40 s here): a warning at 20 s, then at 10 s.
    ann.execute_script("play.timerBase = {at: performance.now(), left: 20.3}")
    WebDriverWait(ann, 5).until(lambda d: "seconds left to move" in announced(d))
    assert announced(ann).startswith("20 seconds left to move, then a bot plays for you")
    ann.execute_script("play.timerBase = {at: performance.now(), left: 10.3}")
    WebDriverWait(ann, 5).until(lambda d: announced(d).startswith("10 seconds left"))

    # A real timeout: the seat's bot takes over; said, and the focus is on the way back.
    ann = browsers()
    open_and_start(ann, server, ann_with_bots(server, 2))
    focus(ann, "#stage .card.selectable", 0)
    WebDriverWait(ann, 10).until(lambda d: screen(d) == "taken-over")
    assert focused(ann)["id"] == "reclaim"
    assert announced(ann).startswith("A bot took your seat")


def test_a_reveal_stays_for_who_asks_reflows_at_320_px_and_its_chips_read_well(
        server: str, browsers: Callable[[], Any]) -> None:
    ann = browsers()
    wait = WebDriverWait(ann, 20)
    open_and_start(ann, server, ann_with_bots(server, 60))
    passed = {"stay": False, "keyboard": False}
    deadline = time.monotonic() + 60
    while not all(passed.values()):
        assert time.monotonic() < deadline, screen(ann)
        current = screen(ann)
        if current == "tell":
            ann.execute_script("document.querySelector('#stage .card.selectable').click()")
            ann.find_element(By.ID, "clue").send_keys("a clue")
            ann.find_element(By.ID, "tell").click()
        elif current in ("play", "vote"):
            ann.execute_script("document.querySelector('#stage .card.selectable:enabled').click();"
                               f" document.getElementById('{current}').click();")
        elif current == "reveal" and ann.find_elements(By.ID, "reading"):
            if not passed["stay"]:
                ann.execute_script("document.getElementById('stay').click()")
                passed["stay"] = True
            else:  # a keyboard user inside the reveal stays on it
                focus(ann, "#stage .reveal h2", 0)
                keys(ann, Keys.TAB)
                wait.until(lambda d: not d.find_elements(By.ID, "stay"))
                passed["keyboard"] = True
            wait.until(lambda d: "staying on this reveal" in d.execute_script(
                "return document.getElementById('reading').textContent"))
            ann.execute_script("play.readingBase.left = 0")  # the countdown runs out
            time.sleep(0.6)
            assert screen(ann) == "reveal"
            reveal_checks(ann)
            ann.execute_script("document.getElementById('continue').click()")
        time.sleep(0.05)


def reveal_checks(ann: Any) -> None:
    """On a phone 320 px wide nothing scrolls sideways; every chip's text reads on its colour."""
    chips = ann.execute_script(
        "return [...document.querySelectorAll('#stage .chip')].map((c) => [c.textContent,"
        " getComputedStyle(c).color, getComputedStyle(c).backgroundColor]);")
    assert chips
    for name, fore, back in chips:
        assert contrast(fore, back) >= 4.5, (name, fore, back)
    ann.set_window_size(320, 800)
    try:
        width = ann.execute_script("return window.innerWidth")
        assert width <= 340
        assert ann.execute_script("return document.documentElement.scrollWidth") <= width
    finally:
        ann.set_window_size(1280, 900)


def test_the_create_form_shows_each_seats_bot_description(
        server: str, browsers: Callable[[], Any]) -> None:
    ann = browsers()
    ann.get(server + "/")
    WebDriverWait(ann, 20).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#create-bots select"))
    bots = {b["name"]: b["description"] for b in httpx.get(f"{server}/api/options").json()["bots"]}
    for select in ann.find_elements(By.CSS_SELECTOR, "#create-bots select"):
        about = ann.find_element(By.ID, select.get_attribute("aria-describedby"))
        assert about.is_displayed() and about.text == bots[select.get_attribute("value")]
        assert about.text
