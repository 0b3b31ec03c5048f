"""A head holding NaN or infinity is never trained, written or loaded.

``train align --zero-shot-temperature nan`` trained a head whose weights were all NaN, wrote it,
and ``load_embedder("default:HEAD")`` served NaN vectors. Every number of ``train align`` is
checked before anything is loaded or written; a non-finite head is refused when it is saved and
when it is loaded, naming the file.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from models import EmbedderLoadError, family, load_embedder
from models.default_head import HEAD_FORMAT, AlignmentHead, write_head_file
from models.default_model import default_head_path


@pytest.mark.parametrize("bad, message", [
    (["--zero-shot-temperature", "nan"],
     "--zero-shot-temperature must be a positive finite number, not nan"),
    (["--zero-shot-temperature", "-1"],
     "--zero-shot-temperature must be a positive finite number, not -1.0"),
    (["--learning-rate", "inf"], "--learning-rate must be a positive finite number, not inf"),
    (["--snap-scale", "0"], "--snap-scale must be a positive finite number, not 0.0"),
    (["--blend", "inf"], "--blend must be a finite number at least 0, not inf"),
    (["--object-weight", "-1"], "--object-weight must be a finite number at least 0, not -1.0"),
    (["--caption-regression", "nan"],
     "--caption-regression must be a finite number at least 0, not nan"),
    (["--snap-weight", "nan"], "--snap-weight must be a finite number at least 0, not nan"),
    (["--gate-quantile", "1.5"],
     "--gate-quantile must be a finite number at least 0 and at most 1, not 1.5"),
    (["--gate-ratio", "0.5"],
     "--gate-ratio must be a finite number at least 1 (or 0: no gate), not 0.5"),
    (["--gate-ratio", "nan"],
     "--gate-ratio must be a finite number at least 1 (or 0: no gate), not nan"),
    (["--seed", "-1"], "--seed must be at least 0, not -1"),
    (["--eval-seed", "-2"], "--eval-seed must be at least 0, not -2"),
    (["--train-cards", "200000"], "--train-cards must be at most 100000"),
    (["--train-seeds", "9-3"], "--train-seeds must be a range A-B (A <= B)"),
    (["--train-seeds", "abc"], "not 'abc'"),
    (["--caption-mix", "7"], "--caption-mix must be one of"),
])
def test_train_align_checks_every_number_before_it_starts(bad, message, tmp_path, monkeypatch,
                                                         capsys):
    from dixit_ai.cli import main
    from models import default_model

    def loaded(*args, **kwargs):
        raise AssertionError("the models were loaded")

    monkeypatch.setattr(default_model, "load_towers", loaded)
    monkeypatch.chdir(tmp_path)
    assert main(["train", "align", "--smoke", "--runs-dir", "runs", "--head-path", "head.npz",
                 *bad]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # no run folder, no head


def _head() -> AlignmentHead:
    return AlignmentHead.load(default_head_path())


@pytest.mark.parametrize("part, value", [("weight", np.nan), ("weight", 1e6),  # float16: inf
                                         ("bias", np.inf), ("blend", np.nan),
                                         ("zero_shot_temperature", np.nan), ("gate_low", np.nan)])
def test_a_head_that_is_not_finite_is_not_written(tmp_path, part, value):
    head = _head()
    current = getattr(head, part)
    changed = (np.full_like(current, value) if isinstance(current, np.ndarray) else value)
    bad = dataclasses.replace(head, **{part: changed})
    shown = "gate" if part == "gate_low" else part
    target = tmp_path / "head.npz"
    with pytest.raises(ValueError, match=rf"{target}.*{shown}.*NaN or infinity"):
        bad.save(target)
    with pytest.raises(ValueError, match=rf"{shown}.*NaN or infinity"):
        family.save_head(bad, tmp_path / "member.npz", member_name="x", image_tower="lite0",
                         text_tower="minilm")
    assert not list(tmp_path.iterdir())


def test_no_gate_is_an_infinite_gate_and_is_written(tmp_path):
    head = dataclasses.replace(_head(), gate_low=float("inf"), gate_high=float("inf"))
    head.save(tmp_path / "head.npz")
    assert AlignmentHead.load(tmp_path / "head.npz").gate_low == float("inf")


def test_a_head_file_holding_nan_is_refused_by_name(tmp_path):
    head = _head()
    path = tmp_path / "nanhead.npz"
    arrays = head.to_arrays(dict(head.metadata, format=HEAD_FORMAT))
    arrays["weight"] = np.full_like(arrays["weight"], np.nan)  # written by an older version
    write_head_file(path, arrays)
    for load in (AlignmentHead.load, lambda p: load_embedder(f"default:{p}")):
        with pytest.raises(EmbedderLoadError) as caught:
            load(path)
        message = str(caught.value)
        assert str(path) in message and "weight" in message and "NaN" in message, message
        assert "\n" not in message
