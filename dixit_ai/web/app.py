"""The FastAPI application: the page, a small JSON API and one WebSocket per open page.

Routes:

- ``GET /``, ``GET /join/{invite}``, ``GET /play``: the page (``static/index.html``);
- ``GET /api/options``: editions and bots for the create-table form;
- ``POST /api/tables``: create a table (the creator's seat token comes back);
- ``GET /api/invites/{invite}``, ``POST /api/invites/{invite}/join``: see and join a table;
- ``GET /api/state``, ``POST /api/action``: a seat's state and moves over plain HTTP (header
  ``X-Seat-Token``), for scripts and tests;
- ``GET /api/tables/{table_id}/cards/{card_id}``: a card's image, by id alone;
- ``GET /api/tables/{table_id}/record.json``: the finished game's record;
- ``WS /ws``: the first message is ``{"type": "hello", "token": ...}``; then the client sends
  moves (``tell``, ``play``, ``vote``, ``start``, ``leave``, ``reclaim``) and receives ``state``
  messages after every change, ``ack`` for its own moves and ``error`` for refused ones.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from dixit_ai.web.manager import Connection, TableManager, WebError
from dixit_ai.web.store import Store

STATIC = Path(__file__).resolve().parent / "static"


async def _json_body(request: Request) -> dict[str, Any]:
    body = await request.body()
    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise WebError(400, f"malformed JSON: {error}") from None
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


def create_app(db_path: str | Path, *, durable: bool = True, bot_delay: float = 0.0,
               bot_workers: int = 4) -> FastAPI:
    """The web application over the SQLite database ``db_path``.

    Args:
        db_path: The database file; created if missing, resumed if not.
        durable: Sync every commit to disk (see :mod:`dixit_ai.web.store`).
        bot_delay: Seconds each bot waits before it moves.
        bot_workers: Threads in which bots decide.
    """
    holder: dict[str, TableManager] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager = TableManager(Store(db_path, durable=durable), bot_delay=bot_delay,
                               bot_workers=bot_workers)
        await manager.restore()
        holder["manager"] = manager
        app.state.manager = manager
        try:
            yield
        finally:
            await manager.close()

    app = FastAPI(title="dixit-ai tables", lifespan=lifespan, docs_url=None, redoc_url=None)

    def manager() -> TableManager:
        return holder["manager"]

    @app.exception_handler(WebError)
    async def web_error(request: Request, error: WebError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=error.status)

    page = STATIC / "index.html"

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(page)

    @app.get("/join/{invite}", include_in_schema=False)
    async def join_page(invite: str) -> FileResponse:
        return FileResponse(page)

    @app.get("/play", include_in_schema=False)
    async def play_page() -> FileResponse:
        return FileResponse(page)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/options")
    async def options() -> dict[str, Any]:
        return manager().options()

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        return await manager().create_table(await _json_body(request))

    @app.get("/api/invites/{invite}")
    async def invite(invite: str) -> dict[str, Any]:
        return manager().invite_summary(invite)

    @app.post("/api/invites/{invite}/join")
    async def join(invite: str, request: Request) -> dict[str, Any]:
        return await manager().join(invite, await _json_body(request))

    @app.get("/api/state")
    async def state(request: Request) -> dict[str, Any]:
        table, seat = manager().authenticate(_token(request))
        return manager().state_for(table, seat)

    @app.post("/api/action")
    async def action(request: Request) -> dict[str, Any]:
        table, seat = manager().authenticate(_token(request))
        return await manager().handle(table, seat, await _json_body(request))

    @app.get("/api/tables/{table_id}/cards/{card_id}")
    async def card(table_id: str, card_id: int) -> Response:
        image = await manager().card_image(table_id, card_id)
        return Response(image, media_type="image/jpeg",
                        headers={"Cache-Control": "public, max-age=86400, immutable"})

    @app.get("/api/tables/{table_id}/record.json")
    async def record(table_id: str) -> Response:
        text = await manager().record(table_id)
        return Response(text, media_type="application/json", headers={
            "Content-Disposition": f'attachment; filename="dixit-{table_id}.json"'})

    @app.websocket("/ws")
    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        tables = manager()
        try:
            hello = json.loads(await websocket.receive_text())
            token = hello.get("token") if isinstance(hello, dict) else None
            table, seat = tables.authenticate(token)
        except WebSocketDisconnect:
            return
        except (json.JSONDecodeError, WebError) as error:
            message = error.message if isinstance(error, WebError) else "malformed JSON"
            await websocket.send_text(json.dumps({"type": "error", "message": message,
                                                  "status": 401}))
            await websocket.close(code=4401)
            return
        connection = Connection(websocket.send_text)
        await tables.connect(table, seat, connection)
        try:
            while True:
                text = await websocket.receive_text()
                ref = None
                try:
                    try:
                        message = json.loads(text)
                    except json.JSONDecodeError as error:
                        raise WebError(400, f"malformed JSON: {error}") from None
                    ref = message.get("ref") if isinstance(message, dict) else None
                    table_now, seat_now = tables.authenticate(token)
                    if (table_now.id, seat_now) != (table.id, seat):
                        raise WebError(401, "this seat token is no longer valid here")
                    await tables.handle(table, seat, message, connection)
                except WebError as error:
                    tables.send(table, seat, connection, {
                        "type": "error", "ref": ref, "message": error.message,
                        "status": error.status})
        except WebSocketDisconnect:
            pass
        finally:
            await tables.disconnect(table, seat, connection)

    return app
