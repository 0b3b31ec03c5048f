"""``scripts/points_by_source.py`` reads a run folder as ``tournament --analyse`` does: it warns
of an unfinished run (unbalanced seats) and of games missing from the middle, refuses a torn
file unless ``--allow-partial``, and its ``--json`` names the records and the bootstrap."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from dixit_ai.cli import main
from scripts import points_by_source


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sources-run")
    assert main(["tournament", "--agents", "a=random,b=random,c=random", "--players", "3",
                 "--games", "9", "--seed", "3", "--workers", "1", "--no-progress",
                 "--resamples", "20", "--rating-resamples", "2", "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def copy(run: Path, target: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    shutil.copytree(run, target)
    games = target / "games.jsonl"
    games.write_text(edit(games.read_text()))
    return target


def test_a_finished_run_reads_clean_and_its_json_names_its_source(run, tmp_path, capsys):
    out = tmp_path / "s.json"
    assert points_by_source.main([str(run), "--resamples", "20", "--json", str(out)]) == 0
    assert "warning" not in capsys.readouterr().err
    data = json.loads(out.read_text())
    games = run / "games.jsonl"
    assert data["source"] == {"path": str(games), "dropped_lines": 0,
                              "sha256": hashlib.sha256(games.read_bytes()).hexdigest()}
    assert data["method"] == {"interval": "95% percentile bootstrap over deals",
                              "n_resamples": 20, "seed": 0}
    assert data["warnings"] == [] and data["games"] == 9


def test_an_unfinished_run_is_said_to_be(run, tmp_path, capsys):
    first_five = "".join(line + "\n" for line in (run / "games.jsonl").read_text()
                         .splitlines()[:5])
    folder = copy(run, tmp_path / "part", lambda text: first_five)
    out = tmp_path / "s.json"
    assert points_by_source.main([str(folder), "--resamples", "20", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert ("warning: the run is unfinished: 5 of its 9 scheduled games are recorded (the "
            "seats are not balanced: a rotation is 3 games)") in err
    assert "unfinished" in json.loads(out.read_text())["warnings"][0]


def test_a_game_missing_from_the_middle_is_named(run, tmp_path, capsys):
    def without_line_3(text: str) -> str:
        lines = text.splitlines()
        return "".join(line + "\n" for line in lines[:2] + lines[3:])

    folder = copy(run, tmp_path / "gap", without_line_3)
    assert points_by_source.main([str(folder), "--resamples", "20"]) == 0
    assert ("warning: 1 of the 9 scheduled games is missing from games.jsonl: game 2"
            in capsys.readouterr().err)


def test_a_torn_file_is_refused_unless_allow_partial(run, tmp_path, capsys):
    folder = copy(run, tmp_path / "torn", lambda text: text + '{"header": ')
    assert points_by_source.main([str(folder), "--resamples", "20"]) == 2
    err = capsys.readouterr().err
    assert "--allow-partial" in err
    out = tmp_path / "s.json"
    assert points_by_source.main([str(folder), "--resamples", "20", "--allow-partial",
                                  "--json", str(out)]) == 0
    assert "warning: 1 unreadable line(s)" in capsys.readouterr().err
    assert json.loads(out.read_text())["source"]["dropped_lines"] == 1
