"""Huge counts are bad input: exit 2 before anything is made, the flag and its limit named, no
traceback (they used to allocate terabytes for the games' seeds or the bootstrap's indices and
die with a MemoryError traceback, or be killed drawing a contact sheet)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import dixit, files_in

HUGE = "1000000000000"


def refused(result, named: str) -> None:
    assert result.returncode == 2, result.output
    assert named in result.stderr, result.stderr
    assert "Traceback" not in result.output


def test_simulate_refuses_a_huge_game_count(tmp_path: Path) -> None:
    result = dixit("simulate", "--games", HUGE, "--deck", "dream:size=40", "--out",
                   "records.jsonl", "--no-progress", cwd=tmp_path)
    refused(result, f"--games must be at most 10,000,000, not {int(HUGE):,}")
    assert files_in(tmp_path) == set()


def test_simulate_names_players_below_the_least(tmp_path: Path) -> None:
    result = dixit("simulate", "--players", "-3", "--games", "1", cwd=tmp_path)
    refused(result, "refresh-2021 is for 3-8 players, not -3")


@pytest.mark.parametrize(("args", "named"), [
    (("--games", HUGE), f"--games must be at most 10,000,000, not {int(HUGE):,}"),
    (("--resamples", HUGE), f"--resamples must be at most 100,000, not {int(HUGE):,}"),
    (("--rating-resamples", HUGE),
     f"--rating-resamples must be at most 100,000, not {int(HUGE):,}"),
])
def test_tournament_refuses_huge_counts(tmp_path: Path, args: tuple[str, ...],
                                        named: str) -> None:
    result = dixit("tournament", "--agents", "random,random-teller", "--players", "3",
                   "--deck", "dream:size=40", "--no-progress", "--out", "runs", *args,
                   cwd=tmp_path)
    refused(result, named)
    assert files_in(tmp_path) == set()


def test_tournament_refuses_a_huge_game_count_from_its_file(tmp_path: Path) -> None:
    (tmp_path / "t.yaml").write_text(f"agents: [random, random-teller]\nplayers: 3\n"
                                     f"games: {HUGE}\n")
    result = dixit("tournament", "--config", "t.yaml", "--out", "runs", cwd=tmp_path)
    refused(result, f"games must be at most 10,000,000, not {int(HUGE):,}")
    assert files_in(tmp_path) == {"t.yaml"}


@pytest.mark.parametrize(("args", "named"), [
    (("--bootstrap", HUGE), f"bootstrap must be at most 100,000, not {int(HUGE):,}"),
    (("--items", HUGE), f"items must be at most 100,000, not {int(HUGE):,}"),
])
def test_bench_refuses_huge_counts(tmp_path: Path, args: tuple[str, ...], named: str) -> None:
    result = dixit("bench", "--tasks", "guess", "--items", "2", "--out", "runs",
                   "--no-progress", *args, cwd=tmp_path, timeout=120)
    refused(result, named)
    assert files_in(tmp_path) == set()


def test_bench_refuses_a_huge_bootstrap_from_its_file(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text(f"tasks: [guess]\nitems: 2\nbootstrap: {HUGE}\n")
    result = dixit("bench", "--config", "b.yaml", "--out", "runs", "--no-progress",
                   cwd=tmp_path, timeout=120)
    refused(result, f"bootstrap must be at most 100,000, not {int(HUGE):,}")
    assert files_in(tmp_path) == {"b.yaml"}


@pytest.mark.parametrize("args", [("--thumb-width", "100000"),
                                  ("--thumb-width", "1024", "--columns", "100"),
                                  ])
def test_deck_sheet_refuses_a_sheet_too_big_to_draw(tmp_path: Path,
                                                    args: tuple[str, ...]) -> None:
    result = dixit("deck", "sheet", "dream:size=100", "--out", "out/sheet.png", *args,
                   cwd=tmp_path, timeout=120)
    assert result.returncode == 2, result.output
    assert "Traceback" not in result.output
    assert "--thumb-width" in result.stderr and "pixels" in result.stderr, result.stderr
    assert files_in(tmp_path) == set() and not (tmp_path / "out").exists()


def test_deck_sheet_refuses_a_webp_wider_than_webp_allows(tmp_path: Path) -> None:
    result = dixit("deck", "sheet", "dream:size=100", "--out", "sheet.webp", "--columns", "100",
                   "--thumb-width", "200", cwd=tmp_path, timeout=120)
    refused(result, "16383")
    assert files_in(tmp_path) == set()


def test_deck_sheet_refuses_an_empty_card_list(tmp_path: Path) -> None:
    result = dixit("deck", "sheet", "dream:size=6", "--out", "sheet.png", "--cards", "",
                   cwd=tmp_path)
    refused(result, "--cards")
    assert files_in(tmp_path) == set()


def test_running_out_of_memory_is_a_failure_named_not_a_traceback(monkeypatch, capsys) -> None:
    from dixit_ai import cli
    from dixit_ai.cli import simulate

    def exhausted(_args):
        raise MemoryError("Unable to allocate 7.28 TiB")

    monkeypatch.setattr(simulate, "run", exhausted)
    assert cli.main(["simulate", "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert "dixit-ai simulate: failed: out of memory (Unable to allocate 7.28 TiB)" in err
