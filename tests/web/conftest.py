"""Fixtures of the web tests: an app on a temporary database, seats driven over HTTP."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

try:  # the [web] extra; without it only the tests of the missing-extra message run
    from fastapi.testclient import TestClient

    from dixit_ai.web.app import create_app
    from dixit_ai.web.config import ServerConfig
    from dixit_ai.web.manager import TableManager
except ImportError:  # pragma: no cover - exercised on a core-only install
    collect_ignore_glob = ["test_api.py", "test_restart.py", "test_browser.py",
                           "test_load_script.py", "test_clip_bot.py", "test_fairness.py",
                           "test_protocol.py", "test_seats.py", "test_friends.py",
                           "test_variants.py", "test_browser_variants.py", "test_social.py"]

SMALL_DECK = "small"
"""The name of a small deck the test servers offer (fast: its cards render once)."""
TEST_DECKS = {"small": "dream:size=40", "tiny": "dream:size=21", "mid": "dream:size=60"}
"""The decks the test servers offer."""


def server_offering(*bots: str, **options: Any) -> ServerConfig:
    """A server config offering the test decks and ``bots`` (default: random)."""
    return ServerConfig(decks=dict(TEST_DECKS), bots=bots or ("random",), **options)


class Pace:
    """How a polite client polls: soon after something changed, then less and less often
    while nothing does (doubling up to ``most`` seconds), so a seat waiting long sends about
    ten requests a second, well inside the server's ``http_requests_per_minute``."""

    def __init__(self, first: float = 0.005, most: float = 0.1) -> None:
        self.first = first
        self.most = most
        self.delay = first
        self._seen: object = None

    def sleep(self, seen: object) -> None:
        """Sleep before the next poll; ``seen`` is what the last poll found (a change, like a
        new event, starts again from ``first``)."""
        self.delay = self.first if seen != self._seen else min(self.most, self.delay * 2)
        self._seen = seen
        time.sleep(self.delay)


def progress(state: dict[str, Any]) -> tuple[Any, ...]:
    """What a poll of a seat's state compares to tell a change: events, status, seats."""
    table = state.get("table") or {}
    return state.get("event"), table.get("status"), str(table.get("seats"))


class Seat:
    """One person at a table, acting over the HTTP API."""

    def __init__(self, client: TestClient, token: str, seat: int) -> None:
        self.client = client
        self.token = token
        self.seat = seat

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Seat-Token": self.token}

    def state(self) -> dict[str, Any]:
        response = self.client.get("/api/state", headers=self.headers)
        assert response.status_code == 200, response.text
        return response.json()

    def send(self, message: dict[str, Any]) -> Any:
        return self.client.post("/api/action", headers=self.headers, json=message)

    def wait(self, condition: Callable[[dict[str, Any]], bool], timeout: float = 10.0
             ) -> dict[str, Any]:
        """Poll the seat's state until ``condition`` holds (bots move in the background)."""
        deadline = time.monotonic() + timeout
        pace = Pace(first=0.01)
        while True:
            state = self.state()
            if condition(state):
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting; last state: {state}")
            pace.sleep(progress(state))

    def wait_turn(self, timeout: float = 10.0) -> dict[str, Any]:
        """Wait until this seat has to act, or the game is over."""
        return self.wait(lambda s: s["game"] is not None and (
            s["game"]["phase"] == "over" or (self.seat in s["game"]["pending"]
                                             and s["you"]["controller"] == "human")), timeout)


def simple_move(game: dict[str, Any], round_clue: str = "clue") -> dict[str, Any]:
    """A deterministic move from a seat's own view: first card(s), first legal vote.

    Dixit Party: the storyteller announces (no card) and puts the red token on the first
    position. Team Dixit: a seat that may pass passes in even rounds and gives in odd ones.
    """
    if game["phase"] == "tell":
        if game.get("mode") == "party":
            return {"type": "announce", "clue": f"{round_clue} {game['round']}"}
        return {"type": "tell", "card": game["hand"][0], "clue": f"{round_clue} {game['round']}"}
    if game["phase"] == "play":
        if game.get("can_pass") and game["round"] % 2 == 0:
            return {"type": "play", "cards": []}
        return {"type": "play", "cards": game["hand"][:game["cards_to_play"]]}
    if game["phase"] == "red":
        return {"type": "red", "position": game["legal_red_positions"][0]}
    return {"type": "vote", "positions": game["legal_vote_positions"][:1]}


@pytest.fixture
def app_factory(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """Make apps (each a started TestClient) on databases in ``tmp_path``."""
    clients: list[TestClient] = []

    def make(db: str = "tables.sqlite3", **options: Any) -> TestClient:
        options.setdefault("durable", False)
        options.setdefault("server", server_offering())
        client = TestClient(create_app(tmp_path / db, **options))
        client.__enter__()
        clients.append(client)
        assert manager_of(client).warmup.done.wait(120), "the bots did not warm up"
        return client

    yield make
    for client in reversed(clients):
        client.__exit__(None, None, None)


@pytest.fixture
def client(app_factory: Callable[..., TestClient]) -> TestClient:
    return app_factory()


def manager_of(client: TestClient) -> TableManager:
    manager: TableManager = client.app.state.manager  # type: ignore[attr-defined]
    return manager


def create(client: TestClient, **overrides: Any) -> tuple[dict[str, Any], Seat]:
    """Create a table (4 seats, random bots, a short game) and return it with its creator."""
    body: dict[str, Any] = {"name": "Ann", "seats": 4, "deck": SMALL_DECK, "bots": "random",
                            "score_limit": 8, "seed": 11, "experiment": True,
                            "leave_grace": 600}
    body.update(overrides)
    response = client.post("/api/tables", json=body)
    assert response.status_code == 200, response.text
    made = response.json()
    return made, Seat(client, made["token"], made["seat"])


def join(client: TestClient, invite: str, name: str) -> Seat:
    response = client.post(f"/api/invites/{invite}/join", json={"name": name})
    assert response.status_code == 200, response.text
    data = response.json()
    return Seat(client, data["token"], data["seat"])
