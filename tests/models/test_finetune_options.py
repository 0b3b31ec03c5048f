"""Fine-tuning options that do not apply, or cannot work, are refused before anything loads.

Found walking the README's "Adapt a real CLIP to your own cards" as a new user:
``dixit-ai train finetune --mode full --layers 3`` trained every weight and ignored ``--layers``;
``--board-size 0`` failed after the model had loaded with numpy's "negative dimensions are not
allowed", and ``--board-size 1`` scored boards of the target alone (accuracy 1.0 by
construction).
"""

from __future__ import annotations

import re

import pytest

from models.finetune import FinetuneArgs, FinetuneError, run

pytest.importorskip("torch")

# Neither exists: a check made before the deck and the model load is the only error these meet.
NOWHERE = {"model": "openclip:local-dir:/nonexistent/model", "deck": "folder:/nonexistent/deck",
           "out": "/nonexistent/out", "device": "cpu"}


@pytest.mark.parametrize(("overrides", "message"), [
    ({"mode": "full", "layers": 3}, "--layers 3 applies to --mode last-layers only"),
    ({"mode": "lock-image", "layers": 2}, "--layers 2 applies to --mode last-layers only"),
    ({"layers": -1}, "--layers must be 0 or more, not -1"),
    ({"board_size": 1}, "--board-size must be at least 2 (the target and a distractor), not 1"),
    ({"board_size": 0}, "--board-size must be at least 2"),
    ({"boards_per_card": 0}, "--boards-per-card must be at least 1, not 0"),
    ({"warmup": 1.5}, "--warmup must lie between 0 and 1"),
    ({"warmup": -0.1}, "--warmup must lie between 0 and 1"),
    ({"learning_rate": 0.0}, "--learning-rate must be a positive number, not 0.0"),
    ({"learning_rate": float("nan")}, "--learning-rate must be a positive number"),
    ({"weight_decay": -0.1}, "--weight-decay must be 0 or more, not -0.1"),
    ({"eval_fraction": 1.0}, "--eval-fraction must lie strictly between 0 and 1"),
])
def test_bad_options_are_refused_before_the_deck_and_the_model_load(overrides, message):
    with pytest.raises(FinetuneError, match=re.escape(message)):
        run(FinetuneArgs(**{**NOWHERE, **overrides}))


@pytest.mark.parametrize("overrides", [{}, {"mode": "last-layers", "layers": 0},
                                       {"mode": "full"}, {"warmup": 0.0}, {"warmup": 1.0}])
def test_good_options_pass_the_checks(overrides):
    """Good options get as far as the deck (which does not exist here)."""
    with pytest.raises(Exception, match="does not exist") as caught:
        run(FinetuneArgs(**{**NOWHERE, **overrides}))
    assert not isinstance(caught.value, FinetuneError)


def test_the_command_line_refuses_layers_beside_another_mode(capsys):
    from dixit_ai.cli import main

    common = ["--model", NOWHERE["model"], "--deck", NOWHERE["deck"], "--out", NOWHERE["out"]]
    assert main(["train", "finetune", *common, "--mode", "full", "--layers", "2"]) == 2
    assert "--layers 2 applies to --mode last-layers only" in capsys.readouterr().err
    assert main(["train", "align", *common, "--mode", "lock-text", "--layers", "1"]) == 2
    assert "--layers 1 applies to --mode last-layers only" in capsys.readouterr().err


def test_the_model_cards_command_names_layers_only_for_last_layers():
    from models.finetune import render_card

    def command(mode: str, layers: int | None) -> str:
        settings = {**FinetuneArgs(mode=mode, layers=layers).__dict__}
        card = {
            "model": "m", "load_with": ["m"], "deck": {
                "spec": "folder:d", "name": "d", "fingerprint": "f", "license": "", "attribution":
                "", "cards": 8, "captioned": 8, "without_captions": 0, "train": 6, "held_out": 2},
            "settings": settings, "loss": "symmetric InfoNCE", "trained_weights": 1,
            "total_weights": 2, "logit_scale": {"before": 1.0, "after": 1.0},
            "loss_first_last": [1.0, 0.5], "seconds": 1.0, "device": "cpu", "versions": {},
            "reload_check": {"max_abs_difference": 0.0},
            "figures": {when: {"held_out": {"boards": {"accuracy": 1.0, "low": 1.0, "high": 1.0,
                                                       "chance": 0.5},
                                            "retrieval": {"top1": 1.0, "low": 1.0, "high": 1.0,
                                                          "mrr": 1.0}},
                               "train": {"retrieval": {"top1": 1.0, "low": 1.0, "high": 1.0,
                                                       "mrr": 1.0}}}
                        for when in ("before", "after")},
        }
        text = render_card(card)
        return " ".join(text.split("**Command.**")[1].split("`")[1].split())

    assert "--layers" not in command("full", None) and "--mode full" in command("full", None)
    # last-layers is the default mode: the command names the layers (every setting that is
    # not the default), and a card written before it kept its command is given one
    assert command("last-layers", 3).endswith("--layers 3")
