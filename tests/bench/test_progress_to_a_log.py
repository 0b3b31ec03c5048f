"""A bench run whose stderr is a log file (or a pipe) redraws its progress bar about once a
minute, not ten times a second: a long run once wrote megabytes of redraws to its log.

The clock tqdm reads is a fake one that moves one second each time it is read, so the count
of redraws does not depend on how fast the machine is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.reporting import LOG_PROGRESS_INTERVAL, progress_interval
from tests.bench.conftest import bench_config
from tests.progress_log import stderr_to_a_log


def redraws(text: str, bar: str) -> int:
    """How many times the bar named ``bar`` was drawn in ``text`` (tqdm starts each draw with a
    carriage return)."""
    return text.count(f"\r{bar}:")


def test_progress_interval_is_tqdm_s_default_on_a_terminal_only() -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    class Closed:
        def isatty(self) -> bool:
            raise ValueError("I/O operation on closed file")

    assert progress_interval(Terminal()) == 0.1
    assert progress_interval(Closed()) == LOG_PROGRESS_INTERVAL
    assert progress_interval(object()) == LOG_PROGRESS_INTERVAL


def test_the_bench_s_bar_redraws_rarely_in_a_log(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("torch")
    from models.bench import run as bench_run

    log = tmp_path / "stderr.log"
    config = bench_config(tmp_path / "runs", ["default", "random"], tasks=["guess"], items=4)
    with stderr_to_a_log(log, monkeypatch):
        bench_run.run_bench(config, progress=True, show=False, log=None)
    text = log.read_bytes().decode()  # not read_text, which reads each carriage return as \n
    total = int(text.split("\rbench:", 1)[1].split("/", 1)[1].split(" ", 1)[0])  # "| 0/36 ["
    assert total >= 20  # enough items that a redraw at each would show
    assert "bench" in text  # the bar is still shown
    # the clock moves a second at each read, at least once an item: a redraw a minute is a
    # handful, where tqdm's default (0.1 s) redrew at every item
    assert 1 <= redraws(text, "bench") <= 2 + total // 60 + 2, text
