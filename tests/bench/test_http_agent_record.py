"""What an HTTP agent's failure and description tell the record: a timeout says how many
requests were made, and describe() keeps every setting that changes an answer."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.agents.http_agent import EndpointError, EndpointTimeout
from dixit_ai.rules import observe
from tests.bench.helpers import FakeServer, fake_server
from tests.bench.test_http_agent import agent, vote_state


@pytest.fixture(scope="module")
def server() -> FakeServer:
    with fake_server(delay=1.0) as running:
        yield running


def test_a_timeout_says_how_many_attempts_were_made(server: FakeServer) -> None:
    state, seat = vote_state()
    player = agent(server, "slow", timeout=0.2, max_retries=1)
    player.reset(seat=seat, rng=np.random.default_rng(0))
    with pytest.raises(EndpointTimeout) as error:
        player.vote(observe(state, seat))
    message = str(error.value)
    assert "did not answer within 0.2 s" in message
    assert "2 attempt(s) made, 1 + max_retries=1" in message
    assert "the earlier ones: EndpointTimeout:" in message
    once = agent(server, "slow", timeout=0.2, max_retries=0)
    once.reset(seat=seat, rng=np.random.default_rng(0))
    with pytest.raises(EndpointTimeout, match=r"\(1 attempt\(s\) made, 1 \+ max_retries=0\)$"):
        once.vote(observe(state, seat))


def test_an_unreachable_endpoint_says_how_many_attempts_were_made() -> None:
    from dixit_ai.agents.http_agent import HttpAgent
    from tests.bench.helpers import BENCH_DECK

    player = HttpAgent(base_url="http://127.0.0.1:9/v1", model="x", deck=BENCH_DECK,
                       timeout=2, max_retries=2)
    state, seat = vote_state()
    with pytest.raises(EndpointError, match=r"could not be reached.*3 attempt\(s\) made"):
        player.vote(observe(state, seat))


def test_describe_keeps_max_tokens_extra_body_and_concurrency(server: FakeServer) -> None:
    player = agent(server, "valid", max_tokens=77, extra_body={"top_p": 0.5}, concurrency=3)
    described = player.describe()
    assert described["max_tokens"] == 77
    assert described["extra_body"] == {"top_p": 0.5}
    assert described["throughput"] == {"concurrency": 3}
    other = agent(server, "valid", max_tokens=78, extra_body={"top_p": 0.5}, concurrency=3)
    assert other.describe() != described  # a change that alters answers shows in the record
