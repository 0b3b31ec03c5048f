"""The table manager: tables, seats, tokens, bots, timers and the per-seat message hub.

Everything that changes a table goes through :class:`TableManager` under the table's lock, in
this order: check the change against the rules (nothing changes yet), write it to the database
and commit, apply it in memory, acknowledge it, then send each connected seat a message built
from that seat's view alone. Bots decide in a thread pool, off the event loop; database writes go
through one writer thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import io
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

from dixit_ai.agents import Agent, agent_spec, list_agents, make_agent_for_deck
from dixit_ai.decks import Deck, load_deck
from dixit_ai.match import resolve_deck
from dixit_ai.rules import EDITIONS, IllegalAction, RuleSet, observe
from dixit_ai.web.messages import COLOURS, game_payload
from dixit_ai.web.session import (
    BadMessage,
    Prepared,
    SeatPlan,
    Session,
    action_from_message,
    action_to_json,
    decide_bot,
    failure_event,
)
from dixit_ai.web.store import Statement, Store, StoredTable, token_digest

log = logging.getLogger("dixit_ai.web")
T = TypeVar("T")

MAX_NAME_LENGTH = 40
CARD_IMAGE_SIZE = (400, 600)


class WebError(Exception):
    """A request the server refuses; nothing changed. ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class TableConfig:
    """A table's settings, chosen by its creator.

    Attributes:
        title: The table's name.
        edition: The edition of the rules.
        n_players: Seats at the table (the creator's included).
        rules: Rule overrides (``{"score_limit": 20}``, ...).
        deck: The deck spec.
        bots: For seats 1..n-1, the bot (registry name) that plays the seat if no person takes it.
        takeover: Whether a bot takes over a person's seat when they leave, disconnect for longer
            than ``leave_grace`` seconds, or let the move timer run out.
        takeover_bot: The bot that takes a person's seat over.
        move_timer: Seconds each person has to act in a phase (``None``: no timer).
        leave_grace: Seconds a disconnected person has to come back before a bot takes over.
    """

    title: str
    edition: str
    n_players: int
    rules: dict[str, Any]
    deck: str
    bots: tuple[str, ...]
    takeover: bool
    takeover_bot: str
    move_timer: float | None
    leave_grace: float

    @functools.cached_property
    def ruleset(self) -> RuleSet:
        """The table's rules (built once)."""
        return RuleSet.edition(self.edition, **self.rules)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (stored in the database)."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableConfig:
        """Rebuild from :meth:`to_json`."""
        return cls(**{**data, "bots": tuple(data["bots"])})


def bot_problem(name: str) -> str | None:
    """Why the bot ``name`` cannot play here (unknown, or its extra is not installed), or None."""
    try:
        spec = agent_spec(name)
    except ValueError as error:
        return str(error)
    package = spec.entry_point.partition(":")[0].split(".")[0]
    if importlib.util.find_spec(package) is None:
        hint = f"; install it with: pip install 'dixit-ai[{spec.extra}]'" if spec.extra else ""
        return f"bot {name!r} needs {package!r}, which is not installed{hint}"
    return None


def _text(value: object, what: str, *, default: str | None = None, limit: int = 200) -> str:
    if value is None and default is not None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise WebError(400, f"{what} must be non-empty text")
    if len(value.strip()) > limit:
        raise WebError(400, f"{what} has {len(value.strip())} characters; the limit is {limit}")
    return value.strip()


