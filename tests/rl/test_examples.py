"""Smoke runs of the RL recipes (examples/) and of scripts/train_rl.py, on tiny budgets."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def run(python: str, *args: str, timeout: int = 600) -> str:
    result = subprocess.run([python, *args], cwd=ROOT, capture_output=True, text=True,
                            timeout=timeout, env={**os.environ, **THREADS})
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout + result.stderr


def test_sb3_maskable_ppo_recipe() -> None:
    pytest.importorskip("sb3_contrib")
    out = run(sys.executable, "examples/sb3_maskable_ppo.py", "--timesteps", "256",
              "--random-vectors")
    assert "MaskablePPO: 256 steps" in out and "Discrete(48)" in out


def test_tianshou_recipe() -> None:
    pytest.importorskip("tianshou")
    out = run(sys.executable, "examples/tianshou_dqn.py", "--epochs", "1", "--steps-per-epoch",
              "100", "--random-vectors")
    assert "Tianshou DQN (player_0)" in out and "best test return" in out
    # Tianshou's warning about flattened multi-agent returns, said once and in our words.
    assert "only 1D sequences" not in out
    assert out.count("flatten the 4 players' returns (said once)") == 1


def test_rllib_recipe_in_its_own_environment() -> None:
    """RLlib needs gymnasium 1.2: the recipe runs in the ``rllib`` extra's own environment,
    named by ``DIXIT_AI_RLLIB_PYTHON`` (``pip install -e ".[rllib]"`` in a separate venv)."""
    python = os.environ.get("DIXIT_AI_RLLIB_PYTHON")
    if not python:
        pytest.skip("DIXIT_AI_RLLIB_PYTHON is not set (the rllib extra's own environment)")
    # Ray writes its session (sockets: a short path) and RLlib its results (~/ray_results)
    # into a folder of this test's own, removed afterwards.
    folder = tempfile.mkdtemp(prefix="rl", dir="/tmp")
    try:
        result = subprocess.run(
            [python, "examples/rllib_ppo.py", "--iterations", "1", "--random-vectors"],
            cwd=ROOT, capture_output=True, text=True, timeout=600,
            env={**os.environ, **THREADS, "HOME": folder, "RAY_TMPDIR": folder,
                 "TMPDIR": folder})
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "iteration 0:" in result.stdout


def test_train_rl_script_writes_curve_checkpoint_and_evaluation(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    out = run(sys.executable, "scripts/train_rl.py", "--roles", "guesser", "storyteller",
              "--total-timesteps", "256", "--n-envs", "2", "--n-steps", "64",
              "--curve-every", "64", "--eval-games", "2", "--eval-opponents", "embedding",
              "random", "--out", str(tmp_path))
    assert "wrote" in out
    (run_dir,) = tmp_path.iterdir()
    for name in ("guesser.zip", "guesser.json", "storyteller.zip", "curve.csv", "curve.png",
                 "evaluation.json"):
        assert (run_dir / name).is_file(), name
    with open(run_dir / "curve.csv", encoding="utf-8") as rows:
        roles = {row["role"] for row in csv.DictReader(rows)}
    assert roles == {"guesser", "storyteller"}
    evaluation = json.loads((run_dir / "evaluation.json").read_text(encoding="utf-8"))
    cell = evaluation["guesser"]["embedding"]
    assert {"ppo", "clip-greedy", "random", "ppo_minus_random"} <= set(cell)
    assert 0.0 <= cell["ppo"]["accuracy"] <= 1.0
    assert "ppo_minus_clip-expected-self" in evaluation["storyteller"]["random"]


def test_train_rl_command_runs_the_script() -> None:
    out = run(sys.executable, "-m", "dixit_ai.cli", "train", "rl", "--help", timeout=120)
    assert "--total-timesteps" in out and "--guesser-fields" in out
