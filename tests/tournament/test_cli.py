"""``dixit-ai tournament``: a smoke run writing every output, analyse, resume, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dixit_ai.cli import main

ARGS = ["tournament", "--agents", "random,b=random,c=random", "--players", "4", "--games",
        "8", "--seed", "1", "--no-progress", "--resamples", "100", "--rating-resamples", "10"]
OUTPUTS = ("config.json", "games.jsonl", "results.csv", "results.json", "ratings.png",
           "win_rate.png", "report.md")


def test_a_tournament_writes_every_output(tmp_path, capsys):
    assert main([*ARGS, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    (folder,) = tmp_path.glob("tournament__random-b-c__1__*")
    for name in OUTPUTS:
        assert (folder / name).stat().st_size > 0, name
    assert "Tournament random+b+c" in out.out and "win rate" in out.out
    assert f"run folder: {folder}" in out.err and "played 8 games" in out.err
    results = json.loads((folder / "results.json").read_text())
    assert {s["agent"] for s in results["standings"]} == {"random", "b", "c"}
    assert results["config"]["games"] == 8 and results["games"] == 8
    report = (folder / "report.md").read_text()
    assert "![ratings](ratings.png)" in report and "| # | agent | rating |" in report
    assert (folder / "results.csv").read_text().startswith("rank,agent,games,seat_games,rating")

    # --analyse recomputes the same report from the records, where --out says; it never
    # replaces a report without --overwrite
    before = {name: (folder / name).read_bytes() for name in ("results.json", "report.md")}
    quick = ["--resamples", "100", "--rating-resamples", "10"]
    assert main(["tournament", "--analyse", str(folder), "--out", str(folder), *quick]) == 2
    assert "already holds a report (results.csv" in capsys.readouterr().err
    (folder / "results.json").unlink()
    assert main(["tournament", "--analyse", str(folder), "--out", str(folder), "--overwrite",
                 *quick]) == 0
    assert {name: (folder / name).read_bytes() for name in before} == before
    again = tmp_path / "again"
    assert main(["tournament", "--analyse", str(folder / "games.jsonl"), "--out", str(again),
                 *quick]) == 0
    elsewhere = json.loads((again / "results.json").read_text())
    assert elsewhere.pop("source") == str(folder / "games.jsonl")
    expected = json.loads(before["results.json"])
    assert expected.pop("source") is None and elsewhere == expected
    # ... and from a bare records file elsewhere
    bare = tmp_path / "elsewhere" / "some.jsonl"
    bare.parent.mkdir()
    bare.write_bytes((folder / "games.jsonl").read_bytes())
    assert main(["tournament", "--analyse", str(bare), "--out", str(bare.parent / "report"),
                 "--resamples", "100", "--rating-resamples", "0"]) == 0
    assert (bare.parent / "report" / "report.md").read_text().startswith("# Games of some.jsonl")
    capsys.readouterr()

    # --resume of a finished run plays nothing; with another config it is refused
    assert main(["tournament", "--resume", str(folder), "--no-progress"]) == 0
    assert "played 0 games" in capsys.readouterr().err
    assert main(["tournament", "--resume", str(folder), "--games", "8", "--workers", "2",
                 "--no-progress"]) == 0  # the same value again, and how it runs, are fine
    assert main(["tournament", "--resume", str(folder), "--games", "4"]) == 2
    assert ("holds this tournament with more games (stored != given: games: 8 != 4): "
            "--games extends a run, never shortens it") in capsys.readouterr().err
    assert main(["tournament", "--resume", str(folder), "--seed", "2"]) == 2
    assert "differences (stored != given): seed: 1 != 2" in capsys.readouterr().err


def test_a_tournament_file_and_overrides(tmp_path, capsys):
    config = tmp_path / "t.yaml"
    config.write_text("name: mine\nagents: [random, {label: calm, agent: random, kwargs: "
                      "{second_vote_rate: 0.0}}]\nplayers: 3\ngames: 4\nseed: 2\n"
                      "rules: {score_limit: 10}\n")
    assert main(["tournament", "--config", str(config), "--out", str(tmp_path / "runs"),
                 "--no-progress", "--rating-resamples", "0", "--resamples", "50",
                 "--rule", "score_limit=12"]) == 0
    (folder,) = (tmp_path / "runs").glob("tournament__mine__2__*")
    stored = json.loads((folder / "config.json").read_text())["config"]
    assert stored["rules"] == {"score_limit": 12} and stored["players"] == 3
    assert stored["agents"][1] == {"label": "calm", "agent": "random",
                                   "kwargs": {"second_vote_rate": 0.0}}
    capsys.readouterr()


def test_errors_are_one_clear_line(tmp_path, capsys):
    assert main(["tournament", "--agents", "random,nobody", "--out", str(tmp_path)]) == 2
    assert "dixit-ai tournament: error: no agent named 'nobody'" in capsys.readouterr().err
    assert main(["tournament", "--out", str(tmp_path)]) == 2
    assert "give the agents" in capsys.readouterr().err
    assert main(["tournament", "--resume", str(tmp_path / "nope")]) == 2
    assert "no such run folder" in capsys.readouterr().err
    assert main(["tournament", "--agents", "random,b=random", "--workers", "0",
                 "--out", str(tmp_path)]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err
    assert main(["tournament", "--agents", "random,b=random", "--address", "x:1",
                 "--out", str(tmp_path)]) == 2
    assert "--address is for --backend ray" in capsys.readouterr().err
    assert main(["tournament", "--agents", "a=random,,b=random", "--out", str(tmp_path)]) == 2
    assert "--agents 'a=random,,b=random': entry 2 is empty" in capsys.readouterr().err
    assert main(["tournament", "--agents", "=random,b=random", "--out", str(tmp_path)]) == 2
    assert "the label is empty in '=random'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(("text", "message"), [
    ("agents: [random, {label: b, agent: random, kwargs: {nope: 1}}]",
     "entry 'b': agent 'random' (dixit_ai.agents.random_agent:RandomAgent) takes no keyword "
     "argument 'nope'; it takes: second_vote_rate, pass_rate, name"),
    ("name: 5\nagents: [random, b=random]", "'name' must be text, not 5"),
    ("agents: [random, {label: b, agent: random, kwargs: {second_vote_rate: 5}}]",
     "entry 'b': second_vote_rate must be in [0, 1], not 5"),
])
def test_a_bad_tournament_file_is_one_clear_line_and_writes_nothing(text, message, tmp_path,
                                                                     capsys):
    path = tmp_path / "t.yaml"
    path.write_text(text + "\nplayers: 3\ngames: 2\n")
    out = tmp_path / "runs"
    for workers in ("1", "2"):
        assert main(["tournament", "--config", str(path), "--out", str(out), "--workers",
                     workers, "--no-progress"]) == 2
        error = capsys.readouterr().err
        assert error.splitlines()[-1].startswith("dixit-ai tournament: error: ")
        assert message in error and "Traceback" not in error
    assert not out.exists()


def test_the_bench_script_runs_small(tmp_path):
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, str(root / "scripts" / "bench_tournament.py"), "--games", "4",
         "--agents", "random,b=random", "--players", "4", "--workers", "1,2",
         "--out", str(tmp_path)],
        cwd=root, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr  # 4 games judge no target
    assert "records identical across worker counts: True" in result.stdout
    assert "speed-up" in result.stdout
    assert "target not judged: time of 500 games (from 4 games): 4 games" in result.stdout
