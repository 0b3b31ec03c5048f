"""Rate limits: at most so many events per sender in a sliding window of seconds.

One :class:`RateLimiter` serves every limit of the web tables: a table's reactions (per seat,
per spectator's socket, all spectators together) and the server's limits per client address
(tables opened, seat requests) and per open WebSocket (its messages: see
:class:`~dixit_ai.web.config.ServerConfig`).

The counts are held in the memory of the server process: ``dixit-ai serve`` runs one (uvicorn
with the app object itself, no workers; a second process on the same database refuses to
start), so they hold for the whole server; a restart forgets them.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable

from dixit_ai.web.config import WebError

Limit = tuple[Hashable, int, float, str]
"""``(key, limit, window, what)``: at most ``limit`` events of ``key`` every ``window``
seconds; ``what`` names them in the refusal (``"reactions"``, ``"new tables from one
address"``)."""


class SocketFlood(WebError):
    """A socket kept sending past its limit (as many messages again refused): close it."""


class RateLimiter:
    """Sliding-window counters, one per key (a sender), forgotten once their window is past.

    Args:
        clock: Seconds, monotonic (tests pass their own).
    """

    MAX_IDLE_KEYS = 1024
    """Past this many keys, those with no event in their window are dropped (and again each
    time the keys double)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._times: dict[Hashable, deque[float]] = {}
        self._windows: dict[Hashable, float] = {}
        self._sweep_at = self.MAX_IDLE_KEYS

    def take(self, *limits: Limit) -> None:
        """Count one event against every limit of ``limits``, or against none.

        Raises:
            WebError: (429) one of the limits is reached (the message names it); nothing is
                counted.
        """
        now = self.clock()
        queues = []
        for key, limit, window, what in limits:
            times = self._times.setdefault(key, deque())
            self._windows[key] = window
            while times and now - times[0] > window:
                times.popleft()
            if len(times) >= limit:
                raise WebError(429, f"too many {what}: at most {limit} every {window:g} "
                                    "seconds; wait a moment and try again")
            queues.append(times)
        for times in queues:
            times.append(now)
        if len(self._times) > self._sweep_at:
            self._drop_idle(now)
            self._sweep_at = max(self.MAX_IDLE_KEYS, 2 * len(self._times))

    def take_per_minute(self, key: Hashable, per_minute: int, what: str) -> None:
        """Count one event of ``key`` against a server setting of ``per_minute`` events a
        minute (0 or less: no limit, nothing counted); see :meth:`take`."""
        if per_minute > 0:
            self.take((key, per_minute, 60.0, what))

    def forget(self, key: Hashable) -> None:
        """Drop ``key``'s counter (its sender has gone)."""
        self._times.pop(key, None)
        self._windows.pop(key, None)

    def __len__(self) -> int:
        return len(self._times)

    def _drop_idle(self, now: float) -> None:
        for key in [key for key, times in self._times.items()
                    if not times or now - times[-1] > self._windows[key]]:
            self.forget(key)
