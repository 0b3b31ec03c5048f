"""Every ``dixit-ai train`` job is named where the jobs are listed: the top-level ``--help`` and
the README's Commands table (``train rl`` was left out of both)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from dixit_ai.cli import build_parser

README = Path(__file__).resolve().parents[2] / "README.md"


def train_jobs() -> list[str]:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    train = commands.choices["train"]
    jobs = next(a for a in train._actions if isinstance(a, argparse._SubParsersAction))
    return list(jobs.choices)


def test_top_level_help_names_every_train_job():
    jobs = train_jobs()
    assert "rl" in jobs
    listing = " ".join(build_parser().format_help().split())
    summary = listing.split(" train ", 1)[1].split(" cache ", 1)[0]
    for job in jobs:
        assert re.search(rf"\b{re.escape(job)}\b", summary), (job, summary)


def test_readme_commands_table_names_every_train_job():
    row = next(line for line in README.read_text(encoding="utf-8").splitlines()
               if line.startswith("| `dixit-ai train "))
    for job in train_jobs():
        assert re.search(rf"[ /]{re.escape(job)}[ /`]", row.split("|")[1]), (job, row)


@pytest.mark.parametrize("job", ["calibration", "storyteller", "rl"])
def test_each_script_job_s_help_names_its_command(job, capsys):
    """The scripts behind these jobs named 'dixit-ai' (the process) in their usage line."""
    from dixit_ai.cli import main

    with pytest.raises(SystemExit) as done:
        main(["train", job, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: dixit-ai train {job} [-h]")
    assert "(default: " in out
