"""``dixit-ai replay`` of a tournament's records checks each record's game index, deal, seed and
seats against the schedule that the run folder's ``config.json`` derives (a record alone does
not carry the tournament's seed), and says so when it could not."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.cli.common import EXIT_FAILED, EXIT_OK

TOURNAMENT = ["tournament", "--agents", "random,b=random,c=random", "--players", "3",
              "--games", "6", "--workers", "1", "--no-progress", "--resamples", "20",
              "--rating-resamples", "0"]


def play_tournament(root: Path, seed: int) -> Path:
    assert main([*TOURNAMENT, "--seed", str(seed), "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two finished 6-game tournaments of the same agents, seeds 0 and 1 (their run folders)."""
    return (play_tournament(tmp_path_factory.mktemp("seed0"), 0),
            play_tournament(tmp_path_factory.mktemp("seed1"), 1))


def copy_run(folder: Path, target: Path) -> Path:
    shutil.copytree(folder, target)
    return target


def edit_games(folder: Path, edit) -> Path:
    games = folder / "games.jsonl"
    records = [json.loads(line) for line in games.read_text().splitlines()]
    edit(records)
    games.write_text("".join(json.dumps(record) + "\n" for record in records))
    return games


def test_a_tournament_run_replays_clean_and_says_its_schedule_was_checked(
        runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    games = runs[0] / "games.jsonl"
    assert main(["replay", str(games)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "replayed 6 games" in out
    assert f"{games}: the 6 tournament games match the schedule of their run" in out
    assert "seed 0" in out and "not checked" not in out


def test_an_edited_game_index_is_caught(runs: tuple[Path, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_run(runs[0], tmp_path / "run")

    def renumber(records: list[dict]) -> None:  # game 4 (deal 1) claims to be game 1 (deal 0)
        records[4]["header"]["tournament"]["game"] = 1
        records[1]["header"]["tournament"]["game"] = 4

    games = edit_games(run, renumber)
    assert main(["replay", str(games)]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert (f"MISMATCH in {games}, record 2 (line 2; tournament game 4): tournament game 4 "
            "does not match") in err
    seeds = json.loads((runs[0] / "games.jsonl").read_text().splitlines()[4])
    assert f"the schedule gives {seeds['header']['seed']}" in err  # the expected seed


def test_an_edited_deal_is_caught(runs: tuple[Path, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    run = copy_run(runs[0], tmp_path / "run")

    def redeal(records: list[dict]) -> None:
        records[3]["header"]["tournament"]["deal"] = 0

    games = edit_games(run, redeal)
    assert main(["replay", str(games)]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert "tournament game 3 does not match the schedule" in err
    assert "deal: the record has 0, the schedule gives 1" in err


def test_a_game_of_another_seed_is_caught(runs: tuple[Path, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """A whole, valid record of the same game index from a tournament seeded otherwise: the
    rules replay it cleanly, and only the run's seed tells it is not this run's game."""
    run = copy_run(runs[0], tmp_path / "run")
    other = (runs[1] / "games.jsonl").read_text().splitlines()
    games = edit_games(run, lambda records: records.__setitem__(2, json.loads(other[2])))
    assert main(["replay", str(games)]) == EXIT_FAILED
    err = capsys.readouterr().err
    mine = json.loads((runs[0] / "games.jsonl").read_text().splitlines()[2])["header"]["seed"]
    found = json.loads(other[2])["header"]["seed"]
    assert (f"tournament game 2 does not match the schedule of its run ({run / 'config.json'}, "
            f"seed 0): seed: the record has {found}, the schedule gives {mine}") in err


def test_records_copied_out_of_their_run_folder_say_not_checked(
        runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    copied = tmp_path / "games.jsonl"
    shutil.copy(runs[0] / "games.jsonl", copied)
    assert main(["replay", str(copied)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "every record matches the rules" in out
    assert (f"{copied}: the game and deal indices and seeds of its 6 tournament games were "
            "not checked") in out
    assert "match the schedule" not in out


def test_a_run_folder_without_a_readable_config_fails_not_checked(
        runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run folder's records are checked against its schedule: when its config.json cannot
    give one, the check asked for was not made, and replay fails saying why (the rules' check
    is still reported)."""
    run = copy_run(runs[0], tmp_path / "run")
    (run / "config.json").write_text("{not json")
    assert main(["replay", str(run / "games.jsonl")]) == EXIT_FAILED
    captured = capsys.readouterr()
    assert "every record matches the rules" in captured.out
    assert "NOT CHECKED" in captured.err and "could not be checked against their run's " \
        "schedule" in captured.err and "not valid JSON" in captured.err


def test_simulated_records_say_nothing_of_a_schedule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    assert main(["simulate", "--games", "2", "--max-rounds", "2", "--no-progress",
                 "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["replay", str(out)]) == EXIT_OK
    printed = capsys.readouterr().out
    assert "schedule" not in printed and "not checked" not in printed


def test_a_game_of_another_tournament_with_the_same_schedule_is_caught(
        runs: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A record copied from a tournament of the same agents and seed, named otherwise: its
    index, deal, seed and seats are those of the schedule, and only the name tells it is not
    this run's game."""
    root = tmp_path / "other"
    assert main([*TOURNAMENT, "--seed", "0", "--name", "other", "--out", str(root)]) == 0
    (other_run,) = root.iterdir()
    capsys.readouterr()
    run = copy_run(runs[0], tmp_path / "run")
    mine = json.loads((run / "config.json").read_text())["config"]["name"]
    other = (other_run / "games.jsonl").read_text().splitlines()
    games = edit_games(run, lambda records: records.__setitem__(2, json.loads(other[2])))
    assert main(["replay", str(games)]) == EXIT_FAILED
    err = capsys.readouterr().err
    assert (f"MISMATCH in {games}, record 3 (line 3; tournament game 2): tournament game 2 "
            "is a record of "
            f"tournament 'other', not of {mine!r}, the tournament of its run "
            f"({run / 'config.json'}, seed 0)") in err
