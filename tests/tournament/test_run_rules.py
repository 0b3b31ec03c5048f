"""A run folder's records are checked against the rules its config.json gives: a record of other
rules (another run's, or one played while an agent had changed the process's shared rules) is
refused by --resume and --analyse and is a replay mismatch, naming what differs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.tournament import run_tournament
from dixit_ai.tournament.folder import analyse_folder
from dixit_ai.tournament.run_rules import RunRules
from dixit_ai.tournament.store import ResumeError
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 10, "rating_resamples": 0, "workers": 1}


def two_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs of one schedule and name, the second with storyteller_points 5; the first's
    records are replaced by the second's."""
    plain = run_tournament(random_config(games=4, max_rounds=2, name="same"),
                           out=tmp_path / "a", **QUICK)
    other = run_tournament(random_config(games=4, max_rounds=2, name="same",
                                         rules={"storyteller_points": 5}),
                           out=tmp_path / "b", **QUICK)
    shutil.copyfile(other.folder / "games.jsonl", plain.folder / "games.jsonl")
    return plain.folder, other.folder


def test_analyse_and_resume_refuse_a_record_of_other_rules(tmp_path: Path) -> None:
    folder, other = two_runs(tmp_path)
    with pytest.raises(ValueError, match=r"game 0 was played under other rules than the run's "
                       r"config.json gives: storyteller_points: the record has 5, the config "
                       r"gives 3"):
        analyse_folder(folder, overwrite=True)
    with pytest.raises(ResumeError, match="storyteller_points: the record has 5"):
        run_tournament(random_config(games=6, max_rounds=2, name="same"), resume=folder,
                       **QUICK)
    analyse_folder(other, overwrite=True)  # its own records are its rules'


def test_replay_of_the_run_folder_calls_it_a_mismatch(tmp_path: Path, capsys) -> None:
    folder, other = two_runs(tmp_path)
    assert main(["replay", str(folder / "games.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "played under other rules than the run's config.json gives" in err
    assert "storyteller_points: the record has 5, the config gives 3" in err
    assert main(["replay", str(other / "games.jsonl")]) == 0


def test_a_missing_parameter_and_another_edition_are_named(tmp_path: Path) -> None:
    run = run_tournament(random_config(games=1, max_rounds=1), out=tmp_path, **QUICK)
    record = GameRecord.from_json((run.folder / "games.jsonl").read_text().splitlines()[0])
    rules = RunRules.of(random_config())
    assert rules.mismatch(record) is None
    del record.header["rules"]["finder_points"]
    record.header["edition"] = "original-2008"
    problem = rules.mismatch(record)
    assert problem is not None
    assert "edition: the record has 'original-2008', the config gives 'refresh-2021'" in problem
    assert "finder_points: the record has nothing, the config gives 3" in problem
