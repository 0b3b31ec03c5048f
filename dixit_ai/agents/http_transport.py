"""The transport of :class:`~dixit_ai.agents.http_agent.HttpAgent`: one HTTP request under one
wall-clock deadline.

A request's deadline covers looking up the name (at most the time left; a numeric address needs
none), connecting to each address (each gets the time left), sending, waiting and reading the
answer, an error response's body too: when it passes, the connection is shut down, which ends
whatever it was blocked on. Redirects are refused (the API key would go to the address they
name), answers are capped at :data:`MAX_RESPONSE_BYTES`, and requests to one endpoint are limited
by a process-wide semaphore per base URL (:func:`endpoint_semaphore`). Standard library only.
"""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

MAX_RESPONSE_BYTES = 4 * 1024 * 1024
"""The largest response body accepted from an endpoint, in bytes (a chat completion of a few
hundred tokens is a few kilobytes): a larger one is an :class:`EndpointError`, never read whole."""


class HttpAgentError(RuntimeError):
    """Something went wrong asking a served model for a decision."""


class EndpointError(HttpAgentError):
    """The endpoint could not be reached, refused the request or sent no usable response."""


class EndpointTimeout(EndpointError):
    """The endpoint did not answer within the agent's ``timeout`` (the whole request)."""


class Deadline:
    """A wall-clock deadline over one request: when it passes, the request's connection is shut
    down, which ends a connect, a TLS handshake, a send or a read blocked on it (each of which
    the socket timeout alone bounds only one at a time).

    It shuts down its own duplicate of the socket's descriptor (the same connection), closed by
    :meth:`finish`, so it never touches a descriptor that the request closed and the process
    reused. Before there is a socket, :meth:`connect` bounds the name lookup and each address's
    connect by the time left."""

    def __init__(self, seconds: float) -> None:
        self.expired = False
        self._end = time.monotonic() + seconds
        self._done = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds until the deadline (``0.0`` once it has passed)."""
        return max(0.0, self._end - time.monotonic())

    def connect(self, address: tuple[str, int], timeout: Any = None,
                source_address: tuple[str, int] | None = None) -> socket.socket:
        """:func:`socket.create_connection` within the deadline: the name lookup waits at most
        the time left, and each address's connect is watched and given the time left."""
        host, port = address[0], address[1]
        last: OSError | None = None
        for family, kind, protocol, _, where in self._resolve(host, port):
            if not self.left():
                break
            sock = socket.socket(family, kind, protocol)
            try:
                sock.settimeout(self.left())  # the deadline also shuts a pending connect down
                if source_address:
                    sock.bind(source_address)
                self.watch(sock)
                sock.connect(where)
            except OSError as error:
                sock.close()
                last = error
                continue
            return sock
        if not self.left() or self.expired:
            raise TimeoutError(f"connecting to {host}:{port} took longer than the deadline")
        raise last or OSError(f"no address found for {host}")

    def _resolve(self, host: str, port: int) -> list[Any]:
        """``getaddrinfo``, waiting at most the time left: a lookup cannot be cancelled, so a
        slow one goes on in a daemon thread (until the resolver's own timeout) while the
        request fails at its deadline. A numeric address needs no lookup and no thread."""
        try:
            return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM, 0,
                                      socket.AI_NUMERICHOST)
        except socket.gaierror:
            pass
        found: list[Any] = []
        failed: list[OSError] = []
        done = threading.Event()

        def lookup() -> None:
            try:
                found.extend(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
            except OSError as error:
                failed.append(error)
            finally:
                done.set()

        threading.Thread(target=lookup, name=f"resolve {host}", daemon=True).start()
        if not done.wait(self.left()):
            raise TimeoutError(f"looking up {host} took longer than the deadline")
        if failed:
            raise failed[0]
        return found

    def watch(self, sock: socket.socket) -> socket.socket:
        """Shut ``sock``'s connection down at the deadline (at once if it has passed)."""
        with self._lock:
            if self._done:
                return sock
            try:
                duplicate = sock.dup()
            except OSError:  # out of descriptors: the socket is not left open either
                sock.close()
                raise
            self._sockets.append(duplicate)
            if self.expired:
                self._shutdown(duplicate)
        return sock

    def _expire(self) -> None:
        with self._lock:
            if self._done:
                return
            self.expired = True
            for sock in self._sockets:
                self._shutdown(sock)

    @staticmethod
    def _shutdown(sock: socket.socket) -> None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # the connection is already gone
            pass

    def finish(self) -> None:
        """Stop the clock and close the duplicates (idempotent)."""
        with self._lock:
            self._done = True
            sockets, self._sockets = self._sockets, []
        self._timer.cancel()
        for sock in sockets:
            sock.close()


class DeadlineRequest(urllib.request.Request):
    """A request that carries its :class:`Deadline` to the connection that sends it."""

    deadline: Deadline


class _Watched(http.client.HTTPConnection):
    """A connection whose TCP socket (under TLS too, and through a proxy tunnel) its deadline
    watches from the moment it connects."""

    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._create_connection = deadline.connect  # what HTTPConnection.connect connects with


class _WatchedHTTPS(_Watched, http.client.HTTPSConnection):
    pass


class _DeadlineHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: DeadlineRequest) -> http.client.HTTPResponse:  # type: ignore[override]
        def connection(host: str, **kwargs: Any) -> _Watched:
            return _Watched(host, deadline=req.deadline, **kwargs)

        return self.do_open(connection, req)  # type: ignore[arg-type]


class _DeadlineHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: DeadlineRequest) -> http.client.HTTPResponse:  # type: ignore[override]
        def connection(host: str, **kwargs: Any) -> _WatchedHTTPS:
            return _WatchedHTTPS(host, deadline=req.deadline, **kwargs)

        context = getattr(self, "_context", None)
        return self.do_open(connection, req, context=context)  # type: ignore[arg-type]


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Follows no redirect: the 3xx response reaches the caller as an ``HTTPError``."""

    def redirect_request(self, *args: Any) -> None:  # type: ignore[override]
        return None


def opener() -> urllib.request.OpenerDirector:
    """urllib's usual opener (proxies from the environment included), with no redirects and
    the request's deadline on its connections."""
    return urllib.request.build_opener(_NoRedirects, _DeadlineHTTPHandler,
                                       _DeadlineHTTPSHandler)


_semaphores: dict[str, threading.BoundedSemaphore] = {}
_semaphores_lock = threading.Lock()


def endpoint_semaphore(base_url: str, concurrency: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore of one endpoint (created with the first agent's limit)."""
    with _semaphores_lock:
        if base_url not in _semaphores:
            _semaphores[base_url] = threading.BoundedSemaphore(concurrency)
        return _semaphores[base_url]