def _number(value: object, what: str, *, minimum: float, maximum: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WebError(400, f"{what} must be a number, not {value!r}")
    if not minimum <= value <= maximum:
        raise WebError(400, f"{what} must be between {minimum:g} and {maximum:g}, not {value}")
    return float(value)


def parse_config(data: Mapping[str, Any]) -> TableConfig:
    """Check a create-table request and return the table's settings.

    Raises:
        WebError: (400) a bad edition, seat count, rule, bot, timer or deck spec.
    """
    edition = data.get("edition", "refresh-2021")
    if edition not in EDITIONS:
        raise WebError(400, f"unknown edition {edition!r}: choose one of {', '.join(EDITIONS)}")
    n_players = data.get("seats", 4)
    if isinstance(n_players, bool) or not isinstance(n_players, int):
        raise WebError(400, f"seats must be an integer, not {n_players!r}")
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise WebError(400, "rules must be an object of rule parameters")
    rules = dict(rules)
    if "score_limit" in data:
        rules["score_limit"] = data["score_limit"]
    try:
        ruleset = RuleSet.edition(edition, **rules)
        ruleset.check_players(n_players)
    except (ValueError, TypeError) as error:
        raise WebError(400, str(error)) from None
    bots = data.get("bots", "random")
    if isinstance(bots, str):
        bots = [bots] * (n_players - 1)
    if not isinstance(bots, list) or len(bots) != n_players - 1:
        raise WebError(400, f"bots must name one bot for each of the {n_players - 1} other "
                            "seats")
    takeover_bot = data.get("takeover_bot") or (bots[0] if bots else "random")
    for name in [*bots, takeover_bot]:
        if not isinstance(name, str):
            raise WebError(400, f"a bot is named by text, not {name!r}")
        problem = bot_problem(name)
        if problem:
            raise WebError(400, problem)
    timer = data.get("move_timer")
    move_timer = None if timer in (None, 0) else _number(timer, "move_timer", minimum=1,
                                                          maximum=3600)
    takeover = data.get("takeover", True)
    if not isinstance(takeover, bool):
        raise WebError(400, f"takeover must be true or false, not {takeover!r}")
    if move_timer is not None and not takeover:
        raise WebError(400, "a move timer needs takeover: a bot plays for whoever runs out "
                            "of time")
    grace = _number(data.get("leave_grace", 30), "leave_grace", minimum=0, maximum=86400)
    return TableConfig(
        title=_text(data.get("title"), "title", default="Dixit table", limit=60),
        edition=edition, n_players=n_players, rules=ruleset.parameters(),
        deck=_text(data.get("deck"), "deck", default="dream", limit=500),
        bots=tuple(bots), takeover=takeover, takeover_bot=takeover_bot,
        move_timer=move_timer, leave_grace=grace)


# ---------------------------------------------------------------------- connections


class Connection:
    """One open socket of one seat: an ordered outgoing queue drained by its own task."""

    def __init__(self, send: Callable[[str], Awaitable[None]]) -> None:
        self._deliver = send
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._task = asyncio.get_running_loop().create_task(self._pump())

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
        """Queue a message (messages leave in the order they were queued)."""
        self._queue.put_nowait(text)

    async def close(self) -> None:
        """Stop after the queued messages are sent."""
        self._queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._task, timeout=2)


@dataclass
class Table:
    """A table in memory."""

    id: str
    invite: str
    config: TableConfig
    seed: int
    deck_entry: dict[str, Any]
    status: str = "lobby"
    names: list[str | None] = field(default_factory=list)
    tokens: list[str | None] = field(default_factory=list)
    session: Session | None = None
    record_json: str | None = None
    broken: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: dict[int, set[Connection]] = field(default_factory=dict)
    agents: dict[int, Agent] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    timer_task: asyncio.Task[None] | None = None
    timer_key: tuple[int, str] | None = None
    deadline: float | None = None
    grace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)

    @property
    def card_ids(self) -> tuple[int, ...]:
        return tuple(int(card) for card in self.deck_entry["card_ids"])


Listener = Callable[[str, int, dict[str, Any]], None]


