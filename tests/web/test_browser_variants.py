"""Team Dixit and Dixit Party in a real browser (Debian's chromium through Selenium): one person
creates the table on the form, plays every phase of a whole game with random bots through the
page's controls (pass to partner / give; announce, play, vote for one's own card, red token),
and the page's final scores match the record, which replays."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from tests.web.test_browser import CHROMEDRIVER, CHROMIUM, browsers, screen, server

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver")

from selenium.common.exceptions import (  # noqa: E402
    StaleElementReferenceException,
    TimeoutException,
)
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

__all__ = ["browsers", "server"]  # the fixtures, shared with test_browser


def open_table(driver: Any, base: str, variant: str) -> None:
    driver.get(base + "/")
    wait = WebDriverWait(driver, 20)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#create-deck option"))
    driver.find_element(By.ID, "create-name").send_keys("Ann")
    Select(driver.find_element(By.ID, "create-edition")).select_by_value("odyssey-2011")
    Select(driver.find_element(By.ID, "create-variant")).select_by_value(variant)
    assert not driver.find_element(By.ID, "score-limit-label").is_displayed()
    help_text = driver.find_element(By.ID, "variant-help").text
    assert ("at most 5" in help_text) if variant == "party" else ("teams of 2" in help_text)
    seats = driver.find_element(By.ID, "create-seats")
    seats.clear()
    seats.send_keys("6")
    Select(driver.find_element(By.ID, "create-deck")).select_by_value("small")
    driver.find_element(By.ID, "create-submit").click()
    wait.until(lambda d: screen(d) == "lobby")
    rules = driver.find_element(By.CSS_SELECTOR, "#stage p.note").text
    assert "6 rounds (each player tells once)" in rules
    driver.find_element(By.ID, "start").click()


def play_through(driver: Any) -> set[str]:
    """Play every turn through the page until the game is over; return the screens seen."""
    seen: set[str] = set()
    deadline = time.monotonic() + 150
    while True:
        assert time.monotonic() < deadline, screen(driver)
        current = screen(driver)
        try:
            if current == "over":
                return seen
            if current in ("announce", "tell"):
                seen.add(current)
                if current == "tell":
                    driver.find_elements(By.CSS_SELECTOR, "#stage .card.selectable")[0].click()
                driver.find_element(By.ID, "clue").send_keys("a lighthouse")
                driver.find_element(By.ID, "announce-clue" if current == "announce"
                                    else "tell").click()
            elif current == "play":
                passes = driver.find_elements(By.ID, "pass")
                if passes and "pass" not in seen:
                    seen.add("pass")
                    passes[0].click()
                else:
                    seen.add("play")
                    driver.find_elements(By.CSS_SELECTOR, "#stage .card.selectable")[0].click()
                    driver.find_element(By.ID, "play").click()
            elif current in ("vote", "red"):
                seen.add(current)
                cards = driver.find_elements(By.CSS_SELECTOR, "#stage .card.selectable")
                mine = [c for c in cards if "mine" in (c.get_attribute("class") or "")]
                (mine or cards)[0].click()  # Party: one's own card may be voted for
                if mine:
                    seen.add("own-vote")
                driver.find_element(By.ID, current).click()
            elif current == "reveal":
                seen.add("reveal")
                if driver.find_elements(By.CSS_SELECTOR, "#stage .red-mark"):
                    seen.add("red-shown")
                driver.find_element(By.ID, "continue").click()
            else:
                time.sleep(0.05)
                continue
            WebDriverWait(driver, 10).until(lambda d, c=current: screen(d) != c)
        except (StaleElementReferenceException, IndexError, TimeoutException):
            # A page that re-rendered under us, or a screen that took longer than 10 s to move on
            # (bots thinking on a loaded machine): look again; the game's deadline still holds.
            time.sleep(0.05)


def check_record(driver: Any) -> GameRecord:
    page = {int(seat): int(score) for seat, score in driver.execute_script(
        "return [...document.querySelectorAll('#final-scores tr')].map(r => "
        "[r.dataset.seat, r.querySelector('.final-score').textContent])")}
    link = driver.find_element(By.ID, "record-link").get_attribute("href")
    record = GameRecord.from_json(httpx.get(link, timeout=10).text)
    replay_record(record)
    assert page == dict(enumerate(record.final_scores)) and len(record.rounds) == 6
    return record


def test_a_party_game_through_the_page(server: str, browsers: Callable[[], Any]) -> None:
    driver = browsers()
    open_table(driver, server, "party")
    seen = play_through(driver)
    assert {"announce", "play", "vote", "own-vote", "red", "reveal", "red-shown"} <= seen, seen
    record = check_record(driver)
    assert record.header["rules"]["mode"] == "party"


def test_a_team_game_through_the_page(server: str, browsers: Callable[[], Any]) -> None:
    driver = browsers()
    open_table(driver, server, "teams")
    teams = driver.execute_script(  # read at once: the list re-renders on every message
        "return [...document.querySelectorAll('.player .badge.team')].map(b => b.textContent)")
    assert teams == ["team 1", "team 2", "team 3"] * 2
    seen = play_through(driver)
    assert {"tell", "play", "pass", "vote", "reveal"} <= seen, seen
    record = check_record(driver)
    assert record.header["rules"]["teams"] is True
