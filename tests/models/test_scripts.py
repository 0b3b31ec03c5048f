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


@pytest.mark.parametrize("bad, message", [
    (["--steps", "0"], "--steps must be at least 1, not 0"),
    (["--steps", "-5"], "--steps must be at least 1, not -5"),
    (["--batch-size", "0"], "--batch-size must be at least 1, not 0"),
    (["--learning-rate", "-1"], "--learning-rate must be a positive finite number, not -1.0"),
    (["--threads", "-1"], "--threads must be at least 0, not -1"),
    (["--model", "openclip:ViT-B-32", "--blend", "0.5"],
     "error: --blend sets the default model's head and does not apply when fine-tuning --model"),
    # a head option given at its default's value was ignored in silence
    (["--model", "openclip:ViT-B-32", "--train-cards", "600", "--hidden", "0"],
     "error: --train-cards, --hidden set the default model's head and do not apply"),
    (["--mode", "full"], "error: --mode needs --model"),
    # these exited 1 (a SystemExit message), after the checks that exit 2
    (["--train-seeds", "0-3"], "error: --train-seeds must differ from 0 (the default deck)"),
    (["--train-seeds", "9001"], "must differ from 0 (the default deck) and --eval-seed (9001)"),
    (["--member", "lite1-minilm", "--train-seeds", "1005"],
     "error: a family member's training seeds must be disjoint from the default model's"),
    (["--member", "imagenet-zeroshot"], "error: imagenet-zeroshot is not trained (it is "),
    (["--member", "bogus"], "error: unknown family member 'bogus'; known: lite2-mpnet"),
    (["--caption-mix", "7"], "error: --caption-mix must be one of")])
def test_train_align_refuses_bad_settings_before_it_starts(bad, message, tmp_path, monkeypatch,
                                                          capsys):
    from dixit_ai.cli import main
    from models import default_model, finetune

    def loaded(*args, **kwargs):
        raise AssertionError("the models were loaded")

    monkeypatch.setattr(default_model, "load_towers", loaded)
    monkeypatch.setattr(finetune, "run", loaded)
    monkeypatch.chdir(tmp_path)
    assert main(["train", "align", "--runs-dir", "runs", *bad]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # no run folder, no args.json


def test_train_default_model_script_refuses_bad_settings(tmp_path, monkeypatch, capsys):
    from models import default_model

    def loaded(*args, **kwargs):
        raise AssertionError("the models were loaded")

    monkeypatch.setattr(default_model, "load_towers", loaded)
    monkeypatch.setattr(sys, "argv", ["train_default_model.py", "--runs-dir", str(tmp_path),
                                      "--learning-rate", "nan"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / "train_default_model.py"), run_name="__main__")
    assert done.value.code == 2
    assert "--learning-rate must be a positive finite number, not nan" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_eval_embedder_smoke(tmp_path, monkeypatch):
    run_script("eval_embedder.py", ["--smoke", "--runs-dir", str(tmp_path), "--device", "cpu"],
               monkeypatch)
    (run,) = tmp_path.glob("eval_embedder__0__*")
    assert (run / "boards.csv").is_file()


def test_bench_embed_smoke(tmp_path, monkeypatch, capsys):
    run_script("bench_embed.py", ["--smoke", "--runs-dir", str(tmp_path)], monkeypatch)  # exit 0
    (run,) = tmp_path.glob("bench_embed__0__*")
    bench = json.loads((run / "bench.json").read_text())
    assert bench["cache"]["speedup"] > 1
    printed = capsys.readouterr().out  # a smoke run's ratios are neither met nor missed
    assert printed.count("target not judged: images, harness / raw") == 2
    assert "MISSED" not in printed and "target met" not in printed


def test_train_default_model_script_refuses_weights_it_cannot_load(tmp_path, monkeypatch,
                                                                   capsys):
    """An embedder that cannot be loaded is bad input: exit 2 with the error, as
    ``dixit-ai train align`` answers (it exited 1 with a SystemExit message)."""
    from models import default_model
    from models.base import EmbedderLoadError

    def missing(*args, **kwargs):
        raise EmbedderLoadError("the image tower's weights are not installed")

    monkeypatch.setattr(default_model, "load_towers", missing)
    monkeypatch.setattr(sys, "argv", ["train_default_model.py", "--runs-dir", str(tmp_path),
                                      "--smoke"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / "train_default_model.py"), run_name="__main__")
    assert done.value.code == 2
    assert "error: the image tower's weights are not installed" in capsys.readouterr().err
