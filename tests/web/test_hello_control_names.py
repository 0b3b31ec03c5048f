"""Three more things one client could do to a server or a table: hold sockets open that never
say hello (thousands, from one address), grow a table's log by leaving and taking a seat back
in a loop, and sit down under a name a bot is given at the start."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dixit_ai.agents import list_agents
from dixit_ai.web.config import ServerConfig, WebError, load_server_config
from dixit_ai.web.names import bot_name, person_name
from tests.web.conftest import Seat, create, join, manager_of, server_offering
from tests.web.playing import reply_to, until

# ---------------------------------------------------------------------- sockets before hello

HELLO_LIMIT = 3


def _refused(socket: Any) -> dict[str, Any]:
    """The refusal a socket is sent as it opens, after which it is closed 4429."""
    refused: dict[str, Any] = socket.receive_json()
    assert refused["type"] == "error", refused
    with pytest.raises(WebSocketDisconnect) as closed:
        socket.receive_json()
    assert closed.value.code == 4429
    return refused


def _let_in(client: TestClient, stack: ExitStack, watch: str) -> Any:
    """Open one more socket and show it was let in: its hello is answered with the state."""
    socket = stack.enter_context(client.websocket_connect("/ws"))
    socket.send_text(json.dumps({"type": "hello", "watch": watch}))
    first = socket.receive_json()
    assert first["type"] == "state", first
    return socket


def _past_the_limit(client: TestClient, stack: ExitStack) -> tuple[list[Any], dict[str, Any]]:
    """Open as many silent sockets as an address may hold before their hello, and one more:
    the silent ones, and the refusal the one more was sent."""
    silent = [stack.enter_context(client.websocket_connect("/ws")) for _ in range(HELLO_LIMIT)]
    return silent, _refused(stack.enter_context(client.websocket_connect("/ws")))


def _waiting(client: TestClient, count: int, timeout: float = 5.0) -> None:
    """Wait until the test client's address holds ``count`` sockets before their hello (a
    socket closed by the client is let go by the server a moment later)."""
    counter = manager_of(client).hello_sockets
    deadline = time.monotonic() + timeout
    while counter.count("testclient") != count:
        assert time.monotonic() < deadline, counter.count("testclient")
        time.sleep(0.01)


def test_one_address_cannot_hold_sockets_open_without_a_hello(
        app_factory: Callable[..., TestClient]) -> None:
    """Before, 3,000 silent sockets from one address were all accepted, each holding about
    75 KB until its hello's deadline (30 s), and could open again at once."""
    client = app_factory(server=server_offering(
        sockets_awaiting_hello_per_address=HELLO_LIMIT))
    made, ann = create(client)
    with ExitStack() as stack:
        silent, refused = _past_the_limit(client, stack)
        assert refused["status"] == 429
        assert ("too many sockets from one address waiting for their hello" in
                refused["message"] and f"at most {HELLO_LIMIT} at once" in refused["message"])
        _waiting(client, HELLO_LIMIT)   # the refused socket was never counted
        # a hello lets its socket go from the count: one more may wait
        silent[0].send_text(json.dumps({"type": "hello", "token": ann.token}))
        assert until(silent[0], "state")["you"]["seat"] == 0
        _waiting(client, HELLO_LIMIT - 1)
        silent.append(stack.enter_context(client.websocket_connect("/ws")))
        _waiting(client, HELLO_LIMIT)
        _refused(stack.enter_context(client.websocket_connect("/ws")))
        # a hello that opens nothing (a bad token: 401, closed) lets it go too
        silent[1].send_text(json.dumps({"type": "hello", "token": "not-a-token"}))
        assert until(silent[1], "error")["status"] == 401
        _waiting(client, HELLO_LIMIT - 1)
        silent[2].close()   # and so does a socket that closes before its hello
        _waiting(client, HELLO_LIMIT - 2)
        _let_in(client, stack, made["watch"])
        _let_in(client, stack, made["watch"])
        _waiting(client, HELLO_LIMIT - 2)   # the spectators said hello: not counted
    _waiting(client, 0)
    assert len(manager_of(client).hello_sockets) == 0   # nothing left behind


