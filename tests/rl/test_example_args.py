"""The recipes refuse a training budget that trains nothing.

Found walking the README's recipes as a new user: ``python examples/sb3_maskable_ppo.py
--timesteps -5`` "trained" and printed "MaskablePPO: -5 steps; return ..."; Tianshou's
``--epochs 0`` printed a "best test return" of no training at all.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize(("script", "module", "args", "message"), [
    ("sb3_maskable_ppo.py", "sb3_contrib", ["--timesteps", "-5"],
     "--timesteps must be at least 1, not -5"),
    ("sb3_maskable_ppo.py", "sb3_contrib", ["--timesteps", "0"],
     "--timesteps must be at least 1, not 0"),
    ("tianshou_dqn.py", "tianshou", ["--epochs", "0"], "--epochs must be at least 1, not 0"),
    ("tianshou_dqn.py", "tianshou", ["--steps-per-epoch", "0"],
     "--steps-per-epoch must be at least 1, not 0"),
])
def test_a_budget_that_trains_nothing_is_refused(script, module, args, message, monkeypatch,
                                                 capsys):
    pytest.importorskip(module)
    monkeypatch.setattr(sys, "argv", [script, *args])
    try:
        with pytest.raises(SystemExit) as caught:
            runpy.run_path(str(EXAMPLES / script), run_name="__main__")
    except ImportError as error:  # RLlib 2.60 needs gymnasium 1.2: its own environment
        pytest.skip(f"{script} does not import here: {error}")
    assert caught.value.code == 2
    assert message in capsys.readouterr().err


def test_rllib_refuses_a_budget_that_trains_nothing_in_its_own_environment():
    """RLlib 2.60 needs gymnasium 1.2: the recipe is checked in the ``rllib`` extra's own
    environment, named by ``DIXIT_AI_RLLIB_PYTHON`` (as the recipe's smoke run is)."""
    python = os.environ.get("DIXIT_AI_RLLIB_PYTHON")
    if not python:
        pytest.skip("DIXIT_AI_RLLIB_PYTHON is not set (the rllib extra's own environment)")
    result = subprocess.run([python, str(EXAMPLES / "rllib_ppo.py"), "--iterations", "0"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 2, result.stderr[-3000:]
    assert "--iterations must be at least 1, not 0" in result.stderr
