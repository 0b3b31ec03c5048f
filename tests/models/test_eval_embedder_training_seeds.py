"""scripts/eval_embedder.py refuses a ``--deck-seed`` the model was trained on.

The script reports accuracy on *held-out* dream cards. ``--deck-seed 1005`` (one of the default
model's training seeds, 1001-1020, recorded in its head) ran, and its figures looked like the
held-out ones, inflated. Now such a seed is refused before anything is made (exit 2, the model's
training seeds named); ``--allow-training-seeds`` runs it anyway (to measure the gap between
training and held-out cards), with a warning printed and recorded in ``metrics.json``.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def script_main() -> Any:
    return runpy.run_path(str(ROOT / "scripts" / "eval_embedder.py"), run_name="x")["main"]


@pytest.mark.parametrize("model, seed, seeds", [
    ("default", 1005, "1001-1020"),
    ("default", 1001, "1001-1020"),
    ("lite1-mpnet", 4002, "4001-4002"),
])
def test_a_training_seed_is_refused_before_anything_is_made(model, seed, seeds, tmp_path,
                                                             capsys):
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as done:
        script_main()(["--model", model, "--deck-seed", str(seed), "--runs-dir", str(runs),
                       "--smoke"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"--deck-seed {seed} is one of the dream seeds {model!r} was trained on " \
           f"({seeds})" in err, err
    assert "--allow-training-seeds" in err and "Traceback" not in err
    assert not runs.exists()


def test_allowed_training_seeds_are_warned_about_and_recorded(tmp_path, capsys, monkeypatch):
    """The opt-in runs, and says so in its output and in its record. The model is a fake with
    the default model's training seeds (the rest of the script runs as it is)."""
    from types import SimpleNamespace

    import models
    from tests.models.fakes import CountingEmbedder

    fake = CountingEmbedder()
    fake.head = SimpleNamespace(metadata={"train_seeds": list(range(1001, 1021))})
    monkeypatch.setattr(models, "load_embedder", lambda *args, **kwargs: fake)
    runs = tmp_path / "runs"
    assert script_main()(["--deck-seed", "1005", "--allow-training-seeds", "--runs-dir",
                          str(runs), "--smoke"]) == 0
    out = capsys.readouterr()
    warning = ("--deck-seed 1005 is one of the dream seeds 'default' was trained on "
               "(1001-1020): these figures are not held-out ones")
    assert f"WARNING: {warning}" in out.err and f"WARNING: {warning}" in out.out, out
    (run,) = runs.iterdir()
    metrics = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["held_out"] is False and metrics["warning"] == warning
    assert metrics["training_seeds"] == "1001-1020"
    assert metrics["args"]["allow_training_seeds"] is True


def test_a_held_out_seed_needs_no_flag_and_the_flag_needs_a_training_seed(tmp_path, capsys,
                                                                          monkeypatch):
    """The default seed (9001) runs as before; ``--allow-training-seeds`` on a held-out seed
    would allow nothing and is refused as a flag that does not apply."""
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as done:
        script_main()(["--allow-training-seeds", "--runs-dir", str(runs), "--smoke"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--allow-training-seeds does not apply: --deck-seed 9001 is not one of the dream " \
           "seeds 'default' was trained on (1001-1020)" in err, err
    assert not runs.exists()


def test_the_default_heads_validation_seed_is_refused_too(tmp_path, capsys):
    """8001, where the shipped head's name pull weight was chosen, is not in the head's record
    of training seeds; it was let through and read as held out."""
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as done:
        script_main()(["--deck-seed", "8001", "--runs-dir", str(runs), "--smoke"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--deck-seed 8001 is the dream seed 'default''s choices were validated on (8001" in err
    assert "--allow-training-seeds" in err and not runs.exists()


def test_only_the_shipped_head_names_the_validation_seed():
    from types import SimpleNamespace

    from models.weight_files import SHIPPED_HEAD_SHA256

    validation_seeds = runpy.run_path(str(ROOT / "scripts" / "eval_embedder.py"),
                                      run_name="x")["validation_seeds"]
    shipped = SimpleNamespace(info={"weights": {"head_sha256":
                                                SHIPPED_HEAD_SHA256["default_head.npz"]}})
    assert validation_seeds(shipped) == [8001]
    assert validation_seeds(SimpleNamespace(info={"weights": {"head_sha256": "0" * 64}})) == []
    assert validation_seeds(object()) == []
