"""The table manager: the lobby, seats and tokens, moves in, and the life of a table.

Everything that changes a table goes through :class:`TableManager` under the table's lock, in
this order: check the change against the rules (nothing changes yet), write it to the database
and commit, apply it in memory, set the clocks, acknowledge it, then send each connected seat a
message built from that seat's view alone. The manager is made of one mixin per concept:
:mod:`~dixit_ai.web.lobby` (tables, seats, tokens, rematches), :mod:`~dixit_ai.web.persistence`
(writes, restoring, idle clean-up), :mod:`~dixit_ai.web.bots` (warm-up, bot minds),
:mod:`~dixit_ai.web.timers` (clocks), :mod:`~dixit_ai.web.connections` (sockets and messages) and
:mod:`~dixit_ai.web.cards` (images, captions) and :mod:`~dixit_ai.web.limits` (the traffic's
limits); the settings are :mod:`~dixit_ai.web.config`'s.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from typing import Any, TypeVar

from dixit_ai.decks import Deck, load_deck
from dixit_ai.rules import EDITIONS, IllegalAction, RuleSet
from dixit_ai.web.bots import BotsMixin, Warmup
from dixit_ai.web.cards import CARD_IMAGE_SIZE, CardsMixin
from dixit_ai.web.config import (
    ServerConfig,
    WebError,
    bot_problem,
    check_bot_delay,
    too_small_for_any_game,
)
from dixit_ai.web.connections import Connection, HubMixin, Listener
from dixit_ai.web.limits import OpenCounter, RateLimiter, TrafficMixin
from dixit_ai.web.lobby import LobbyMixin, recovery_code
from dixit_ai.web.messages import round_payload, rules_help
from dixit_ai.web.names import bot_name
from dixit_ai.web.persistence import PersistenceMixin
from dixit_ai.web.session import (
    BadMessage,
    Prepared,
    SeatPlan,
    Session,
    action_from_message,
    action_to_json,
)
from dixit_ai.web.social import SOCIAL_TYPES, SocialMixin
from dixit_ai.web.store import Statement, Store
from dixit_ai.web.table import Table
from dixit_ai.web.table_config import (
    MAX_NAME_LENGTH,
    MOVE_TIMER_RANGE,
    ROUNDS_PER_PLAYER_RANGE,
    SCORE_LIMIT_RANGE,
    TableConfig,
    parse_config,
)
from dixit_ai.web.timers import TimersMixin

log = logging.getLogger("dixit_ai.web")
T = TypeVar("T")

MESSAGE_TYPES = ("start", "tell", "play", "vote", "announce", "red", "leave", "reclaim", "seen",
                 "history", "rematch", "ping", *SOCIAL_TYPES)

__all__ = ["CARD_IMAGE_SIZE", "Connection", "TableConfig", "TableManager", "WebError",
           "bot_problem", "parse_config", "recovery_code"]


class TableManager(LobbyMixin, PersistenceMixin, BotsMixin, TimersMixin, HubMixin, CardsMixin,
                   SocialMixin, TrafficMixin):
    """Every table of one server.

    Args:
        store: The database (it holds the database's lock).
        bot_delay: Seconds a bot waits before each move (0 in tests; a short pause reads better
            in the browser), within :data:`~dixit_ai.web.config.BOT_DELAY_RANGE`.
        bot_workers: Threads deciding bots' moves.
        server: What the host offers tables (decks, bots, clean-up, reading time).

    Raises:
        ValueError: ``bot_delay`` is not a finite number of seconds within its range.
    """

    def __init__(self, store: Store, *, bot_delay: float = 0.0, bot_workers: int = 2,
                 server: ServerConfig | None = None) -> None:
        self.store = store
        self.bot_delay = check_bot_delay(bot_delay)
        self.server = server or ServerConfig()
        self.reveal_seconds = self.server.reveal_seconds
        self.tables: dict[str, Table] = {}
        self._by_invite: dict[str, str] = {}
        self._by_watch: dict[str, str] = {}
        self._by_token: dict[str, tuple[str, int]] = {}
        self.client_limits = RateLimiter()
        """Per client address, its recent new tables and seat requests (see
        :meth:`~dixit_ai.web.lobby.LobbyMixin.count_request`)."""
        self.socket_limits = RateLimiter()
        """Per open WebSocket, its recent messages, and those refused (see
        :meth:`count_message`)."""
        self.http_limits = RateLimiter()
        """Per seat of a table, its recent plain-HTTP requests; per client address and table,
        its spectator states (see :meth:`count_http`)."""
        self.hello_sockets = OpenCounter()
        """Per client address, its open WebSockets that have not said hello yet (see
        :meth:`await_hello`)."""
        self._db_pool = ThreadPoolExecutor(1, thread_name_prefix="dixit-db")
        self._bot_pool = ThreadPoolExecutor(bot_workers, thread_name_prefix="dixit-bot")
        self._decks: dict[str, Deck] = {}
        self._images: OrderedDict[str, dict[int, bytes]] = OrderedDict()
        self._rendering: dict[str, asyncio.Future[dict[int, bytes]]] = {}
        self._captions: dict[str, dict[str, str]] = {}
        self._writes: list[tuple[list[Statement], asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None
        self._warming: asyncio.Future[None] | None = None
        self.warmup = Warmup(self.server.offered_bots(), list(self.server.decks.values()))
        self.listeners: list[Listener] = []
        """Called with ``(table_id, seat, message)`` for every message sent to a seat (seat
        -1: a spectator)."""

    # ------------------------------------------------------------------ plumbing

    async def _work(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._bot_pool, function, *args)

    def _deck(self, spec: str) -> Deck:
        if spec not in self._decks:
            self._decks[spec] = load_deck(spec)
        return self._decks[spec]

    def _register(self, table: Table) -> None:
        self.tables[table.id] = table
        self._by_invite[table.invite] = table.id
        if table.watch:
            self._by_watch[table.watch] = table.id
        for seat, digest in enumerate(table.tokens):
            if digest:
                self._by_token[digest] = (table.id, seat)

    def _unregister(self, table: Table) -> None:
        for task in table.tasks():
            task.cancel()
        self.tables.pop(table.id, None)
        self._by_invite.pop(table.invite, None)
        if table.watch:
            self._by_watch.pop(table.watch, None)
        for digest in table.tokens:
            if digest and self._by_token.get(digest, ("",))[0] == table.id:
                del self._by_token[digest]

    @staticmethod
    def _stored_config(table: Table) -> dict[str, Any]:
        return {"table": table.config.to_json(), "deck": table.deck_entry, "salt": table.salt,
                "watch": table.watch, "rematch": table.rematch}

    async def close(self) -> None:
        """Stop timers and bots and release the threads and the database."""
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():
            for task in table.tasks():
                task.cancel()
            for connections in [*table.connections.values(), table.spectators]:
                for connection in list(connections):
                    await connection.close()
        self._bot_pool.shutdown(wait=False, cancel_futures=True)
        self._db_pool.shutdown(wait=True)
        self.store.close()

    # ------------------------------------------------------------------ start

    async def restore(self) -> None:
        """Load every table from the database and resume each game where it stood; start the
        bots' warm-up and the idle clean-up."""
        idle = self.server.idle_cleanup
        stored_tables = await self._db(lambda: self.store.load_tables(
            idle_before=None if idle is None else time.time() - idle))
        for stored in stored_tables:
            table = self._restore_table(stored)
            if table.broken is None:
                table.broken = await self._work(self._deck_problem, table)
                if table.broken is not None:
                    log.warning("table %s: %s", table.id, table.broken)
            self._register(table)
            if table.broken is not None:
                continue   # kept as it stood: no timer, no bot, no record written
            if table.session is not None and table.status == "playing":
                for seat, controller in enumerate(table.session.controllers):
                    if controller == "human":
                        self._start_grace(table, seat)
                self._after_change(table)
            elif table.status == "over" and table.record_json is None and table.session:
                async with table.lock:
                    await self._finish(table)
        if stored_tables:
            log.info("restored %d table(s)", len(stored_tables))
        if idle is not None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep(idle))

    async def check_decks(self) -> None:
        """Load every offered deck once (a bad spec stops the server at start).

        Raises:
            ValueError: a deck that cannot be loaded, or too small for any game (the message
                names it).
        """
        for name, spec in self.server.decks.items():
            try:
                deck = await self._work(self._deck, spec)
            except (ValueError, OSError) as error:
                raise ValueError(f"deck {name}={spec}: {error}") from None
            problem = too_small_for_any_game(len(deck.card_ids))
            if problem:
                raise ValueError(f"deck {name}={spec}: {problem}")

    def start_warmup(self) -> asyncio.Future[None]:
        """Warm every offered bot in a thread (progress goes to the log)."""
        loop = asyncio.get_running_loop()
        self._warming = loop.run_in_executor(None, self.warmup.run, log.info)
        return self._warming

    async def handle(self, table: Table, seat: int, message: object,
                     connection: Connection | None = None, *,
                     token: object = None) -> dict[str, Any]:
        """Carry out one message of a seat; return the acknowledgement.

        Message types: ``start`` (the creator), ``tell``, ``play``, ``vote`` (Dixit Party also
        ``announce`` and ``red``; a team's pass is a ``play`` of no card), ``leave``,
        ``reclaim`` (take one's seat back from a bot), ``seen`` (the reveal of ``round`` was
        dismissed), ``history`` (every revealed round), ``rematch`` (the creator, once the game
        is over), ``ping``, ``react`` and ``reclaim_answer`` (see :mod:`~dixit_ai.web.social`).

        With ``token`` (the seat token the message came with) the token is checked again under
        the table's lock: one recovered or given away while the message waited opens nothing.

        Raises:
            WebError: the message is malformed or refused (429: a seat's ``leave`` or
                ``reclaim`` past ``seat_control_changes_per_minute``); nothing changed.
        """
        if not isinstance(message, dict):
            raise WebError(400, "a message is a JSON object with a 'type'")
        kind = message.get("type")
        ref = message.get("ref")
        if kind not in MESSAGE_TYPES:
            raise WebError(400, f"unknown message type {kind!r}: expected "
                                f"{', '.join(MESSAGE_TYPES)}")
        if kind == "ping":
            return {"type": "pong", "ref": ref}
        if kind == "history":
            return {"type": "history", "ref": ref, "rounds": self.history(table)}
        if kind in SOCIAL_TYPES:  # reactions, answers to seat requests (dixit_ai.web.social)
            return await self.social(table, seat, message, connection, token=token)
        if table.broken:
            raise WebError(503, table.broken)
        async with table.lock:
            self.check_token(token, table, seat)
            before = len(table.session.events) if table.session else None
            table.touch()
            if kind == "start":
                await self._start(table, seat)
            elif kind in ("tell", "play", "vote", "announce", "red"):
                await self._act(table, seat, message)
            elif kind in ("leave", "reclaim"):
                await self._change_control(table, seat, kind)
            elif kind == "seen":
                self.seen(table, seat, message.get("round"))
            else:
                await self._rematch(table, seat)
            event = len(table.session.events) if table.session else 0
            ack = {"type": "ack", "ref": ref, "event": event}
            if connection is not None:
                self.send(table, seat, connection, ack)
            if kind == "seen":
                self._send_seat(table, seat)
            elif before is None or event == before:  # a lobby change: nothing broadcast yet
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
                plans.append(SeatPlan(name=bot_name(bot, bot_numbers[bot]), controller="bot",
                                      bot=bot))
        session = self._new_session(table, plans)
        start = {"kind": "start", "seats": [asdict(plan) for plan in plans]}
        await self._write(self.store.event_statements(table.id, 0, start, "playing"))
        table.session = session
        table.status = "playing"
        for s, plan in enumerate(plans):
            if plan.controller == "human" and not table.connections.get(s):
                self._start_grace(table, s)
        self._after_change(table)

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

    async def _change_control(self, table: Table, seat: int, kind: str) -> None:
        """A seat's ``leave`` or ``reclaim``. During a game each change is a control event
        (written, kept in the record's takeovers, broadcast): at most the server's
        ``seat_control_changes_per_minute`` per seat, counted once it is made (a refused one
        does not count). The caller holds the table's lock.

        Raises:
            WebError: (429) the seat changed hands that often this minute (the message names
                the limit); or the change is refused. Nothing changed.
        """
        limit = self.server.seat_control_changes_per_minute
        what = "changes of who plays one seat (leave, reclaim)"
        in_game = table.session is not None
        if in_game:
            table.reaction_limits.take_per_minute(("control", seat), limit, what,
                                                  count=False)
        if kind == "leave":
            await self._leave(table, seat)
        else:
            await self._reclaim(table, seat)
        if in_game:
            table.reaction_limits.take_per_minute(("control", seat), limit, what)

    async def _leave(self, table: Table, seat: int) -> None:
        if table.status == "lobby":
            if seat == 0:
                raise WebError(409, "the creator cannot leave the lobby")
            digest = table.tokens[seat]
            await self._write(self.store.seat_statements(table.id, seat, None, None)
                              + self.store.recovery_statements(table.id, seat, None))
            table.names[seat] = None
            table.tokens[seat] = None
            table.recovery[seat] = None
            if digest:
                self._by_token.pop(digest, None)
            for connection in table.connections.pop(seat, set()):
                self.send(table, seat, connection, {"type": "left"})
            self.expire_reclaims(table, seat)
            return
        self._playing(table)
        if not table.config.takeover:
            raise WebError(409, "bots do not take over seats at this table")
        await self._control(table, seat, "bot", "left")

    async def _reclaim(self, table: Table, seat: int) -> None:
        session = self._playing(table)
        if session.controllers[seat] == "human":
            raise WebError(409, "you already play your seat")
        self.check_time_left(table, seat)
        await self._control(table, seat, "human", "reclaimed")

    async def _control(self, table: Table, seat: int, to: str, reason: str) -> None:
        assert table.session is not None
        try:
            prepared = table.session.prepare({"kind": "control", "seat": seat, "to": to,
                                              "reason": reason})
        except BadMessage as error:
            raise WebError(409, str(error)) from None
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
        revealed = len(session.state.results)
        session.commit(prepared)
        table.touch()
        if len(session.state.results) > revealed:
            table.reveal_round = session.state.results[-1].round
            table.reveal_at = asyncio.get_running_loop().time()
        if over:
            table.status = "over"
            await self._finish(table)
        self._after_change(table)  # clocks first: the state sent shows this phase's timer
        self._broadcast(table)  # one state message per event: clients can tell none was lost

    async def _finish(self, table: Table) -> None:
        """Write the finished game's record (the caller holds the lock)."""
        session = table.session
        assert session is not None
        record = session.record(await self._describe_bots(table))
        table.record_json = record.to_json()
        await self._write(self.store.record_statements(table.id, table.record_json, "over"))

    async def record(self, table_id: str, *, client: str | None = None) -> str:
        """The finished game's record as JSON (also of a table cleaned up from memory).

        A table not in memory is looked up in the database's one thread (which every write
        goes through): ``client``'s (an address's) look-ups count against the seat
        requests' limit, apart.

        Raises:
            WebError: (404) no such table, or its game is not over; (429) ``client`` looked
                up too many tables not in memory this minute.
        """
        table = self.tables.get(table_id)
        if table is None:
            self.count_request(client, "records")
            stored = await self._db(self.store.load_record, table_id)
            if stored is None:
                raise WebError(404, "no such table, or its game has no record")
            return stored
        if table.record_json is None and table.status == "over":
            async with table.lock:  # the record is being written right now
                pass
        if table.record_json is None:
            raise WebError(404, "the game is not over yet")
        return table.record_json

    def history(self, table: Table) -> list[dict[str, Any]]:
        """Every revealed round of the game so far (clues, boards, votes, points): public.

        Each round's payload is built once (a revealed round never changes), not once per
        request: a long game's history costs a copy of the list.
        """
        session = table.session
        if session is None:
            return []
        if table.history_of is not session:
            table.history, table.history_of = [], session
        results = session.state.results
        table.history.extend(round_payload(session.rules, session.n_players, result)
                             for result in results[len(table.history):])
        return list(table.history)

    # ------------------------------------------------------------------ after each change

    def _after_change(self, table: Table) -> None:
        """Kick the bots and set the move timers after a committed change."""
        session = table.session
        if session is None or session.state.is_over:
            for task in table.timer_tasks.values():
                task.cancel()
            table.timer_tasks.clear()
            table.deadlines.clear()
            return
        if session.bot_seats_to_act() and (table.bot_task is None or table.bot_task.done()):
            table.bot_task = asyncio.get_running_loop().create_task(self._run_bots(table))
        self._arm_timers(table)

    # ------------------------------------------------------------------ options

    def options(self) -> dict[str, Any]:
        """What the create-table form offers: editions (with their limits and scoring), the
        host's decks, the bots (each ready or warming up) and the bounds of every number."""
        editions = []
        for name in EDITIONS:
            rules = RuleSet.edition(name)
            editions.append({"name": name, "min_players": rules.min_players,
                             "max_players": rules.max_players,
                             "score_limit": rules.score_limit,
                             "second_vote_from": rules.second_vote_from,
                             "rules_help": rules_help(rules, max(4, rules.min_players)),
                             "variants": _variants(rules)})
        specs = {spec.name: spec for spec in _agent_specs()}
        bots = [{"name": name,
                 "description": specs[name].description if name in specs else "",
                 "status": self.warmup.status.get(name, "failed"),
                 "problem": self.warmup.errors.get(name),
                 "available": self.warmup.ready(name),
                 "party": self.warmup.ready(name, party=True),
                 "party_problem": self.warmup.party_errors.get(name)}
                for name in self.warmup.bots]
        return {"editions": editions, "bots": bots,
                "decks": [{"name": name} for name in self.server.decks],
                "default_deck": next(iter(self.server.decks)),
                "limits": {"score_limit": list(SCORE_LIMIT_RANGE),
                           "move_timer": list(MOVE_TIMER_RANGE),
                           "name": MAX_NAME_LENGTH},
                "fixed_seeds": self.server.allow_fixed_seeds}


def _variants(rules: RuleSet) -> dict[str, Any]:
    """The edition's variants the form offers (Team Dixit, Dixit Party), with their numbers."""
    offered: dict[str, Any] = {}
    for name, allowed, low, overrides in (
            ("teams", rules.teams_allowed, rules.min_team_players, {"teams": True}),
            ("party", rules.party_allowed, rules.min_party_players, {"mode": "party"})):
        if allowed:
            variant = RuleSet.edition(rules.name, **overrides)
            offered[name] = {"min_players": low, "max_players": rules.max_players,
                             "even_players": name == "teams",
                             "rounds_per_player": variant.rounds_per_player,
                             "rounds_per_player_range": list(ROUNDS_PER_PLAYER_RANGE),
                             "rules_help": rules_help(variant, low)}
    return offered


def _agent_specs() -> list[Any]:
    from dixit_ai.agents import list_agents

    return list_agents()
