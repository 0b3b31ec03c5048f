"""``dixit-ai train align`` without ``--model`` refuses every fine-tuning option, whatever its
value.

The check read ``if getattr(args, name)``: ``--layers 0`` (or ``--warmup 0``, ``--deck ''``, any
falsy value) slipped through, and align trained the default model's head with the option
silently ignored. Now an option is refused when it was given at all (the parser leaves the
options it was not given ``None``). The head's trainer is stubbed: it must not be reached.
"""

from __future__ import annotations

import pytest

from dixit_ai.cli import main

FALSY = [
    ("--layers", "0"),
    ("--eval-fraction", "0"),
    ("--weight-decay", "0"),
    ("--warmup", "0"),
    ("--board-size", "0"),
    ("--boards-per-card", "0"),
    ("--deck", ""),
    ("--out", ""),
    ("--device", ""),
]


@pytest.fixture
def trainer_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    from models import train_default

    calls: list[object] = []
    monkeypatch.setattr(train_default, "run", lambda *args, **kwargs: calls.append(args) or 0)
    return calls


@pytest.mark.parametrize("flag, value", FALSY, ids=[flag for flag, _ in FALSY])
def test_a_falsy_fine_tuning_option_without_model_is_refused(flag, value, trainer_calls,
                                                             capsys):
    assert main(["train", "align", flag, value]) == 2
    err = capsys.readouterr().err
    assert f"error: {flag} needs --model (an 'openclip:...' or 'hf:...' model to fine-tune)" \
        in err, err
    assert trainer_calls == []


def test_several_are_named_together_and_a_head_option_still_runs(trainer_calls, capsys):
    assert main(["train", "align", "--layers", "0", "--fixed-scale", "--warmup", "0"]) == 2
    assert "error: --layers, --warmup, --fixed-scale need --model" in capsys.readouterr().err
    assert trainer_calls == []
    assert main(["train", "align", "--steps", "0"]) == 0  # a head option: the trainer decides
    assert len(trainer_calls) == 1


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_model_is_refused_not_read_as_no_model(value, trainer_calls, capsys):
    """``--model ''`` (a variable that expanded to nothing) trained the default model's head."""
    assert main(["train", "align", "--model", value]) == 2
    err = capsys.readouterr().err
    assert f"error: --model {value!r} is empty" in err and "leave --model out" in err, err
    assert trainer_calls == []
