"""Seats that survive: recovery codes, a warning for a second tab, timers that respect people."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.web.conftest import Seat, create, join, manager_of, server_offering


def test_a_lost_link_is_recovered_with_the_seats_code(client: TestClient) -> None:
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Cy"})
    code = response.json()["recovery_code"]
    assert len(code) == 14 and code != made["recovery_code"]
    cy_token = response.json()["token"]
    ann.send({"type": "start"})
    url = f"/api/invites/{made['invite']}/recover"
    for body, status in [({"seat": 2, "code": "aaaa-bbbb-cccc"}, 403),
                         ({"seat": 1, "code": code}, 403),
                         ({"seat": 9, "code": code}, 400), ({"seat": 2}, 400)]:
        assert client.post(url, json=body).status_code == status
    recovered = client.post(url, json={"seat": 2, "code": code.upper()})
    assert recovered.status_code == 200, recovered.text
    cy = Seat(client, recovered.json()["token"], 2)
    assert cy.state()["you"]["name"] == "Cy"
    assert client.get("/api/state", headers={"X-Seat-Token": cy_token}).status_code == 401
    assert bea.state()["you"]["seat"] == 1  # others untouched


def test_a_second_tab_on_the_same_seat_is_warned(client: TestClient) -> None:
    made, _ann = create(client)
    with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
        first.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        assert first.receive_json()["type"] == "state"
        second.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        for socket in (first, second):
            seen = [socket.receive_json() for _ in range(2)]
            notices = [m for m in seen if m["type"] == "notice"]
            assert notices and notices[0]["code"] == "second_tab", seen
            assert "another tab" in notices[0]["message"]
        # The second tab closes: the first is told the warning no longer holds. Before, it
        # stayed on the page for good.
        second.close()
        taken_back = first.receive_json()
        while taken_back["type"] != "notice":
            taken_back = first.receive_json()
        assert taken_back == {"type": "notice", "code": "one_tab", "message": None}


def test_late_friends_get_the_spectator_link_from_the_invite(client: TestClient) -> None:
    made, ann = create(client)
    ann.send({"type": "start"})
    summary = client.get(f"/api/invites/{made['invite']}").json()
    assert summary["table"]["status"] == "playing"
    assert summary["watch_path"] == f"/watch/{made['watch']}"
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Dee"})
    assert response.status_code == 409 and "watch" in response.json()["error"]


def states_to(client: TestClient, seat: int) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    manager_of(client).listeners.append(
        lambda table, s, m: sent.append(m) if s == seat and m["type"] == "state" else None)
    return sent


def test_no_timer_runs_while_a_person_reads_the_reveal(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(reveal_seconds=3.0))
    _made, ann = create(client, seats=3, bots=["random", "random"], move_timer=1, score_limit=9)
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    assert ann.send({"type": "tell", "card": game["hand"][0], "clue": "moon"}).status_code == 200
    # The bots play and vote; the reveal comes; Ann must play in round 1 but reads the reveal.
    state = ann.wait(lambda s: s["game"]["round"] == 1 and 0 in s["game"]["pending"])
    assert state["you"]["deadline_in"] is None and 0 < state["you"]["reading_for"] <= 3
    time.sleep(1.5)  # longer than the move timer: no takeover while she reads
    assert ann.state()["you"]["controller"] == "human"
    assert ann.send({"type": "seen", "round": 0}).status_code == 200
    state = ann.state()
    assert state["you"]["reading_for"] is None and 0 < state["you"]["deadline_in"] <= 1
    # Her timer now runs: she lets it run out and a bot takes over.
    ann.wait(lambda s: s["you"]["controller"] == "bot", timeout=5)


def test_a_reveal_left_unread_starts_the_timer_after_the_shown_countdown(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(reveal_seconds=0.5))
    _made, ann = create(client, seats=3, bots=["random", "random"], move_timer=1, score_limit=9)
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    ann.send({"type": "tell", "card": game["hand"][0], "clue": "moon"})
    ann.wait(lambda s: s["game"]["round"] == 1)
    ann.wait(lambda s: s["you"]["controller"] == "bot", timeout=5)


def test_the_time_left_goes_only_to_who_must_act_and_is_for_this_phase(
        client: TestClient) -> None:
    made, ann = create(client, seats=3, bots=["random", "random"], move_timer=30,
                       score_limit=9)
    bea = join(client, made["invite"], "Bea")
    to_bea = states_to(client, 1)
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    assert ann.state()["you"]["deadline_in"] is not None
    assert bea.state()["you"]["deadline_in"] is None  # not hers to act
    ann.send({"type": "tell", "card": game["hand"][0], "clue": "moon"})
    state = bea.wait_turn()
    assert ann.state()["you"]["deadline_in"] is None  # Ann told: nothing to count for her
    time.sleep(1.2)
    assert state["you"]["deadline_in"] is not None
    to_bea.clear()
    game = state["game"]
    response = bea.send({"type": "play", "cards": game["hand"][:game["cards_to_play"]]})
    assert response.status_code == 200, response.text
    event = response.json()["event"]
    voting = bea.wait(lambda s: s["game"]["phase"] == "vote")
    broadcast = [m for m in to_bea if m["event"] >= event and m["game"]["phase"] == "vote"]
    assert broadcast, "no broadcast of the vote phase"
    # The first message of the vote phase counts the vote phase's 30 s, not the play's rest.
    assert broadcast[0]["you"]["deadline_in"] > 29 and voting["you"]["deadline_in"] > 28
