"""Sockets and what each one is told: seats see their own view, spectators the public one.

Every message a socket gets is built here, from the rules' view of its seat
(:func:`~dixit_ai.rules.observe`) or, for a spectator, from the public part of a view
(:func:`~dixit_ai.web.messages.public_payload`), plus the table's public facts. Listeners see
every message before it leaves (the tests check each one against the true state).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from dixit_ai.rules import observe
from dixit_ai.rules.teams import team_pairs
from dixit_ai.web.config import ServerConfig, WebError
from dixit_ai.web.fairness import fairness_payload
from dixit_ai.web.messages import COLOURS, game_payload, public_payload, rules_help
from dixit_ai.web.table import Table

SPECTATOR = -1
"""The seat number listeners see for a spectator's messages."""

Listener = Callable[[str, int, dict[str, Any]], None]


MAX_QUEUED_MESSAGES = 256
"""The most messages one socket may have waiting to be sent. A socket that falls this far behind
(its page does not read, while it may go on asking: each ``seen`` is answered with the seat's
whole state) is closed and what waited for it let go; the page reconnects and is sent the state
afresh."""

MAX_SOCKETS_PER_SEAT = 10
"""The most sockets open at once for one seat (its tabs and devices; each is sent every change
of the table)."""
MAX_SPECTATORS = 200
"""The most spectators' sockets one table takes (every change of the table is sent to each)."""
MAX_SPECTATORS_PER_ADDRESS = 20
"""The most spectators' sockets one client address may hold open at one table (behind a reverse
proxy every client has the proxy's address)."""


class Connection:
    """One open socket: an ordered outgoing queue drained by its own task.

    Args:
        send: Sends one text message on the socket.
        close: Closes the socket (called once, when it falls :data:`MAX_QUEUED_MESSAGES`
            behind).
        client: The client's address (None: not known).
    """

    def __init__(self, send: Callable[[str], Awaitable[None]],
                 close: Callable[[], Awaitable[None]] | None = None, *,
                 client: str | None = None) -> None:
        self.client = client
        self._deliver = send
        self._close_socket = close
        self.dropped = False
        """Whether the socket fell too far behind and was closed (nothing more is queued)."""
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._pump())
        self._closing: asyncio.Task[None] | None = None

    async def _pump(self) -> None:
        while True:
            text = await self._queue.get()
            if text is None:
                return
            try:
                await self._deliver(text)
            except Exception:  # the socket closed under us; its reader cleans up
                return

    def put(self, text: str) -> None:
        """Queue a message (messages leave in the order they were queued); a socket
        :data:`MAX_QUEUED_MESSAGES` behind is closed instead."""
        if self.dropped:
            return
        if self._queue.qsize() >= MAX_QUEUED_MESSAGES:
            self._drop()
            return
        self._queue.put_nowait(text)

    def _drop(self) -> None:
        self.dropped = True
        self._task.cancel()  # it may wait on a send that never completes
        self._queue = asyncio.Queue()  # what waited is let go
        if self._close_socket is not None:
            self._closing = asyncio.get_running_loop().create_task(self._shut())

    async def _shut(self) -> None:
        assert self._close_socket is not None
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._close_socket(), timeout=5)

    async def close(self) -> None:
        """Stop after the queued messages are sent."""
        if self.dropped:
            return
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._task, timeout=2)


