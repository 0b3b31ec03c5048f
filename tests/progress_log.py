"""Progress bars written to a log: stderr a file, and tqdm reading a clock that moves one second
at each read, so that the count of redraws does not depend on how fast the machine is."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


class FakeClock:
    """A clock that moves one second each time it is read."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@contextmanager
def stderr_to_a_log(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """sys.stderr is the file ``path``, tqdm reads the fake clock and starts no monitor thread
    (it would read the fake clock from another thread).

    Entered in the test's body: pytest sets its own sys.stderr before each phase of a test."""
    import tqdm.std

    monkeypatch.setattr(tqdm.std, "time", FakeClock())
    monkeypatch.setattr(tqdm.std.tqdm, "monitor_interval", 0)
    with path.open("w", encoding="utf-8") as log, monkeypatch.context() as patch:
        patch.setattr("sys.stderr", log)
        yield
