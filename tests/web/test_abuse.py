"""What a player cannot do at a web table: learn who holds which card from how fast its image
comes, keep a second key to a seat, take a connected player's seat to see their hand, or break
the table for everyone with text no page can show or JSON nested past parsing."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dixit_ai.web.store import token_digest
from tests.web.conftest import create, join, manager_of, simple_move
from tests.web.playing import reply_to, until


def test_a_card_image_renders_its_whole_deck_so_its_speed_tells_no_holder(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, only the cards someone had asked for were cached: a hand's cards, loaded by its
    holder's page, came back faster than the rest. Now the first image asked renders every card
    of the deck, once, and every later image is a cached one."""
    made, ann = create(client)
    manager = manager_of(client)
    table = manager.tables[made["table_id"]]
    deck = manager._deck(table.config.deck)
    rendered: list[int] = []
    original = type(deck).image

    def counting(self: Any, card: int, *args: Any, **kwargs: Any) -> Any:
        rendered.append(card)
        return original(self, card, *args, **kwargs)

    monkeypatch.setattr(type(deck), "image", counting)
    hand = ann.state()["game"]["hand"] if ann.state()["game"] else []
    first = table.card_ids[5] if not hand else hand[0]
    assert client.get(f"/api/tables/{made['table_id']}/cards/{first}").status_code == 200
    assert sorted(rendered) == sorted(table.card_ids)          # the whole deck, once
    for card in table.card_ids:
        assert client.get(f"/api/tables/{made['table_id']}/cards/{card}").status_code == 200
    assert len(rendered) == len(table.card_ids)                # nothing rendered again


def test_a_seat_request_outlives_no_seat(client: TestClient) -> None:
    """Ask for a lobby seat, its holder leaves, the creator approves: before, that gave a token
    to the empty seat, a second key to whoever sat there next. Now leaving voids the request."""
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    secret = client.post(f"/api/invites/{made['invite']}/reclaim",
                         json={"seat": 1, "name": "Spy"}).json()["request"]
    request = ann.state()["you"]["reclaim_requests"][0]
    assert bea.send({"type": "leave"}).status_code == 200
    assert ann.state()["you"]["reclaim_requests"] == []
    answer = {"type": "reclaim_answer", "request": request["id"], "approve": True}
    assert ann.send(answer).status_code == 404
    assert client.get(f"/api/reclaims/{secret}").json() == {"status": "expired", "seat": 1}
    cai = join(client, made["invite"], "Cai")
    assert cai.seat == 1
    holders = [seat for seat in manager_of(client)._by_token.values() if seat[1] == 1]
    assert len(holders) == 1                                    # one key to seat 1


def test_a_connected_players_seat_is_not_given_away_during_the_game(
        client: TestClient) -> None:
    """The creator could ask for a seat through the invite link and approve it, to see that
    player's hand. While its holder is connected the seat cannot be given away."""
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    secret = client.post(f"/api/invites/{made['invite']}/reclaim",
                         json={"seat": 1, "name": "Ann's friend"}).json()["request"]
    request = ann.state()["you"]["reclaim_requests"][0]
    answer = {"type": "reclaim_answer", "request": request["id"], "approve": True}
    with client.websocket_connect("/ws") as bea_socket:
        bea_socket.send_text(json.dumps({"type": "hello", "token": bea.token}))
        until(bea_socket, "state")
        refused = ann.send(answer)
        assert refused.status_code == 409 and "connected" in refused.json()["error"]
        assert bea.state()["you"]["seat"] == 1                   # nothing changed
        assert client.get(f"/api/reclaims/{secret}").json()["status"] == "pending"
    # Once Bea is away, the seat can be given (what the feature is for).
    manager = manager_of(client)
    table = manager.tables[made["table_id"]]
    for _ in range(200):
        if not table.connections.get(1):
            break
        time.sleep(0.01)
    assert ann.send(answer).status_code == 200
    assert client.get(f"/api/reclaims/{secret}").json()["status"] == "approved"


@pytest.mark.parametrize("clue", ["evil \ud800 clue", "\u200b\u200b\u200b", "two\nlines",
                                  "abc\u202edcba"])