class HubMixin:
    """The message hub of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    listeners: list[Listener]
    server: ServerConfig
    remaining: Callable[[Table, int], dict[str, float | None]]
    reveal_seconds: float
    _start_grace: Callable[[Table, int], None]
    reclaim_requests: Callable[[Table, int], list[dict[str, Any]]]
    token_opens: Callable[[object, Table, int], bool]

    # ------------------------------------------------------------------ sockets

    async def connect(self, table: Table, seat: int, connection: Connection,
                      token: object) -> None:
        """Attach a socket to a seat and send it the current state; a seat open in another tab
        too is warned in both.

        ``token`` is checked again under the table's lock: a token given up, recovered or
        given away while the socket waited for the lock opens nothing.

        Raises:
            WebError: (401) the token no longer opens ``seat`` of ``table``; (429) the seat
                has :data:`MAX_SOCKETS_PER_SEAT` sockets open, or was connected
                ``seat_connections_per_minute`` times this minute (each connection sends
                every socket at the table the state); nothing changed.
        """
        async with table.lock:
            if not self.token_opens(token, table, seat):
                raise WebError(401, "this seat token is not valid (it may have been given up)")
            if len(table.connections.get(seat, ())) >= MAX_SOCKETS_PER_SEAT:
                raise WebError(429, f"this seat is open in {MAX_SOCKETS_PER_SEAT} sockets "
                                    "already (tabs or devices), the most it may be: close one")
            table.reaction_limits.take_per_minute(
                ("connect", seat), self.server.seat_connections_per_minute,
                "connections to one seat")
            others = table.connections.setdefault(seat, set())
            if others:
                notice = {"type": "notice", "code": "second_tab",
                          "message": "This seat is also open in another tab or browser: moves "
                                     "from either count. Close the other one to avoid mix-ups."}
                for other in [*others, connection]:
                    self.send(table, seat, other, notice)
            others.add(connection)
            table.touch()
            task = table.grace_tasks.pop(seat, None)
            if task:
                task.cancel()
            self.send(table, seat, connection, self.state_message(table, seat))
            self._broadcast(table, skip=connection)

    async def disconnect(self, table: Table, seat: int, connection: Connection) -> None:
        """Detach a socket; a person gone for good is replaced by a bot after the grace. When
        one socket of the seat is left, the second-tab warning is taken back in it (a notice
        with no message)."""
        async with table.lock:
            connections = table.connections.get(seat)
            if connections is not None:
                connections.discard(connection)
                if len(connections) == 1:   # the other tab is gone: its warning goes too
                    (left,) = connections
                    self.send(table, seat, left, {"type": "notice", "code": "one_tab",
                                                  "message": None})
                if not connections:
                    del table.connections[seat]
                    if table.session is not None and not table.session.state.is_over:
                        self._start_grace(table, seat)
            self._broadcast(table)
        await connection.close()

    async def watch(self, table: Table, connection: Connection) -> None:
        """Attach a spectator's socket and send it the public state.

        Raises:
            WebError: (429) the table has :data:`MAX_SPECTATORS` spectators' sockets, or the
                connection's address :data:`MAX_SPECTATORS_PER_ADDRESS`; nothing changed.
        """
        async with table.lock:
            if len(table.spectators) >= MAX_SPECTATORS:
                raise WebError(429, f"this table already has {MAX_SPECTATORS} spectators, the "
                                    "most it takes; try again later")
            client = connection.client
            if client is not None and sum(other.client == client for other in
                                          table.spectators) >= MAX_SPECTATORS_PER_ADDRESS:
                raise WebError(429, f"{MAX_SPECTATORS_PER_ADDRESS} spectators' sockets from "
                                    "your address already watch this table (at most "
                                    f"{MAX_SPECTATORS_PER_ADDRESS}): close one first")
            table.spectators.add(connection)
            self.send(table, SPECTATOR, connection, self.spectator_message(table))

    async def unwatch(self, table: Table, connection: Connection) -> None:
        """Detach a spectator's socket (and forget its reactions' times)."""
        async with table.lock:
            table.spectators.discard(connection)
            table.reaction_limits.forget(("watch", id(connection)))
        await connection.close()

    def send(self, table: Table, seat: int, connection: Connection,
             message: dict[str, Any]) -> None:
        """Queue ``message`` for one socket of ``seat`` (listeners see it first)."""
        for listener in self.listeners:
            listener(table.id, seat, message)
        connection.put(json.dumps(message, ensure_ascii=False))

    def _broadcast(self, table: Table, skip: Connection | None = None) -> None:
        for seat, connections in list(table.connections.items()):
            message = self.state_message(table, seat)
            for connection in list(connections):
                if connection is not skip:
                    self.send(table, seat, connection, message)
        if table.spectators:
            message = self.spectator_message(table)
            for connection in list(table.spectators):
                self.send(table, SPECTATOR, connection, message)

    def _send_seat(self, table: Table, seat: int) -> None:
        """Send one seat's sockets its state (after a change only it sees, like its timer)."""
        message = self.state_message(table, seat)
        for connection in list(table.connections.get(seat, ())):
            self.send(table, seat, connection, message)

    # ------------------------------------------------------------------ messages

    def state_for(self, table: Table, seat: int) -> dict[str, Any]:
        """The state message of a seat, as a REST answer (listeners see it too)."""
        message = self.state_message(table, seat)
        for listener in self.listeners:
            listener(table.id, seat, message)
        return message

    def spectator_for(self, table: Table) -> dict[str, Any]:
        """The spectators' state message, as a REST answer (listeners see it too)."""
        message = self.spectator_message(table)
        for listener in self.listeners:
            listener(table.id, SPECTATOR, message)
        return message

    def state_message(self, table: Table, seat: int) -> dict[str, Any]:
        """Everything ``seat`` may see now: the table's public facts and its own view."""
        session = table.session
        game = None if session is None else game_payload(observe(session.state, seat))
        controller = "human" if session is None else session.controllers[seat]
        return {
            "type": "state",
            "event": 0 if session is None else len(session.events),
            "table": self._meta(table, include_invite=True),
            "you": {"seat": seat, "name": table.names[seat], "creator": seat == 0,
                    "controller": controller, "spectator": False,
                    **self.remaining(table, seat),
                    "reclaim_requests": self.reclaim_requests(table, seat)},
            "game": game,
        }

    def spectator_message(self, table: Table) -> dict[str, Any]:
        """What a spectator may see now: the public facts and the public part of the game."""
        session = table.session
        game = None if session is None else public_payload(observe(session.state, 0))
        return {
            "type": "state",
            "event": 0 if session is None else len(session.events),
            "table": self._meta(table, include_invite=False),
            "you": {"seat": None, "name": None, "creator": False, "controller": None,
                    "spectator": True, "deadline_in": None, "reading_for": None},
            "game": game,
        }

    def _meta(self, table: Table, *, include_invite: bool) -> dict[str, Any]:
        """The table's public facts (no game information beyond who sits where)."""
        config = table.config
        rules = config.ruleset
        session = table.session
        seats = []
        for seat in range(config.n_players):
            name: str | None
            kind: str
            if session is not None:
                plan = session.seats[seat]
                kind = session.controllers[seat]
                name = plan.name
                bot = plan.bot if (kind == "bot") else None
                was_human = plan.controller == "human"
            else:
                name = table.names[seat]
                kind = "human" if name is not None else "open"
                bot = config.takeover_bot if seat == 0 else config.bots[seat - 1]
                was_human = name is not None
            seats.append({"seat": seat, "name": name, "kind": kind, "bot": bot,
                          "person": was_human, "connected": bool(table.connections.get(seat)),
                          "colour": COLOURS[seat % len(COLOURS)]})
        over = table.status == "over"
        meta: dict[str, Any] = {
            "id": table.id,
            "title": config.title,
            "status": table.status,
            "edition": config.edition,
            "n_players": config.n_players,
            "deck": config.deck_name or config.deck,
            "score_limit": rules.score_limit,
            "ends": ("rounds" if rules.rounds_per_player is not None else
                     "score" if rules.score_limit is not None else "deck"),
            "n_rounds": rules.n_rounds_for(config.n_players),
            "mode": rules.mode,
            "teams": ([list(pair) for pair in team_pairs(config.n_players)]
                      if rules.teams else None),
            "second_vote": rules.votes_per_guesser(config.n_players) > 1,
            "move_timer": config.move_timer,
            "reveal_seconds": self.reveal_seconds if config.move_timer is not None else None,
            "takeover": config.takeover,
            "seats": seats,
            "spectators": len(table.spectators),
            "record_url": (f"/api/tables/{table.id}/record.json"
                           if table.record_json is not None else None),
            "broken": table.broken,
            "fairness": fairness_payload(table.seed, table.salt, experiment=config.experiment,
                                         over=over),
            "rules_help": rules_help(rules, config.n_players),
            "rounds_played": 0 if session is None else len(session.state.results),
            "rematch": table.rematch is not None,
        }
        if include_invite:
            meta["invite_path"] = f"/join/{table.invite}"
            meta["watch_path"] = None if table.watch is None else f"/watch/{table.watch}"
        return meta
