"""One table in memory: its settings, seats, game session, sockets, bots and clocks."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dixit_ai.web.limits import RateLimiter
from dixit_ai.web.session import Session
from dixit_ai.web.table_config import TableConfig

if TYPE_CHECKING:
    from dixit_ai.web.bots import BotMind
    from dixit_ai.web.connections import Connection
    from dixit_ai.web.social import ReclaimRequest


@dataclass
class Table:
    """A table in memory (everything but ``session`` and the tasks is also in the database)."""

    id: str
    invite: str
    config: TableConfig
    seed: int
    deck_entry: dict[str, Any]
    salt: str | None = None
    watch: str | None = None
    status: str = "lobby"
    names: list[str | None] = field(default_factory=list)
    tokens: list[str | None] = field(default_factory=list)
    recovery: list[str | None] = field(default_factory=list)
    session: Session | None = None
    record_json: str | None = None
    broken: str | None = None
    rematch: str | None = None
    """The id of the rematch table, once the creator asked for one."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: dict[int, set[Connection]] = field(default_factory=dict)
    spectators: set[Connection] = field(default_factory=set)
    minds: dict[int, BotMind] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    phase_key: tuple[int, str] | None = None
    deadlines: dict[int, float] = field(default_factory=dict)
    """Per seat that must act, the loop time its move timer runs out."""
    phase_deadlines: dict[int, float] = field(default_factory=dict)
    """Per seat, the deadline its person was given in this phase (``phase_key``): taking the
    seat back from a bot keeps it, rather than starting the timer afresh."""
    timer_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    reveal_round: int | None = None
    """The newest revealed round, and when (loop time) it was revealed."""
    reveal_at: float = 0.0
    seen_round: dict[int, int] = field(default_factory=dict)
    """Per seat, the newest reveal its person dismissed."""
    grace_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    last_active: float = field(default_factory=time.time)
    reaction_limits: RateLimiter = field(default_factory=RateLimiter)
    """Per sender (a seat, or a spectator's socket), its recent reactions (the limits are
    :mod:`~dixit_ai.web.social`'s); per seat, its recent connections and its recent changes
    of who plays it (:class:`~dixit_ai.web.config.ServerConfig`'s
    ``seat_connections_per_minute`` and ``seat_control_changes_per_minute``)."""
    reclaims: dict[str, ReclaimRequest] = field(default_factory=dict)
    """Seat requests for the creator, by id (in memory only)."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """The revealed rounds' payloads built so far for ``history_of`` (each round once)."""
    history_of: Session | None = None
    """The session ``history`` was built from."""

    @property
    def card_ids(self) -> tuple[int, ...]:
        return tuple(int(card) for card in self.deck_entry["card_ids"])

    def tasks(self) -> list[asyncio.Task[None]]:
        """Every task the table runs (to cancel them)."""
        return [task for task in (self.bot_task, *self.timer_tasks.values(),
                                  *self.grace_tasks.values()) if task is not None]

    def touch(self) -> None:
        """Note activity (the idle clean-up counts from the last)."""
        self.last_active = time.time()
