"""Smoke runs of the environment scripts, with tiny budgets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                            check=True, timeout=300)
    return result.stdout


def test_random_rollout() -> None:
    out = run("scripts/random_rollout.py", "--edition", "odyssey-2024", "--players", "3",
              "--seed", "1")
    assert "illegal actions: 0" in out and "player_2: total reward" in out
    out = run("scripts/random_rollout.py", "--clue-mode", "vocab", "--max-rounds", "2")
    assert "2 rounds" in out


@pytest.mark.parametrize("bad, message", [
    (["--players", "2"], "refresh-2021 is for 3-8 players, not 2"),
    (["--edition", "nope"], "unknown edition 'nope'"),
    (["--deck", "nosuch"], "unknown deck spec 'nosuch'"),
    (["--deck", "ids:x"], "--deck ids:N needs a whole number of cards, not 'x'"),
    (["--deck", "ids:100000001"],
     "--deck ids:N takes at most 100,000 cards (as a dream deck does), not 100,000,001"),
    (["--max-rounds", "0"], "--max-rounds must be at least 1, not 0")])
def test_random_rollout_refuses_bad_arguments(bad: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, "scripts/random_rollout.py", *bad], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    assert f"random_rollout.py: error: {message}" in result.stderr
    assert "Traceback" not in result.stderr and not result.stdout


def test_bench_envs() -> None:
    out = run("scripts/bench_envs.py", "--games", "2", "--repeats", "1",
              "--cells", "refresh-2021:3", "odyssey-2024:4")
    assert "refresh-2021" in out and "odyssey-2024" in out


def test_bench_envs_learner_rows() -> None:
    out = run("scripts/bench_envs.py", "--learner", "--learner-steps", "20", "--clip-steps", "2")
    assert "embedding obs, embedding opponents" in out and "per-step CPU cost" in out
