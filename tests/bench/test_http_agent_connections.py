"""The HTTP agent refuses a JSON object inside prose (retried with the reason), and a connection
closed or cut off mid-answer is an ``EndpointError`` that ``max_retries`` applies to."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from dixit_ai.agents.http_agent import EndpointError, HttpAgent, parse_answer
from dixit_ai.rules import observe
from tests.bench.helpers import BENCH_DECK
from tests.bench.test_http_agent import vote_state


def test_a_json_object_inside_prose_is_refused() -> None:
    refusal = ('I cannot see any images in this conversation. If I could, I would answer in '
               'the form {"card": 1, "clue": "a clue"}.')
    for text in (refusal, 'Sure! {"card": 3, "clue": "x"} Hope it helps',
                 'Here you go:\n```json\n{"card": 2}\n```'):
        with pytest.raises(ValueError, match="inside other text"):
            parse_answer(text)
    assert parse_answer('```json\n{"card": 2}\n```') == {"card": 2}  # a fence alone is fine
    assert parse_answer('  {"card": 2}\n') == {"card": 2}


def answer_body(content: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant",
                                                             "content": content}}]}).encode()


@contextmanager
def raw_server(modes: list[str]) -> Iterator[tuple[str, list[str]]]:
    """An endpoint that answers its n-th connection by ``modes[n]`` (the last one repeats):
    ``close`` (no response at all), ``partial`` (a body cut off) or a vote answer ``valid``."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    served: list[str] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += connection.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                while len(body) < length:
                    body += connection.recv(65536)
                mode = modes[min(len(served), len(modes) - 1)]
                served.append(mode)
                if mode == "close":
                    continue
                payload = answer_body(json.dumps({"card": 1}))
                if mode == "partial":
                    connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                       + f"Content-Length: {len(payload)}\r\n\r\n".encode()
                                       + payload[:19])
                    continue
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                   + f"Content-Length: {len(payload)}\r\n".encode()
                                   + b"Connection: close\r\n\r\n" + payload)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", served
    finally:
        stop.set()
        listener.close()
        thread.join(5)


def voter(base_url: str, max_retries: int) -> HttpAgent:
    return HttpAgent(base_url=base_url, model="m", deck=BENCH_DECK, timeout=5,
                     max_retries=max_retries, image_size=48)


@pytest.mark.parametrize(("mode", "said"), [("close", "closed the connection"),
                                             ("partial", "cut off")])
def test_a_closed_or_cut_off_connection_is_an_endpoint_error(mode: str, said: str) -> None:
    state, seat = vote_state()
    with raw_server([mode]) as (base_url, served):
        player = voter(base_url, max_retries=1)
        player.reset(seat=seat, rng=np.random.default_rng(0))
        with pytest.raises(EndpointError, match=said):
            player.vote(observe(state, seat))
        assert served == [mode, mode]  # max_retries applied: one request and one retry


def test_a_closed_connection_is_retried() -> None:
    state, seat = vote_state()
    with raw_server(["close", "partial", "valid"]) as (base_url, served):
        player = voter(base_url, max_retries=2)
        player.reset(seat=seat, rng=np.random.default_rng(0))
        choice = player.vote(observe(state, seat))
    assert served == ["close", "partial", "valid"]
    assert choice.info["attempts"] == 3 and len(choice.info["refused"]) == 2
    assert all(reason.startswith("EndpointError") for reason in choice.info["refused"])
