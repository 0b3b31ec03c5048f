"""scripts/train_rl.py checks every option before it makes a run folder or trains, shows its
progress on stderr, and writes valid JSON.

``--total-timesteps -5`` trained nothing and evaluated the untrained network as "ppo" (exit 0);
``--eval-opponents bogus`` failed only after training; ``--opponent-specificity 1`` failed with
"not enough values to unpack"; each left a run folder behind. evaluation.json held NaN.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from envs.vectors import VectorTable

ROOT = Path(__file__).resolve().parents[2]


def script() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "scripts" / "train_rl.py"), run_name="dixit_ai_script")


def random_table() -> VectorTable:
    return VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)


def no_table(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the vector table was loaded")


@pytest.mark.parametrize("bad, message", [
    (["--total-timesteps", "-5"], "--total-timesteps must be at least 1, not -5"),
    (["--n-envs", "0"], "--n-envs must be at least 1, not 0"),
    (["--n-envs", "1", "--n-steps", "1"], "--n-envs times --n-steps (a rollout) must be at least"),
    (["--eval-games", "-1"], "--eval-games must be at least 0, not -1"),
    (["--threads", "0"], "--threads must be at least 1, not 0"),
    (["--seed", "-3"], "--seed must be at least 0, not -3"),
    (["--learning-rate", "nan"], "--learning-rate must be a positive finite number, not nan"),
    (["--gamma", "1.5"], "--gamma must be a finite number from 0 to 1, not 1.5"),
    (["--ent-coef", "inf"], "--ent-coef must be a finite number at least 0, not inf"),
    (["--opponent-specificity", "3", "1"], "--opponent-specificity takes LOW HIGH"),
    (["--opponent-specificity", "0", "1", "2"], "--opponent-specificity takes LOW HIGH"),
    (["--opponent-specificity", "nan"], "--opponent-specificity takes LOW HIGH"),
    (["--roles", "guesser", "guesser"], "--roles takes guesser and/or storyteller, each once"),
    (["--roles", "teller"], "--roles takes guesser and/or storyteller"),
    (["--clue-proposer", "wild"], "--clue-proposer must be one of spread, specific"),
    (["--guesser-fields", "all", "scalars"], "--guesser-fields: 'all' stands alone"),
    (["--edition", "bogus"], "unknown edition 'bogus'"),
    (["--n-players", "12"], "--n-players:"),
    (["--deck", "dream:size=0"], "--deck dream:size=0:"),
    (["--eval-opponents", "bogus"], "--eval-opponents bogus: no agent named 'bogus'"),
    (["--eval-opponents", "random", "random"], "--eval-opponents names each opponent once"),
    (["--exp-name", "a/b"], "--exp-name must be a folder name"),
    # checked without an evaluation too: a typo in a script that later turns it on failed then
    (["--eval-games", "0", "--eval-opponents", "bogus"],
     "--eval-opponents bogus: no agent named 'bogus'"),
    # an evaluation's options with no evaluation did nothing, without a word (exit 0)
    (["--eval-games", "0", "--eval-seed", "7"],
     "--eval-seed 7 does nothing with --eval-games 0 (no evaluation)"),
    (["--eval-games", "0", "--eval-opponents", "random"],
     "--eval-opponents random does nothing with --eval-games 0 (no evaluation)"),
    # the other role's fields were dropped without a word: the run trained as if not given
    (["--roles", "guesser", "--storyteller-fields", "scalars"],
     "--storyteller-fields is for the storyteller role; --roles guesser does not train it"),
    (["--roles", "storyteller", "--guesser-fields", "scalars"],
     "--guesser-fields is for the guesser role; --roles storyteller does not train it"),
])
def test_bad_options_exit_2_before_any_run_folder(bad, message, tmp_path, monkeypatch, capsys):
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


def test_unknown_observation_fields_are_refused_before_any_run_folder(tmp_path, monkeypatch,
                                                                     capsys):
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *a, **k: random_table())
    with pytest.raises(SystemExit) as done:
        script()["main"](["--out", str(tmp_path / "runs"), "--roles", "storyteller",
                          "--embedding-dim", "8", "--storyteller-fields", "scalars", "nope"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--storyteller-fields: unknown observation fields ['nope']" in err
    assert not (tmp_path / "runs").exists()


def test_the_train_command_exits_2_with_the_message(tmp_path, capsys):
    from dixit_ai.cli import main

    with pytest.raises(SystemExit) as done:
        main(["train", "rl", "--total-timesteps", "-5", "--out", str(tmp_path / "runs")])
    assert done.value.code == 2
    assert "--total-timesteps must be at least 1, not -5" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_one_specificity_trains_with_progress_and_writes_valid_json(tmp_path, monkeypatch,
                                                                    capsys):
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *a, **k: random_table())
    train_rl = script()
    args = ["--out", str(tmp_path), "--roles", "guesser", "--total-timesteps", "64",
            "--n-envs", "1", "--n-steps", "64", "--hidden", "8", "--embedding-dim", "8",
            "--clues-per-card", "2", "--opponent-specificity", "1", "--curve-every", "32",
            "--eval-games", "1", "--eval-opponents", "random"]
    assert train_rl["specificity"](train_rl["parse"](args)) == (1.0, 1.0)
    run_dir = train_rl["main"](args)
    err = capsys.readouterr().err
    assert "training guesser" in err and "evaluating guesser vs random" in err
    # One game: the paired interval is undefined, written as null (json.dumps wrote NaN).
    text = (run_dir / "evaluation.json").read_text(encoding="utf-8")

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in evaluation.json")

    evaluation = json.loads(text, parse_constant=refuse)
    assert evaluation["guesser"]["random"]["ppo_minus_random"]["ci95"] is None
    json.loads((run_dir / "guesser.json").read_text(encoding="utf-8"), parse_constant=refuse)

    quiet = train_rl["parse"]([*args, "--no-progress", "--eval-games", "0"])
    assert quiet.no_progress
    train_rl["train"](quiet, "guesser", random_table(), tmp_path)
    assert "training guesser" not in capsys.readouterr().err


@pytest.mark.parametrize("role, proposer", [("storyteller", "specific"), ("storyteller", "spread"),
                                            ("guesser", "spread")])
def test_more_clues_per_card_than_the_proposer_has_exit_2_naming_the_option(
        role, proposer, tmp_path, monkeypatch, capsys):
    # The table's 64 clues: 65 per card cannot be proposed. A storyteller reading every field
    # built no environment before its run folder, so the error came as a traceback once the
    # folder was made; with 'spread' past its depth the proposer never returned (a hang).
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *a, **k: random_table())
    with pytest.raises(SystemExit) as done:
        script()["main"](["--out", str(tmp_path / "runs"), "--roles", role, "--embedding-dim",
                          "8", "--clue-proposer", proposer, "--clues-per-card", "65"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--clues-per-card 65:" in err and "[1, 64]" in err and "Traceback" not in err, err
    assert not (tmp_path / "runs").exists()


def test_more_pca_directions_than_the_vectors_have_exit_2_naming_the_option(
        tmp_path, monkeypatch, capsys):
    # A storyteller reading every field built no environment before its run folder: the
    # projection's error came as a traceback once the folder was made.
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *a, **k: random_table())
    with pytest.raises(SystemExit) as done:
        script()["main"](["--out", str(tmp_path / "runs"), "--roles", "storyteller",
                          "--embedding-dim", "17"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "--embedding-dim 17:" in err and "at most 16" in err and "Traceback" not in err, err
    assert not (tmp_path / "runs").exists()


def test_dixit_ai_train_rl_refuses_an_eval_seed_with_no_evaluation(tmp_path, monkeypatch, capsys):
    # the console script's `train rl` passes its options to the script: the same refusal
    import envs.vectors
    from dixit_ai.cli import main
    from dixit_ai.cli.common import EXIT_USAGE

    monkeypatch.setattr(envs.vectors, "load_vector_table", no_table)
    with pytest.raises(SystemExit) as done:
        main(["train", "rl", "--eval-games", "0", "--eval-seed", "5", "--out",
              str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert done.value.code == EXIT_USAGE, err
    assert "--eval-seed 5 does nothing with --eval-games 0" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()
