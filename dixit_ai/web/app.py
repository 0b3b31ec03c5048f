"""The FastAPI application: the page, a small JSON API and one WebSocket per open page.

Routes:

- ``GET /``, ``GET /join/{invite}``, ``GET /play``, ``GET /watch/{watch}``: the page
  (``static/index.html``);
- ``GET /reactions/{name}.svg``: the image of a reaction (OpenMoji's SVG of its emoji, see
  :mod:`dixit_ai.web.social`); any other name is a 404;
- ``GET /api/options``: editions, the host's decks, bots (ready or warming up) and limits;
- ``POST /api/tables``: create a table (the creator's seat token and recovery code come back);
- ``GET /api/invites/{invite}``, ``POST /api/invites/{invite}/join``: see and join a table;
  ``POST /api/invites/{invite}/recover``: a new token for a seat's recovery code;
  ``POST /api/invites/{invite}/reclaim``, ``GET /api/reclaims/{secret}``: ask the creator for a
  seat, and the answer (see :mod:`dixit_ai.web.social`); ``POST
  /api/reclaims/{secret}/withdraw``: the asking page closes (the creator's list drops it);
- ``POST /api/my-tables``: per seat token a browser keeps, its table's title, status and seat;
- ``GET /api/state``, ``POST /api/action``, ``GET /api/history``: a seat's state, moves and the
  game's revealed rounds over plain HTTP (header ``X-Seat-Token``), for scripts and tests;
- ``GET /api/watch/{watch}``: a spectator's state (public information only);
- ``GET /api/tables/{table_id}/cards/{card_id}``: a card's image, by id alone;
  ``GET /api/tables/{table_id}/captions``: the cards' captions (alt text);
- ``GET /api/tables/{table_id}/record.json``: the finished game's record;
- ``WS /ws``: the first message is ``{"type": "hello", "token": ...}`` (a seat) or
  ``{"type": "hello", "watch": ...}`` (a spectator); then a seat sends moves (``tell``,
  ``play``, ``vote``, ``start``, ``leave``, ``reclaim``, ``seen``, ``history``, ``rematch``,
  ``ping``, ``react``, ``reclaim_answer``; a spectator ``ping``, ``history``, ``react``) and
  receives ``state`` messages after every change, ``ack`` for its own moves, ``reaction``,
  ``pong``, ``notice`` and ``error`` for refused ones. Binary frames and unknown types are
  answered with an ``error`` (status 400); the socket stays open. A socket with no good hello
  within :data:`HELLO_SECONDS` is answered 408 and closed (4408); one address holds at most
  ``sockets_awaiting_hello_per_address`` sockets open before their hello (one more is answered
  429 and closed 4429).

Opening tables and seat requests (join, recover, reclaim) are limited per client address
(429, naming the limit: :class:`~dixit_ai.web.config.ServerConfig`'s ``tables_per_minute`` and
``seat_requests_per_minute``; behind a reverse proxy every client has the proxy's address),
and the messages of each WebSocket (``socket_messages_per_minute``: past it each message is
answered with a 429 error; a socket that sends as many again within the minute is closed,
1008), the connections of each seat (``seat_connections_per_minute``), each seat's changes
of who plays it during a game (``leave``, ``reclaim``: ``seat_control_changes_per_minute``,
over a socket or ``/api/action`` alike; 429, nothing changes), and the sockets open
at once: :data:`~dixit_ai.web.connections.MAX_SOCKETS_PER_SEAT` per seat,
:data:`~dixit_ai.web.connections.MAX_SPECTATORS` spectators per table and
:data:`~dixit_ai.web.connections.MAX_SPECTATORS_PER_ADDRESS` from one address (a connection
past one is refused, 429, and closed 4429; the page tries again ten seconds later). Over plain
HTTP, each seat's requests (``/api/state``, ``/api/action``, ``/api/history``) and each
address's spectator states of one table (``/api/watch/...``) are limited too
(``http_requests_per_minute``; 429 before any work), and an address's look-ups of tables not
in memory (``record.json``) count against ``seat_requests_per_minute``, apart, as its card
requests that render a deck (none of its images kept) count against ``tables_per_minute``.
The counts are held in this process's memory (``dixit-ai serve`` runs one process).
An unknown seat token is looked up in the database's thread, never on the event loop, and an
address's unknown tokens count against ``seat_requests_per_minute`` too.

Every refused request is answered ``{"error": message}`` with its HTTP status. A request body
or a WebSocket message over :data:`MAX_REQUEST_BYTES` is refused (413) without being read whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from dixit_ai.web.config import ServerConfig, WebError, check_bot_delay
from dixit_ai.web.connections import Connection
from dixit_ai.web.limits import Held, SocketFlood
from dixit_ai.web.manager import TableManager
from dixit_ai.web.social import reaction_image
from dixit_ai.web.store import Store

STATIC = Path(__file__).resolve().parent / "static"
log = logging.getLogger("dixit_ai.web")

MAX_REQUEST_BYTES = 64 * 1024
"""The largest request body, and the largest WebSocket message, the server reads (a hundred
seat tokens for *my tables*, the largest request a page sends, take about 21 kB)."""
MAX_SOCKET_FRAME_BYTES = 4 * MAX_REQUEST_BYTES
"""The largest WebSocket message uvicorn reads at all (``dixit-ai serve``): a larger one closes
the socket (1009) before it is read whole; one between :data:`MAX_REQUEST_BYTES` and this gets
the app's 413 message, the socket kept (uvicorn's default would read 16 MiB)."""


HELLO_SECONDS = 30.0
"""How long a new socket may wait before its first good message (the hello): the page sends it
as the socket opens; a socket still silent then is answered 408 and closed (4408)."""


def _too_large() -> WebError:
    return WebError(413, f"the request is too large: at most {MAX_REQUEST_BYTES:,} bytes")


def _loads(text: str | bytes) -> Any:
    """Parse JSON from a client.

    Raises:
        WebError: (400) malformed JSON, text that is not UTF-8, nesting too deep to parse, or a
            number too long to read.
    """
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise WebError(400, f"malformed JSON: {error}") from None
    except RecursionError:
        raise WebError(400, "malformed JSON: nested too deeply") from None
    except ValueError:  # an integer past Python's 4,300 digits
        raise WebError(400, "malformed JSON: a number too long to read (integers of at most "
                            f"{sys.get_int_max_str_digits():,} digits)") from None


async def _json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read only up to :data:`MAX_REQUEST_BYTES`.

    Raises:
        WebError: (413) a larger body, declared or sent; (400) not a JSON object.
    """
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_REQUEST_BYTES:
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_REQUEST_BYTES:
            raise _too_large()
    data = _loads(bytes(body) or b"{}")
    if not isinstance(data, dict):
        raise WebError(400, "the request body must be a JSON object")
    return data


