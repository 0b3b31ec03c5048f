"""Fair seeds: secret, drawn by the server, committed to at the start and revealed at the end;
fixed only on tables marked as experiments, and then shown to everyone."""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi.testclient import TestClient

from dixit_ai.web.fairness import commitment
from dixit_ai.web.session import Session
from tests.web.conftest import create, join, manager_of
from tests.web.playing import int_values, play_out


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def test_a_creator_fixes_a_seed_only_on_an_experiment_table_shown_to_all(
        client: TestClient) -> None:
    response = client.post("/api/tables", json={"name": "Ann", "deck": "small", "seed": 424242})
    assert response.status_code == 400 and "experiment" in response.json()["error"]
    assert manager_of(client).tables == {}
    made, ann = create(client, seed=424242, experiment=True)
    bea = join(client, made["invite"], "Bea")
    for seat in (ann, bea):
        fairness = seat.state()["table"]["fairness"]
        assert fairness["experiment"] is True and fairness["seed"] == "424242"
    summary = client.get(f"/api/invites/{made['invite']}").json()["table"]
    assert summary["fairness"]["experiment"] is True and summary["fairness"]["seed"] == "424242"


def test_nothing_received_before_the_end_reveals_the_seed_or_another_hand(
        client: TestClient) -> None:
    """Property: for several tables with server-drawn seeds, no message to a seat or a spectator
    before the end holds the seed or the salt, and no number or text in them, tried as a seed,
    deals another seat's hand; at the end the seed and salt are published and verify."""
    sent: list[tuple[str, int, dict[str, Any]]] = []
    manager_of(client).listeners.append(lambda table, seat, m: sent.append((table, seat, m)))
    commitments = set()
    for _ in range(3):
        body = {"name": "Ann", "seats": 4, "deck": "small", "bots": "random", "score_limit": 6,
                "leave_grace": 600}
        made = client.post("/api/tables", json=body).json()
        assert set(made) >= {"token", "watch", "recovery_code"}
        bea = join(client, made["invite"], "Bea")
        from tests.web.conftest import Seat
        ann = Seat(client, made["token"], 0)
        with client.websocket_connect("/ws") as watcher:
            watcher.send_text(json.dumps({"type": "hello", "watch": made["watch"]}))
            watcher.receive_json()
            ann.send({"type": "start"})
            final = play_out([ann, bea])
        table = manager_of(client).tables[made["table_id"]]
        session = table.session
        assert session is not None and session.state.is_over
        fairness = final["table"]["fairness"]
        assert fairness["seed"] == str(table.seed) and fairness["salt"] == table.salt
        assert fairness["commitment"] == commitment(int(fairness["seed"]), fairness["salt"])
        commitments.add(fairness["commitment"])
        # The published seed deals the recorded game.
        replay = Session(rules=session.rules, seed=int(fairness["seed"]), seats=session.seats,
                         card_ids=session.card_ids, deck_entry=session.deck_entry)
        for event in session.events:
            replay.apply(event)
        assert replay.state.scores == session.state.scores
        start = Session(rules=session.rules, seed=table.seed, seats=session.seats,
                        card_ids=session.card_ids, deck_entry=session.deck_entry).state
        before_end = [(seat, m) for t, seat, m in sent if t == table.id
                      and not (m.get("type") == "state" and m["table"]["status"] == "over")]
        assert len(before_end) > 20
        candidates: set[int] = set()
        for _seat, message in before_end:
            text = json.dumps(message)
            assert str(table.seed) not in text and table.salt not in text
            if message.get("type") == "state":
                assert message["table"]["fairness"]["commitment"] == fairness["commitment"]
                assert message["table"]["fairness"]["seed"] is None
            candidates |= {v for v in int_values(message) if 0 <= v < 2**62}
            for s in strings(message):
                candidates |= {int(n) for n in re.findall(r"\d+", s) if int(n) < 2**62}
                candidates |= {int(h, 16) % 2**62 for h in re.findall(r"[0-9a-f]{16,}", s)}
        for guess in sorted(candidates):
            dealt = Session(rules=session.rules, seed=guess, seats=session.seats,
                            card_ids=session.card_ids, deck_entry=session.deck_entry).state
            for other in range(4):
                assert dealt.hands[other] != start.hands[other], (guess, other)
        sent.clear()
    assert len(commitments) == 3  # a fresh secret seed (and salt) for every table
