"""Smoke runs of the model scripts (tiny budgets), as CI runs them."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_script(name: str, args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [name, *args])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / name), run_name="__main__")
    assert done.value.code == 0


def test_train_default_model_smoke(tmp_path, monkeypatch):
    head = tmp_path / "head.npz"
    run_script(
        "train_default_model.py",
        ["--smoke", "--runs-dir", str(tmp_path), "--head-path", str(head)],
        monkeypatch,
    )
    from models.default_model import AlignmentHead

    assert AlignmentHead.load(head).metadata["train_cards"] == 48
    (run,) = tmp_path.glob("train_default_model__0__*")
    metrics = json.loads((run / "metrics.json").read_text())
    assert "caption" in metrics["dream"]["default (trained head + zero-shot)"]
    assert (run / "history.csv").is_file()


def test_eval_embedder_smoke(tmp_path, monkeypatch):
    run_script("eval_embedder.py", ["--smoke", "--runs-dir", str(tmp_path), "--device", "cpu"],
               monkeypatch)
    (run,) = tmp_path.glob("eval_embedder__0__*")
    assert (run / "boards.csv").is_file()


def test_bench_embed_smoke(tmp_path, monkeypatch):
    run_script("bench_embed.py", ["--smoke", "--runs-dir", str(tmp_path)], monkeypatch)
    (run,) = tmp_path.glob("bench_embed__0__*")
    bench = json.loads((run / "bench.json").read_text())
    assert bench["cache"]["speedup"] > 1
