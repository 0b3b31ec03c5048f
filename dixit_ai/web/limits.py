"""Rate limits: at most so many events per sender in a sliding window of seconds.

One :class:`RateLimiter` serves every limit of the web tables: a table's reactions (per seat,
per spectator's socket, all spectators together) and the server's limits per client address
(tables opened, seat requests), per open WebSocket (its messages) and per seat (its
connections, its leaving and taking back: see :class:`~dixit_ai.web.config.ServerConfig`).
One :class:`OpenCounter` counts what a sender holds open at once (an address's sockets that
have not said hello yet). :class:`TrafficMixin` gives the table manager its counts of the traffic
that comes in (messages, sockets before hello, plain-HTTP requests).

The counts are held in the memory of the server process: ``dixit-ai serve`` runs one (uvicorn
with the app object itself, no workers; a second process on the same database refuses to
start), so they hold for the whole server; a restart forgets them.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING

from dixit_ai.web.config import ServerConfig, WebError

if TYPE_CHECKING:
    from dixit_ai.web.table import Table

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

    def take(self, *limits: Limit, count: bool = True) -> None:
        """Count one event against every limit of ``limits``, or against none (``count``
        False: only check that one more would be allowed, counting nothing: count it with
        another call once the event has happened).

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
        if not count:
            return
        for times in queues:
            times.append(now)
        if len(self._times) > self._sweep_at:
            self._drop_idle(now)
            self._sweep_at = max(self.MAX_IDLE_KEYS, 2 * len(self._times))

    def take_per_minute(self, key: Hashable, per_minute: int, what: str, *,
                        count: bool = True) -> None:
        """Count one event of ``key`` against a server setting of ``per_minute`` events a
        minute (0 or less: no limit, nothing counted); see :meth:`take`."""
        if per_minute > 0:
            self.take((key, per_minute, 60.0, what), count=count)

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


class OpenCounter:
    """How many things (sockets) each sender holds open at once, within a limit.

    :meth:`open` counts one more (or refuses it); the :class:`Held` it returns gives it back
    once, however often it is released: call ``release`` on every path the thing ends by.
    """

    def __init__(self) -> None:
        self._open: dict[Hashable, int] = {}

    def open(self, key: Hashable, limit: int, what: str) -> Held:
        """One more open thing of ``key``, within ``limit`` (0 or less: no limit, still
        counted).

        Raises:
            WebError: (429) ``key`` holds ``limit`` open already (the message names the
                limit and ``what``); nothing is counted.
        """
        held = self._open.get(key, 0)
        if 0 < limit <= held:
            raise WebError(429, f"too many {what}: at most {limit} at once; close one, or "
                                "wait a moment and try again")
        self._open[key] = held + 1
        return Held(self, key)

    def _release(self, key: Hashable) -> None:
        left = self._open.get(key, 0) - 1
        if left > 0:
            self._open[key] = left
        else:
            self._open.pop(key, None)

    def count(self, key: Hashable) -> int:
        """How many things ``key`` holds open now."""
        return self._open.get(key, 0)

    def __len__(self) -> int:
        return len(self._open)


class Held:
    """One thing counted open by an :class:`OpenCounter`, until :meth:`release` (``counter``
    None: nothing counted)."""

    def __init__(self, counter: OpenCounter | None, key: Hashable) -> None:
        self._counter: OpenCounter | None = counter
        self._key = key

    def release(self) -> None:
        """Stop counting it (once: later calls do nothing)."""
        if self._counter is not None:
            self._counter._release(self._key)
            self._counter = None


class TrafficMixin:
    """The traffic limits of :class:`~dixit_ai.web.manager.TableManager` (mixed in): messages on
    a socket, sockets waiting for their hello, plain-HTTP requests, each counted against the
    server's limits (:class:`~dixit_ai.web.config.ServerConfig`) before any work."""

    server: ServerConfig
    socket_limits: RateLimiter
    http_limits: RateLimiter
    hello_sockets: OpenCounter

    def count_message(self, socket: object) -> None:
        """Count one message received on ``socket`` against the server's
        ``socket_messages_per_minute`` (call :meth:`forget_socket` when it closes).

        Raises:
            SocketFlood: (429) the socket has sent as many messages again past the limit
                within the minute: close it.
            WebError: (429) the socket reached the limit (the message names it); answer it and
                read on.
        """
        per_minute = self.server.socket_messages_per_minute
        try:
            self.socket_limits.take_per_minute(("socket", socket), per_minute,
                                               "messages on one socket")
        except WebError:
            try:
                self.socket_limits.take_per_minute(("refused", socket), per_minute,
                                                   "refused messages on one socket")
            except WebError:
                raise SocketFlood(429, f"too many messages on one socket: at most {per_minute} "
                                       f"every 60 seconds, and {per_minute} more sent past "
                                       "it; the socket is closed") from None
            raise

    def await_hello(self, client: str | None) -> Held:
        """Count one more socket of the address ``client`` (None: not known, not counted)
        waiting for its hello, against the server's ``sockets_awaiting_hello_per_address``;
        release what this returns when the hello is read or the socket closes, whichever
        comes first (releasing twice is harmless).

        Raises:
            WebError: (429) the address holds that many such sockets open already (the
                message names the limit); nothing is counted.
        """
        if client is None:
            return Held(None, None)
        return self.hello_sockets.open(
            client, self.server.sockets_awaiting_hello_per_address,
            "sockets from one address waiting for their hello (a socket starts with "
            "{\"type\": \"hello\", ...})")

    def count_http(self, table: Table, seat: int | None, client: str | None = None) -> None:
        """Count one plain-HTTP request of ``seat`` of ``table`` (``/api/state``,
        ``/api/action``, ``/api/history``), or, with ``seat`` None, one spectator state of the
        table asked by the address ``client`` (None: not known, not counted), against the
        server's ``http_requests_per_minute``; call it before any work.

        Raises:
            WebError: (429) the limit is reached (the message names it); nothing was done.
        """
        per_minute = self.server.http_requests_per_minute
        if seat is not None:
            self.http_limits.take_per_minute(("seat", table.id, seat), per_minute,
                                             "HTTP requests from one seat")
        elif client is not None:
            self.http_limits.take_per_minute(("watch", table.id, client), per_minute,
                                             "spectator states of one table from one address")

    def forget_socket(self, socket: object) -> None:
        """Drop a closed socket's counts."""
        self.socket_limits.forget(("socket", socket))
        self.socket_limits.forget(("refused", socket))
