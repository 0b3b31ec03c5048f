"""Playing web tables out in tests: the moves of every person, a table's record, and the
check of every message a seat was sent against the true state (shared by the web tests)."""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.rules import observe
from dixit_ai.web.messages import game_payload
from dixit_ai.web.session import Session
from tests.web.conftest import Pace, Seat, create, join, manager_of, progress, simple_move


def until(socket: Any, kind: str, tries: int = 50) -> dict[str, Any]:
    """The next message of ``kind`` on a test WebSocket (the others are skipped)."""
    for _ in range(tries):
        message = socket.receive_json()
        if message["type"] == kind:
            return dict(message)
    raise AssertionError(f"no {kind!r} message")


def reply_to(socket: Any, ref: int, tries: int = 50) -> dict[str, Any]:
    """The answer (an ``ack`` or an ``error``) to the message sent with ``ref`` on a test
    WebSocket (the other messages are skipped)."""
    for _ in range(tries):
        message = socket.receive_json()
        if message["type"] in ("ack", "error") and message.get("ref") == ref:
            return dict(message)
    raise AssertionError(f"no answer to ref {ref}")


def play_out(seats: list[Seat], timeout: float = 20.0) -> dict[str, Any]:
    """Every person plays :func:`simple_move` whenever it is their turn, until the game ends."""
    deadline = time.monotonic() + timeout
    pace = Pace()
    while time.monotonic() < deadline:
        seen = []
        for seat in seats:
            state = seat.state()
            game = state["game"]
            if game["phase"] == "over":
                return state
            seen.append(progress(state))
            if seat.seat in game["pending"] and state["you"]["controller"] == "human":
                response = seat.send(simple_move(game))
                assert response.status_code in (200, 409), response.text
        pace.sleep(seen)
    raise AssertionError("the game did not end in time")


def record_of(client: TestClient, table_id: str) -> GameRecord:
    response = client.get(f"/api/tables/{table_id}/record.json")
    assert response.status_code == 200, response.text
    return GameRecord.from_json(response.text)


