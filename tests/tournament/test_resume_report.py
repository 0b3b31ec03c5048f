"""A resumed run's report uses the bootstrap settings the run was started with: an interrupted
run has no results.json yet, so they are kept in its config.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dixit_ai.tournament import run_tournament
from dixit_ai.tournament.folder import analyse_folder
from tests.tournament.helpers import random_config

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {"n_resamples": 50, "rating_resamples": 7}


def report_of(folder: Path) -> dict[str, bytes]:
    return {name: (folder / name).read_bytes()
            for name in ("games.jsonl", "results.json", "results.csv", "report.md")}


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    run = run_tournament(random_config(), out=tmp_path_factory.mktemp("whole"), progress=False,
                         **SETTINGS)
    return run.folder


def interrupted(tmp_path: Path) -> Path:
    run = run_tournament(random_config(), out=tmp_path, progress=False, stop_after=5,
                         **SETTINGS)
    assert run.results is None and not (run.folder / "results.json").exists()
    return run.folder


def test_a_resume_reports_with_the_settings_the_run_started_with(whole, tmp_path):
    """Before, a resume without the options reported with the defaults (2000 and 200
    resamples): other intervals than the uninterrupted run's, and a results.json that said so."""
    folder = interrupted(tmp_path)
    assert json.loads((folder / "config.json").read_text())["report"] == {
        "n_resamples": 50, "rating_resamples": 7}
    resumed = run_tournament(random_config(), resume=folder, progress=False)
    assert resumed.results is not None and resumed.results.n_resamples == 50
    assert report_of(folder) == report_of(whole)


def test_options_given_to_a_resume_still_override(tmp_path):
    folder = interrupted(tmp_path)
    resumed = run_tournament(random_config(), resume=folder, progress=False, n_resamples=30,
                             rating_resamples=0)
    assert resumed.results is not None
    assert (resumed.results.n_resamples, resumed.results.rating_resamples) == (30, 0)


def test_analysing_an_interrupted_run_uses_its_settings(tmp_path):
    folder = interrupted(tmp_path)
    results, _ = analyse_folder(folder, out=tmp_path / "report")
    assert (results.n_resamples, results.rating_resamples) == (50, 7)
    assert results.settings is None  # the run's own: nothing to say


def test_the_command_resumes_with_the_settings_the_run_started_with(whole, tmp_path):
    folder = interrupted(tmp_path)
    done = subprocess.run([sys.executable, "-m", "dixit_ai.cli", "tournament", "--resume",
                           str(folder), "--no-progress"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert report_of(folder) == report_of(whole)