def _token(request: Request) -> str | None:
    token = request.headers.get("x-seat-token")
    if token:
        return token
    authorization = request.headers.get("authorization", "")
    if authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


def _client(request: Request) -> str | None:
    """The client's address (the limits of :class:`~dixit_ai.web.config.ServerConfig` are per
    address; behind a reverse proxy, the proxy's)."""
    return request.client.host if request.client else None


def _error(status: int, message: str) -> dict[str, Any]:
    return {"type": "error", "ref": None, "message": message, "status": status}


def _parse(frame: Mapping[str, Any]) -> Any:
    """The JSON of a received WebSocket frame.

    Raises:
        WebError: (400) a binary frame or malformed JSON; (413) one over
            :data:`MAX_REQUEST_BYTES`.
    """
    text = frame.get("text")
    if text is None:
        raise WebError(400, "binary frames are not accepted: send each message as a JSON text "
                            "frame")
    if (len(text) > MAX_REQUEST_BYTES
            or len(text.encode("utf-8", "surrogatepass")) > MAX_REQUEST_BYTES):
        raise _too_large()
    return _loads(text)


def _closer(websocket: WebSocket) -> Callable[[], Awaitable[None]]:
    """How a socket that fell too far behind is closed (1013, try again later: the page
    reconnects)."""
    async def close() -> None:
        await websocket.close(code=1013)
    return close