def test_a_clue_no_page_can_show_is_refused_and_the_table_goes_on(
        client: TestClient, clue: str) -> None:
    """A lone surrogate (valid JSON, no valid UTF-8) made every seat's state and every socket
    fail; an invisible, multi-line or reordered clue misleads. Each is refused with the reason,
    and every seat's state is still served."""
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    game = ann.wait_turn()["game"]                     # Ann (seat 0) tells first
    response = client.post(
        "/api/action", headers={**ann.headers, "content-type": "application/json"},
        content=json.dumps({"type": "tell", "card": game["hand"][0], "clue": clue}).encode())
    assert response.status_code == 409, response.text
    assert "clue" in response.json()["error"]
    for seat in (ann, bea):
        assert seat.state()["game"]["phase"] == "tell"
    # The table goes on: a good clue is taken.
    assert ann.send({"type": "tell", "card": game["hand"][0], "clue": "moon"}).status_code == 200


@pytest.mark.parametrize("name", ["Bob\ud800", "\u200b", "a\u202eb"])
def test_names_and_titles_no_page_can_show_are_refused(client: TestClient, name: str) -> None:
    made, ann = create(client)
    for url, body in [(f"/api/invites/{made['invite']}/join", {"name": name}),
                      (f"/api/invites/{made['invite']}/reclaim", {"seat": 0, "name": name}),
                      ("/api/tables", {"name": "Ann", "title": name})]:
        response = client.post(url, headers={"content-type": "application/json"},
                               content=json.dumps(body).encode())
        assert response.status_code == 400, (url, response.text)
    assert ann.state()["you"]["reclaim_requests"] == []
    assert [s["name"] for s in ann.state()["table"]["seats"] if s["name"]] == ["Ann"]


def test_json_nested_past_parsing_is_a_bad_request_not_a_crash(client: TestClient) -> None:
    _made, ann = create(client)
    deep = "[" * 20_000 + "]" * 20_000      # past parsing, within the size limit
    response = client.post("/api/action", headers={**ann.headers,
                                                   "content-type": "application/json"},
                           content=deep)
    assert response.status_code == 400 and "nested too deeply" in response.json()["error"]
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        until(socket, "state")
        socket.send_text(deep)
        error = until(socket, "error")
        assert error["status"] == 400 and "nested too deeply" in error["message"]
        socket.send_text(json.dumps({"type": "ping", "ref": 7}))   # the socket stays open
        assert until(socket, "pong")["ref"] == 7


def test_a_seat_request_secret_that_is_not_ascii_is_just_unknown(client: TestClient) -> None:
    made, _ann = create(client)
    join(client, made["invite"], "Bea")
    client.post(f"/api/invites/{made['invite']}/reclaim", json={"seat": 1, "name": "X"})
    assert client.get("/api/reclaims/%C3%A9").status_code == 404
    assert client.get("/api/reclaims/%ED%A0%80").status_code == 404
    with client.websocket_connect("/ws") as socket:     # a token no page could send
        socket.send_text(json.dumps({"type": "hello", "token": "\ud800"}))
        assert until(socket, "error")["status"] == 401


