"""Clocks that respect people: per-seat move timers, reading time for reveals, leave grace.

- Each person who must act has their own move timer, started when the phase starts, except
  while they read a reveal they have not dismissed: then it starts when they dismiss it (a
  ``seen`` message), or at the latest ``reveal_seconds`` after the reveal (the page shows that
  countdown and moves on by itself).
- A seat has one timer per phase: a person who takes the seat back from a bot keeps what was
  left of it, and cannot take it back at all once it has run out, until the bot has moved.
- Only that person is told their remaining time, always for the phase now under way (timers are
  set before the state is sent).
- A person disconnected for longer than the table's ``leave_grace`` is replaced by a bot.
"""

from __future__ import annotations

import asyncio
from typing import Any

from dixit_ai.web.table import Table


class TimersMixin:
    """The clocks of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    reveal_seconds: float

    def _reading(self, table: Table, seat: int, now: float) -> bool:
        """Whether ``seat``'s person is still on a reveal they have not dismissed."""
        return (table.reveal_round is not None
                and table.seen_round.get(seat, -1) < table.reveal_round
                and now < table.reveal_at + self.reveal_seconds)

    def _arm_timers(self, table: Table) -> None:
        """Start, keep or stop each person's move timer after a change."""
        session = table.session
        timer = table.config.move_timer
        if session is None or timer is None:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        state = session.state
        key = (state.round, state.phase.value)
        if key != table.phase_key:
            table.phase_key = key
            table.deadlines.clear()
            table.phase_deadlines.clear()
            for task in table.timer_tasks.values():
                task.cancel()
            table.timer_tasks.clear()
        waiting = set(session.human_seats_to_act()) if not state.is_over else set()
        for seat in list(table.timer_tasks):
            if seat not in waiting:
                table.timer_tasks.pop(seat).cancel()
                table.deadlines.pop(seat, None)
        for seat in sorted(waiting):
            if seat in table.timer_tasks:
                continue
            if self._reading(table, seat, now):
                wake = table.reveal_at + self.reveal_seconds
                table.timer_tasks[seat] = loop.create_task(self._after_reading(table, seat,
                                                                               key, wake))
                continue
            # One timer per seat and phase: a person who takes the seat back from a bot (after
            # leaving, or after the timer ran out) keeps what is left of it.
            table.deadlines[seat] = table.phase_deadlines.setdefault(seat, now + timer)
            table.timer_tasks[seat] = loop.create_task(self._expire(table, seat, key))

    async def _after_reading(self, table: Table, seat: int, key: tuple[int, str],
                             wake: float) -> None:
        await asyncio.sleep(max(0.0, wake - asyncio.get_running_loop().time()))
        async with table.lock:
            if table.phase_key != key or seat in table.deadlines:
                return
            table.timer_tasks.pop(seat, None)
            self._arm_timers(table)
            self._broadcast(table)  # type: ignore[attr-defined]

    async def _expire(self, table: Table, seat: int, key: tuple[int, str]) -> None:
        deadline = table.deadlines[seat]
        await asyncio.sleep(max(0.0, deadline - asyncio.get_running_loop().time()))
        async with table.lock:
            session = table.session
            if (session is None or session.state.is_over or table.phase_key != key
                    or table.deadlines.get(seat) != deadline):
                return
            table.timer_tasks.pop(seat, None)
            table.deadlines.pop(seat, None)
            if seat in session.human_seats_to_act():
                await self._control(table, seat, "bot", "timeout")  # type: ignore[attr-defined]

    def check_time_left(self, table: Table, seat: int) -> None:
        """Refuse to give ``seat`` back to its person while its move time for this phase has run
        out (the bot that took over moves first; otherwise taking the seat back, again and
        again, would stall the game).

        Raises:
            WebError: 409, the time has run out.
        """
        session = table.session
        if session is None or table.config.move_timer is None:
            return
        key = (session.state.round, session.state.phase.value)
        deadline = table.phase_deadlines.get(seat)
        if (key == table.phase_key and deadline is not None and seat in session.state.pending
                and asyncio.get_running_loop().time() >= deadline):
            from dixit_ai.web.config import WebError

            raise WebError(409, "your move time for this phase ran out: a bot moves for you; "
                                "take your seat back once it has")

    def seen(self, table: Table, seat: int, round_number: Any) -> None:
        """``seat``'s person dismissed the reveal of ``round_number``: their timer may start."""
        if isinstance(round_number, bool) or not isinstance(round_number, int):
            from dixit_ai.web.config import WebError

            raise WebError(400, f"seen needs the round number, not {round_number!r}")
        table.seen_round[seat] = max(table.seen_round.get(seat, -1), round_number)
        if seat not in table.deadlines and seat in table.timer_tasks:  # it was reading
            table.timer_tasks.pop(seat).cancel()
        self._arm_timers(table)

    def remaining(self, table: Table, seat: int) -> dict[str, float | None]:
        """What ``seat`` is told of its clocks: its own move time left, its reading time."""
        session = table.session
        loop = asyncio.get_running_loop()
        now = loop.time()
        out: dict[str, float | None] = {"deadline_in": None, "reading_for": None}
        if session is None or session.state.is_over:
            return out
        if seat in table.deadlines:
            out["deadline_in"] = max(0.0, round(table.deadlines[seat] - now, 1))
        elif (table.config.move_timer is not None and seat in session.human_seats_to_act()
              and self._reading(table, seat, now)):
            out["reading_for"] = max(0.0, round(table.reveal_at + self.reveal_seconds - now, 1))
        return out

    # ------------------------------------------------------------------ leave grace

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
            await self._control(table, seat, "bot", "disconnected")  # type: ignore[attr-defined]
