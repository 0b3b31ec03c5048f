"""Real servers for the web tests: ``dixit-ai serve`` in a subprocess on a free loopback port."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class ServerProcess:
    """``python -m dixit_ai.cli serve`` on ``db``, started and stopped by the test."""

    def __init__(self, db: Path, *extra: str, log: Path | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log or db.with_suffix(f".{self.port}.log")
        command = [sys.executable, "-m", "dixit_ai.cli", "serve", "--port", str(self.port),
                   "--db", str(db), "--bot-delay", "0", "--log-level", "warning",
                   "--deck", "small=dream:size=40", "--bot", "random", *extra]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self._log_file = open(self.log, "w", encoding="utf-8")
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self._log_file,
                                        stderr=subprocess.STDOUT)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/api/options", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"the server did not start: {self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, nothing is flushed by the server."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self._log_file.close()

    def stop(self) -> None:
        """A polite stop (SIGTERM)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log_file.close()
