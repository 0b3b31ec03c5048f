"""Agents and a fake chat-completions server for the benchmark's tests."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from dixit_ai.agents import Choice, RandomAgent
from dixit_ai.rules import View

BENCH_DECK = "dream:size=30,seed=5"
"""A small dream deck: the tests render and embed it once per session."""


class OwnCardVoter(RandomAgent):
    """Votes for its own card: the rules refuse it, so every vote is an invalid answer."""

    def vote(self, view: View) -> Choice:
        return Choice(view.my_positions[:1])


class CrashingTeller(RandomAgent):
    """Raises whenever it must tell."""

    def tell(self, view: View) -> Any:
        raise RuntimeError("no idea")


class InterruptingVoter(RandomAgent):
    """Stands for Ctrl-C whenever it must vote (raises KeyboardInterrupt)."""

    def vote(self, view: View) -> Choice:
        raise KeyboardInterrupt


class FakeServer:
    """An OpenAI-compatible ``/v1/chat/completions`` endpoint on 127.0.0.1 for tests.

    How it answers depends on the request's ``model``:

    * ``valid``: a legal answer (for a vote, the first card that is not the agent's own);
    * ``retry``: an invalid answer first, then (once the agent has sent the reason back) a
      legal one;
    * ``invalid``: always card 99;
    * ``prose``: text that is not JSON;
    * ``slow``: a legal answer after ``delay`` seconds;
    * ``busy``: a legal answer after 0.2 s (the server records how many were in flight).
    """

    def __init__(self, delay: float = 1.5) -> None:
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    content = server.answer(body)
                finally:
                    # Counted out before the response is written: the client cannot send its
                    # next request before then.
                    with server.lock:
                        server.in_flight -= 1
                try:
                    payload = json.dumps({"choices": [{"index": 0, "message": {
                        "role": "assistant", "content": content}}]}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def answer(self, body: dict[str, Any]) -> str:
        mode = body["model"]
        messages = body["messages"]
        prompt = messages[1]["content"][0]["text"]
        if mode == "slow":
            time.sleep(self.delay)
        if mode == "busy":
            time.sleep(0.2)
        if mode == "invalid":
            return json.dumps({"card": 99})
        if mode == "prose":
            return "I think it is the one with the whale."
        if mode == "retry" and len(messages) == 2:
            return json.dumps({"card": 99})
        own = re.search(r"Card\(s\) ([\d, ]+) are yours", prompt)
        mine = {int(k) for k in own.group(1).split(",")} if own else set()
        card = min(k for k in range(1, 20) if k not in mine)
        if "different card numbers" in prompt:  # a 3-player game: two cards to play
            return json.dumps({"cards": [1, 2]})
        if "You are the storyteller" in prompt:
            return "```json\n" + json.dumps({"card": card, "clue": "a quiet dream"}) + "\n```"
        return json.dumps({"card": card})

    def start(self) -> FakeServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def fake_server(delay: float = 1.5) -> Iterator[FakeServer]:
    server = FakeServer(delay).start()
    try:
        yield server
    finally:
        server.stop()


def seeded(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)
