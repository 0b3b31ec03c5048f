"""What friends expect: spectators (public information only), history, rules help, captions,
rematch with the same seats, idle clean-up (records kept) and bots with a memory."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from dixit_ai.agents import RandomAgent, Story, register_agent
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.rules import RuleSet, observe
from dixit_ai.web.app import create_app
from dixit_ai.web.messages import PUBLIC_KEYS, game_payload, rules_help
from tests.web.conftest import (
    Pace,
    Seat,
    create,
    join,
    manager_of,
    progress,
    server_offering,
    simple_move,
)
from tests.web.playing import play_out, record_of, true_states


def test_a_spectator_sees_public_information_only_and_cannot_act(client: TestClient) -> None:
    sent: list[tuple[int, dict[str, Any]]] = []
    manager_of(client).listeners.append(lambda table, seat, m: sent.append((seat, m)))
    made, ann = create(client, seats=4, score_limit=8, seed=5)
    bea = join(client, made["invite"], "Bea")
    with client.websocket_connect("/ws") as watcher:
        watcher.send_text(json.dumps({"type": "hello", "watch": made["watch"]}))
        first = watcher.receive_json()
        assert first["you"]["spectator"] is True and first["game"] is None
        assert "invite_path" not in first["table"]
        watcher.send_text(json.dumps({"type": "vote", "positions": [0], "ref": 1}))
        error = watcher.receive_json()
        assert error["status"] == 403 and "spectators" in error["message"]
        ann.send({"type": "start"})
        play_out([ann, bea])
    public = client.get(f"/api/watch/{made['watch']}").json()
    assert public["game"]["phase"] == "over" and len(public["history"]) >= 2
    session = manager_of(client).tables[made["table_id"]].session
    assert session is not None
    truth = true_states(session)
    watched = [m for seat, m in sent if seat == -1 and m["type"] == "state" and m["game"]]
    assert len(watched) > 20
    for message in watched:
        state = truth[message["event"]]
        assert set(message["game"]) == set(PUBLIC_KEYS)
        for seat in range(4):  # the public part of every seat's view, and nothing else
            view = game_payload(observe(state, seat))
            assert message["game"] == {k: view[k] for k in PUBLIC_KEYS}
        hands = set().union(*(set(h) for h in state.hands)) | set(state.draw_pile)
        assert not (set(message["game"]["board"]) & hands)
        if state.phase.value == "play":  # the storyteller's card: not even as a board card
            assert message["game"]["board"] == []
        # Shuffling every hidden card (hands, draw pile) changes nothing the spectator is told.
        hidden = [c for h in state.hands for c in h] + list(state.draw_pile)
        order = np.random.default_rng(message["event"]).permutation(len(hidden))
        shuffled = [hidden[i] for i in order]
        hands_now, k = [], 0
        for hand in state.hands:
            hands_now.append(tuple(shuffled[k:k + len(hand)]))
            k += len(hand)
        permuted = state.__class__(**{**state.__dict__, "hands": tuple(hands_now),
                                      "draw_pile": tuple(shuffled[k:])})
        view = game_payload(observe(permuted, 0))
        assert message["game"] == {key: view[key] for key in PUBLIC_KEYS}


def test_history_rules_help_and_captions(client: TestClient) -> None:
    made, ann = create(client, seats=3, edition="odyssey-2024", bots=["random", "random"],
                       score_limit=6)
    ann.send({"type": "start"})
    final = play_out([ann])
    rounds = ann.client.get("/api/history", headers=ann.headers).json()["rounds"]
    record = record_of(client, made["table_id"])
    assert [r["clue"] for r in rounds] == [r.clue for r in record.rounds]
    assert all(len(r["board"]) == 5 for r in rounds)
    help_text = " ".join(final["table"]["rules_help"])
    assert "odyssey-2024, 3 players: 7 cards" in help_text and "up to 2 votes" in help_text
    assert "single vote scores 1 more" in help_text and "reaches 6 points" in help_text
    editions = client.get("/api/options").json()["editions"]
    lines = {e["name"]: " ".join(e["rules_help"]) for e in editions}
    assert "everyone else 2" in lines["refresh-2021"] and "(one vote," in lines["refresh-2021"]
    assert "at most 3 a round" in lines["odyssey-2011"]
    assert "draw pile runs out" in lines["original-2008"]
    three = " ".join(rules_help(RuleSet.edition("original-2008"), 3))
    assert "exactly one guesser finds the card, the storyteller and that guesser score 4" in three
    captions = client.get(f"/api/tables/{made['table_id']}/captions").json()
    assert len(captions) == 40 and all(isinstance(c, str) and c for c in captions.values())


def test_a_rematch_keeps_the_seats_with_a_new_seed(client: TestClient) -> None:
    made, ann = create(client, seats=3, bots=["random", "random"], score_limit=5)
    joined = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Bea"}).json()
    bea = Seat(client, joined["token"], joined["seat"])
    assert ann.send({"type": "rematch"}).status_code == 409  # not before the end
    ann.send({"type": "start"})
    before = play_out([ann, bea])
    assert bea.send({"type": "rematch"}).status_code == 403
    assert ann.send({"type": "rematch"}).status_code == 200
    for seat, name in ((ann, "Ann"), (bea, "Bea")):
        state = seat.state()
        assert state["table"]["id"] != made["table_id"] and state["table"]["status"] == "lobby"
        assert state["you"]["name"] == name
        assert [s["name"] for s in state["table"]["seats"]] == ["Ann", "Bea", None]
        fairness = state["table"]["fairness"]
        assert fairness["experiment"] is False and fairness["seed"] is None
        assert fairness["commitment"] != before["table"]["fairness"]["commitment"]
    record_of(client, made["table_id"])  # the finished game's record stays
    invite = ann.state()["table"]["invite_path"].rsplit("/", 1)[1]
    assert invite != made["invite"]
    moved = client.post(f"/api/invites/{invite}/recover",  # Bea's code moved with her seat
                        json={"seat": 1, "code": joined["recovery_code"]})
    assert moved.status_code == 200, moved.text
    bea = Seat(client, moved.json()["token"], 1)
    assert ann.send({"type": "start"}).status_code == 200
    final = play_out([ann, bea])
    assert final["table"]["fairness"]["seed"] != before["table"]["fairness"]["seed"]


def test_idle_tables_are_cleaned_up_and_their_records_kept(
        tmp_path: Path, app_factory: Callable[..., TestClient]) -> None:
    client = app_factory("idle.sqlite3", server=server_offering(idle_cleanup=0.4))
    made, ann = create(client, score_limit=5)
    ann.send({"type": "start"})
    play_out([ann])
    lobby, _creator = create(client)
    deadline = time.monotonic() + 10
    while manager_of(client).tables and time.monotonic() < deadline:
        time.sleep(0.1)
    assert manager_of(client).tables == {}
    record = client.get(f"/api/tables/{made['table_id']}/record.json")
    assert record.status_code == 200
    replay_record(GameRecord.from_json(record.text))
    response = client.get("/api/state", headers=ann.headers)
    assert response.status_code == 410 and "record" in response.json()["error"]
    assert client.get("/api/state", headers={"X-Seat-Token": lobby["token"]}).status_code == 410


class MemoryAgent(RandomAgent):
    """A random bot that numbers its tales: its memory of the game shows in its clues."""

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        super().reset(seat=seat, rng=rng)
        self.told = 0

    def tell(self, view: Any) -> Story:
        story = super().tell(view)
        self.told += 1
        return Story(card=story.card, clue=f"tale {self.told} of seat {self.seat}")


register_agent("memory", "tests.web.test_friends:MemoryAgent", overwrite=True)
MEMORY_TABLE = {"name": "Ann", "seats": 3, "deck": "small", "bots": ["memory", "memory"],
                "score_limit": 25, "seed": 77, "experiment": True, "leave_grace": 600}


def drive(seat: Seat, until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    pace = Pace()
    while time.monotonic() < deadline:
        state = seat.state()
        if until(state) or state["game"]["phase"] == "over":
            return state
        if 0 in state["game"]["pending"]:
            assert seat.send(simple_move(state["game"])).status_code == 200
        pace.sleep(progress(state))
    raise AssertionError("stuck")


def test_bots_remember_the_game_and_a_restart_changes_nothing(tmp_path: Path) -> None:
    server = server_offering("memory")

    def start(db: str) -> TestClient:
        client = TestClient(create_app(tmp_path / db, durable=False, server=server))
        client.__enter__()
        assert manager_of(client).warmup.done.wait(30)
        return client

    client = start("whole.sqlite3")
    made = client.post("/api/tables", json=MEMORY_TABLE).json()
    ann = Seat(client, made["token"], 0)
    ann.send({"type": "start"})
    drive(ann, lambda s: False)
    whole = client.get(f"/api/tables/{made['table_id']}/record.json").text
    client.__exit__(None, None, None)
    record = GameRecord.from_json(whole)
    for seat in (1, 2):
        clues = [r.clue for r in record.rounds if r.storyteller == seat]
        assert len(clues) >= 2
        assert clues == [f"tale {k + 1} of seat {seat}" for k in range(len(clues))]

    client = start("halted.sqlite3")
    made = client.post("/api/tables", json=MEMORY_TABLE).json()
    ann = Seat(client, made["token"], 0)
    ann.send({"type": "start"})
    drive(ann, lambda s: s["game"]["round"] >= 4)
    client.__exit__(None, None, None)  # the bots' minds are gone with the server
    client = start("halted.sqlite3")
    try:
        drive(Seat(client, made["token"], 0), lambda s: False)
        resumed = client.get(f"/api/tables/{made['table_id']}/record.json").text
    finally:
        client.__exit__(None, None, None)
    assert resumed == whole


def slow_prepare(*, progress: Callable[[str], None] | None = None, **options: Any) -> None:
    """A prepare step that takes a while (as embedding a vocabulary does)."""
    if progress is not None:
        progress("embedding 3 pretend cards ... 0.8 s")
    time.sleep(0.8)


register_agent("slow", "dixit_ai.agents.random_agent:RandomAgent", overwrite=True,
               prepare="tests.web.test_friends:slow_prepare")


def test_a_bot_is_offered_only_once_warm_and_the_log_says_so(
        tmp_path: Path, caplog: Any) -> None:
    caplog.set_level("INFO", logger="dixit_ai.web")
    client = TestClient(create_app(tmp_path / "warm.sqlite3", durable=False,
                                   server=server_offering("random", "slow")))
    client.__enter__()
    try:
        statuses = {b["name"]: b["status"] for b in client.get("/api/options").json()["bots"]}
        assert set(statuses) == {"random", "slow"} and statuses["slow"] in ("warming", "ready")
        if statuses["slow"] == "warming":
            response = client.post("/api/tables", json={"name": "Ann", "deck": "small",
                                                        "bots": ["slow"] * 3})
            assert response.status_code == 409 and "warming up" in response.json()["error"]
        assert manager_of(client).warmup.done.wait(30)
        bots = client.get("/api/options").json()["bots"]
        assert all(b["status"] == "ready" and b["available"] for b in bots)
        _made, ann = create(client, bots=["slow"] * 3)
        assert ann.send({"type": "start"}).status_code == 200
        ann.wait(lambda s: s["event"] >= 0 and 0 in s["game"]["pending"])
    finally:
        client.__exit__(None, None, None)
    lines = [r.getMessage() for r in caplog.records]
    assert "embedding 3 pretend cards ... 0.8 s" in lines
    assert any(line.startswith("bot slow ready") for line in lines)


class UnloadableAgent(RandomAgent):
    """A bot whose model is missing: it cannot tell."""

    def tell(self, view: Any) -> Story:
        raise OSError("model file missing")


register_agent("unloadable", "tests.web.test_friends:UnloadableAgent", overwrite=True,
               prepare="tests.web.test_friends:slow_prepare")


def test_a_bot_that_cannot_warm_up_is_not_offered(app_factory: Callable[..., TestClient]
                                                  ) -> None:
    client = app_factory(server=server_offering("random", "unloadable"))
    bots = {b["name"]: b for b in client.get("/api/options").json()["bots"]}
    assert bots["random"]["available"] and not bots["unloadable"]["available"]
    assert bots["unloadable"]["status"] == "failed"
    assert "model file missing" in bots["unloadable"]["problem"]
    response = client.post("/api/tables", json={"name": "Ann", "deck": "small",
                                                "bots": ["unloadable"] * 3})
    assert response.status_code == 503 and "model file missing" in response.json()["error"]
