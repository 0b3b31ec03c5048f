"""Smoke run of scripts/measure_second_vote.py (one game per configuration, a tiny deck)."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytest.importorskip("torch")


def test_measure_second_vote_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "second_vote.json"
    # --storyteller names the bots (every seat) and the figures say which.
    monkeypatch.setattr(sys, "argv", ["measure_second_vote.py", "--smoke", "--json", str(out),
                                      "--storyteller", "clip-greedy"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / "measure_second_vote.py"), run_name="__main__")
    assert done.value.code == 0
    figures = json.loads(out.read_text(encoding="utf-8"))
    assert set(figures) == {"odyssey-2024/4", "odyssey-2011/8"}
    for entry in figures.values():
        assert entry["games"] == 1 and entry["rounds"] > 0 and entry["agent"] == "clip-greedy"
        low, mean, high = (entry["predicted_minus_observed"][i] for i in (1, 0, 2))
        assert low <= mean <= high and 0 <= entry["observed_either_vote"] <= 1
        low, mean, high = (entry["storyteller_points_per_turn"][i] for i in (1, 0, 2))
        assert 0 <= low <= mean <= high
    printed = capsys.readouterr().out
    assert "predicted - observed" in printed and "clip-greedy, odyssey-2024, 4 players" in printed
    assert [p.name for p in tmp_path.iterdir()] == ["second_vote.json"]


def test_measure_second_vote_refuses_zero_games(capsys):
    module = runpy.run_path(str(REPO / "scripts" / "measure_second_vote.py"), run_name="t")
    assert module["main"](["--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err


@pytest.mark.parametrize(("tables", "message"), [
    ("odyssey-2024:13", "odyssey-2024 seats 3 to 12 players, not 13"),
    ("odyssey-2024", "'odyssey-2024' is not EDITION:PLAYERS"),
    ("odyssey-2024:4,:8", "':8' is not EDITION:PLAYERS"),
    ("bogus:5", "bogus"),
])
def test_measure_second_vote_refuses_bad_tables_before_playing(tables, message, capsys):
    module = runpy.run_path(str(REPO / "scripts" / "measure_second_vote.py"), run_name="t")
    assert module["main"](["--tables", tables]) == 2
    captured = capsys.readouterr()
    assert message in captured.err and captured.out == ""