def create_app(db_path: str | Path, *, durable: bool = True, bot_delay: float = 0.0,
               bot_workers: int = 2, server: ServerConfig | None = None) -> FastAPI:
    """The web application over the SQLite database ``db_path``.

    Args:
        db_path: The database file; created if missing, resumed if not. One server per file:
            a second one refuses to start (before reading anything).
        durable: Sync every commit to disk (see :mod:`dixit_ai.web.store`).
        bot_delay: Seconds each bot waits before it moves (0 to 60:
            :data:`dixit_ai.web.config.BOT_DELAY_RANGE`).
        bot_workers: Threads in which bots decide.
        server: What the host offers (decks, bots, idle clean-up); the default offers the
            dream deck and the default bots (dixit_ai.web.config.DEFAULT_BOTS).

    Raises:
        ValueError: ``bot_delay`` is not a finite number of seconds within its range (checked
            here, before the server starts).
    """
    bot_delay = check_bot_delay(bot_delay)
    holder: dict[str, TableManager] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not log.handlers and not logging.getLogger().handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("%(asctime)s dixit-ai: %(message)s"))
            log.addHandler(handler)
            log.setLevel(logging.INFO)
        store = Store(db_path, durable=durable)  # takes the database's lock first
        manager = TableManager(store, bot_delay=bot_delay, bot_workers=bot_workers,
                               server=server)
        try:
            await manager.check_decks()
        except ValueError:
            await manager.close()
            raise
        manager.start_warmup()
        await manager.restore()
        holder["manager"] = manager
        app.state.manager = manager
        try:
            yield
        finally:
            await manager.close()

    app = FastAPI(title="dixit-ai tables", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)

    def manager() -> TableManager:
        return holder["manager"]

    @app.exception_handler(WebError)
    async def web_error(request: Request, error: WebError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        parts = []
        for problem in error.errors():
            where = ".".join(str(p) for p in problem.get("loc", ()) if p != "path")
            parts.append(f"{where}: {problem.get('msg', 'invalid')}")
        return JSONResponse({"error": "bad request: " + "; ".join(parts)}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        message = {404: f"no such page or resource: {request.url.path}",
                   405: f"{request.method} is not allowed on {request.url.path}"}.get(
            error.status_code, str(error.detail))
        return JSONResponse({"error": message}, status_code=error.status_code)

    page = STATIC / "index.html"

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(page)

    @app.get("/join/{invite}", include_in_schema=False)
    async def join_page(invite: str) -> FileResponse:
        return FileResponse(page)

    @app.get("/watch/{watch}", include_in_schema=False)
    async def watch_page(watch: str) -> FileResponse:
        return FileResponse(page)

    @app.get("/play", include_in_schema=False)
    async def play_page() -> FileResponse:
        return FileResponse(page)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/reactions/{name}.svg", include_in_schema=False)
    async def reaction(name: str) -> Response:
        # Looked up by name among the six reactions: no path from the request reaches a file.
        return Response(reaction_image(name), media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=86400"})

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return manager().options()

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        return await manager().create_table(await _json_body(request),
                                            client=_client(request))

    @app.get("/api/invites/{invite}")
    async def invite(invite: str) -> dict[str, Any]:
        return manager().invite_summary(invite)

    @app.post("/api/invites/{invite}/join")
    async def join(invite: str, request: Request) -> dict[str, Any]:
        return await manager().join(invite, await _json_body(request),
                                    client=_client(request))

    @app.post("/api/invites/{invite}/recover")
    async def recover(invite: str, request: Request) -> dict[str, Any]:
        return await manager().recover(invite, await _json_body(request),
                                       client=_client(request))

    @app.post("/api/my-tables")
    async def my_tables(request: Request) -> dict[str, Any]:
        return manager().my_tables(await _json_body(request))

    @app.post("/api/invites/{invite}/reclaim")
    async def request_reclaim(invite: str, request: Request) -> dict[str, Any]:
        return await manager().request_reclaim(invite, await _json_body(request),
                                               client=_client(request))

    @app.get("/api/reclaims/{secret}")
    async def reclaim_status(secret: str) -> dict[str, Any]:
        return manager().reclaim_status(secret)

    @app.post("/api/reclaims/{secret}/withdraw")
    async def withdraw_reclaim(secret: str) -> dict[str, Any]:
        return manager().withdraw_reclaim(secret)

    # A seat's requests (and an address's spectator states) are counted before any work;
    # the answers are JSON already (FastAPI's encoder would walk a long history again).

    @app.get("/api/state")
    async def state(request: Request) -> JSONResponse:
        tables = manager()
        table, seat = await tables.authenticate(_token(request), client=_client(request))
        tables.count_http(table, seat)
        return JSONResponse(tables.state_for(table, seat))

    @app.get("/api/history")
    async def history(request: Request) -> JSONResponse:
        tables = manager()
        table, seat = await tables.authenticate(_token(request), client=_client(request))
        tables.count_http(table, seat)
        return JSONResponse({"rounds": tables.history(table)})

    @app.get("/api/watch/{watch}")
    async def watch_state(watch: str, request: Request) -> JSONResponse:
        tables = manager()
        table = tables.table_for_watch(watch)
        tables.count_http(table, None, client=_client(request))
        return JSONResponse({**tables.spectator_for(table), "history": tables.history(table)})

    @app.post("/api/action")
    async def action(request: Request) -> JSONResponse:
        tables = manager()
        token = _token(request)
        table, seat = await tables.authenticate(token, client=_client(request))
        tables.count_http(table, seat)
        return JSONResponse(await tables.handle(table, seat, await _json_body(request),
                                                token=token))

    @app.get("/api/tables/{table_id}/cards/{card_id}")
    async def card(table_id: str, card_id: int, request: Request) -> Response:
        image = await manager().card_image(table_id, card_id, client=_client(request))
        return Response(image, media_type="image/jpeg",
                        headers={"Cache-Control": "public, max-age=86400, immutable"})

    @app.get("/api/tables/{table_id}/captions")
    async def captions(table_id: str) -> dict[str, str]:
        return await manager().captions(table_id)

    @app.get("/api/tables/{table_id}/record.json")
    async def record(table_id: str, request: Request) -> Response:
        text = await manager().record(table_id, client=_client(request))
        return Response(text, media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="dixit-{table_id}.json"'})

    @app.websocket("/ws")
    async def socket(websocket: WebSocket) -> None:
        tables = manager()
        try:  # counted before the socket is accepted, until its hello is read or it closes
            waiting = tables.await_hello(websocket.client.host if websocket.client else None)
        except WebError as error:
            with contextlib.suppress(Exception):  # the client may have gone already
                await websocket.accept()
                await websocket.send_text(json.dumps(_error(error.status, error.message)))
                await websocket.close(code=4000 + error.status)
            return
        sender = object()  # this socket, for its message limit
        try:
            await websocket.accept()
            await _serve_socket(websocket, tables, sender, waiting)
        finally:
            waiting.release()  # closed (timed out, gone, failed) before its hello, or after
            tables.forget_socket(sender)

    async def _serve_socket(websocket: WebSocket, tables: TableManager,
                            sender: object, waiting: Held) -> None:
        hello_by = asyncio.get_running_loop().time() + HELLO_SECONDS
        try:
            while True:  # until a good hello (a binary or malformed frame is answered)
                try:
                    frame = await asyncio.wait_for(
                        websocket.receive(), hello_by - asyncio.get_running_loop().time())
                except TimeoutError:
                    raise WebError(408, f"no hello within {HELLO_SECONDS:g} seconds: a socket "
                                        "starts with {\"type\": \"hello\", \"token\": ...} "
                                        "or {\"type\": \"hello\", \"watch\": ...}") from None
                if frame["type"] == "websocket.disconnect":
                    return
                try:
                    try:
                        hello = _parse(frame)
                    finally:
                        tables.count_message(sender)  # a bad frame counts too
                except SocketFlood as error:
                    await websocket.send_text(json.dumps(_error(error.status, error.message)))
                    await websocket.close(code=1008)
                    return
                except WebError as error:
                    await websocket.send_text(json.dumps(_error(error.status, error.message)))
                    continue
                break
            waiting.release()  # the hello is read: the socket is a seat's or a spectator's
            if isinstance(hello, dict) and hello.get("watch") is not None:
                watched = tables.table_for_watch(hello.get("watch"))
                await _spectate(websocket, tables, watched, sender)
                return
            token = hello.get("token") if isinstance(hello, dict) else None
            table, seat = await tables.authenticate(
                token, client=websocket.client.host if websocket.client else None)
            connection = Connection(websocket.send_text, _closer(websocket))
            try:
                await tables.connect(table, seat, connection, token)
            except WebError:
                await connection.close()
                raise
        except WebSocketDisconnect:
            return
        except WebError as error:
            await websocket.send_text(json.dumps(_error(error.status, error.message)))
            await websocket.close(code=4000 + error.status)
            return
        try:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                ref = None
                try:
                    try:
                        message = _parse(frame)
                        ref = message.get("ref") if isinstance(message, dict) else None
                    finally:
                        tables.count_message(sender)  # a bad frame counts too
                    tables.check_token(token, table, seat)  # in memory: no database
                    answer = await tables.handle(table, seat, message, connection,
                                                token=token)
                    if answer["type"] != "ack":  # pong, history: answered to this socket
                        tables.send(table, seat, connection, answer)
                except SocketFlood as error:
                    tables.send(table, seat, connection, _error(error.status, error.message))
                    await connection.close()  # the error goes first
                    await websocket.close(code=1008)
                    break
                except WebError as error:
                    tables.send(table, seat, connection, {
                        "type": "error", "ref": ref, "message": error.message,
                        "status": error.status})
        except WebSocketDisconnect:
            pass
        finally:
            await tables.disconnect(table, seat, connection)

    async def _spectate(websocket: WebSocket, tables: TableManager, table: Any,
                        sender: object) -> None:
        connection = Connection(websocket.send_text, _closer(websocket),
                                client=websocket.client.host if websocket.client else None)
        try:
            await tables.watch(table, connection)
        except WebError:
            await connection.close()
            raise
        try:
            while True:
                frame = await websocket.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                ref = None
                try:
                    try:
                        message = _parse(frame)
                        ref = message.get("ref") if isinstance(message, dict) else None
                    finally:
                        tables.count_message(sender)  # a bad frame counts too
                    kind = message.get("type") if isinstance(message, dict) else None
                    if kind == "ping":
                        answer: dict[str, Any] = {"type": "pong", "ref": ref}
                    elif kind == "history":
                        answer = {"type": "history", "ref": ref,
                                  "rounds": tables.history(table)}
                    elif kind == "react":
                        await tables.social(table, None, message, connection)
                        continue
                    else:
                        raise WebError(403, "spectators watch: they cannot send "
                                            f"{kind!r} (only ping, history and react)")
                    tables.send(table, -1, connection, answer)
                except SocketFlood as error:
                    tables.send(table, -1, connection, _error(error.status, error.message))
                    await connection.close()  # the error goes first
                    await websocket.close(code=1008)
                    break
                except WebError as error:
                    tables.send(table, -1, connection, {
                        "type": "error", "ref": ref, "message": error.message,
                        "status": error.status})
        except WebSocketDisconnect:
            pass
        finally:
            await tables.unwatch(table, connection)

    return app
