"""The RLlib recipe in the project's own environment (where RLlib's dependencies are not
installed): its help and its checks of the arguments work, and a run says which environment
RLlib needs. Before, even ``--help`` failed with ``No module named 'tree'``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = str(ROOT / "examples" / "rllib_ppo.py")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)


def test_help_and_argument_checks_need_no_rllib() -> None:
    shown = run("--help")
    assert shown.returncode == 0 and "--iterations" in shown.stdout
    refused = run("--iterations", "0")
    assert refused.returncode == 2 and "--iterations must be at least 1" in refused.stderr


def test_a_run_without_rllib_names_the_environment_it_needs() -> None:
    try:
        rllib = importlib.util.find_spec("ray.rllib") is not None and importlib.util.find_spec(
            "tree") is not None
    except ModuleNotFoundError:
        rllib = False
    if rllib:
        pytest.skip("RLlib is importable here: the recipe's own tests run it")
    result = run("--iterations", "1", "--random-vectors")
    assert result.returncode == 1
    assert "RLlib cannot be imported here" in result.stderr
    assert "pip install -e '.[rllib]'" in result.stderr
