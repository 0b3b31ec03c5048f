"""The HTTP agent's deadline before there is a connection and after an HTTP error: the name
lookup and every address's connect share the one ``timeout``, an error response's body is read
within it, and a ``timeout`` that cannot be a deadline is refused when the agent is made.

Servers run on 127.0.0.1; a lookup is made slow by patching ``socket.getaddrinfo``, and a
connect made to hang by a listener whose accept queue is full (it answers no further SYN).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from dixit_ai.agents.http_agent import EndpointError, EndpointTimeout, HttpAgent
from tests.bench.test_http_agent_limits import serving, vote, voter


def numeric(args: tuple[Any, ...]) -> bool:
    """Whether a ``getaddrinfo`` call asks for a numeric address only (no lookup)."""
    flags = args[5] if len(args) > 5 else 0
    return bool(flags & socket.AI_NUMERICHOST)


def test_a_slow_name_lookup_fails_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    real = socket.getaddrinfo
    release = threading.Event()

    def slow(*args: Any) -> Any:
        if not numeric(args):
            release.wait()  # a resolver that does not answer (released at the end)
        return real(*args)

    monkeypatch.setattr(socket, "getaddrinfo", slow)
    late = threading.Timer(4.0, release.set)  # without the deadline the lookup ends here
    late.start()
    try:
        with serving(lambda handler, stop: None) as server:
            player = voter(server.base_url.replace("127.0.0.1", "localhost"), timeout=0.4)
            start = time.perf_counter()
            with pytest.raises(EndpointTimeout, match=r"did not answer within 0\.4 s"):
                vote(player)
            elapsed = time.perf_counter() - start
            assert server.requests == []
    finally:
        release.set()
        late.cancel()
    assert elapsed < 1.5  # the lookup would take 4 s


@contextmanager
def unanswered() -> Iterator[tuple[str, int]]:
    """An address whose connects hang: a listener with a full accept queue."""
    listener = socket.socket()
    held = socket.socket()
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        held.connect(listener.getsockname())  # fills the queue: later SYNs go unanswered
        yield listener.getsockname()
    finally:
        held.close()
        listener.close()


def test_the_addresses_of_a_name_share_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    real = socket.getaddrinfo
    with unanswered() as (host, port):
        def four_addresses(*args: Any) -> Any:
            if args[0] == "endpoint.test":
                return real(host, port, 0, socket.SOCK_STREAM) * 4
            return real(*args)

        monkeypatch.setattr(socket, "getaddrinfo", four_addresses)
        player = voter("http://endpoint.test/v1", timeout=0.5)
        start = time.perf_counter()
        with pytest.raises(EndpointTimeout, match=r"did not answer within 0\.5 s"):
            vote(player)
        elapsed = time.perf_counter() - start
    assert elapsed < 1.5  # 0.5 s for each address would be 2 s


def test_an_error_responses_body_is_read_within_the_deadline() -> None:
    def dripped_error(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.send_response(500)
        handler.send_header("Content-Length", "300")
        handler.end_headers()
        handler.wfile.flush()
        for _ in range(300):  # 6 s in all
            if stop.wait(0.02):
                return
            handler.wfile.write(b"x")
            handler.wfile.flush()

    with serving(dripped_error) as server:
        player = voter(server.base_url, timeout=0.5)
        start = time.perf_counter()
        with pytest.raises(EndpointError, match=r"answered HTTP 500: x* \(1 attempt\(s\) made"):
            vote(player)
        elapsed = time.perf_counter() - start
    assert elapsed < 1.5


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 1e12, 0, -1.0, True, "60"])
def test_a_timeout_that_cannot_be_a_deadline_is_refused(timeout: Any) -> None:
    with pytest.raises(ValueError, match=r"timeout must be a positive number of seconds, at "
                                         r"most 9\.22337e\+09, not "):
        HttpAgent(base_url="http://127.0.0.1:9/v1", model="m", timeout=timeout)
