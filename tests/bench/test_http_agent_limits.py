"""The HTTP agent's limits on one request, against servers on 127.0.0.1: a redirect is refused
(the API key never reaches the address it points to), ``timeout`` is a deadline over the whole
request (an answer dripped a byte at a time fails at it), and the response size is capped."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from dixit_ai.agents import http_agent, make_agent
from dixit_ai.agents.http_agent import EndpointError, EndpointTimeout, HttpAgent
from dixit_ai.match import play_game
from dixit_ai.rules import observe
from tests.bench.helpers import BENCH_DECK
from tests.bench.test_http_agent import vote_state

KEY = "sk-test-never-forwarded"


def completion(content: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant",
                                                             "content": content}}]}).encode()


VALID = completion(json.dumps({"card": 1}))  # card 1 is not the voter's own (vote_state)


class Server:
    """A server whose POST (and GET) ``answer(handler, stop)`` writes; it records every request
    as (method, path, Authorization header)."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler, threading.Event], None]
                 ) -> None:
        self.requests: list[tuple[str, str, str | None]] = []
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.record()

            def do_GET(self) -> None:
                self.record()

            def record(self) -> None:
                server.requests.append((self.command, self.path,
                                        self.headers.get("Authorization")))
                try:
                    answer(self, server.stop)
                except OSError:  # the agent hung up (as it should past its limits)
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)


@contextmanager
def serving(answer: Callable[[BaseHTTPRequestHandler, threading.Event], None]
            ) -> Iterator[Server]:
    server = Server(answer)
    server.thread.start()
    try:
        yield server
    finally:
        server.stop.set()
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join(5)


def send(handler: BaseHTTPRequestHandler, body: bytes, *, code: int = 200,
         length: bool = True, headers: tuple[tuple[str, str], ...] = ()) -> None:
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    if length:
        handler.send_header("Content-Length", str(len(body)))
    for name, value in headers:
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def voter(base_url: str, **options: Any) -> HttpAgent:
    settings: dict[str, Any] = {"base_url": base_url, "model": "m", "deck": BENCH_DECK,
                                "timeout": 5.0, "max_retries": 0, "image_size": 48, **options}
    return HttpAgent(**settings)


def vote(player: HttpAgent) -> Any:
    state, seat = vote_state()
    player.reset(seat=seat, rng=np.random.default_rng(0))
    return player.vote(observe(state, seat))


# ---------------------------------------------------------------------- redirects


