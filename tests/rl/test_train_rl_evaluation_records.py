"""scripts/train_rl.py writes the held-out games of its evaluation, and evaluation.json's numbers
are recomputed from them (before: only the aggregates were written; nothing to recompute from)."""

from __future__ import annotations

import json
import math
import runpy
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from dixit_ai.records import read_records
from dixit_ai.replay import replay_record
from envs.learned import role_metrics
from envs.vectors import VectorTable

ROOT = Path(__file__).resolve().parents[2]


def test_evaluation_numbers_are_recomputed_from_the_written_games(tmp_path: Path,
                                                                  monkeypatch: Any) -> None:
    import envs.vectors

    table = VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)
    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *a, **k: table)
    train_rl = runpy.run_path(str(ROOT / "scripts" / "train_rl.py"), run_name="dixit_ai_script")
    run_dir = train_rl["main"](["--out", str(tmp_path), "--total-timesteps", "64",
                                "--n-envs", "1", "--n-steps", "64", "--hidden", "8",
                                "--embedding-dim", "8", "--clues-per-card", "2",
                                "--eval-games", "2", "--eval-opponents", "embedding", "random",
                                "--no-progress"])
    evaluation = json.loads((run_dir / "evaluation.json").read_text(encoding="utf-8"))
    for role, cells in evaluation.items():
        records = list(read_records(run_dir / f"{role}_evaluation.jsonl"))
        assert len(records) == sum(cell["games"] * 3 for cell in cells.values())
        totals: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for record in records:
            replay_record(record)
            evaluation_of = record.header["evaluation"]
            assert evaluation_of["role"] == role
            for key, value in role_metrics(record, 0).items():
                totals[evaluation_of["opponents"], evaluation_of["decider"]][key] += value
        for opponent, cell in cells.items():
            for decider in ("ppo", "random"):
                total = totals[opponent, decider]
                if role == "guesser":
                    assert cell[decider]["votes"] == total["votes"]
                    assert cell[decider]["accuracy"] == total["found"] / max(total["votes"], 1)
                else:
                    assert cell[decider]["tells"] == total["told"]
                    assert cell[decider]["points_per_tell"] == total["teller_points"] / max(
                        total["told"], 1)
            rate = "accuracy" if role == "guesser" else "points_per_tell"
            assert math.isclose(cell["ppo_minus_random"]["difference"],
                                cell["ppo"][rate] - cell["random"][rate], abs_tol=1e-12)