def revoke_after_next_check(manager: Any, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """From now on, the next time ``token`` passes a check (``authenticate``, or
    ``token_opens``: a socket's frames are checked in memory) it is revoked right after (as
    recover, approve and leave revoke one): between a message's first check and its
    handling."""
    real_authenticate, real_opens = manager.authenticate, manager.token_opens
    pending = [True]

    def revoke(checked: object) -> None:
        if checked == token and pending:
            pending.clear()
            manager._by_token.pop(token_digest(token), None)

    async def revoked_after_check(checked: object, **options: Any) -> Any:
        found = await real_authenticate(checked, **options)
        revoke(checked)
        return found

    def opens_then_revoked(checked: object, table: Any, seat: int) -> bool:
        found: bool = real_opens(checked, table, seat)
        revoke(checked)
        return found

    monkeypatch.setattr(manager, "authenticate", revoked_after_check)
    monkeypatch.setattr(manager, "token_opens", opens_then_revoked)


def test_a_token_revoked_while_its_socket_says_hello_opens_nothing(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A socket's hello was checked before it waited for the table's lock; a token given up,
    recovered or given away in that moment still attached the socket to the seat, which was
    then sent the seat's hand with every change. Now the token is checked again under the lock.
    The revocation is made to fall between the two checks."""
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    manager = manager_of(client)
    revoke_after_next_check(manager, bea.token, monkeypatch)
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": bea.token}))
        first = json.loads(socket.receive_text())
        assert first["type"] == "error" and first["status"] == 401
    table = manager.tables[made["table_id"]]
    assert 1 not in table.connections                            # nothing attached


@pytest.mark.parametrize("path", ["http", "socket"])
def test_a_token_revoked_while_its_move_waits_makes_no_move(
        client: TestClient, monkeypatch: pytest.MonkeyPatch, path: str) -> None:
    """A move's token was checked before the move waited for the table's lock; a token
    recovered or given away in that moment still made the move, for a seat it no longer
    opened. Now the token is checked again under the lock, for a move over HTTP and over a
    socket (whose every frame's token is checked first). The revocation is made to fall between
    the two checks."""
    made, ann = create(client)
    join(client, made["invite"], "Bea")
    ann.send({"type": "start"})
    manager = manager_of(client)
    table = manager.tables[made["table_id"]]
    game = ann.wait_turn()["game"]       # the storyteller
    assert table.session is not None
    events = len(table.session.events)
    move = {**simple_move(game), "ref": 7}
    if path == "http":
        revoke_after_next_check(manager, ann.token, monkeypatch)
        assert ann.send(move).status_code == 401
    else:
        with client.websocket_connect("/ws") as socket:
            socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
            until(socket, "state")
            revoke_after_next_check(manager, ann.token, monkeypatch)
            socket.send_text(json.dumps(move))
            answer = reply_to(socket, 7)
        assert answer["type"] == "error" and answer["status"] == 401
    assert len(table.session.events) == events                    # no move was made
    assert manager.store.count_events(table.id) == events + 1     # nor written (+ start)


def test_a_token_revoked_while_its_reaction_waits_sends_none(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reaction over HTTP reads its body after the token's check: one revoked meanwhile sent
    the reaction under the seat's name all the same."""
    made, ann = create(client)
    bea = join(client, made["invite"], "Bea")
    manager = manager_of(client)
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        until(socket, "state")
        revoke_after_next_check(manager, bea.token, monkeypatch)
        refused = bea.send({"type": "react", "reaction": "laugh"})
        assert refused.status_code == 401
        assert ann.send({"type": "react", "reaction": "wow"}).status_code == 200
        assert until(socket, "reaction")["reaction"] == "wow"   # the first that came


def test_a_creator_token_revoked_while_its_answer_waits_gives_no_seat(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answering a seat request waits for the table's lock; a creator's token given away in
    that moment still approved the request, handing out a seat. It is checked again there."""
    made, ann = create(client)
    join(client, made["invite"], "Bea")
    manager = manager_of(client)
    secret = client.post(f"/api/invites/{made['invite']}/reclaim",
                         json={"seat": 1, "name": "Mallory"}).json()["request"]
    request = ann.state()["you"]["reclaim_requests"][0]
    answer = {"type": "reclaim_answer", "request": request["id"], "approve": True, "ref": 3}
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        until(socket, "state")
        revoke_after_next_check(manager, ann.token, monkeypatch)
        socket.send_text(json.dumps(answer))
        error = reply_to(socket, 3)
    assert error["type"] == "error" and error["status"] == 401
    assert client.get(f"/api/reclaims/{secret}").json()["status"] == "pending"


def test_many_spectator_sockets_share_one_reaction_limit(client: TestClient) -> None:
    """The limit was per socket, so one person opening many watch sockets sent as many
    reactions as they liked. A table's spectators together now get a limit of their own."""
    from dixit_ai.web.social import REACTION_LIMIT, SPECTATORS_REACTION_LIMIT
    made, ann = create(client)
    replies: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        opened = [stack.enter_context(client.websocket_connect("/ws")) for _ in range(4)]
        for socket in opened:
            socket.send_text(json.dumps({"type": "hello", "watch": made["watch"]}))
            until(socket, "state")
        for socket in opened:
            for ref in range(REACTION_LIMIT):
                socket.send_text(json.dumps({"type": "react", "reaction": "wow", "ref": ref}))
            while sum(1 for r in replies if r["socket"] == id(socket)) < REACTION_LIMIT:
                message = json.loads(socket.receive_text())
                if message["type"] in ("ack", "error"):
                    replies.append({**message, "socket": id(socket)})
    acks = [r for r in replies if r["type"] == "ack"]
    errors = [r for r in replies if r["type"] == "error"]
    assert len(acks) == SPECTATORS_REACTION_LIMIT < 4 * REACTION_LIMIT
    assert len(errors) == 4 * REACTION_LIMIT - SPECTATORS_REACTION_LIMIT
    assert all(e["status"] == 429 and "all spectators" in e["message"] for e in errors)
    assert ann.send({"type": "react", "reaction": "heart"}).status_code == 200  # seats apart


def test_a_number_too_long_to_read_is_a_bad_request_not_a_crash(client: TestClient) -> None:
    """Python reads no integer of more than 4,300 digits: JSON holding one raised a ValueError
    that was not taken for bad JSON, so the request was a 500 and the socket (before or after
    its hello) was dropped. It is a 400 naming the problem, and the socket stays open."""
    made, ann = create(client)
    long = "1" * 5000
    table = manager_of(client).tables[made["table_id"]]
    for url, headers in [("/api/action", ann.headers), ("/api/tables", {}),
                         (f"/api/invites/{made['invite']}/join", {})]:
        response = client.post(url, headers={**headers, "content-type": "application/json"},
                               content=f'{{"type": "seen", "round": {long}, "seats": {long}, '
                                       f'"name": "Bea"}}')
        assert response.status_code == 400, (url, response.text)
        assert "too long" in response.json()["error"]
    assert len(manager_of(client).tables) == 1 and table.names[1] is None  # nothing changed
    with client.websocket_connect("/ws") as socket:
        socket.send_text(f'{{"type": "hello", "token": {long}}}')       # before the hello
        error = until(socket, "error")
        assert error["status"] == 400 and "too long" in error["message"]
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        until(socket, "state")
        socket.send_text(f'{{"type": "ping", "ref": {long}}}')           # after it
        error = until(socket, "error")
        assert error["status"] == 400 and "too long" in error["message"]
        socket.send_text(json.dumps({"type": "ping", "ref": 7}))        # the socket stays open
        assert until(socket, "pong")["ref"] == 7


@pytest.mark.parametrize("field", [{"leave_grace": 10**400}, {"move_timer": 10**400},
                                   {"score_limit": 10**400},
                                   {"rules": {"storyteller_points": 10**400}}])
def test_a_huge_whole_number_in_a_tables_settings_is_out_of_bounds_not_a_crash(
        client: TestClient, field: dict[str, Any]) -> None:
    """A whole number past a float's range (valid JSON, 401 digits) made the bounds check
    convert it to a float: OverflowError, a 500. It is out of bounds like any other, and the
    error names the bounds."""
    response = client.post("/api/tables", json={"name": "Ann", "deck": "small", **field})
    assert response.status_code == 400, response.text
    assert "must be between" in response.json()["error"]
    assert manager_of(client).tables == {}


def test_an_oversized_request_is_refused_before_it_is_read_whole(client: TestClient) -> None:
    """A request body had no size limit: anyone, with no token, could make the server hold any
    number of bytes in memory (a whole body was read before it was parsed). A body or a socket
    message over MAX_REQUEST_BYTES is refused (413, naming the limit) and changes nothing, with
    a declared length or without one (a chunked body is read only up to the limit)."""
    from dixit_ai.web.app import MAX_REQUEST_BYTES
    made, ann = create(client)
    padding = "x" * (MAX_REQUEST_BYTES + 1)
    body = json.dumps({"name": "Bea", "padding": padding}).encode()
    manager = manager_of(client)
    table = manager.tables[made["table_id"]]

    def chunks() -> Any:
        for start in range(0, len(body), 4096):
            yield body[start:start + 4096]

    for content in (body, chunks()):
        for url in ("/api/tables", f"/api/invites/{made['invite']}/join"):
            response = client.post(url, headers={"content-type": "application/json"},
                                   content=content if isinstance(content, bytes) else chunks())
            assert response.status_code == 413, (url, response.text)
            assert f"{MAX_REQUEST_BYTES:,}" in response.json()["error"]
    assert len(manager.tables) == 1 and table.names[1] is None       # nothing changed
    fits = json.dumps({"name": "Bea", "padding": "x" * (MAX_REQUEST_BYTES - 100)})
    assert client.post(f"/api/invites/{made['invite']}/join", content=fits,
                       headers={"content-type": "application/json"}).status_code == 200
    with client.websocket_connect("/ws") as socket:
        socket.send_text(json.dumps({"type": "hello", "token": ann.token}))
        until(socket, "state")
        socket.send_text(json.dumps({"type": "ping", "ref": 1, "padding": padding}))
        error = until(socket, "error")
        assert error["status"] == 413 and f"{MAX_REQUEST_BYTES:,}" in error["message"]
        socket.send_text(json.dumps({"type": "ping", "ref": 7}))        # the socket stays open
        assert until(socket, "pong")["ref"] == 7


def test_a_socket_that_does_not_read_is_closed_not_queued_for_ever() -> None:
    """Each socket's outgoing messages waited in an unbounded queue: a page that stopped
    reading while it kept sending (a ``seen`` is answered with the seat's whole state, a
    ``history`` with every round) made the server hold every answer; 60,000 ``seen`` from one
    socket that never read took 75 MB of a real server's memory, never given back. A socket
    that falls MAX_QUEUED_MESSAGES behind is closed (the page reconnects and is sent the state
    afresh) and what waited for it is let go."""
    import asyncio

    from dixit_ai.web.connections import MAX_QUEUED_MESSAGES, Connection

    async def scenario() -> None:
        never = asyncio.Event()
        closed: list[bool] = []

        async def send(text: str) -> None:   # a socket whose reader does not read
            await never.wait()

        async def close() -> None:
            closed.append(True)

        connection = Connection(send, close)
        for _ in range(MAX_QUEUED_MESSAGES * 4):
            connection.put('{"type": "state"}')
            await asyncio.sleep(0)
        assert connection._queue.qsize() <= MAX_QUEUED_MESSAGES
        assert connection.dropped and closed == [True]
        await asyncio.wait_for(connection.close(), timeout=5)   # returns at once

        delivered: list[str] = []

        async def reads(text: str) -> None:   # a page that reads: never dropped
            delivered.append(text)

        reader = Connection(reads)
        for number in range(MAX_QUEUED_MESSAGES * 4):
            reader.put(str(number))
            if number % 100 == 0:
                await asyncio.sleep(0)
        await reader.close()
        assert not reader.dropped and len(delivered) == MAX_QUEUED_MESSAGES * 4

    asyncio.run(scenario())


def test_a_table_in_use_again_while_its_clean_up_waits_is_not_closed(
        client: TestClient) -> None:
    """The idle clean-up chose a table as idle and unwatched, then waited for its lock without
    looking again: a person who came back (a move, a socket) while it waited had the game
    closed under them, its record (the seed, the bots' notes) written, their token answered
    410. The clean-up looks again under the lock."""
    import asyncio

    made, ann = create(client)
    ann.send({"type": "start"})
    manager = manager_of(client)
    table = manager.tables[made["table_id"]]
    table.last_active = 0.0                     # idle for decades, nobody connected

    class BackWhileWaiting(asyncio.Lock):
        async def __aenter__(self) -> None:
            table.touch()                       # a person's move, while clean-up waited
            await super().__aenter__()

    table.lock = BackWhileWaiting()
    assert client.portal is not None
    assert client.portal.call(manager.clean_up, 60.0) == []
    assert manager.tables.get(table.id) is table and table.status == "playing"
    assert ann.state()["table"]["status"] == "playing"
    assert client.get(f"/api/tables/{table.id}/record.json").status_code == 404
