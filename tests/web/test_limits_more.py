"""The last of the web tables' limits: messages per socket (a page that floods its table is
refused, then closed), seat requests withdrawn as their page goes, and the limits held by the
one server process."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dixit_ai.web.config import ServerConfig, load_server_config
from tests.web.conftest import create, join, manager_of, server_offering
from tests.web.playing import until

LIMIT = 20


def _hello(socket: Any, **hello: str) -> None:
    socket.send_text(json.dumps({"type": "hello", **hello}))
    until(socket, "state")


def _answers(socket: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` answers to this socket's own frames (states and the like skipped)."""
    got: list[dict[str, Any]] = []
    while len(got) < count:
        message = socket.receive_json()
        if message["type"] in ("history", "pong", "error"):
            got.append(message)
    return got


def test_a_seat_flooding_its_socket_is_refused_then_closed_and_the_table_goes_on(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(socket_messages_per_minute=LIMIT))
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    with client.websocket_connect("/ws") as flood, client.websocket_connect("/ws") as honest:
        _hello(flood, token=bea.token)
        _hello(honest, token=ann.token)
        for ref in range(LIMIT):  # the hello was one message already
            flood.send_text(json.dumps({"type": "history", "ref": ref}))
        answers = _answers(flood, LIMIT)
        assert [a["type"] for a in answers] == ["history"] * (LIMIT - 1) + ["error"]
        refused = answers[-1]
        assert refused["status"] == 429 and refused["ref"] == LIMIT - 1
        assert (f"too many messages on one socket: at most {LIMIT} every 60 seconds"
                in refused["message"])
        # the other seat's socket is not counted with it
        honest.send_text(json.dumps({"type": "ping", "ref": 1}))
        assert until(honest, "pong")["ref"] == 1
        # a sustained flood: as many refused again, and the socket is closed (1008)
        for ref in range(LIMIT):
            flood.send_text(json.dumps({"type": "ping", "ref": ref}))
        last: dict[str, Any] = {}
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(10 * LIMIT):
                last = flood.receive_json()
        assert closed.value.code == 1008
        assert last["status"] == 429 and "the socket is closed" in last["message"]
        honest.send_text(json.dumps({"type": "ping", "ref": 2}))
        assert until(honest, "pong")["ref"] == 2
    assert not manager_of(client).socket_limits._times  # forgotten with their sockets
    assert bea.state()["you"]["seat"] == bea.seat  # the seat itself is untouched


def test_a_spectator_and_a_client_that_never_says_hello_are_limited_too(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(socket_messages_per_minute=LIMIT))
    made, _ann = create(client)
    with client.websocket_connect("/ws") as watcher:
        _hello(watcher, watch=made["watch"])
        for ref in range(LIMIT):  # the hello was one message already
            watcher.send_text(json.dumps({"type": "history", "ref": ref}))
        answers = _answers(watcher, LIMIT)
        assert answers[-1]["status"] == 429 and answers[-2]["type"] == "history"
    with client.websocket_connect("/ws") as stranger:
        for _ in range(LIMIT):
            stranger.send_text("not json")
        for _ in range(LIMIT):
            assert stranger.receive_json()["status"] == 400
        stranger.send_text("not json")
        assert "too many messages on one socket" in stranger.receive_json()["message"]


def test_no_socket_limit_when_turned_off(app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(socket_messages_per_minute=0))
    _made, ann = create(client)
    with client.websocket_connect("/ws") as socket:
        _hello(socket, token=ann.token)
        for ref in range(300):
            socket.send_text(json.dumps({"type": "ping", "ref": ref}))
        assert all(a["type"] == "pong" for a in _answers(socket, 300))


