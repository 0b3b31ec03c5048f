"""Accessibility of the play page in a real browser (Debian's chromium through Selenium): the
keyboard focus and a clue being typed survive the redraws another seat's connection causes,
nothing takes the focus, selected cards say so (aria-pressed), the live region says each new
screen (a turn with its clue, a reveal with the seat's points), the reveal's cards say in words
who played and who voted, and the Rules panel behaves as a dialog.

Ann plays in the browser; Bea is a person driven over HTTP (her WebSocket, opened and closed
here, is what makes Ann's page draw itself again); the other seats are random bots.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.web.test_browser import CHROMEDRIVER, CHROMIUM, browsers, screen, server

pytestmark = pytest.mark.skipif(
    CHROMIUM is None or CHROMEDRIVER is None,
    reason="needs Debian's chromium and chromium-driver")

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

__all__ = ["browsers", "server"]  # the fixtures, shared with test_browser


def new_table(base: str, **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A 4-seat table: Ann (seat 0, the creator), Bea (seat 1, joined), two random bots."""
    body = {"name": "Ann", "seats": 4, "deck": "small", "bots": "random", "score_limit": 30,
            **extra}
    for _ in range(200):  # the bots may still be warming up
        response = httpx.post(f"{base}/api/tables", json=body, timeout=60)
        if response.status_code != 503:
            break
        time.sleep(0.1)
    assert response.status_code == 200, response.text
    made = response.json()
    bea = httpx.post(f"{base}/api/invites/{made['invite']}/join", json={"name": "Bea"})
    assert bea.status_code == 200, bea.text
    return made, bea.json()


