"""scripts/train_rl.py checks --eval-opponents even with --eval-games 0.

``--eval-games 0 --eval-opponents bogus`` trained (a run folder, minutes of work) because the
names were checked only when an evaluation was to come: a typo in a script that later turns the
evaluation on failed then, not now.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]


def script() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "scripts" / "train_rl.py"), run_name="dixit_ai_script")


def no_table(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the vector table was loaded")


def test_eval_opponents_are_checked_without_an_evaluation(tmp_path, monkeypatch, capsys):
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", no_table)
    with pytest.raises(SystemExit) as done:
        script()["main"](["--out", str(tmp_path / "runs"), "--eval-games", "0",
                          "--eval-opponents", "bogus"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--eval-opponents bogus: no agent named 'bogus'" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("bad, message", [
    (["--roles", "guesser", "--storyteller-fields", "scalars"],
     "--storyteller-fields is for the storyteller role; --roles guesser does not train it"),
    (["--roles", "storyteller", "--guesser-fields", "scalars"],
     "--guesser-fields is for the guesser role; --roles storyteller does not train it"),
])
def test_fields_of_a_role_not_trained_are_refused(bad, message, tmp_path, monkeypatch, capsys):
    # The other role's fields were dropped without a word: the run trained as if not given.
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", no_table)
    with pytest.raises(SystemExit) as done:
        script()["main"](["--out", str(tmp_path / "runs"), *bad])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err
    assert not (tmp_path / "runs").exists()


def test_default_fields_of_a_role_not_trained_are_accepted() -> None:
    train_rl = script()
    for roles in (["guesser"], ["storyteller"]):
        train_rl["check_args"](train_rl["parse"](["--roles", *roles, "--eval-games", "0"]))
