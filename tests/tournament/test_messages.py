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
    assert "played 2 games in " in err and "; 2 workers, local)" in err
    (folder,) = out.iterdir()
    assert main(["tournament", "--resume", str(folder), "--games", "3", "--workers", "8",
                 "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "played 1 game in " in err and "; 1 worker, local)" in err
    assert main(["tournament", "--resume", str(folder), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "played 0 games in " in err and "; 0 workers, local)" in err


def test_a_resume_asking_fewer_games_says_a_run_is_not_shortened(tmp_path, capsys):
    out = tmp_path / "runs"
    assert main([*RUN, "--games", "3", "--workers", "1", "--out", str(out)]) == 0
    (folder,) = out.iterdir()
    capsys.readouterr()
    assert main(["tournament", "--resume", str(folder), "--games", "2", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert (f"{folder} holds this tournament with more games (stored != given: games: 3 != "
            "2): --games extends a run, never shortens it; leave --games out, or give more "
            "than 3") in err
    assert "another tournament" not in err


def test_flags_below_their_least_value_are_named_as_flags(tmp_path, capsys):
    for flag, value, least in (("--games", "0", 1), ("--players", "0", 1), ("--seed", "-1", 0),
                               ("--max-rounds", "0", 1)):
        assert main(["tournament", "--agents", "a=random,b=random", flag, value,
                     "--out", str(tmp_path)]) == 2
        assert f"{flag} must be at least {least}, not {value}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_out_with_resume_is_refused_not_ignored(tmp_path, capsys):
    out = tmp_path / "runs"
    assert main([*RUN, "--games", "3", "--workers", "1", "--out", str(out)]) == 0
    (folder,) = out.iterdir()
    capsys.readouterr()
    elsewhere = tmp_path / "elsewhere"
    assert main(["tournament", "--resume", str(folder), "--games", "4", "--out",
                 str(elsewhere), "--no-progress"]) == 2
    assert ("--out does not go with --resume: a resumed run goes on in its own folder "
            f"({folder})") in capsys.readouterr().err
    assert not elsewhere.exists()
    assert len((folder / "games.jsonl").read_text().splitlines()) == 3