def test_the_socket_limit_is_a_setting_checked_like_the_others(tmp_path: Path) -> None:
    assert ServerConfig().socket_messages_per_minute >= 300  # far above what a page sends
    path = tmp_path / "server.toml"
    path.write_text("socket_messages_per_minute = 500\n", encoding="utf-8")
    assert load_server_config(path).socket_messages_per_minute == 500
    for bad in (-1, 2.5, True):
        with pytest.raises(ValueError, match="socket_messages_per_minute must be a whole"):
            ServerConfig(socket_messages_per_minute=bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- seat requests


def test_a_withdrawn_seat_request_leaves_the_creators_list_at_once(
        client: TestClient) -> None:
    made, ann = create(client)
    join(client, made["invite"], "Bea")
    with client.websocket_connect("/ws") as creator:
        _hello(creator, token=ann.token)
        asked = client.post(f"/api/invites/{made['invite']}/reclaim",
                            json={"seat": 1, "name": "Cy"})
        assert asked.status_code == 200, asked.text
        secret = asked.json()["request"]
        listed = until(creator, "state")["you"]["reclaim_requests"]
        assert [r["name"] for r in listed] == ["Cy"]
        gone = client.post(f"/api/reclaims/{secret}/withdraw")
        assert gone.status_code == 200, gone.text
        assert until(creator, "state")["you"]["reclaim_requests"] == []
    assert ann.state()["you"]["reclaim_requests"] == []
    assert client.get(f"/api/reclaims/{secret}").status_code == 404
    again = client.post(f"/api/reclaims/{secret}/withdraw")  # nothing left to withdraw
    assert again.status_code == 404 and "no such seat request" in again.json()["error"]


def test_an_answered_request_is_not_withdrawn_under_the_creator(client: TestClient) -> None:
    made, ann = create(client)
    join(client, made["invite"], "Bea")
    secret = client.post(f"/api/invites/{made['invite']}/reclaim",
                         json={"seat": 1, "name": "Cy"}).json()["request"]
    request_id = ann.state()["you"]["reclaim_requests"][0]["id"]
    assert ann.send({"type": "reclaim_answer", "request": request_id,
                     "approve": False}).status_code == 200
    assert client.post(f"/api/reclaims/{secret}/withdraw").status_code == 200
    assert client.get(f"/api/reclaims/{secret}").status_code == 404


# ---------------------------------------------------------------------- one process


def test_serve_runs_one_process_whose_memory_holds_the_limits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The limits live in the server process's memory: ``serve`` hands uvicorn the app object
    itself (several workers would need an import string) and no ``workers``."""
    import uvicorn

    from dixit_ai.cli import main
    from tests.web.servers import free_port

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    assert main(["serve", "--db", str(tmp_path / "a.db"), "--port", str(free_port()),
                 "--bot", "random"]) == 0
    (args, kwargs), = calls
    assert not isinstance(args[0], str) and kwargs.get("workers") in (None, 1)
    assert "reload" not in kwargs


# ---------------------------------------------------------------------- reconnecting


def test_a_seat_reconnecting_in_a_loop_is_refused_before_it_floods_the_table(
        app_factory: Callable[..., TestClient]) -> None:
    """Each connection of a seat (and each close) sends every socket at the table the state: a
    seat that connects again and again would flood the others. Past the limit a connection is
    refused (429, naming it; closed 4429, which the page retries after its back-off)."""
    client = app_factory(server=server_offering(seat_connections_per_minute=LIMIT))
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    manager = manager_of(client)
    sent: list[int] = []
    manager.listeners.append(lambda table_id, seat, message: sent.append(seat))
    refused: dict[str, Any] = {}
    for _ in range(3 * LIMIT):
        with client.websocket_connect("/ws") as socket:
            socket.send_text(json.dumps({"type": "hello", "token": bea.token}))
            first = socket.receive_json()
            if first["type"] == "error":
                refused = first
                with pytest.raises(WebSocketDisconnect) as closed:
                    socket.receive_json()
                assert closed.value.code == 4429
                break
    assert refused["status"] == 429
    assert f"too many connections to one seat: at most {LIMIT} every 60" in refused["message"]
    assert len(sent) <= 4 * LIMIT
    assert ann.state()["you"]["seat"] == 0  # the others' seats are untouched
    with client.websocket_connect("/ws") as socket:  # another seat is not counted with it
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        assert until(socket, "state")["you"]["seat"] == 0


def test_the_connection_limit_is_a_setting_checked_like_the_others() -> None:
    assert ServerConfig().seat_connections_per_minute >= 60
    with pytest.raises(ValueError, match="seat_connections_per_minute must be a whole"):
        ServerConfig(seat_connections_per_minute=-1)


# ---------------------------------------------------------------------- spectators


def _watch_until_refused(client: TestClient, watch: str, tries: int) -> tuple[int, Any]:
    """Open spectators' sockets (kept open) until one is refused: how many were let in, and
    the refusal."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        for opened in range(tries):
            socket = stack.enter_context(client.websocket_connect("/ws"))
            socket.send_text(json.dumps({"type": "hello", "watch": watch}))
            first = socket.receive_json()
            if first["type"] == "error":
                with pytest.raises(WebSocketDisconnect) as closed:
                    socket.receive_json()
                assert closed.value.code == 4429
                return opened, first
    raise AssertionError(f"{tries} spectators' sockets were all let in")


def test_one_address_cannot_open_spectators_sockets_without_end(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every broadcast goes to every spectator's socket: thousands of them from one address
    would make each move of the table cost thousands of sends."""
    from dixit_ai.web import connections

    monkeypatch.setattr(connections, "MAX_SPECTATORS_PER_ADDRESS", 3)
    made, _ann = create(client)
    opened, refused = _watch_until_refused(client, made["watch"], 10)
    assert opened == 3 and refused["status"] == 429
    assert "3 spectators' sockets from your address" in refused["message"]
    assert manager_of(client).tables[made["table_id"]].spectators == set()  # all let go


def test_a_table_takes_so_many_spectators(client: TestClient,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from dixit_ai.web import connections

    monkeypatch.setattr(connections, "MAX_SPECTATORS", 4)
    made, _ann = create(client)
    opened, refused = _watch_until_refused(client, made["watch"], 10)
    assert opened == 4 and refused["status"] == 429
    assert "already has 4 spectators" in refused["message"]


def test_a_seat_cannot_hold_sockets_open_without_end(
        app_factory: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """The connection rate alone lets a seat pile up open sockets minute after minute, each
    sent every change of the table."""
    from contextlib import ExitStack

    from dixit_ai.web import connections

    monkeypatch.setattr(connections, "MAX_SOCKETS_PER_SEAT", 3)
    client = app_factory(server=server_offering(seat_connections_per_minute=0))
    made, ann = create(client)
    with ExitStack() as stack:
        for _ in range(3):
            socket = stack.enter_context(client.websocket_connect("/ws"))
            _hello(socket, token=ann.token)
        socket = stack.enter_context(client.websocket_connect("/ws"))
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        refused = socket.receive_json()
        assert refused["status"] == 429 and "3 sockets" in refused["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4429
        assert len(manager_of(client).tables[made["table_id"]].connections[0]) == 3


# ---------------------------------------------------------------------- names


@pytest.mark.parametrize("name", ["Ann", "ann", " ANN ", "A\u200bnn", "\uff21nn", "Ann\u00a0"])
def test_a_newcomer_cannot_take_a_name_already_at_the_table(client: TestClient,
                                                              name: str) -> None:
    """Two 'Ann's at one table (or 'A\u200bnn', which shows as 'Ann') would let a newcomer
    pass for the creator in the seats, the scores and the reactions."""
    made, ann = create(client)
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": name})
    assert response.status_code == 409, response.text
    assert "Ann" in response.json()["error"] and "another name" in response.json()["error"]
    assert [s["name"] for s in ann.state()["table"]["seats"]][1:] == [None, None, None]
    assert join(client, made["invite"], "Anna").seat == 1  # a different name is welcome


def test_a_socket_that_never_says_hello_is_closed(client: TestClient,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A page says hello as its socket opens; sockets held open without one (thousands, from
    a script) would each hold a connection of the server for ever."""
    from dixit_ai.web import app

    monkeypatch.setattr(app, "HELLO_SECONDS", 0.2)
    with client.websocket_connect("/ws") as socket:
        refused = socket.receive_json()  # nothing sent: the server gives up waiting
        assert refused["status"] == 408 and "hello" in refused["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 4408
