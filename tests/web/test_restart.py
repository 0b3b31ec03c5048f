"""Kill the server (SIGKILL) mid-game, start it again on the same database, finish the game:
the record is the one an uninterrupted game with the same seed and moves writes."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from tests.web.conftest import SMALL_DECK, Pace, simple_move
from tests.web.servers import ServerProcess

TABLE = {"name": "Ann", "seats": 4, "deck": SMALL_DECK, "bots": ["random", "random", "random"],
         "score_limit": 12, "seed": 2024, "experiment": True,
         "leave_grace": 600}  # these people play over HTTP only: no socket, yet not gone


def open_table(http: httpx.Client | TestClient) -> tuple[str, list[tuple[str, int]]]:
    """Ann opens the table, Bea joins, Ann starts: two people and two bots."""
    made = http.post("/api/tables", json=TABLE).json()
    bea = http.post(f"/api/invites/{made['invite']}/join", json={"name": "Bea"}).json()
    seats = [(made["token"], 0), (bea["token"], 1)]
    assert http.post("/api/action", json={"type": "start"},
                     headers={"X-Seat-Token": made["token"]}).status_code == 200
    return made["table_id"], seats


def drive(http: httpx.Client | TestClient, seats: list[tuple[str, int]], *,
          stop: Callable[[int], bool] | None = None, timeout: float = 30.0) -> dict[str, Any]:
    """Both people play :func:`simple_move` on their turns until the game ends or ``stop``
    (given the event number acknowledged last) says to stop; returns the last ack or state."""
    deadline = time.monotonic() + timeout
    last_ack = 0
    pace = Pace(first=0.003)
    while time.monotonic() < deadline:
        seen = []
        for token, seat in seats:
            headers = {"X-Seat-Token": token}
            state = http.get("/api/state", headers=headers).json()
            seen.append(state["event"])
            game = state["game"]
            if game["phase"] == "over":
                return state
            if seat in game["pending"]:
                response = http.post("/api/action", json=simple_move(game), headers=headers)
                assert response.status_code == 200, response.text
                last_ack = response.json()["event"]
                if stop is not None and stop(last_ack):
                    return {"ack": last_ack}
        pace.sleep(seen)
    raise AssertionError("the game did not end in time")


def test_a_killed_server_resumes_every_table_exactly(tmp_path: Path,
                                                     app_factory: Callable[..., TestClient]
                                                     ) -> None:
    # The uninterrupted game, in-process.
    client = app_factory("uninterrupted.sqlite3")
    table_id, seats = open_table(client)
    drive(client, seats)
    uninterrupted = client.get(f"/api/tables/{table_id}/record.json").text

    # The same game on a real server, killed twice with SIGKILL.
    db = tmp_path / "killed.sqlite3"
    server = ServerProcess(db)
    try:
        with httpx.Client(base_url=server.url, timeout=10) as http:
            table_id, seats = open_table(http)
            lobby_table = http.get("/api/state", headers={"X-Seat-Token": seats[1][0]}).json()
            # Kill 1: right after a person's move is acknowledged, while the bots answer it.
            acked = drive(http, seats, stop=lambda event: event >= 8)["ack"]
        server.kill()
        server = ServerProcess(db)
        with httpx.Client(base_url=server.url, timeout=10) as http:
            state = http.get("/api/state", headers={"X-Seat-Token": seats[1][0]}).json()
            assert state["event"] >= acked  # nothing acknowledged was lost
            assert state["table"]["id"] == lobby_table["table"]["id"]
            assert state["table"]["invite_path"] == lobby_table["table"]["invite_path"]
            assert [s["name"] for s in state["table"]["seats"]][:2] == ["Ann", "Bea"]
            # Kill 2: a few moves later, at whatever point the bots are.
            acked = drive(http, seats, stop=lambda event: event >= acked + 10)["ack"]
            time.sleep(0.01)
        server.kill()
        server = ServerProcess(db)
        with httpx.Client(base_url=server.url, timeout=10) as http:
            assert http.get("/api/state", headers={
                "X-Seat-Token": seats[0][0]}).json()["event"] >= acked
            final = drive(http, seats)
            resumed = http.get(f"/api/tables/{table_id}/record.json").text
    finally:
        server.kill()

    assert final["game"]["phase"] == "over"
    record = GameRecord.from_json(resumed)
    replay_record(record)
    assert len(record.rounds) >= 3
    assert resumed == uninterrupted
