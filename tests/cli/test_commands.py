"""Issue 16, item 8: the smaller items, each through the console script."""

from __future__ import annotations

import argparse

import pytest

from dixit_ai.cli import build_parser
from dixit_ai.cli.agents import extra_status, missing_for_extra
from tests.cli.helpers import dixit, files_in


def every_parser(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from every_parser(sub)


def test_no_help_text_shows_raw_markup():
    parsers = list(every_parser(build_parser()))
    assert len(parsers) > 15  # every command and job
    for parser in parsers:
        text = parser.format_help()
        assert "`" not in text, (parser.prog, [line for line in text.splitlines() if "`" in line])


def test_train_help_lists_every_job(tmp_path):
    result = dixit("train", "--help", cwd=tmp_path)
    assert result.returncode == 0
    listing = " ".join(result.stdout.split())
    for job in ("align", "finetune", "export-openclip", "calibration", "storyteller"):
        assert job in listing
    top = " ".join(dixit("--help", cwd=tmp_path).stdout.split())
    assert "export-openclip" in top


def test_agents_says_whether_the_extra_is_installed(tmp_path):
    pytest.importorskip("torch")
    assert missing_for_extra("models") == []  # this environment has it
    result = dixit("agents", cwd=tmp_path)
    assert result.returncode == 0
    line = next(line for line in result.stdout.splitlines() if line.startswith("clip-greedy "))
    assert "[dixit-ai[models] installed]" in line and "needs" not in line
    assert missing_for_extra("no-such-extra") is None
    # pip would install nothing for it: the line says the extra is not declared, not to install
    assert extra_status("no-such-extra").startswith(
        "  [dixit-ai[no-such-extra]: the installed dixit-ai declares no such extra (it has all, ")
    assert extra_status(None) == ""


def test_deck_export_names_the_overwrite_flag(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("mine")
    result = dixit("deck", "export", "dream:size=2,seed=2", "out", cwd=tmp_path)
    assert result.returncode == 2  # bad input: the same status as every command
    assert "the folder is not empty; pass --overwrite to write into it" in result.stderr
    assert files_in(tmp_path) == {"out/keep.txt"}


def test_bad_input_exits_2_in_every_command(tmp_path):
    for args in (["deck", "info", "nonsense"], ["simulate", "--games", "0"],
                 ["replay", "missing.jsonl"], ["tournament", "--agents", "random"],
                 ["simulate", "--edition", "nope"]):
        result = dixit(*args, cwd=tmp_path)
        assert result.returncode == 2, (args, result.output)
        assert "error:" in result.stderr and "Traceback" not in result.output, args


def test_serve_refuses_a_database_in_a_missing_folder_before_starting(tmp_path):
    result = dixit("serve", "--db", "no/such/folder/dixit.sqlite3", "--port", "1",
                   cwd=tmp_path, timeout=60)
    assert result.returncode == 2
    assert "the folder no/such/folder does not exist" in result.stderr
    assert "http://" not in result.output and "Traceback" not in result.output
    assert files_in(tmp_path) == set() and not (tmp_path / "no").exists()


def test_tables_fit_an_80_column_terminal(tmp_path):
    result = dixit("tournament", "--agents", "random,b=random", "--players", "3", "--games",
                   "3", "--workers", "1", "--no-progress", "--resamples", "20",
                   "--rating-resamples", "5", cwd=tmp_path, env={"COLUMNS": "80"})
    assert result.returncode == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    assert "1. " in result.stdout and "win rate" in result.stdout
    wide = dixit("tournament", "--analyse", "runs", "--out", "report", "--resamples", "20",
                 "--rating-resamples", "5", cwd=tmp_path, env={"COLUMNS": "200"})
    assert wide.returncode == 2  # 'runs' holds run folders, it is not one
    (folder,) = (tmp_path / "runs").iterdir()
    wide = dixit("tournament", "--analyse", str(folder), "--out", "report", "--resamples",
                 "20", "--rating-resamples", "5", cwd=tmp_path, env={"COLUMNS": "200"})
    assert wide.returncode == 0 and "┃ # ┃" in wide.stdout  # a wide terminal gets the table