def test_a_socket_that_times_out_or_fails_before_its_hello_is_let_go(
        app_factory: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    from dixit_ai.web import app

    monkeypatch.setattr(app, "HELLO_SECONDS", 0.3)
    client = app_factory(server=server_offering(
        sockets_awaiting_hello_per_address=HELLO_LIMIT))
    made, _ann = create(client)
    with ExitStack() as stack:
        silent, _ = _past_the_limit(client, stack)
        for socket in silent:   # nothing sent: each times out (408, closed 4408)
            assert socket.receive_json()["status"] == 408
            with pytest.raises(WebSocketDisconnect) as closed:
                socket.receive_json()
            assert closed.value.code == 4408
        _waiting(client, 0)
        for _ in range(HELLO_LIMIT):
            _let_in(client, stack, made["watch"])
    manager = manager_of(client)

    def failing(socket: object) -> None:
        raise RuntimeError("a failure while reading the hello")

    monkeypatch.setattr(manager, "count_message", failing)
    for _ in range(HELLO_LIMIT + 1):
        with pytest.raises(RuntimeError), client.websocket_connect("/ws") as socket:
            socket.send_text(json.dumps({"type": "hello", "watch": made["watch"]}))
            socket.receive_json()
    _waiting(client, 0)


def test_no_limit_on_sockets_before_their_hello_when_turned_off(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(sockets_awaiting_hello_per_address=0))
    made, _ann = create(client)
    count = ServerConfig().sockets_awaiting_hello_per_address + 5
    with ExitStack() as stack:
        for _ in range(count):
            stack.enter_context(client.websocket_connect("/ws"))
        _waiting(client, count)
        _let_in(client, stack, made["watch"])


def test_by_default_one_address_holds_so_many_sockets_before_their_hello(
        client: TestClient) -> None:
    made, _ann = create(client)
    limit = ServerConfig().sockets_awaiting_hello_per_address
    with ExitStack() as stack:
        for _ in range(limit):
            stack.enter_context(client.websocket_connect("/ws"))
        refused = _refused(stack.enter_context(client.websocket_connect("/ws")))
        assert refused["status"] == 429 and f"at most {limit} at once" in refused["message"]
    _waiting(client, 0)
    with ExitStack() as stack:
        _let_in(client, stack, made["watch"])


def test_the_limits_are_settings_checked_like_the_others(tmp_path: Path) -> None:
    defaults = ServerConfig()
    assert defaults.sockets_awaiting_hello_per_address == 60
    assert defaults.seat_control_changes_per_minute == 6
    path = tmp_path / "server.toml"
    path.write_text("sockets_awaiting_hello_per_address = 50\n"
                    "seat_control_changes_per_minute = 0\n", encoding="utf-8")
    loaded = load_server_config(path)
    assert loaded.sockets_awaiting_hello_per_address == 50
    assert loaded.seat_control_changes_per_minute == 0
    for name in ("sockets_awaiting_hello_per_address", "seat_control_changes_per_minute"):
        for bad in (-1, 2.5, True, "6"):
            with pytest.raises(ValueError, match=f"{name} must be a whole number"):
                ServerConfig(**{name: bad})


# ---------------------------------------------------------------------- leave and reclaim

CONTROL_LIMIT = 4


def _control_events(client: TestClient, table_id: str) -> tuple[int, int]:
    session = manager_of(client).tables[table_id].session
    assert session is not None
    return (sum(event["kind"] == "control" for event in session.events),
            len(session.takeovers))


def _started(app_factory: Callable[..., TestClient], **options: Any
             ) -> tuple[TestClient, dict[str, Any], Seat, Seat, list[int]]:
    """A started game of Ann and Bea whose bots wait long before moving (nothing changes but
    what the test sends), and the seats every message went to."""
    client = app_factory(bot_delay=30.0, server=server_offering(
        seat_control_changes_per_minute=CONTROL_LIMIT, **options))
    made, ann = create(client, seats=3, bots=["random", "random"])
    bea = join(client, made["invite"], "Bea")
    assert ann.send({"type": "start"}).status_code == 200
    sent: list[int] = []
    manager_of(client).listeners.append(lambda table_id, seat, message: sent.append(seat))
    return client, made, ann, bea, sent


def test_a_seat_leaving_and_coming_back_in_a_loop_is_refused_over_http(
        app_factory: Callable[..., TestClient]) -> None:
    """Before, each leave and reclaim wrote a control event, added to the record's takeovers
    and sent every socket the state, without end (716 events in 5.5 s from one seat)."""
    client, made, ann, bea, sent = _started(app_factory)
    with client.websocket_connect("/ws") as watching:   # Ann's page, sent every change
        watching.send_text(json.dumps({"type": "hello", "token": ann.token}))
        until(watching, "state")
        assert bea.send({"type": "reclaim"}).status_code == 409   # refused: not counted
        for kind in ["leave", "reclaim"] * (CONTROL_LIMIT // 2):
            assert bea.send({"type": kind}).status_code == 200, kind
            assert until(watching, "state")["table"]["seats"][1]["kind"] == (
                "bot" if kind == "leave" else "human")
        before, sends = _control_events(client, made["table_id"]), len(sent)
        assert before == (CONTROL_LIMIT, CONTROL_LIMIT)
        response = bea.send({"type": "leave"})
        assert response.status_code == 429, response.text
        error = response.json()["error"]
        assert f"at most {CONTROL_LIMIT} every 60 seconds" in error and "leave, reclaim" in error
        assert _control_events(client, made["table_id"]) == before   # nothing written
        assert len(sent) == sends                                     # nothing broadcast
        watching.send_text(json.dumps({"type": "ping", "ref": 1}))
        assert watching.receive_json() == {"type": "pong", "ref": 1}  # no state came first
    assert bea.state()["you"]["controller"] == "human"
    # another seat is counted apart
    assert ann.send({"type": "leave"}).status_code == 200
    assert ann.state()["you"]["controller"] == "bot"


def test_a_seat_leaving_and_coming_back_in_a_loop_is_refused_over_its_socket(
        app_factory: Callable[..., TestClient]) -> None:
    client, made, _ann, bea, sent = _started(app_factory)
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": bea.token}))
        until(socket, "state")
        for ref, kind in enumerate(["leave", "reclaim"] * (CONTROL_LIMIT // 2)):
            socket.send_text(json.dumps({"type": kind, "ref": ref}))
            assert reply_to(socket, ref)["type"] == "ack"
        before, sends = _control_events(client, made["table_id"]), len(sent)
        socket.send_text(json.dumps({"type": "leave", "ref": 99}))
        refused = reply_to(socket, 99)
        assert refused["type"] == "error" and refused["status"] == 429
        assert f"at most {CONTROL_LIMIT} every 60 seconds" in refused["message"]
        socket.send_text(json.dumps({"type": "ping", "ref": 100}))
        assert socket.receive_json() == {"type": "pong", "ref": 100}   # no state between
        assert _control_events(client, made["table_id"]) == before
        assert len(sent) == sends + 2   # the error and the pong, to this socket alone
    assert bea.state()["you"]["controller"] == "human"


def test_no_limit_on_leaving_and_coming_back_when_turned_off(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(bot_delay=30.0, server=server_offering(
        seat_control_changes_per_minute=0))
    made, ann = create(client, seats=3, bots=["random", "random"])
    assert ann.send({"type": "start"}).status_code == 200
    for kind in ["leave", "reclaim"] * 10:
        assert ann.send({"type": kind}).status_code == 200
    assert _control_events(client, made["table_id"]) == (20, 20)


def test_leaving_the_lobby_is_not_a_control_change(
        app_factory: Callable[..., TestClient]) -> None:
    client = app_factory(server=server_offering(seat_control_changes_per_minute=1))
    made, _ann = create(client)
    for name in ("Bea", "Cy", "Dee"):   # each leaves the lobby again: no game, no event
        assert join(client, made["invite"], name).send({"type": "leave"}).status_code == 200


# ---------------------------------------------------------------------- names of bots


@pytest.mark.parametrize("name", ["random bot 1", "Random Bot 2", "clip-greedy bot 10",
                                  "random  bot\u200b 1", "\uff52andom bot \uff11",
                                  "anything bot 3"])
def test_a_person_cannot_take_a_name_of_the_form_bots_are_given(
        client: TestClient, name: str) -> None:
    """Before, 'random bot 1' could join, and at the start a bot was named 'random bot 1'
    too: two seats of one name, a person passing for a bot."""
    made, ann = create(client)
    response = client.post(f"/api/invites/{made['invite']}/join", json={"name": name})
    assert response.status_code == 400, response.text
    assert "the form bots are named by" in response.json()["error"]
    assert [s["name"] for s in ann.state()["table"]["seats"]] == ["Ann", None, None, None]
    response = client.post("/api/tables", json={"name": name, "seats": 3, "deck": "small"})
    assert response.status_code == 400, response.text
    assert "the form bots are named by" in response.json()["error"]
    assert list(manager_of(client).tables) == [made["table_id"]]   # nothing created


def test_no_person_shares_a_name_with_a_bot_of_the_game(client: TestClient) -> None:
    made, ann = create(client)
    for name in ("Robot 1", "bot 1", "random bot", "Bob the bot"):   # not a bot's form
        assert person_name(name) == name
    join(client, made["invite"], "Robot 1")
    assert ann.send({"type": "start"}).status_code == 200
    names = [seat["name"] for seat in ann.state()["table"]["seats"]]
    assert names == ["Ann", "Robot 1", "random bot 1", "random bot 2"]
    # whatever bot a server offers, the names its bots are given are refused to people
    for spec in list_agents():
        for number in (1, 12):
            with pytest.raises(WebError, match="the form bots are named by"):
                person_name(bot_name(spec.name, number))
