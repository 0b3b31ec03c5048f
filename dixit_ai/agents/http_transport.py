"""The transport of :class:`~dixit_ai.agents.http_agent.HttpAgent`: one HTTP request under one
wall-clock deadline.

A request's deadline covers looking up the name (at most the time left; a numeric address needs
none), connecting to each address (each gets the time left), sending, waiting and reading the
answer, an error response's body too: when it passes, the connection is shut down, which ends
whatever it was blocked on. Redirects are refused (the API key would go to the address they
name), answers are capped at :data:`MAX_RESPONSE_BYTES`, an API key goes only where
:data:`KEY_RULE` allows (:func:`check_key_transport`; a loopback host is never reached through a
proxy), and requests to one endpoint are limited by a process-wide semaphore per base URL
(:func:`endpoint_semaphore`: one limit per endpoint, a second agent asking another is refused).
Standard library only.
"""

from __future__ import annotations

import gc
import http.client
import ipaddress
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import weakref
from typing import Any

MAX_RESPONSE_BYTES = 4 * 1024 * 1024
"""The largest response body accepted from an endpoint, in bytes (a chat completion of a few
hundred tokens is a few kilobytes): a larger one is an :class:`EndpointError`, never read whole."""


class HttpAgentError(RuntimeError):
    """Something went wrong asking a served model for a decision."""


class EndpointError(HttpAgentError):
    """The endpoint could not be reached, refused the request or sent no usable response.

    ``unreachable`` says the endpoint looks down rather than misconfigured: the connection was
    refused, closed or cut off, it timed out, or the server answered HTTP 5xx (a tournament
    stops after several of these in a row, :mod:`dixit_ai.tournament.outage`); a 4xx, a
    redirect, an answer too large or no chat completion are not."""

    def __init__(self, message: str = "", *, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable


class EndpointTimeout(EndpointError):
    """The endpoint did not answer within the agent's ``timeout`` (the whole request)."""

    def __init__(self, message: str = "", *, unreachable: bool = True) -> None:
        super().__init__(message, unreachable=unreachable)


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


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (a URL's host name) is this machine's loopback: ``localhost``, an
    address in 127.0.0.0/8, or ``::1`` (IPv4-mapped too). Other names that may resolve there
    are not counted: what a resolver answers is not known before connecting."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


KEY_RULE = ("an API key is sent only over https, or over plain http to a loopback host "
            "(127.0.0.0/8, ::1, localhost), which is reached without a proxy")
"""Where :func:`check_key_transport` lets an API key go."""


def check_key_transport(base_url: str, *, sends_key: bool, allow_insecure_key: bool) -> None:
    """Refuse a key that would cross the network (or reach a proxy) in clear text.

    Raises:
        ValueError: ``base_url`` is plain http to a host that is not loopback, a key is to be
            sent, and ``allow_insecure_key`` was not given.
    """
    parts = urllib.parse.urlsplit(base_url)
    if (not sends_key or allow_insecure_key or parts.scheme.lower() == "https"
            or is_loopback(parts.hostname)):
        return
    raise ValueError(
        f"{base_url}: {KEY_RULE}; this one would travel in clear text over the network (and "
        "to any proxy on the way). Use https://, or set allow_insecure_key: true (the "
        "allow_insecure_key=True argument) to send it anyway")


def opener(base_url: str) -> urllib.request.OpenerDirector:
    """urllib's usual opener, with no redirects and the request's deadline on its
    connections; proxies come from the environment (``*_proxy``, ``no_proxy``) except for a
    loopback host, always reached directly (a proxy would get a plain-http request, its API
    key included, in clear text, and could not reach this machine's loopback anyway)."""
    handlers: list[Any] = [_NoRedirects, _DeadlineHTTPHandler, _DeadlineHTTPSHandler]
    if is_loopback(urllib.parse.urlsplit(base_url).hostname):
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)


class _Endpoint:
    """One endpoint's limit, its semaphore, and the living agents that hold it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.semaphore = threading.BoundedSemaphore(limit)
        self.holders: weakref.WeakSet[object] = weakref.WeakSet()


_endpoints: dict[str, _Endpoint] = {}
_endpoints_lock = threading.Lock()


def endpoint_key(base_url: str) -> str:
    """The endpoint ``base_url`` names, written one way: the scheme and host in lower case
    (URLs compare them so), the port spelled out (80 for http, 443 for https when none is
    given), the path as given (paths are case-sensitive) without a trailing slash.

    >>> endpoint_key("HTTP://LocalHost/v1/")
    'http://localhost:80/v1'

    Raises:
        ValueError: the port is not a number from 0 to 65535.
    """
    parts = urllib.parse.urlsplit(base_url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{base_url}: the port must be a number from 0 to 65535") from None
    if port is None:
        port = 443 if scheme == "https" else 80
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 address keeps its brackets
        host = f"[{host}]"
    return urllib.parse.urlunsplit((scheme, f"{host}:{port}", parts.path.rstrip("/"),
                                    parts.query, ""))


def _claim(holder: object, base_url: str, concurrency: int) -> tuple[_Endpoint, bool]:
    """The endpoint, and whether ``holder`` now holds it (not when held at another limit)."""
    key = endpoint_key(base_url)
    with _endpoints_lock:
        endpoint = _endpoints.get(key)
        if endpoint is None or not endpoint.holders:  # no living agent holds a limit there
            endpoint = _endpoints[key] = _Endpoint(concurrency)
        elif endpoint.limit != concurrency:
            return endpoint, False
        endpoint.holders.add(holder)
        return endpoint, True


def endpoint_semaphore(holder: object, base_url: str,
                       concurrency: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore of one endpoint, held by ``holder`` (an agent) while it lives.

    ``concurrency`` is the requests in flight to ``base_url`` at once across the process, so
    it is one number per endpoint (addresses that differ only in how they write it, in the
    case of the scheme or host, a default port or a trailing slash, are one endpoint; see
    :func:`endpoint_key`): every living agent on it must give the same (agents made
    again with the same settings share it); once none lives, the endpoint takes a new limit.

    Raises:
        ValueError: another living agent holds the endpoint at a different limit (nothing is
            changed).
    """
    endpoint, held = _claim(holder, base_url, concurrency)
    if not held:  # an agent in a reference cycle may be dead but not yet collected
        gc.collect()
        endpoint, held = _claim(holder, base_url, concurrency)
    if held:
        return endpoint.semaphore
    holders = len(endpoint.holders)
    raise ValueError(
        f"{base_url}: concurrency {concurrency} asked, but {endpoint.limit} is already in force "
        f"there (held by {holders} other agent{'s' if holders != 1 else ''} of this process); "
        "concurrency is the requests in flight to an endpoint across the process, so every "
        f"agent on it must give the same: set concurrency to {endpoint.limit} here, or give "
        "all of them the new one")
