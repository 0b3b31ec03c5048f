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
    from models.default_head import AlignmentHead

    assert AlignmentHead.load(head).metadata["train_cards"] == 48
    (run,) = tmp_path.glob("train_default_model__0__*")
    metrics = json.loads((run / "metrics.json").read_text())
    assert "caption" in metrics["dream"]["default (trained head + zero-shot)"]
    assert (run / "history.csv").is_file()

    # The model cards (written with --write-head into models/weights/) from the run's figures.
    from models import train_default
    from models.default_card import bar_verdict, command_flags, format_table, render_model_card
    from models.family_card import render_member_card

    args = train_default.parse_args(["--smoke"])
    args.eval_cards, args.steps = 24, 20  # what --smoke set in the run
    card = render_model_card(args, metrics, run.name, head)
    assert format_table(metrics) in card and bar_verdict(metrics) in card
    flags = command_flags(args)
    assert "--eval-cards 24" in flags and "--steps 20" in flags and "--smoke" not in flags
    assert f"train_default_model.py{flags} --write-head" in card
    assert f"Run `{run.name}`" in card
    member = train_default.parse_args(["--member", "lite1-minilm"])
    train_default.apply_member(member)
    member_card = render_member_card(member, metrics, run.name, head, 48)
    assert format_table(metrics) in member_card
    assert "--member lite1-minilm" in member_card and "--image-tower lite1" in member_card


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
