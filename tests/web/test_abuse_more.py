"""What one client cannot do to everyone else at the web tables: block every table with bad
tokens (each one looked up in the database), flood the server with tables or seat requests,
hold a table's seat requests with requests nobody follows any more, or get a seat given to
someone who has gone."""

from __future__ import annotations

import functools
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dixit_ai.web import social
from dixit_ai.web.config import ServerConfig, server_config_from_options
from tests.web.conftest import create, join, manager_of, server_offering
from tests.web.playing import until


def test_unknown_tokens_are_looked_up_off_the_event_loop(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, an unknown seat token (over HTTP, at a socket's hello, or on a socket whose
    seat was recovered elsewhere) was looked up in SQLite on the event loop's thread: every
    table waited while it ran. Now the look-up runs in the database's thread."""
    made, _ann = create(client)
    joined = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Bea"}).json()
    manager = manager_of(client)
    original = manager.store.table_of_token
    threads: list[str] = []

    def spying(digest: str) -> Any:
        threads.append(threading.current_thread().name)
        return original(digest)

    monkeypatch.setattr(manager.store, "table_of_token", spying)
    response = client.get("/api/state", headers={"X-Seat-Token": "not-a-token"})
    assert response.status_code == 401
    assert client.post("/api/action", headers={"X-Seat-Token": "nope"},
                       json={"type": "ping"}).status_code == 401
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": "nope"}))
        assert until(socket, "error")["status"] == 401
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": joined["token"]}))
        until(socket, "state")
        recovered = client.post(f"/api/invites/{made['invite']}/recover",
                                json={"seat": 1, "code": joined["recovery_code"]})
        assert recovered.status_code == 200   # the socket's token opens nothing now
        assert until(socket, "error")["status"] == 401
        socket.send_text(json.dumps({"type": "ping", "ref": 1}))
        assert until(socket, "error")["status"] == 401
    assert threads, "no look-up happened"
    assert all(name.startswith("dixit-db") for name in threads), threads


def test_a_cleaned_up_tables_token_still_gets_its_410_from_the_database_thread(
        client: TestClient) -> None:
    made, ann = create(client)
    manager = manager_of(client)
    manager._unregister(manager.tables[made["table_id"]])
    response = ann.client.get("/api/state", headers=ann.headers)
    assert response.status_code == 410
    assert f"/api/tables/{made['table_id']}/record.json" in response.json()["error"]


def test_one_client_cannot_open_tables_without_bound(app_factory: Any) -> None:
    client = app_factory(server=server_offering(tables_per_minute=3))
    for _ in range(3):
        create(client)
    response = client.post("/api/tables", json={"name": "Ann", "seats": 3, "deck": "small"})
    assert response.status_code == 429
    assert "at most 3 every 60 seconds" in response.json()["error"]
    assert "tables" in response.json()["error"]
    assert len(manager_of(client).tables) == 3   # nothing was created


def test_one_client_cannot_send_seat_requests_without_bound(app_factory: Any) -> None:
    client = app_factory(server=server_offering(seat_requests_per_minute=4))
    made, _ann = create(client, seats=6)
    join(client, made["invite"], "Bea")
    join(client, made["invite"], "Cy")
    url = f"/api/invites/{made['invite']}/reclaim"
    assert client.post(url, json={"seat": 1, "name": "Eve"}).status_code == 200
    assert client.post(f"/api/invites/{made['invite']}/recover",
                       json={"seat": 1, "code": "aaaa-bbbb-cccc"}).status_code == 403
    response = client.post(url, json={"seat": 1, "name": "Eve"})
    assert response.status_code == 429, response.text
    assert "seat requests" in response.json()["error"]
    assert "at most 4 every 60 seconds" in response.json()["error"]
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": "Dee"})
    assert response.status_code == 429
    table = manager_of(client).tables[made["table_id"]]
    assert len(table.reclaims) == 1 and table.names[3] is None   # nothing changed


def test_the_reactions_limit_is_the_same_limiter(client: TestClient) -> None:
    """The reactions' limit and the clients' limits are one class (dixit_ai.web.limits)."""
    from dixit_ai.web.limits import RateLimiter

    made, _ann = create(client)
    table = manager_of(client).tables[made["table_id"]]
    assert isinstance(table.reaction_limits, RateLimiter)
    assert isinstance(manager_of(client).client_limits, RateLimiter)


def ask(client: TestClient, invite: str, name: str, address: str, seat: int = 1
        ) -> dict[str, Any]:
    """A seat request from the client address ``address`` (the test client has one)."""
    manager = manager_of(client)
    portal = client.portal
    assert portal is not None
    answer: dict[str, Any] = portal.call(functools.partial(
        manager.request_reclaim, invite, {"seat": seat, "name": name}, client=address))
    return answer


def test_one_address_cannot_fill_a_tables_seat_requests(client: TestClient) -> None:
    """Before, one person could fill the table's five request slots by asking again and
    again: nobody else could ask the creator for a seat."""
    made, ann = create(client)
    join(client, made["invite"], "Bea")
    url = f"/api/invites/{made['invite']}/reclaim"
    for _ in range(social.MAX_PENDING_RECLAIMS_PER_CLIENT):
        assert client.post(url, json={"seat": 1, "name": "Eve"}).status_code == 200
    response = client.post(url, json={"seat": 1, "name": "Eve"})
    assert response.status_code == 429
    assert "from your address" in response.json()["error"]
    assert ask(client, made["invite"], "Bea again", "10.0.0.2")["status"] == "pending"
    assert [r["name"] for r in ann.state()["you"]["reclaim_requests"]] == [
        "Eve", "Eve", "Bea again"]


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_requests_nobody_follows_lapse_and_free_the_tables_slots(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, a request stayed pending until the creator answered it: five requests whose
    pages had gone filled the table's slots for good (every later one: 429)."""
    clock = _Clock()
    monkeypatch.setattr(social, "_clock", clock)
    made, ann = create(client)
    join(client, made["invite"], "Bea")
    url = f"/api/invites/{made['invite']}/reclaim"
    secrets = [ask(client, made["invite"], f"P{i}", f"10.0.0.{i}")["request"]
               for i in range(social.MAX_PENDING_RECLAIMS)]
    assert client.post(url, json={"seat": 1, "name": "late"}).status_code == 429
    clock.now += social.RECLAIM_LAPSES_AFTER / 2
    assert client.get(f"/api/reclaims/{secrets[0]}").json()["status"] == "pending"  # followed
    clock.now += social.RECLAIM_LAPSES_AFTER / 2 + 1
    shown = ann.state()["you"]["reclaim_requests"]
    assert [request["name"] for request in shown] == ["P0"]   # the others lapsed
    response = client.post(url, json={"seat": 1, "name": "late"})
    assert response.status_code == 200
    lapsed = client.get(f"/api/reclaims/{secrets[1]}")
    assert lapsed.status_code == 404
    assert "lapsed" in lapsed.json()["error"] or "forgotten" in lapsed.json()["error"]


def test_a_seat_is_not_given_to_a_requester_who_has_gone(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, the creator could approve a request whose page had stopped asking: the seat's
    holder lost their token and nobody collected the new one."""
    clock = _Clock()
    monkeypatch.setattr(social, "_clock", clock)
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    secret = client.post(f"/api/invites/{made['invite']}/reclaim",
                         json={"seat": 1, "name": "Bea again"}).json()["request"]
    request = ann.state()["you"]["reclaim_requests"][0]
    clock.now += social.RECLAIM_LAPSES_AFTER + 1
    response = ann.send({"type": "reclaim_answer", "request": request["id"], "approve": True})
    assert response.status_code == 409, response.text
    assert "has gone" in response.json()["error"]
    assert bea.state()["you"]["seat"] == 1          # Bea keeps her seat
    assert ann.state()["you"]["reclaim_requests"] == []
    assert client.get(f"/api/reclaims/{secret}").status_code == 404


def test_bots_of_the_config_file_and_of_the_flags_are_checked_alike(tmp_path: Path) -> None:
    config = tmp_path / "server.toml"
    config.write_text('bots = ["nobody"]\n', encoding="utf-8")
    with pytest.raises(ValueError) as from_file:
        server_config_from_options(config=config)
    with pytest.raises(ValueError) as from_flag:
        server_config_from_options(bots=["nobody"])
    file_message, flag_message = str(from_file.value), str(from_flag.value)
    assert file_message.startswith(f"{config}: bots: ")
    assert flag_message.startswith("--bot: ")
    assert file_message.removeprefix(f"{config}: bots: ") == flag_message.removeprefix(
        "--bot: ")
    config.write_text('bots = ["random", 3]\n', encoding="utf-8")
    with pytest.raises(ValueError,
                       match="bots: bots must be a list of bot names, and 3 is not one"):
        server_config_from_options(config=config)
    config.write_text('bots = ["random", "random"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="'random' is listed twice"):
        server_config_from_options(config=config)
    with pytest.raises(ValueError, match=r"--bot: .*'random' is listed twice"):
        server_config_from_options(bots=["random", "random"])
    assert ServerConfig(bots=("random",)).offered_bots() == ["random"]


def test_a_limiter_forgets_senders_whose_window_is_past() -> None:
    from dixit_ai.web.limits import RateLimiter

    clock = _Clock()
    limiter = RateLimiter(clock)
    limiter.take(("a", 1, 10.0, "things"))
    with pytest.raises(Exception, match="too many things: at most 1 every 10 seconds"):
        limiter.take(("a", 1, 10.0, "things"), ("b", 5, 10.0, "others"))
    limiter.take(("b", 5, 10.0, "others"))   # the refused take counted nothing
    clock.now += 11
    for key in range(RateLimiter.MAX_IDLE_KEYS + 1):
        limiter.take((key, 1, 10.0, "things"))
    assert len(limiter) == RateLimiter.MAX_IDLE_KEYS + 1   # "a" and "b" were dropped
    limiter.take(("a", 1, 10.0, "things"))                 # and start afresh


def test_one_client_cannot_flood_the_database_thread_with_unknown_tokens(
        app_factory: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each unknown token costs a look-up in the database's one thread, which every table's
    moves are written through: past the seat-request limit, an address's unknown tokens are
    refused without one."""
    client = app_factory(server=server_offering(seat_requests_per_minute=2))
    _made, ann = create(client)
    manager = manager_of(client)
    original = manager.store.table_of_token
    looked_up: list[str] = []

    def counting(digest: str) -> Any:
        looked_up.append(digest)
        return original(digest)

    monkeypatch.setattr(manager.store, "table_of_token", counting)
    for _ in range(2):
        assert client.get("/api/state", headers={"X-Seat-Token": "nope"}).status_code == 401
    response = client.get("/api/state", headers={"X-Seat-Token": "nope"})
    assert response.status_code == 429
    assert "unknown seat tokens" in response.json()["error"]
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": "nope"}))
        assert until(socket, "error")["status"] == 429
    assert len(looked_up) == 2
    assert ann.state()["you"]["seat"] == 0            # a known token is never counted