def int_values(value: Any) -> set[int]:
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, dict):
        return set().union(*(int_values(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(int_values(v) for v in value)) if value else set()
    return set()


GAME_KEYS = {"phase", "round", "storyteller", "is_storyteller", "pending", "hand", "clue",
             "clue_kind", "board", "my_cards", "my_positions", "team_positions", "my_votes",
             "legal_vote_positions", "cards_to_play", "max_votes", "scores", "draw_pile_size",
             "score_limit", "winners", "last_round", "mode", "teams", "partner", "can_pass",
             "legal_red_positions", "red_token", "n_rounds"}
META_KEYS = {"id", "title", "status", "edition", "n_players", "deck", "score_limit", "ends",
             "second_vote", "move_timer", "reveal_seconds", "takeover", "seats", "spectators",
             "record_url", "broken", "fairness", "rules_help", "rounds_played", "rematch",
             "invite_path", "watch_path", "n_rounds", "mode", "teams"}
SEAT_KEYS = {"seat", "name", "kind", "bot", "person", "connected", "colour"}


def true_states(session: Session) -> list[Any]:
    """The true state of a table before any event and after each one, rebuilt from its log
    (what every message a seat was sent is checked against)."""
    replay = Session(rules=session.rules, seed=session.seed, seats=session.seats,
                     card_ids=session.card_ids, deck_entry=session.deck_entry)
    truth = [replay.state]
    for event in session.events:
        replay.apply(event)
        truth.append(replay.state)
    return truth


def play_and_check_every_message(client: TestClient, **table: Any) -> GameRecord:
    """Play a table with three people and bots over HTTP, every person on a WebSocket too;
    check every message any seat was sent against the seat's view of the true state."""
    sent: list[tuple[str, int, dict[str, Any]]] = []
    manager_of(client).listeners.append(lambda table, seat, m: sent.append((table, seat, m)))
    made, ann = create(client, **table)
    n = int(table["seats"])
    bea = join(client, made["invite"], "Bea")
    cy = join(client, made["invite"], "Cy")
    humans = [ann, bea, cy]
    sockets = [client.websocket_connect("/ws") for _ in humans]
    try:
        for socket, seat in zip(sockets, humans, strict=True):
            socket.__enter__()
            socket.send_text(json.dumps({"type": "hello", "token": seat.token}))
        ann.send({"type": "start"})
        play_out(humans, timeout=30)
    finally:
        for socket in sockets:
            socket.__exit__(None, None, None)

    session = manager_of(client).tables[made["table_id"]].session
    assert session is not None and session.state.is_over
    truth = true_states(session)
    rules = session.rules

    socket_messages = [m for _, _, m in sent if m.get("type") == "state" and m["game"]]
    assert len(socket_messages) > 100
    checked = 0
    for table_id, seat, message in sent:
        assert table_id == made["table_id"]
        if message["type"] != "state":
            assert set(message) <= {"type", "ref", "event", "message", "status"}, message
            continue
        assert set(message) == {"type", "event", "table", "you", "game"}
        meta = message["table"]
        assert set(meta) == META_KEYS
        for entry in meta["seats"]:
            assert set(entry) == SEAT_KEYS
        if message["game"] is None:
            continue
        state = truth[message["event"]]
        payload = message["game"]
        assert set(payload) == GAME_KEYS
        # 1. The message is exactly the seat's view, nothing more.
        assert payload == game_payload(observe(state, seat))
        # 2. No other seat's hand (a partner's included), anywhere in what this seat is told
        #    (last round aside: it is public once revealed).
        now = {k: v for k, v in payload.items() if k != "last_round"}
        others = set().union(*(set(state.hands[s]) for s in range(n) if s != seat))
        assert not (int_values(now["hand"]) & others)
        assert not (set(now["board"]) & others) and not (set(now["my_cards"]) & others)
        # 3. The storyteller's card (and in Team Dixit the partner's), before the board is
        #    laid, nowhere; after, only as an anonymous board card.
        if state.phase.value == "play":
            hidden_played = {c for s in range(n) if s != seat for c in state.played[s]}
            assert hidden_played.isdisjoint(now["hand"])
            assert now["board"] == [] and now["my_cards"] == list(state.played[seat])
            if seat != state.storyteller and state.played[state.storyteller]:
                assert state.played[state.storyteller][0] not in int_values(now)
        if state.phase.value in ("vote", "red"):
            owners = [i for i, s in enumerate(state.board_owner) if s == seat]
            assert payload["my_positions"] == owners
            # 4. No vote but one's own before the reveal; the red token only to its owner.
            assert payload["my_votes"] == list(state.votes[seat])
            assert "board_owner" not in now and "votes" not in now
        assert payload["red_token"] == (state.red_token if seat == state.storyteller else None)
        # 5. Variant fields from the rules: the pass only for a team's deciding seat now, the
        #    red positions only for the storyteller in the red phase, no hand for a Party
        #    storyteller before the clue.
        assert payload["can_pass"] == (rules.teams and state.phase.value == "play"
                                       and seat in state.pending and seat != state.storyteller
                                       and seat != rules.partner_of(state.storyteller, n)
                                       and (seat - state.storyteller) % n <= n // 2)
        assert payload["legal_red_positions"] == (
            list(range(len(state.board))) if state.phase.value == "red"
            and seat == state.storyteller else [])
        if rules.is_party and state.phase.value == "tell" and seat == state.storyteller:
            assert payload["hand"] == []
        if rules.teams:
            assert payload["partner"] == (seat + n // 2) % n
            if state.phase.value == "vote":
                team = {i for i, s in enumerate(state.board_owner) if s % (n // 2) == seat % (
                    n // 2)}
                assert set(payload["legal_vote_positions"]).isdisjoint(team)
        # 6. Permuting what the seat cannot see changes nothing it is told.
        rng = np.random.default_rng(checked)
        hands = list(state.hands)
        hidden = [c for s in range(n) if s != seat for c in hands[s]] + list(state.draw_pile)
        shuffled = [hidden[i] for i in rng.permutation(len(hidden))]
        k = 0
        for s in range(n):
            if s != seat:
                hands[s] = tuple(shuffled[k:k + len(hands[s])])
                k += len(hands[s])
        permuted = state.__class__(**{**state.__dict__, "hands": tuple(hands),
                                      "draw_pile": tuple(shuffled[k:])})
        assert game_payload(observe(permuted, seat)) == payload
        checked += 1
    assert checked == len(socket_messages)
    record = record_of(client, made["table_id"])
    replay_record(record)
    return record
