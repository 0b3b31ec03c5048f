"""``simulate --out`` replaces an existing file only once every record is written: a record that
cannot be serialised, an error or Ctrl-C part-way leaves the old file as it was."""

from __future__ import annotations

import pytest

from dixit_ai.agents import RandomAgent
from dixit_ai.cli import main
from dixit_ai.cli.common import EXIT_FAILED, EXIT_INTERRUPTED
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record

OLD = '{"x": 1}\n'
SIMULATE = ["simulate", "--agents", "random", "--games", "3", "--max-rounds", "2",
            "--no-progress"]


@pytest.mark.parametrize("failing_game", [1, 2])
def test_simulate_leaves_the_old_file_when_a_record_cannot_be_written(
        tmp_path, monkeypatch, capsys, failing_game):
    """The file was opened (emptied) before the first record was serialised, and a failure at a
    later game left it holding only the games before."""
    out = tmp_path / "pre.jsonl"
    out.write_text(OLD)
    real = GameRecord.to_json
    calls = []

    def to_json(self: GameRecord) -> str:
        calls.append(1)
        if len(calls) == failing_game:
            raise ValueError("the game record cannot be written: header['x'] is nan")
        return real(self)

    monkeypatch.setattr(GameRecord, "to_json", to_json)
    # a failure of the run part-way (exit 1), not bad input (exit 2)
    assert main([*SIMULATE, "--out", str(out)]) == EXIT_FAILED
    assert "cannot be written" in capsys.readouterr().err
    assert out.read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pre.jsonl"]  # no temporary file


def test_simulate_refuses_a_nan_in_an_agents_description(tmp_path, monkeypatch, capsys):
    out = tmp_path / "pre.jsonl"
    out.write_text(OLD)
    monkeypatch.setattr(RandomAgent, "describe",
                        lambda self: {"name": "random", "bias": float("nan")})
    assert main([*SIMULATE, "--out", str(out)]) == EXIT_FAILED  # found in the first game
    assert "is nan" in capsys.readouterr().err
    assert out.read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pre.jsonl"]


def test_simulate_interrupted_part_way_leaves_the_old_file(tmp_path, monkeypatch, capsys):
    from dixit_ai.cli import simulate

    out = tmp_path / "pre.jsonl"
    out.write_text(OLD)
    real = simulate.play_game
    games = []

    def play_game(*args, **kwargs):
        games.append(1)
        if len(games) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(simulate, "play_game", play_game)
    assert main([*SIMULATE, "--out", str(out)]) == EXIT_INTERRUPTED
    assert f"after 2 of 3 game(s); {out} was not written" in capsys.readouterr().err
    assert out.read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pre.jsonl"]


def test_simulate_replaces_the_file_once_every_game_is_written(tmp_path):
    out = tmp_path / "pre.jsonl"
    out.write_text(OLD)
    assert main([*SIMULATE, "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    for line in lines:
        replay_record(GameRecord.from_json(line))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pre.jsonl"]
    # as readable as a file written by open() (a bare mkstemp file is owner-only)
    from dixit_ai.files import _FILE_MODE

    assert out.stat().st_mode & 0o777 == _FILE_MODE