@contextmanager
def redirecting(location: Callable[[int], str]) -> Iterator[tuple[Server, Server]]:
    """A server that redirects every request to ``location(port of the other server)``, and
    that other server (which would answer validly)."""
    with serving(lambda handler, stop: send(handler, VALID)) as elsewhere:
        def redirect(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
            send(handler, b"", code=302, headers=(("Location", location(elsewhere.port)),))

        with serving(redirect) as first:
            yield first, elsewhere


def test_a_redirect_is_refused_and_the_key_never_leaves(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setenv("DIXIT_TEST_KEY", KEY)
    with redirecting(lambda port: f"http://localhost:{port}/elsewhere") as (first, elsewhere):
        player = voter(first.base_url, api_key_env="DIXIT_TEST_KEY", max_retries=1)
        with pytest.raises(EndpointError) as error:
            vote(player)
        message = str(error.value)
        assert f"redirected the request (HTTP 302) to http://localhost:{elsewhere.port}/" \
               "elsewhere" in message
        assert "redirects are not followed" in message and "set base_url" in message
        assert KEY not in message
        assert elsewhere.requests == []  # never reached, so never sent the key
        # the failure follows the agent's retry policy: one request and one retry, both to
        # base_url (the address the key is meant for)
        assert first.requests == [("POST", "/v1/chat/completions", f"Bearer {KEY}")] * 2


def test_a_redirect_names_the_base_url_to_set() -> None:
    with redirecting(lambda port: f"http://127.0.0.1:{port}/v2/chat/completions"
                     ) as (first, elsewhere):
        with pytest.raises(EndpointError, match=r"set base_url to the final address "
                                                r"\(http://127\.0\.0\.1:\d+/v2\)"):
            vote(voter(first.base_url))
        assert elsewhere.requests == []


def test_a_game_records_a_redirect_as_an_endpoint_failure(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setenv("DIXIT_TEST_KEY", KEY)
    with redirecting(lambda port: "/v2/chat/completions") as (first, elsewhere):  # relative
        players = [voter(first.base_url, api_key_env="DIXIT_TEST_KEY"),
                   make_agent("random"), make_agent("random")]
        record = play_game(players, edition="refresh-2021", deck=BENCH_DECK, seed=4)
        assert elsewhere.requests == [] and len(first.requests) == 1
    assert record.status == "aborted"
    (failure,) = record.failures
    assert failure.seat == 0 and failure.error == "EndpointError"
    assert (f"redirected the request (HTTP 302) to http://127.0.0.1:{first.port}/v2/chat/"
            f"completions" in failure.reason)
    assert f"(http://127.0.0.1:{first.port}/v2)" in failure.reason


# ---------------------------------------------------------------------- the whole-request deadline


def dripping(length: bool) -> Callable[[BaseHTTPRequestHandler, threading.Event], None]:
    """Answers validly, one byte every 0.05 s (each read far under the timeout), for about
    3 s in all (the answer is padded)."""

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        body = VALID + b" " * max(0, 60 - len(VALID))
        handler.send_response(200)
        if length:
            handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.flush()
        for k in range(len(body)):
            if stop.wait(0.05):
                return
            handler.wfile.write(body[k:k + 1])
            handler.wfile.flush()

    return answer


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "to-close"])
def test_timeout_bounds_the_whole_request_not_each_read(length: bool) -> None:
    with serving(dripping(length)) as server:
        player = voter(server.base_url, timeout=0.5)
        start = time.perf_counter()
        with pytest.raises(EndpointTimeout, match=r"did not answer within 0\.5 s \(the timeout "
                                                  r"bounds the whole request"):
            vote(player)
        elapsed = time.perf_counter() - start
        assert server.requests  # it was answering, too slowly
    assert elapsed < 1.2  # the drip takes 3 s


def test_a_server_that_never_sends_its_headers_times_out() -> None:
    def silent(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")  # then the headers, a byte a while
        for byte in b"Content-Type: application/json\r\n":
            if stop.wait(0.05):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    with serving(silent) as server:
        start = time.perf_counter()
        with pytest.raises(EndpointTimeout):
            vote(voter(server.base_url, timeout=0.4))
    assert time.perf_counter() - start < 1.1


def test_a_fast_answer_is_unaffected_by_the_deadline() -> None:
    with serving(lambda handler, stop: send(handler, VALID)) as server:
        player = voter(server.base_url, timeout=0.5)
        for _ in range(3):
            assert vote(player).items == (0,)
            time.sleep(0.3)  # past a finished request's deadline: nothing is shut down late
        assert len(server.requests) == 3


# ---------------------------------------------------------------------- the size cap


@pytest.mark.parametrize("length", [True, False], ids=["content-length", "to-close"])
def test_a_response_over_the_size_cap_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                 length: bool) -> None:
    monkeypatch.setattr(http_agent, "MAX_RESPONSE_BYTES", 1000)
    huge = completion(json.dumps({"card": 1}) + " " * 200_000)
    with serving(lambda handler, stop: send(handler, huge, length=length)) as server:
        with pytest.raises(EndpointError, match=r"larger than the 1,000-byte limit "
                                                r"\(http_agent\.MAX_RESPONSE_BYTES\)"):
            vote(voter(server.base_url, max_retries=1))
        assert len(server.requests) == 2  # retried like any failed request


def test_a_response_under_the_size_cap_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_agent, "MAX_RESPONSE_BYTES", len(VALID))
    with serving(lambda handler, stop: send(handler, VALID, length=False)) as server:
        assert vote(voter(server.base_url)).items == (0,)


# ---------------------------------------------------------------------- huge invalid answers


def test_a_huge_invalid_answer_is_not_copied_into_the_record() -> None:
    """An answer under the size cap can still be garbage of megabytes (``{"card": "xxx..."}``):
    the reason it is refused quotes a short piece of it, so a game record (and the failures a
    tournament prints) holds no megabyte per failure; a later valid answer keeps a short
    reason in its info too."""
    garbage = completion(json.dumps({"card": "x" * 300_000, "clue": "a whale"}))
    answers = iter([garbage, VALID])
    with serving(lambda handler, stop: send(handler, next(answers))) as server:
        choice = vote(voter(server.base_url, max_retries=1))
        assert choice.items == (0,)
        (reason,) = choice.info["refused"]
        assert "must be an integer from 1 to 4" in reason and len(reason) < 300
    with serving(lambda handler, stop: send(handler, garbage)) as server:
        players = [voter(server.base_url, name="garbage", max_retries=1),
                   make_agent("random"), make_agent("random")]
        record = play_game(players, edition="refresh-2021", deck=BENCH_DECK, seed=4,
                           on_failure="forfeit", max_rounds=1)
    assert record.failures and all(failure.seat == 0 for failure in record.failures)
    assert all("must be an integer" in f.reason and len(f.reason) < 500
               for f in record.failures)
    assert len(record.to_json()) < 20_000