def bea_state(base: str, bea: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = httpx.get(f"{base}/api/state",
                                      headers={"X-Seat-Token": bea["token"]}).json()
    return state


def bea_act(base: str, bea: dict[str, Any], message: dict[str, Any]) -> None:
    response = httpx.post(f"{base}/api/action", headers={"X-Seat-Token": bea["token"]},
                          json=message)
    assert response.status_code == 200, response.text


class Visit:
    """Bea's page opening its WebSocket and closing it: every seat's page is sent the state
    again (Bea online, then offline), and draws itself again."""

    def __init__(self, base: str, bea: dict[str, Any], driver: Any) -> None:
        self.url = base.replace("http", "ws", 1) + "/ws"
        self.token = bea["token"]
        self.driver = driver

    def online(self, on: bool) -> bool:
        return bool(self.driver.execute_script(
            "const d = document.querySelector('.player[data-seat=\"1\"] .dot');"
            " return d !== null && d.classList.contains('on');") == on)

    def __call__(self) -> None:
        with connect(self.url) as socket:
            socket.send(json.dumps({"type": "hello", "token": self.token}))
            WebDriverWait(self.driver, 10).until(lambda d: self.online(True))
        WebDriverWait(self.driver, 10).until(lambda d: self.online(False))


def focused(driver: Any) -> dict[str, Any]:
    """What has the focus: its id, data-card, data-position, aria-pressed, tag."""
    result: dict[str, Any] = driver.execute_script(
        "const e = document.activeElement; return {tag: e.tagName, id: e.id,"
        " card: e.dataset.card, position: e.dataset.position,"
        " pressed: e.getAttribute('aria-pressed')};")
    return result


def focus(driver: Any, selector: str, index: int) -> dict[str, Any]:
    """Focus the ``index``-th match of ``selector`` (at once: the page may draw itself again
    between two WebDriver calls); what has the focus then."""
    driver.execute_script("document.querySelectorAll(arguments[0])[arguments[1]].focus()",
                          selector, index)
    return focused(driver)


def settled(driver: Any, pending: list[int]) -> bool:
    """Whether only ``pending`` are still to act (the bots have moved: no redraw coming)."""
    return bool(driver.execute_script("return play.state.game.pending.join() === arguments[0]",
                                      ",".join(map(str, pending))))


def keys(driver: Any, *typed: str) -> None:
    """Keys to whatever has the focus (as a person types: nothing is clicked first)."""
    ActionChains(driver).send_keys(*typed).perform()


def announced(driver: Any) -> str:
    return str(driver.find_element(By.ID, "announce").get_attribute("textContent"))


def test_the_focus_and_a_clue_being_typed_survive_redraws_and_turns_are_announced(
        server: str, browsers: Callable[[], Any]) -> None:
    made, bea = new_table(server)
    ann = browsers()
    wait = WebDriverWait(ann, 20)
    visit = Visit(server, bea, ann)
    ann.get(f"{server}/play#t={made['token']}")
    wait.until(lambda d: screen(d) == "lobby")
    ann.find_element(By.ID, "start").click()
    wait.until(lambda d: screen(d) == "tell")  # round 1: Ann (seat 0) tells
    assert "Your turn: you are the storyteller" in announced(ann)

    # The clue: typed before a card is chosen, Bea connects; the next keystrokes still land.
    ann.find_element(By.ID, "clue").send_keys("half a cl")
    visit()
    assert focused(ann)["id"] == "clue"
    keys(ann, "ue")
    assert ann.find_element(By.ID, "clue").get_attribute("value") == "half a clue"

    # A card chosen by keyboard keeps the focus, says it is pressed; a redraw takes nothing.
    card = focus(ann, "#stage .card.selectable", 0)["card"]
    keys(ann, Keys.SPACE)
    now = focused(ann)
    assert (now["card"], now["pressed"]) == (card, "true")
    assert ann.find_element(By.CSS_SELECTOR, f'#stage [data-card="{card}"] .check'
                            ).get_attribute("aria-hidden") == "true"
    visit()
    assert focused(ann)["card"] == card  # not moved to the clue, nor to the page
    others = ann.find_elements(By.CSS_SELECTOR, "#stage .card.selectable[aria-pressed=false]")
    assert len(others) == len(ann.find_elements(By.CSS_SELECTOR, "#stage .card")) - 1
    ann.find_element(By.ID, "tell").click()
    wait.until(lambda d: screen(d) == "wait-play")

    bea_act(server, bea, {"type": "play", "cards": bea_state(server, bea)["game"]["hand"][:1]})
    state = bea_state(server, bea)
    deadline = time.monotonic() + 20
    while state["game"]["phase"] != "vote" or 1 not in state["game"]["pending"]:
        assert time.monotonic() < deadline, state["game"]
        time.sleep(0.05)
        state = bea_state(server, bea)
    bea_act(server, bea, {"type": "vote",
                          "positions": state["game"]["legal_vote_positions"][:1]})

    # The reveal: its news in the live region, its cards' owners and voters in words.
    wait.until(lambda d: screen(d) == "reveal")
    wait.until(lambda d: announced(d).startswith("Round 1 revealed: "))
    wait.until(lambda d: settled(d, [1]))  # Bea tells next
    assert "you scored +" in announced(ann)
    words = [label.get_attribute("textContent")
             for label in ann.find_elements(By.CSS_SELECTOR, "#stage .card .label")]
    assert all("played by " in w for w in words) and len(words) == 4
    assert sum("the storyteller's card, played by Ann" in w for w in words) == 1
    assert any("votes: Bea" in w for w in words)
    chips = ann.find_elements(By.CSS_SELECTOR, "#stage .voters")
    assert chips and all(c.get_attribute("aria-hidden") == "true" for c in chips)
    # The others' rows of the points are worded for them, not as the reader's own.
    for row in ann.find_elements(By.CSS_SELECTOR, "table.points tbody tr"):
        if row.get_attribute("data-seat") != "0":
            assert "your" not in row.get_attribute("textContent")

    # Round 2: Bea tells; Ann's turn is announced with Bea's clue, once the reveal is left.
    bea_act(server, bea, {"type": "tell", "card": bea_state(server, bea)["game"]["hand"][0],
                          "clue": "moon"})
    wait.until(lambda d: d.execute_script("return play.state.game.phase") == "play")
    wait.until(lambda d: settled(d, [0]))
    assert "Your turn" not in announced(ann)  # the reveal is still on screen
    ann.find_element(By.ID, "continue").click()
    wait.until(lambda d: screen(d) == "play")
    assert announced(ann).startswith("Your turn. Bea's clue is “moon”.")
    assert focused(ann)["tag"] == "H2"  # the Next button went: the new screen's heading
    card = focus(ann, "#stage .card.selectable", 1)["card"]
    keys(ann, Keys.ENTER)
    assert (focused(ann)["card"], focused(ann)["pressed"]) == (card, "true")
    ann.find_element(By.ID, "play").click()

    # The vote: the focused board position survives Bea's visit.
    wait.until(lambda d: screen(d) == "vote")
    wait.until(lambda d: settled(d, [0]))
    position = focus(ann, "#stage .card.selectable:enabled", 0)["position"]
    assert position is not None
    visit()
    assert focused(ann)["position"] == position
    keys(ann, Keys.ENTER)
    assert (focused(ann)["position"], focused(ann)["pressed"]) == (position, "true")

    # A click on one's own card says why it cannot be chosen (a disabled button said nothing).
    own = ann.find_element(By.CSS_SELECTOR, "#stage .card.mine")
    assert own.get_attribute("aria-disabled") == "true"
    ann.execute_script("arguments[0].click()", own)
    wait.until(lambda d: "That is your card" in d.find_element(By.ID, "toast").text)
    # On a phone the board runs below the fold: the Vote button stays in sight beside it.
    ann.set_window_size(390, 560)
    ann.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    top, bottom, height, scrolled = ann.execute_script(
        "const r = document.getElementById('vote').getBoundingClientRect();"
        " return [r.top, r.bottom, window.innerHeight, window.scrollY];")
    assert scrolled > 0 and 0 <= top and bottom <= height


def test_the_rules_panel_is_a_dialog_and_the_spectators_lobby_has_no_invite(
        server: str, browsers: Callable[[], Any]) -> None:
    made, _bea = new_table(server)
    ann = browsers()
    wait = WebDriverWait(ann, 20)
    ann.get(f"{server}/play#t={made['token']}")
    wait.until(lambda d: screen(d) == "lobby")
    for field, name in (("invite-link", "private invite link"), ("watch-link", "spectator link")):
        assert ann.find_element(By.ID, field).get_attribute("aria-label") == name
    watch = ann.find_element(By.ID, "watch-link").get_attribute("value")
    assert ann.find_elements(By.TAG_NAME, "h1")[0].text.startswith("Dixit table")

    helper = ann.find_element(By.ID, "help-button")
    ann.execute_script("arguments[0].focus()", helper)
    keys(ann, Keys.ENTER)
    panel = ann.find_element(By.ID, "panel")
    assert panel.is_displayed()
    title = ann.find_element(By.ID, panel.get_attribute("aria-labelledby"))
    assert title.text == "How to play"
    assert ann.execute_script("return document.getElementById('panel').contains("
                              "document.activeElement)")
    keys(ann, Keys.ESCAPE)
    assert not panel.is_displayed()
    assert focused(ann)["id"] == "help-button"

    # A spectator's lobby: the watch link, and no invite (there was "...undefined").
    spectator = browsers()
    spectator.get(watch)
    WebDriverWait(spectator, 20).until(lambda d: screen(d) == "lobby")
    assert not spectator.find_elements(By.ID, "invite-link")
    assert not spectator.find_elements(By.ID, "copy-invite")
    assert "undefined" not in spectator.find_element(By.ID, "stage").text
