"""Persistence of the web tables: one writer thread, group commits, and restoring tables.

Every change is committed before it is acknowledged (:meth:`PersistenceMixin._write`); writes
queued while the writer is busy share one transaction (one disk sync for many tables' moves).
:meth:`PersistenceMixin._restore_table` rebuilds a table from its stored rows by replaying its
event log through the rules; :meth:`PersistenceMixin.clean_up` lets idle tables go (their rows
stay).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from dixit_ai.web.session import SeatPlan, Session
from dixit_ai.web.store import Statement, Store, StoredTable
from dixit_ai.web.table import Table
from dixit_ai.web.table_config import TableConfig

if TYPE_CHECKING:
    from dixit_ai.decks import Deck

log = logging.getLogger("dixit_ai.web")
T = TypeVar("T")


class PersistenceMixin:
    """The database side of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    store: Store
    tables: dict[str, Table]
    _unregister: Callable[[Table], None]
    _describe_bots: Callable[[Table], Any]
    _deck: Callable[[str], Deck]
    _db_pool: ThreadPoolExecutor
    _writes: list[tuple[list[Statement], asyncio.Future[None]]]
    _writer: asyncio.Task[None] | None

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

    @staticmethod
    def _new_session(table: Table, seats: list[SeatPlan]) -> Session:
        return Session(rules=table.config.ruleset, seed=table.seed, seats=seats,
                       card_ids=table.card_ids, deck_entry=table.deck_entry)

    def _restore_table(self, stored: StoredTable) -> Table:
        """The table of ``stored``, its game replayed from the event log (a damaged log marks
        the table broken and leaves the others alone)."""
        config = TableConfig.from_json(stored.config["table"])
        table = Table(id=stored.id, invite=stored.invite, config=config, seed=stored.seed,
                      deck_entry=stored.config["deck"], salt=stored.config.get("salt"),
                      watch=stored.config.get("watch"), status=stored.status,
                      names=[name for _, name, _ in stored.seats],
                      tokens=[digest for _, _, digest in stored.seats],
                      recovery=list(stored.recovery or [None] * len(stored.seats)),
                      record_json=stored.record, rematch=stored.config.get("rematch"),
                      last_active=stored.updated)
        if not stored.events:
            return table
        try:
            start = stored.events[0]
            table.session = self._new_session(table, [SeatPlan(**s) for s in start["seats"]])
            for event in stored.events[1:]:
                table.session.apply(event)
        except Exception as error:  # a damaged database: keep serving the other tables
            log.exception("table %s cannot be restored", stored.id)
            # Its text stays in the server log: it can name hidden cards.
            table.broken = (f"this table could not be restored ({type(error).__name__}); the "
                            "server log has the details.")
        if table.session is not None and table.session.state.results:
            table.reveal_round = table.session.state.results[-1].round
            table.reveal_at = asyncio.get_running_loop().time()
        return table

    def _deck_problem(self, table: Table) -> str | None:
        """Why ``table``'s cards cannot be shown as they were dealt: its deck can no longer be
        loaded, or it is not the deck the table was dealt from (a folder's pictures added,
        removed or changed since: every card would show another picture, or none). ``None``
        when it is the same deck."""
        name = table.config.deck_name or table.config.deck
        try:
            deck = self._deck(table.config.deck)
        except (ValueError, OSError) as error:
            return f"this table could not be restored: its deck {name!r} cannot be loaded ({error})"
        then = table.deck_entry.get("fingerprint")
        if deck.fingerprint == then:
            return None
        sizes = (f"{table.deck_entry.get('size')} cards then, {len(deck.card_ids)} now"
                 if table.deck_entry.get("size") != len(deck.card_ids) else
                 f"{len(deck.card_ids)} cards, some of their pictures changed")
        return (f"this table could not be restored: its deck {name!r} is not the deck it was "
                f"dealt from ({sizes}), so its cards would show other pictures; put the deck "
                "back as it was to play on")

    # ------------------------------------------------------------------ idle clean-up

    async def _sweep(self, idle: float) -> None:
        while True:
            await asyncio.sleep(min(60.0, max(0.05, idle / 4)))
            try:
                await self.clean_up(idle)
            except Exception:
                log.exception("the idle clean-up failed")

    async def clean_up(self, idle: float) -> list[str]:
        """Drop tables idle for ``idle`` seconds with nobody connected: finished ones leave
        memory, unfinished ones are closed (their record so far is written). Returns their ids.
        """
        limit = time.time() - idle

        def in_use(table: Table) -> bool:
            return bool(table.last_active >= limit or table.spectators
                        or any(table.connections.values()))

        cleaned = []
        for table in list(self.tables.values()):
            if in_use(table):
                continue
            async with table.lock:
                if in_use(table):  # someone came back while the clean-up waited for the lock
                    continue
                if table.status in ("lobby", "playing"):
                    statements = self.store.status_statements(table.id, "closed")
                    if table.session is not None:
                        record = table.session.record(await self._describe_bots(table))
                        statements = (self.store.record_statements(table.id, record.to_json(),
                                                                   "closed"))
                    await self._write(statements)
                    table.status = "closed"
                self._unregister(table)
            cleaned.append(table.id)
            log.info("table %s cleaned up after %.0f s idle", table.id, idle)
        return cleaned
