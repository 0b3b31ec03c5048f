"""Two runs of scripts/train_rl.py with the same options and seed write the same checkpoint bytes.

The weights were always the same (``policy.pth`` and ``policy.optimizer.pth`` byte-identical
across processes), but sb3's zip was not: its ``data``, ``_stable_baselines3_version`` and
``system_info.txt`` entries are dated at the save, and ``data`` holds ``start_time`` (the wall
clock) and reprs with memory addresses (``<function ... at 0x7f...>``), which differ between
processes. The checkpoint's SHA-256 (recorded in its ``.json``) therefore differed on every run.
"""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from envs.vectors import VectorTable

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "train_rl.py"
ROLES = ("guesser", "storyteller")
TINY = {"total_timesteps": 128, "n_envs": 2, "n_steps": 64, "hidden": 16, "embedding_dim": 8,
        "clues_per_card": 2, "no_progress": True}

# Each run in its own process: memory addresses (one of the volatile parts) only differ there.
CHILD = """
import runpy, sys
from pathlib import Path
from envs.vectors import VectorTable
script = runpy.run_path(sys.argv[1])
args = script["Args"](**eval(sys.argv[3]))
table = VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)
for role in ("guesser", "storyteller"):
    script["train"](args, role, table, Path(sys.argv[2]))
"""


def random_table() -> VectorTable:
    return VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Two runs of ``train`` with the same options, each in its own process."""
    folders = []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    for name in ("first", "second"):
        folder = tmp_path_factory.mktemp(name)
        done = subprocess.run([sys.executable, "-c", CHILD, str(SCRIPT), str(folder), repr(TINY)],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
                              check=False)
        assert done.returncode == 0, done.stderr[-3000:]
        folders.append(folder)
    return folders


@pytest.mark.parametrize("role", ROLES)
def test_two_identical_runs_write_identical_checkpoints(runs: list[Path], role: str) -> None:
    first, second = (folder / f"{role}.zip" for folder in runs)
    with zipfile.ZipFile(first) as a, zipfile.ZipFile(second) as b:
        assert a.namelist() == b.namelist()
        for name in a.namelist():
            assert a.read(name) == b.read(name), name
        assert {info.date_time for info in a.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        assert b" at 0x" not in a.read("data")
    assert first.read_bytes() == second.read_bytes()
    # The run record names the same hash (and is itself the same file).
    assert first.with_suffix(".json").read_bytes() == second.with_suffix(".json").read_bytes()


def test_a_normalised_checkpoint_loads_and_acts_as_sb3s_own(tmp_path: Path) -> None:
    """The rewritten zip loads with ``MaskablePPO.load`` and gives the same parameters, values
    and actions as the zip sb3 wrote."""
    import torch
    from sb3_contrib import MaskablePPO

    script: dict[str, Any] = runpy.run_path(str(SCRIPT))
    args = script["Args"](**TINY)
    env = script["make_env"](args, "storyteller", random_table(), 7)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=3, device="cpu",
                        policy_kwargs={"net_arch": [16, 16]})
    model.learn(total_timesteps=64)
    written, normalised = tmp_path / "sb3.zip", tmp_path / "normalised.zip"
    model.save(str(written))
    model.save(str(normalised))
    script["normalise_checkpoint"](normalised)
    assert written.read_bytes() != normalised.read_bytes()

    original = MaskablePPO.load(str(written), device="cpu")
    loaded = MaskablePPO.load(str(normalised), device="cpu")
    assert loaded.start_time == 0
    for name in ("n_steps", "batch_size", "gamma", "ent_coef", "num_timesteps", "seed",
                 "policy_kwargs", "observation_space", "action_space"):
        assert getattr(loaded, name) == getattr(original, name), name
    assert type(loaded.policy) is type(original.policy)
    for key, tensor in original.policy.state_dict().items():
        assert torch.equal(loaded.policy.state_dict()[key], tensor), key
    observation, _ = env.reset(seed=11)
    for _ in range(5):
        mask = env.action_masks()
        action, _ = loaded.predict(observation, action_masks=mask, deterministic=True)
        expected, _ = original.predict(observation, action_masks=mask, deterministic=True)
        assert int(action) == int(expected) and mask[int(action)]
        observation, *_ = env.step(int(action))
    with torch.no_grad():
        batch = torch.as_tensor(np.asarray([observation]))
        assert torch.equal(loaded.policy.predict_values(batch),
                           original.policy.predict_values(batch))
    env.close()
