"""What the run-folder tests of the scripts share: a clock that stands still in one second, and
a stop at the first piece of work after a script's run folder is made."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SECOND = 1_700_000_000


class Stop(Exception):
    """The work after the run folder was reached."""


def stop(*args: Any, **kwargs: Any) -> Any:
    raise Stop


@pytest.fixture
def same_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run starts in the same second (the clock stands still a quarter past it)."""
    monkeypatch.setattr(time, "time", lambda: SECOND + 0.25)


def folders(where: Path) -> list[str]:
    return sorted(p.name for p in where.iterdir())
