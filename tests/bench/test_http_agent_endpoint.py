"""What the HTTP agent's endpoint settings mean: ``concurrency`` is one limit per endpoint for the
whole process, so a second agent asking another limit there is refused; an API key is sent only
over https, or over plain http to a loopback host reached without a proxy, unless the agent is
told ``allow_insecure_key``."""

from __future__ import annotations

import gc
import re
import threading
from http.server import BaseHTTPRequestHandler

import numpy as np
import pytest

from dixit_ai.agents.http_agent import HttpAgent
from dixit_ai.rules import observe
from tests.bench.helpers import BENCH_DECK
from tests.bench.test_http_agent import vote_state
from tests.bench.test_http_agent_limits import KEY, VALID, Server, send, serving, vote, voter


def on(base_url: str, concurrency: int) -> HttpAgent:
    return HttpAgent(base_url=base_url, model="busy", deck=BENCH_DECK, timeout=5,
                     max_retries=0, image_size=48, concurrency=concurrency)


def test_a_second_limit_on_one_endpoint_is_refused_naming_both() -> None:
    url = "http://127.0.0.1:9/v1-concurrency-refused"
    first = on(url, 2)
    message = (f"{url}: concurrency 3 asked, but 2 is already in force there (held by "
               "1 other agent of this process)")
    with pytest.raises(ValueError, match=re.escape(message)):
        on(url, 3)
    with pytest.raises(ValueError, match="concurrency 3 asked"):  # the trailing slash too
        on(url + "/", 3)
    again = on(url, 2)  # recreated with the same settings: accepted, one limit shared
    with pytest.raises(ValueError, match=re.escape("(held by 2 other agents")):
        on(url, 1)
    assert first.concurrency == again.concurrency == 2
    assert on(url.replace("9", "10"), 3).concurrency == 3  # another endpoint, its own limit


def test_spellings_of_one_endpoint_share_its_limit() -> None:
    """The scheme's and host's case and a default port do not make another endpoint (they did:
    the limit was keyed by the address as written); a path's case does."""
    url = "http://127.0.0.1/v1-spellings"
    first = on(url, 2)
    for spelling in ("HTTP://127.0.0.1/v1-spellings", "http://127.0.0.1:80/v1-spellings/"):
        with pytest.raises(ValueError, match="concurrency 3 asked, but 2 is already in force"):
            on(spelling, 3)
    assert on("http://127.0.0.1/V1-SPELLINGS", 3).concurrency == 3  # another path
    assert on("https://127.0.0.1/v1-spellings", 3).concurrency == 3  # another scheme and port
    upper = on("http://LOCALHOST/v1-host", 2)
    with pytest.raises(ValueError, match="concurrency 3 asked"):
        on("http://localhost:80/v1-host", 3)
    assert first.concurrency == upper.concurrency == 2


def test_a_malformed_port_is_refused_naming_the_limit() -> None:
    with pytest.raises(ValueError, match=r"the port must be a number from 0 to 65535"):
        on("http://127.0.0.1:99999/v1", 1)


