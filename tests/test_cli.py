"""Smoke runs of the command line and the scripts, as a user would type them."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.cli import build_parser, main
from dixit_ai.match import game_seeds
from dixit_ai.records import read_records

ROOT = Path(__file__).resolve().parent.parent


def test_every_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    listing = capsys.readouterr().out
    parser = build_parser()
    (subparsers,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    commands = list(subparsers.choices)
    assert set(commands) >= {"simulate", "replay", "deck", "bench", "tournament", "train",
                             "serve", "play", "agents", "cache"}  # design.md's commands
    assert all(command in listing for command in commands)
    for command in commands:
        with pytest.raises(SystemExit) as exit_:
            main([command, "--help"])
        assert exit_.value.code == 0


def test_simulate_then_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    assert main(["simulate", "--edition", "odyssey-2024", "--players", "5", "--games", "6",
                 "--seed", "3", "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "games: 6 (6 complete" in text and "rounds/s" in text
    records = list(read_records(out))
    assert len(records) == 6 and len({r.seed for r in records}) == 6
    assert all(r.header["deck"]["name"] == "dream" for r in records)
    # each record names the run it came from: its --seed, and its place in the run
    assert [r.header["simulation"] for r in records] == [
        {"seed": 3, "game": i, "games": 6} for i in range(6)]
    assert [r.seed for r in records] == game_seeds(3, 6)
    assert main(["replay", str(out)]) == 0
    assert "replayed 6 games" in capsys.readouterr().out

    again = tmp_path / "again.jsonl"
    main(["simulate", "--edition", "odyssey-2024", "--players", "5", "--games", "6",
          "--seed", "3", "--out", str(again), "--no-progress"])
    assert again.read_bytes() == out.read_bytes()


def test_replay_fails_loudly_on_a_tampered_file(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    main(["simulate", "--players", "4", "--games", "2", "--out", str(out), "--no-progress"])
    lines = out.read_text().splitlines()
    data = json.loads(lines[1])
    data["rounds"][2]["points"][0] += 1
    lines[1] = json.dumps(data)
    out.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(out)]) == 1
    assert "MISMATCH" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["header"].update(n_players=5), "'played' must hold one list of cards per "
                                                    "seat (5, as the header's n_players says)"),
        (lambda d: d["rounds"][2]["played"].__setitem__(3, 38), "round 2: 'played[3]' must be"),
        (lambda d: d["rounds"][0].update(forfeits=None), "'forfeits' must be a list of seats"),
        (lambda d: d["header"].update(n_players=2), "refresh-2021 is for 3-8 players"),
        (lambda d: d["header"].update(seed=-5), "seed must be a non-negative integer"),
        (lambda d: d["header"]["deck"].update(card_ids=list(range(10))), "deck of 10 cards"),
    ],
    ids=["n_players-5", "played-a-number", "forfeits-null", "n_players-2", "seed-negative",
         "deck-cut"],
)
def test_replay_refuses_a_broken_record_naming_the_file_and_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str) -> None:
    out = tmp_path / "games.jsonl"
    main(["simulate", "--players", "4", "--games", "2", "--out", str(out), "--no-progress"])
    lines = out.read_text().splitlines()
    data = json.loads(lines[1])
    change(data)
    lines[1] = json.dumps(data)
    out.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    assert main(["replay", str(out)]) == 2  # bad input, not a mismatch (1)
    error = capsys.readouterr().err
    assert error.startswith(f"dixit-ai replay: error: {out}, record 2 (line 2): ")
    assert message in error and len(error.splitlines()) == 1


def test_replay_names_a_file_that_is_not_utf8(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    main(["simulate", "--players", "4", "--games", "2", "--out", str(out), "--no-progress"])
    out.write_bytes(out.read_bytes().replace(b"\n", b"\n\xff\xfe", 1))
    capsys.readouterr()
    assert main(["replay", str(out)]) == 2
    error = capsys.readouterr().err
    assert f"{out}, line 2: not UTF-8 text" in error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--edition", "original-2008", "--players", "7"], "3-6 players, not 7"),
        (["simulate", "--rule", "teams=true"], "only in odyssey-2011"),
        (["simulate", "--games", "0"], "at least 1"),
        (["simulate", "--agents", "random,random"], "2 agents for 4 players"),
        (["simulate", "--agents", "random,,random,random,random"],
         "--agents 'random,,random,random,random': entry 2 is empty"),
        (["simulate", "--agents", ",,random"], "entry 1 is empty"),
        (["simulate", "--agents", "nobody"], "no agent named 'nobody'"),
        (["simulate", "--rule", "colour=red"], "unknown rule parameter"),
        (["replay", "/no/such/file.jsonl"], "No such file"),
    ],
)
def test_bad_input_gives_a_clear_error(argv: list[str], message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    try:  # a value argparse refuses exits 2 (SystemExit); a refused combination returns 2
        status = main([*argv, *(["--no-progress"] if argv[0] == "simulate" else [])])
    except SystemExit as exit_:
        status = exit_.code
    assert status == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--max-rounds", "0"], "--max-rounds must be at least 1, not 0"),
        (["--agents", "nobody"], "no agent named 'nobody'"),
    ],
)
def test_bad_input_leaves_an_existing_out_file_as_it_was(
        argv: list[str], message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "keep.jsonl"
    out.write_text('{"kept": true}\n')
    assert main(["simulate", "--games", "1", "--out", str(out), "--no-progress", *argv]) == 2
    assert message in capsys.readouterr().err
    assert out.read_text() == '{"kept": true}\n'


def test_simulate_refuses_an_out_file_in_a_missing_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "no" / "such" / "records.jsonl"
    assert main(["simulate", "--games", "1", "--out", str(out), "--no-progress"]) == 2
    assert f"the folder {out.parent} does not exist" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_agents_lists_random(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agents"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert "random" in names and "clip-greedy" in names


def test_console_script_runs() -> None:
    result = subprocess.run([sys.executable, "-m", "dixit_ai.cli", "simulate", "--games", "2",
                             "--no-progress"], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "games: 2" in result.stdout


def test_bench_rules_script_smoke(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_rules.py"), "--games", "3",
         "--repeats", "1", "--players", "5", "--editions", "refresh-2021", "--no-batched",
         "--json", str(out)],
        capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr  # 3 games judge no target (see the line)
    assert "refresh-2021" in result.stdout
    assert ("target not judged: rounds/s, refresh-2021 5 players: 3 games per cell"
            in result.stdout)
    rows = json.loads(out.read_text())  # the asked-for row first, then variant/batched rows
    row = next(r for r in rows if r.get("edition") == "refresh-2021" and "variant" not in r)
    assert row["players"] == 5 and row["rounds_per_s"] > 0


def test_regen_golden_script_reproduces_the_committed_files(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "regen_golden.py"),
                             "--out", str(tmp_path)], capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stderr
    for path in (ROOT / "tests" / "golden").glob("*.txt"):
        assert (tmp_path / path.name).read_text() == path.read_text()
