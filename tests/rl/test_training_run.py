"""envs.training_run: what a run of scripts/train_rl.py writes (split out of the script, which
keeps the names): the learning curve's points, ``curve.csv`` and ``curve.png``."""

from __future__ import annotations

import csv
import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

from envs import training_run

ROOT = Path(__file__).resolve().parents[2]


def test_the_script_keeps_the_names_it_had() -> None:
    pytest.importorskip("sb3_contrib")
    script = runpy.run_path(str(ROOT / "scripts" / "train_rl.py"), run_name="dixit_ai_script")
    for name in training_run.__all__:
        assert script[name] is getattr(training_run, name), name
    assert training_run.ZIP_EPOCH == (1980, 1, 1, 0, 0, 0)


def rounds(*results: SimpleNamespace) -> dict[str, object]:
    return {"rounds": list(results)}


def test_the_curve_reads_the_learners_rounds_and_is_written(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    # Seat 0 learns. Board positions 0..2 are owned by seats 2, 1, 0; seat 1 tells.
    guessed = SimpleNamespace(storyteller=1, board_owner=[2, 1, 0], votes={0: [1]},
                              points=[3, 3, 0])
    missed = SimpleNamespace(storyteller=1, board_owner=[2, 1, 0], votes={0: [0]},
                             points=[0, 2, 1])
    told = SimpleNamespace(storyteller=0, board_owner=[0, 1, 2], votes={}, points=[2, 1, 0])
    guesser, storyteller = training_run.Curve("guesser", 10), training_run.Curve("storyteller", 10)
    for steps, info in ((5, rounds(guessed)), (10, rounds(missed, told)), (15, {}),
                        (20, rounds(told))):
        guesser.observe(info, 0)
        storyteller.observe(info, 0)
        guesser.point(steps)
        storyteller.point(steps)
    assert guesser.rows == [{"timesteps": 10, "metric": 0.5, "decisions": 2.0},
                            {"timesteps": 20, "metric": 0.5, "decisions": 2.0}]
    assert storyteller.rows == [{"timesteps": 10, "metric": 2.0, "decisions": 1.0},
                                {"timesteps": 20, "metric": 2.0, "decisions": 2.0}]

    training_run.plot({"guesser": guesser, "storyteller": storyteller}, tmp_path)
    with open(tmp_path / "curve.csv", encoding="utf-8", newline="") as rows:
        written = list(csv.reader(rows))
    assert written == [["role", "timesteps", "metric", "decisions"],
                       ["guesser", "10", "0.5000", "2"], ["guesser", "20", "0.5000", "2"],
                       ["storyteller", "10", "2.0000", "1"], ["storyteller", "20", "2.0000", "2"]]
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["curve.csv", "curve.png"]
