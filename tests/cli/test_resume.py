"""Issue 16, item 8: ``tournament --resume RUN --games N`` extends a finished tournament with
the next games of the same schedule: the same files as one longer run."""

from __future__ import annotations

from tests.cli.helpers import dixit

ARGS = ["--players", "3", "--seed", "4", "--workers", "1", "--no-progress", "--resamples", "50",
        "--rating-resamples", "5"]


def test_resume_with_more_games_equals_one_longer_run(tmp_path):
    agents = ["--agents", "random,b=random"]
    short = dixit("tournament", *agents, "--games", "3", "--out", "short", *ARGS, cwd=tmp_path)
    assert short.returncode == 0, short.output
    (folder,) = (tmp_path / "short").iterdir()
    longer = dixit("tournament", "--resume", str(folder), "--games", "7", *ARGS, cwd=tmp_path)
    assert longer.returncode == 0, longer.output
    assert "3 of 7 games already played" in longer.stderr and "played 4 games" in longer.stderr
    whole = dixit("tournament", *agents, "--games", "7", "--out", "whole", *ARGS, cwd=tmp_path)
    assert whole.returncode == 0, whole.output
    (reference,) = (tmp_path / "whole").iterdir()
    for name in ("games.jsonl", "results.json", "results.csv", "report.md"):
        assert (folder / name).read_bytes() == (reference / name).read_bytes(), name
    fewer = dixit("tournament", "--resume", str(folder), "--games", "5", *ARGS, cwd=tmp_path)
    assert fewer.returncode == 2 and "games: 7 != 5" in fewer.stderr
