"""The line a tournament ends with counts the workers that played its games: never more than
the games it had to play."""

from __future__ import annotations

from dixit_ai.cli import main

RUN = ["tournament", "--agents", "a=random,b=random,c=random", "--players", "3", "--seed", "4",
       "--no-progress", "--resamples", "20", "--rating-resamples", "0"]


def test_the_last_line_counts_the_workers_that_played(tmp_path, capsys):
    out = tmp_path / "runs"
    assert main([*RUN, "--games", "2", "--workers", "8", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "played 2 games in " in err and "; 2 worker(s), local)" in err
    (folder,) = out.iterdir()
    assert main(["tournament", "--resume", str(folder), "--games", "3", "--workers", "8",
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "played 1 games in " in err and "; 1 worker(s), local)" in err
    assert main(["tournament", "--resume", str(folder), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "played 0 games in " in err and "; 0 worker(s), local)" in err
