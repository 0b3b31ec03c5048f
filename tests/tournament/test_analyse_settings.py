"""``tournament --analyse RUN`` reproduces the run's own intervals with no options (its
bootstrap settings and seed), says when an option overrides them or when a bare records file
gets bootstrap seed 0, shows no interval for ratings without resamples, and warns of games
missing from the middle of games.jsonl."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dixit_ai.cli import main

RUN = ["tournament", "--agents", "a=random,b=random,c=random", "--players", "3", "--games",
       "9", "--seed", "7", "--workers", "1", "--no-progress", "--resamples", "60",
       "--rating-resamples", "4"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("settings")
    assert main([*RUN, "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def test_analyse_without_options_reproduces_the_run(run, tmp_path, capsys):
    capsys.readouterr()
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    assert "the run's own: 60 resamples, 4 for the ratings, seed 7" in err
    assert (tmp_path / "r" / "results.csv").read_bytes() == (run / "results.csv").read_bytes()
    method = json.loads((tmp_path / "r" / "results.json").read_text())["method"]
    assert (method["n_resamples"], method["rating_resamples"], method["seed"]) == (60, 4, 7)
    assert "settings" not in method


def test_an_explicit_option_overrides_and_the_report_says_so(run, tmp_path, capsys):
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "r"),
                 "--resamples", "80"]) == 0
    assert "overridden by --resamples 80 (not 60)" in capsys.readouterr().err
    report = (tmp_path / "r" / "report.md").read_text()
    assert "80 resamples, 4 for the ratings; seed 7." in report
    assert ("Bootstrap settings: the run's own (results.json), overridden by --resamples 80 "
            "(not 60)") in report


def test_a_bare_records_file_says_which_seed_and_why(run, tmp_path):
    bare = tmp_path / "copy" / "games9.jsonl"
    bare.parent.mkdir()
    shutil.copy(run / "games.jsonl", bare)
    assert main(["tournament", "--analyse", str(bare), "--out", str(tmp_path / "r")]) == 0
    report = (tmp_path / "r" / "report.md").read_text()
    assert "seed 0. Bootstrap settings: the defaults, bootstrap seed 0: a records file alone " \
           "does not carry the tournament's seed" in report
    method = json.loads((tmp_path / "r" / "results.json").read_text())["method"]
    assert method["seed"] == 0 and "seed 0" in method["settings"]


def test_no_rating_resamples_shows_no_interval(run, tmp_path, capsys):
    capsys.readouterr()
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "r"),
                 "--rating-resamples", "0"]) == 0
    out = capsys.readouterr().out
    report = (tmp_path / "r" / "report.md").read_text()
    assert "nan" not in out and "nan" not in report
    assert "(no rating interval)" in report


def test_a_game_missing_from_the_middle_is_named(run, tmp_path, capsys):
    folder = tmp_path / "cut"
    shutil.copytree(run, folder)
    lines = (folder / "games.jsonl").read_text().splitlines()
    (folder / "games.jsonl").write_text("\n".join(lines[:3] + lines[4:]) + "\n")
    capsys.readouterr()
    assert main(["tournament", "--analyse", str(folder), "--out", str(tmp_path / "r")]) == 0
    message = ("1 of the 9 scheduled games is missing from games.jsonl: game 3; these figures "
               "cover the other 8")
    assert f"warning: {message}" in capsys.readouterr().err
    assert message in (tmp_path / "r" / "report.md").read_text()
    assert json.loads((tmp_path / "r" / "results.json").read_text())["notes"] == [message]