def voting(players: list[HttpAgent]) -> list[BaseException]:
    """Every player votes at once, each in its own thread; the exceptions they raised."""
    state, seat = vote_state()
    view = observe(state, seat)
    failures: list[BaseException] = []

    def run(player: HttpAgent) -> None:
        player.reset(seat=seat, rng=np.random.default_rng(0))
        try:
            player.vote(view)
        except Exception as error:
            failures.append(error)

    threads = [threading.Thread(target=run, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return failures


def test_the_refused_agent_changes_nothing_and_a_freed_endpoint_takes_a_new_limit() -> None:
    lock = threading.Lock()
    in_flight = [0, 0]  # now, most
    arrived: list[threading.Barrier] = []

    def answer(handler: BaseHTTPRequestHandler, stop: threading.Event) -> None:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        if arrived:  # answer none before all the barrier's parties are in flight
            arrived[0].wait(timeout=10)
        else:
            stop.wait(0.05)
        with lock:
            in_flight[0] -= 1
        send(handler, VALID)

    with serving(answer) as server:
        keep = voter(server.base_url, concurrency=2)
        with pytest.raises(ValueError, match="2 is already in force"):
            voter(server.base_url, concurrency=5)
        assert not voting([keep, *(voter(server.base_url, concurrency=2) for _ in range(5))])
        assert len(server.requests) == 6 and in_flight[1] <= 2  # still 2, not 5
        del keep
        gc.collect()
        # No agent holds the old limit now: 3 agents at 3 are all in flight at once (the
        # server answers none before the third arrives; under a limit of 2 it would not).
        arrived.append(threading.Barrier(3))
        assert not voting([voter(server.base_url, concurrency=3) for _ in range(3)])
        assert len(server.requests) == 9


# ---------------------------------------------------------------------- the API key in clear text


RULE = ("an API key is sent only over https, or over plain http to a loopback host (127.0.0.0/8, "
        "::1, localhost)")


@pytest.mark.parametrize("url", ["http://example.com/v1", "http://10.0.0.7:8000/v1",
                                 "http://0.0.0.0:8000/v1", "http://localhost.example.com/v1"])
def test_a_key_over_plain_http_to_another_host_is_refused(url: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"{url}: {RULE}")) as error:
        HttpAgent(base_url=url, model="m", api_key_env="DIXIT_TEST_KEY")
    assert "allow_insecure_key" in str(error.value)
    opted_in = HttpAgent(base_url=url, model="m", api_key_env="DIXIT_TEST_KEY",
                         allow_insecure_key=True)  # said explicitly: accepted
    assert opted_in.allow_insecure_key
    with pytest.raises(ValueError, match="allow_insecure_key must be true or false, not 'no'"):
        HttpAgent(base_url=url, model="m", api_key_env="DIXIT_TEST_KEY",
                  allow_insecure_key="no")  # type: ignore[arg-type]
    HttpAgent(base_url=url, model="m")  # no key, no secret to protect
    HttpAgent(base_url=url.replace("http://", "https://"), model="m",
              api_key_env="DIXIT_TEST_KEY")


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "localhost", "LocalHost", "[::1]"])
def test_a_key_over_plain_http_to_a_loopback_host_is_accepted(host: str) -> None:
    HttpAgent(base_url=f"http://{host}:9/v1", model="m", api_key_env="DIXIT_TEST_KEY")


def through_a_proxy(monkeypatch: pytest.MonkeyPatch, proxy: Server) -> None:
    """Every proxy variable urllib reads, all pointing at ``proxy``, and no exception."""
    for name in ("no_proxy", "NO_PROXY", "REQUEST_METHOD"):
        monkeypatch.delenv(name, raising=False)
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                 "ALL_PROXY"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{proxy.port}")
    monkeypatch.setenv("DIXIT_TEST_KEY", KEY)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_loopback_endpoint_is_reached_without_the_proxy(monkeypatch: pytest.MonkeyPatch,
                                                          host: str) -> None:
    with serving(lambda handler, stop: send(handler, VALID)) as proxy, \
            serving(lambda handler, stop: send(handler, VALID)) as server:
        through_a_proxy(monkeypatch, proxy)
        url = server.base_url.replace("127.0.0.1", host)
        assert vote(voter(url, api_key_env="DIXIT_TEST_KEY")).items == (0,)
        assert proxy.requests == []  # the key never went to the proxy in clear text
        assert server.requests == [("POST", "/v1/chat/completions", f"Bearer {KEY}")]


def test_another_host_over_plain_http_still_goes_through_the_proxy(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Proxies are honoured where no key travels in clear: only loopback skips them."""
    with serving(lambda handler, stop: send(handler, VALID)) as proxy:
        through_a_proxy(monkeypatch, proxy)
        assert vote(voter("http://dixit-endpoint.invalid/v1")).items == (0,)
        opted_in = voter("http://dixit-endpoint.invalid/v1", api_key_env="DIXIT_TEST_KEY",
                         allow_insecure_key=True)  # the clear text it was told to accept
        assert vote(opted_in).items == (0,)
        assert proxy.requests == [
            ("POST", "http://dixit-endpoint.invalid/v1/chat/completions", None),
            ("POST", "http://dixit-endpoint.invalid/v1/chat/completions", f"Bearer {KEY}")]