class TableManager:
    """Every table of one server.

    Args:
        store: The database.
        bot_delay: Seconds a bot waits before each move (0 in tests; a short pause reads better
            in the browser).
        bot_workers: Threads deciding bots' moves.
    """

    def __init__(self, store: Store, *, bot_delay: float = 0.0, bot_workers: int = 4) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.tables: dict[str, Table] = {}
        self._by_invite: dict[str, str] = {}
        self._by_token: dict[str, tuple[str, int]] = {}
        self._db_pool = ThreadPoolExecutor(1, thread_name_prefix="dixit-db")
        self._bot_pool = ThreadPoolExecutor(bot_workers, thread_name_prefix="dixit-bot")
        self._decks: dict[str, Deck] = {}
        self._images: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._writes: list[tuple[list[Statement], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self.listeners: list[Listener] = []
        """Called with ``(table_id, seat, message)`` for every message sent to a seat."""

    # ------------------------------------------------------------------ plumbing

    async def _db(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._db_pool, function, *args)

    async def _write(self, statements: list[Statement]) -> None:
        """Commit ``statements`` (all or nothing) before returning; group commit under load.

        Writes queued while the writer thread is busy go to the database together, in one
        transaction: one disk sync for many tables' moves, each still committed before it is
        acknowledged.
        """
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._writes.append((statements, future))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_loop())
        await future

    async def _write_loop(self) -> None:
        while self._writes:
            batch, self._writes = self._writes[:256], self._writes[256:]
            errors: list[Exception | None]
            try:
                errors = await self._db(self.store.run_batches, [s for s, _ in batch])
            except Exception as failure:  # the transaction itself failed: nothing was written
                errors = [failure] * len(batch)
            for (_, future), problem in zip(batch, errors, strict=True):
                if future.done():
                    continue
                if problem is None:
                    future.set_result(None)
                else:
                    future.set_exception(problem)

    async def _work(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._bot_pool, function, *args)

    def _deck(self, spec: str) -> Deck:
        if spec not in self._decks:
            self._decks[spec] = load_deck(spec)
        return self._decks[spec]

    def _register(self, table: Table) -> None:
        self.tables[table.id] = table
        self._by_invite[table.invite] = table.id
        for seat, digest in enumerate(table.tokens):
            if digest:
                self._by_token[digest] = (table.id, seat)

    async def close(self) -> None:
        """Stop timers and bots and release the threads (the database stays as it is)."""
        for table in self.tables.values():
            tasks = [table.bot_task, table.timer_task, *table.grace_tasks.values()]
            for task in tasks:
                if task is not None:
                    task.cancel()
            for connections in table.connections.values():
                for connection in list(connections):
                    await connection.close()
        self._bot_pool.shutdown(wait=False, cancel_futures=True)
        self._db_pool.shutdown(wait=True)
        self.store.close()

    # ------------------------------------------------------------------ restoring

    async def restore(self) -> None:
        """Load every table from the database and resume each game where it stood."""
        for stored in await self._db(self.store.load_tables):
            table = await self._restore_table(stored)
            self._register(table)
            if table.session is not None and table.status == "playing":
                for seat, controller in enumerate(table.session.controllers):
                    if controller == "human":
                        self._start_grace(table, seat)
                self._after_change(table)
            elif table.status == "over" and table.record_json is None and table.session:
                async with table.lock:
                    await self._finish(table)

    async def _restore_table(self, stored: StoredTable) -> Table:
        config = TableConfig.from_json(stored.config["table"])
        table = Table(id=stored.id, invite=stored.invite, config=config, seed=stored.seed,
                      deck_entry=stored.config["deck"], status=stored.status,
                      names=[name for _, name, _ in stored.seats],
                      tokens=[digest for _, _, digest in stored.seats],
                      record_json=stored.record)
        if not stored.events:
            return table
        try:
            start = stored.events[0]
            table.session = self._new_session(table, [SeatPlan(**s) for s in start["seats"]])
            for event in stored.events[1:]:
                table.session.apply(event)
        except Exception as error:  # a damaged database: keep serving the other tables
            log.exception("table %s cannot be restored", stored.id)
            table.broken = f"this table could not be restored: {error}"
        return table

    def _new_session(self, table: Table, seats: list[SeatPlan]) -> Session:
        return Session(rules=table.config.ruleset, seed=table.seed, seats=seats,
                       card_ids=table.card_ids, deck_entry=table.deck_entry)

    # ------------------------------------------------------------------ lobby

    async def create_table(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Create a table; its creator takes seat 0. Returns ids, invite and the seat token."""
        config = parse_config(data)
        name = _text(data.get("name"), "your name", limit=MAX_NAME_LENGTH)
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbits(62)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62:
            raise WebError(400, f"seed must be an integer in [0, 2**62), not {seed!r}")

        def load() -> dict[str, Any]:
            deck = self._deck(config.deck)
            config.ruleset.check_deck(config.n_players, len(deck.card_ids))
            return resolve_deck(deck)[1]

        try:
            deck_entry = await self._work(load)
        except (ValueError, OSError) as error:
            raise WebError(400, f"deck {config.deck!r}: {error}") from None
        table = Table(id=secrets.token_urlsafe(12), invite=secrets.token_urlsafe(18),
                      config=config, seed=seed, deck_entry=deck_entry,
                      names=[name] + [None] * (config.n_players - 1),
                      tokens=[None] * config.n_players)
        token = secrets.token_urlsafe(24)
        table.tokens[0] = token_digest(token)
        await self._write(self.store.create_table_statements(
            table.id, table.invite, {"table": config.to_json(), "deck": deck_entry}, seed,
            config.n_players, name, token))
        self._register(table)
        return {"table_id": table.id, "invite": table.invite, "seat": 0, "token": token}

    def table_for_invite(self, invite: str) -> Table:
        """The table an invite opens.

        Raises:
            WebError: (404) no such invite.
        """
        table_id = self._by_invite.get(invite) if isinstance(invite, str) else None
        if table_id is None:
            raise WebError(404, "no table has this invite link")
        return self.tables[table_id]

    def invite_summary(self, invite: str) -> dict[str, Any]:
        """What someone holding the invite sees before joining: the table and its seats."""
        table = self.table_for_invite(invite)
        return {"table": self._meta(table, include_invite=False)}

    async def join(self, invite: str, data: Mapping[str, Any]) -> dict[str, Any]:
        """Take the first free seat of an invite's table; returns the seat and its token.

        Raises:
            WebError: (404) bad invite; (409) the game started or the table is full.
        """
        table = self.table_for_invite(invite)
        name = _text(data.get("name"), "your name", limit=MAX_NAME_LENGTH)
        async with table.lock:
            if table.status != "lobby":
                raise WebError(409, "the game at this table has already started")
            free = [seat for seat, taken in enumerate(table.names) if taken is None]
            if not free:
                raise WebError(409, "the table is full")
            seat = free[0]
            token = secrets.token_urlsafe(24)
            await self._write(self.store.seat_statements(table.id, seat, name, token))
            table.names[seat] = name
            table.tokens[seat] = token_digest(token)
            self._by_token[token_digest(token)] = (table.id, seat)
            self._broadcast(table)
        return {"table_id": table.id, "seat": seat, "token": token}

    def authenticate(self, token: object) -> tuple[Table, int]:
        """The table and seat of a seat token.

        Raises:
            WebError: (401) a missing or unknown token.
        """
        if not isinstance(token, str) or not token:
            raise WebError(401, "a seat token is needed")
        found = self._by_token.get(token_digest(token))
        if found is None:
            raise WebError(401, "this seat token is not valid (it may have been given up)")
        return self.tables[found[0]], found[1]

    # ------------------------------------------------------------------ messages in

    async def handle(self, table: Table, seat: int, message: object,
                     connection: Connection | None = None) -> dict[str, Any]:
        """Carry out one message of a seat; return the acknowledgement.

        Message types: ``start`` (the creator), ``tell``, ``play``, ``vote``, ``leave``,
        ``reclaim`` (take one's seat back from a bot) and ``ping``.

        Raises:
            WebError: the message is malformed or refused; nothing changed.
        """
        if not isinstance(message, dict):
            raise WebError(400, "a message is a JSON object with a 'type'")
        kind = message.get("type")
        ref = message.get("ref")
        if table.broken:
            raise WebError(503, table.broken)
        if kind == "ping":
            return {"type": "pong", "ref": ref}
        async with table.lock:
            before = len(table.session.events) if table.session else None
            if kind == "start":
                await self._start(table, seat)
            elif kind in ("tell", "play", "vote"):
                await self._act(table, seat, message)
            elif kind == "leave":
                await self._leave(table, seat)
            elif kind == "reclaim":
                await self._reclaim(table, seat)
            else:
                raise WebError(400, f"unknown message type {kind!r}: expected start, tell, "
                                    "play, vote, leave, reclaim or ping")
            event = len(table.session.events) if table.session else 0
            ack = {"type": "ack", "ref": ref, "event": event}
            if connection is not None:
                self.send(table, seat, connection, ack)
            if before is None or event == before:  # a lobby change: nothing broadcast yet
                self._broadcast(table)
        return ack

    async def _start(self, table: Table, seat: int) -> None:
        if seat != 0:
            raise WebError(403, "only the table's creator can start the game")
        if table.status != "lobby":
            raise WebError(409, "the game has already started")
        config = table.config
        plans = []
        bot_numbers: dict[str, int] = {}
        for s in range(config.n_players):
            name = table.names[s]
            if name is not None:
                plans.append(SeatPlan(name=name, controller="human", bot=config.takeover_bot))
            else:
                bot = config.bots[s - 1]
                bot_numbers[bot] = bot_numbers.get(bot, 0) + 1
                plans.append(SeatPlan(name=f"{bot} bot {bot_numbers[bot]}", controller="bot",
                                      bot=bot))
        for s, plan in enumerate(plans):
            if plan.controller == "bot":
                table.agents[s] = await self._make_agent(table, plan.bot)
        session = self._new_session(table, plans)
        start = {"kind": "start", "seats": [asdict(plan) for plan in plans]}
        await self._write(self.store.event_statements(table.id, 0, start, "playing"))
        table.session = session
        table.status = "playing"
        for s, plan in enumerate(plans):
            if plan.controller == "human" and not table.connections.get(s):
                self._start_grace(table, s)
        self._after_change(table)

    async def _make_agent(self, table: Table, name: str) -> Agent:
        """Make a bot for ``table``; a bot that reads a deck gets the table's deck."""
        try:
            return await self._work(lambda: make_agent_for_deck(name, table.config.deck))
        except (ValueError, ImportError) as error:
            raise WebError(400, f"bot {name!r} cannot play: {error}") from None

    def _playing(self, table: Table) -> Session:
        if table.session is None:
            raise WebError(409, "the game has not started yet")
        if table.session.state.is_over:
            raise WebError(409, "the game is over")
        return table.session

    async def _act(self, table: Table, seat: int, message: Mapping[str, Any]) -> None:
        session = self._playing(table)
        if session.controllers[seat] != "human":
            raise WebError(409, "a bot plays your seat now; take it back first (reclaim)")
        try:
            action = action_from_message(seat, message)
            prepared = session.prepare({"kind": "action", "seat": seat, "by": "human",
                                        "action": action_to_json(action)})
        except BadMessage as error:
            raise WebError(400, str(error)) from None
        except IllegalAction as error:
            raise WebError(409, f"illegal move: {error}") from None
        await self._commit(table, prepared)

    async def _leave(self, table: Table, seat: int) -> None:
        if table.status == "lobby":
            if seat == 0:
                raise WebError(409, "the creator cannot leave the lobby")
            digest = table.tokens[seat]
            await self._write(self.store.seat_statements(table.id, seat, None, None))
            table.names[seat] = None
            table.tokens[seat] = None
            if digest:
                self._by_token.pop(digest, None)
            for connection in table.connections.pop(seat, set()):
                self.send(table, seat, connection, {"type": "left"})
            return
        self._playing(table)
        if not table.config.takeover:
            raise WebError(409, "bots do not take over seats at this table")
        await self._control(table, seat, "bot", "left")

    async def _reclaim(self, table: Table, seat: int) -> None:
        session = self._playing(table)
        if session.controllers[seat] == "human":
            raise WebError(409, "you already play your seat")
        await self._control(table, seat, "human", "reclaimed")

    async def _control(self, table: Table, seat: int, to: str, reason: str) -> None:
        assert table.session is not None
        try:
            prepared = table.session.prepare({"kind": "control", "seat": seat, "to": to,
                                              "reason": reason})
        except BadMessage as error:
            raise WebError(409, str(error)) from None
        if to == "bot" and seat not in table.agents:
            table.agents[seat] = await self._make_agent(table, table.session.seats[seat].bot)
        await self._commit(table, prepared)

    async def _commit(self, table: Table, prepared: Prepared) -> None:
        """Persist, then apply; the caller holds the table's lock."""
        session = table.session
        assert session is not None
        index = len(session.events) + 1
        over = prepared.state.is_over
        try:
            await self._write(self.store.event_statements(table.id, index, prepared.event,
                                                          "over" if over else None))
        except Exception as error:
            log.exception("table %s: event %d not written", table.id, index)
            raise WebError(500, f"the move could not be saved ({error}); nothing changed"
                           ) from None
        session.commit(prepared)
        if over:
            table.status = "over"
            await self._finish(table)
        self._broadcast(table)  # one state message per event: clients can tell none was lost
        self._after_change(table)

    async def _finish(self, table: Table) -> None:
        """Write the finished game's record (the caller holds the lock)."""
        session = table.session
        assert session is not None
        agents = []
        for seat, plan in enumerate(session.seats):
            if plan.controller == "bot":
                if seat not in table.agents:
                    table.agents[seat] = await self._make_agent(table, plan.bot)
                agents.append(await self._work(table.agents[seat].describe))
            else:
                agents.append({"name": "human", "player": plan.name})
        record = session.record(agents)
        table.record_json = record.to_json()
        await self._write(self.store.record_statements(table.id, table.record_json, "over"))

    async def record(self, table_id: str) -> str:
        """The finished game's record as JSON.

        Raises:
            WebError: (404) no such table, or its game is not over.
        """
        table = self.tables.get(table_id)
        if table is None:
            raise WebError(404, "no such table")
        if table.record_json is None and table.status == "over":
            async with table.lock:  # the record is being written right now
                pass
        if table.record_json is None:
            raise WebError(404, "the game is not over yet")
        return table.record_json

    # ------------------------------------------------------------------ after each change

    def _after_change(self, table: Table) -> None:
        """Kick the bots and the move timer after a committed change."""
        session = table.session
        if session is None or session.state.is_over:
            if table.timer_task:
                table.timer_task.cancel()
            return
        if session.bot_seats_to_act() and (table.bot_task is None or table.bot_task.done()):
            table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))
        self._arm_timer(table)

    async def _run_bots(self, table: Table) -> None:
        try:
            while True:
                async with table.lock:
                    session = table.session
                    if session is None or session.state.is_over:
                        return
                    seats = session.bot_seats_to_act()
                    if not seats:
                        return
                    seat = seats[0]
                    phase_state = session.phase_start
                    unmade: WebError | None = None
                    if seat not in table.agents:
                        try:
                            table.agents[seat] = await self._make_agent(
                                table, session.seats[seat].bot)
                        except WebError as error:
                            unmade = error
                    args = (table.agents.get(seat), session.seed, seat,
                            session.decisions[seat], phase_state)
                    marker = len(session.events)
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                if unmade is not None:  # recorded as the bot's failure, never skipped
                    event = failure_event(seat, phase_state, RuntimeError(unmade.message))
                else:
                    event = await self._work(decide_bot, *args)
                async with table.lock:
                    if (table.session is not session or len(session.events) != marker
                            or session.controllers[seat] != "bot"):
                        # Something changed while the bot thought: think again. A move of
                        # another seat leaves this decision's inputs unchanged, so the bot
                        # makes the same move.
                        continue
                    prepared = session.prepare(event)
                    await self._commit(table, prepared)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the bots stopped", table.id)

    def _arm_timer(self, table: Table) -> None:
        session = table.session
        timer = table.config.move_timer
        if session is None or timer is None:
            return
        state = session.state
        key = (state.round, state.phase.value)
        loop = asyncio.get_running_loop()
        if key != table.timer_key:
            table.timer_key = key
            table.deadline = loop.time() + timer
            if table.timer_task:
                table.timer_task.cancel()
                table.timer_task = None
        humans = session.human_seats_to_act()
        if not humans:
            if table.timer_task:
                table.timer_task.cancel()
                table.timer_task = None
        elif table.timer_task is None or table.timer_task.done():
            table.timer_task = loop.create_task(self._expire(table, key))

    async def _expire(self, table: Table, key: tuple[int, str]) -> None:
        assert table.deadline is not None
        await asyncio.sleep(max(0.0, table.deadline - asyncio.get_running_loop().time()))
        async with table.lock:
            session = table.session
            if session is None or session.state.is_over or table.timer_key != key:
                return
            table.timer_task = None
            for seat in session.human_seats_to_act():
                await self._control(table, seat, "bot", "timeout")

    def _start_grace(self, table: Table, seat: int) -> None:
        if not table.config.takeover:
            return
        old = table.grace_tasks.pop(seat, None)
        if old:
            old.cancel()
        table.grace_tasks[seat] = asyncio.get_running_loop().create_task(
            self._grace(table, seat))

    async def _grace(self, table: Table, seat: int) -> None:
        await asyncio.sleep(table.config.leave_grace)
        async with table.lock:
            session = table.session
            if (session is None or session.state.is_over or table.connections.get(seat)
                    or session.controllers[seat] != "human"):
                return
            await self._control(table, seat, "bot", "disconnected")

    # ------------------------------------------------------------------ messages out

    async def connect(self, table: Table, seat: int, connection: Connection) -> None:
        """Attach a socket to a seat and send it the current state."""
        async with table.lock:
            table.connections.setdefault(seat, set()).add(connection)
            task = table.grace_tasks.pop(seat, None)
            if task:
                task.cancel()
            self.send(table, seat, connection, self.state_message(table, seat))
            self._broadcast(table, skip=connection)

    async def disconnect(self, table: Table, seat: int, connection: Connection) -> None:
        """Detach a socket; a person gone for good is replaced by a bot after the grace."""
        async with table.lock:
            connections = table.connections.get(seat)
            if connections is not None:
                connections.discard(connection)
                if not connections:
                    del table.connections[seat]
                    if table.session is not None and not table.session.state.is_over:
                        self._start_grace(table, seat)
            self._broadcast(table)
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

    def state_for(self, table: Table, seat: int) -> dict[str, Any]:
        """The state message of a seat, as a REST answer (listeners see it too)."""
        message = self.state_message(table, seat)
        for listener in self.listeners:
            listener(table.id, seat, message)
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
                    "controller": controller},
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
        deadline_in = None
        if (table.deadline is not None and session is not None and not session.state.is_over
                and session.human_seats_to_act()):
            deadline_in = max(0.0, round(table.deadline - asyncio.get_running_loop().time(), 1))
        meta: dict[str, Any] = {
            "id": table.id,
            "title": config.title,
            "status": table.status,
            "edition": config.edition,
            "n_players": config.n_players,
            "deck": config.deck,
            "score_limit": rules.score_limit,
            "ends": ("score" if rules.score_limit is not None else "deck"),
            "second_vote": rules.votes_per_guesser(config.n_players) > 1,
            "move_timer": config.move_timer,
            "deadline_in": deadline_in,
            "takeover": config.takeover,
            "seats": seats,
            "record_url": (f"/api/tables/{table.id}/record.json"
                           if table.record_json is not None else None),
            "broken": table.broken,
        }
        if include_invite:
            meta["invite_path"] = f"/join/{table.invite}"
        return meta

    # ------------------------------------------------------------------ card images

    async def card_image(self, table_id: str, card_id: int) -> bytes:
        """The JPEG image of a card of a table's deck (by id alone: the URL tells no owner).

        Raises:
            WebError: (404) no such table or card.
        """
        table = self.tables.get(table_id)
        if table is None or card_id not in set(table.card_ids):
            raise WebError(404, "no such card")
        key = (table.config.deck, card_id)
        if key not in self._images:
            def render() -> bytes:
                image = self._deck(table.config.deck).image(card_id, CARD_IMAGE_SIZE)
                out = io.BytesIO()
                image.convert("RGB").save(out, format="JPEG", quality=88)
                return out.getvalue()

            self._images[key] = await self._work(render)
            if len(self._images) > 2048:
                self._images.popitem(last=False)
        return self._images[key]

    # ------------------------------------------------------------------ options

    @staticmethod
    def options() -> dict[str, Any]:
        """What the create-table form offers: editions (with their limits) and bots."""
        editions = []
        for name in EDITIONS:
            rules = RuleSet.edition(name)
            editions.append({"name": name, "min_players": rules.min_players,
                             "max_players": rules.max_players,
                             "score_limit": rules.score_limit,
                             "second_vote_from": rules.second_vote_from})
        bots = [{"name": spec.name, "description": spec.description,
                 "available": bot_problem(spec.name) is None} for spec in list_agents()]
        return {"editions": editions, "bots": bots, "default_deck": "dream"}
