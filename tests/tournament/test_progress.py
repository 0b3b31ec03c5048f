"""The progress bar of a long run written to a log (stderr not a terminal) is refreshed once a
minute, not ten times a second: a week's run would otherwise fill its log with bar redraws."""

from __future__ import annotations

from typing import Any

import dixit_ai.tournament.run as run_module
from dixit_ai.reporting import LOG_PROGRESS_INTERVAL
from dixit_ai.tournament import run_tournament

from .helpers import random_config


class Bars:
    """Makes tqdm's bars, keeping the keyword arguments of each."""

    def __init__(self) -> None:
        self.made: list[dict[str, Any]] = []
        self.tqdm = run_module.tqdm

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.made.append(kwargs)
        return self.tqdm(*args, **kwargs)


def test_a_bar_written_to_a_log_refreshes_rarely(tmp_path, monkeypatch, capsys):
    bars = Bars()
    monkeypatch.setattr(run_module, "tqdm", bars)
    # capsys: stderr is not a terminal, as when it goes to a log file
    run_tournament(random_config(games=2), out=tmp_path, report=False, progress=True)
    (bar,) = bars.made
    assert bar.get("mininterval") == LOG_PROGRESS_INTERVAL
    assert 30 <= LOG_PROGRESS_INTERVAL <= 60
    assert "games" in capsys.readouterr().err  # still shown


def test_simulate_s_bar_written_to_a_log_refreshes_rarely(monkeypatch, capsys):
    import dixit_ai.cli.simulate as simulate
    from dixit_ai.cli import main

    bars = Bars()
    bars.tqdm = simulate.tqdm
    monkeypatch.setattr(simulate, "tqdm", bars)
    assert main(["simulate", "--agents", "random", "--players", "3", "--games", "2"]) == 0
    (bar,) = bars.made
    assert bar.get("mininterval") == LOG_PROGRESS_INTERVAL
    assert "games" in capsys.readouterr().err
