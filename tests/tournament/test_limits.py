"""``dixit-ai tournament``'s limits and labels: --workers has a ceiling (and a note where it
passes the cores), a resumed run's stored game count is bounded like --games, and an analysis
names the file its bootstrap settings truly came from."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.cli.common import MAX_GAMES
from dixit_ai.tournament.runner import MAX_WORKERS
from dixit_ai.tournament.schedule import MAX_SCHEDULE_GAMES

RUN = ["tournament", "--agents", "a=random,b=random,c=random", "--players", "3", "--games",
       "3", "--seed", "5", "--workers", "1", "--no-progress", "--resamples", "30",
       "--rating-resamples", "2"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture
def run(tmp_path: Path) -> Path:
    assert main([*RUN, "--out", str(tmp_path / "runs")]) == 0
    (folder,) = (tmp_path / "runs").iterdir()
    return folder


def test_the_schedule_and_the_command_share_one_game_limit():
    assert MAX_SCHEDULE_GAMES == MAX_GAMES


def test_workers_above_the_limit_are_refused_before_anything(tmp_path, capsys):
    args = [*RUN[:-7], "--workers", str(MAX_WORKERS + 1), "--no-progress",
            "--out", str(tmp_path / "runs")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"--workers must be at most {MAX_WORKERS:,}, not {MAX_WORKERS + 1:,}" in err
    assert not (tmp_path / "runs").exists()


def test_workers_beyond_the_cores_are_noted(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    args = [*RUN[:-7], "--workers", "2", "--no-progress", "--resamples", "30",
            "--rating-resamples", "2", "--out", str(tmp_path / "runs")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "note: 2 workers on 1 CPU core" in err
    # one per core is the default, and says nothing
    assert main([*RUN[:-7], "--no-progress", "--out", str(tmp_path / "runs2")]) == 0
    assert "CPU core" not in capsys.readouterr().err


def test_a_resumed_run_with_too_many_games_is_refused_and_untouched(run, capsys):
    path = run / "config.json"
    data = json.loads(path.read_text())
    data["config"]["games"] = 10**12
    path.write_text(json.dumps(data))
    before = snapshot(run)
    capsys.readouterr()
    assert main(["tournament", "--resume", str(run), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{path}: games must be at most {MAX_GAMES:,}, not {10**12:,}" in err
    assert snapshot(run) == before
    # and an analysis of it, the same
    assert main(["tournament", "--analyse", str(run), "--out", str(run.parent / "r")]) == 2
    assert f"games must be at most {MAX_GAMES:,}" in capsys.readouterr().err
    assert not (run.parent / "r").exists()


def test_settings_from_config_json_are_labelled_so_when_results_json_is_unreadable(
        run, tmp_path, capsys):
    (run / "results.json").write_text("{torn")
    capsys.readouterr()
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "r"),
                 "--resamples", "40"]) == 0
    err = capsys.readouterr().err
    assert "the run's own (config.json), overridden by --resamples 40 (not 30)" in err
    assert "(results.json)" not in err


def test_settings_fall_back_to_config_json_when_results_json_has_bad_counts(
        run, tmp_path, capsys):
    path = run / "results.json"
    data = json.loads(path.read_text())
    data["method"]["n_resamples"] = -1
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "r"),
                 "--resamples", "40"]) == 0
    err = capsys.readouterr().err
    assert "the run's own (config.json), overridden by --resamples 40 (not 30)" in err
    assert "2 for the ratings" in err


def test_the_library_refuses_what_the_command_refuses():
    from dixit_ai.tournament import make_schedule
    from dixit_ai.tournament.runner import check_backend

    with pytest.raises(ValueError, match=f"workers must be at most {MAX_WORKERS:,}"):
        check_backend("local", MAX_WORKERS + 1, None)
    with pytest.raises(ValueError, match=f"n_games must be at most {MAX_GAMES:,}"):
        make_schedule(["a", "b"], seats=2, n_games=10**12, seed=0)
