"""``dixit-ai play`` never loses its record: Ctrl-C at a prompt is a quit (the record is written,
with the seat's failure, then the command exits 130), and the record is written atomically."""

from __future__ import annotations

import itertools
import os
import pickle
import subprocess
import sys
import textwrap

import pytest

from dixit_ai import match
from dixit_ai.agents import RandomAgent
from dixit_ai.cli import main
from dixit_ai.cli import play as play_command
from dixit_ai.cli.common import EXIT_FAILED, EXIT_INTERRUPTED
from dixit_ai.match import play_game
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record

OLD = '{"x": 1}\n'


def _interrupt_at(prompt_number: int):
    """``input`` for a person who answers sensibly, then presses Ctrl-C at a prompt."""
    count = 0

    def fake_input(prompt: str = "") -> str:
        nonlocal count
        count += 1
        if count == prompt_number:
            raise KeyboardInterrupt
        if prompt.startswith("Card ("):
            return "1 storm"
        return "2" if prompt.startswith("Your vote") else "1"

    return fake_input


def _play_interrupted(tmp_path, capsys) -> GameRecord:
    """``dixit-ai play`` with a person and three random bots, interrupted: it exits 130, says
    where the record went, and the record is an aborted game with no winners."""
    out = tmp_path / "game.json"
    status = main(["play", "--seats", "human,random,random,random", "--seed", "3",
                   "--images", str(tmp_path / "cards"), "--out", str(out)])
    captured = capsys.readouterr()
    assert status == EXIT_INTERRUPTED
    assert "dixit-ai play: interrupted" in captured.err
    assert f"Record: {out}" in captured.out
    record = GameRecord.from_json(out.read_text())
    assert record.status == "aborted" and record.winners == []
    return record


@pytest.mark.parametrize("prompt_number", [1, 4])
def test_ctrl_c_in_play_writes_the_record_then_exits_interrupted(
        tmp_path, monkeypatch, capsys, prompt_number):
    """Ctrl-C at a prompt lost the game: KeyboardInterrupt went past the record."""
    monkeypatch.setattr("builtins.input", _interrupt_at(prompt_number))
    record = _play_interrupted(tmp_path, capsys)
    (failure,) = record.failures
    assert failure.seat == 0 and failure.error == "HumanQuit"
    assert "interrupted (Ctrl-C)" in failure.reason
    replay_record(record)  # raises on any mismatch
    assert main(["replay", str(tmp_path / "game.json")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards", "game.json"]


def test_play_writes_its_record_atomically(tmp_path):
    """A record write that fails part-way (here: the file size limit, as a full disk would)
    left the old file emptied or cut; now it stays as it was and no temporary file is left."""
    out = tmp_path / "game.json"
    out.write_text(OLD)
    driver = tmp_path / "driver.py"
    driver.write_text(textwrap.dedent(f"""
        import builtins, resource, signal, sys

        def quit_at_the_first_prompt(prompt=""):
            # The pictures are drawn; from here on only the record is written.
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (256, resource.RLIM_INFINITY))
            raise EOFError

        builtins.input = quit_at_the_first_prompt
        from dixit_ai.cli import main
        sys.exit(main(["play", "--seats", "human,random,random", "--seed", "1",
                       "--images", {str(tmp_path / "cards")!r}, "--out", {str(out)!r}]))
    """))
    done = subprocess.run([sys.executable, str(driver)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    # the game was played: a record that cannot be written is a failed run (1), not bad input
    assert done.returncode == EXIT_FAILED, done.stderr
    assert f"dixit-ai play: failed: playing the game and writing its record to {out}" in (
        done.stderr)
    assert "File too large" in done.stderr
    assert out.read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards", "driver.py", "game.json"]


class _InterruptedBot(RandomAgent):
    """A bot that is interrupted (Ctrl-C) while it decides its ``when``-th ``method`` call."""

    def __init__(self, method: str, when: int) -> None:
        super().__init__()
        self.method, self.when, self.calls = method, when, 0

    def _maybe_interrupt(self, method: str) -> None:
        if method == self.method:
            self.calls += 1
            if self.calls == self.when:
                raise KeyboardInterrupt

    def tell(self, view):
        self._maybe_interrupt("tell")
        return super().tell(view)

    def play(self, view):
        self._maybe_interrupt("play")
        return super().play(view)

    def vote(self, view):
        self._maybe_interrupt("vote")
        return super().vote(view)


@pytest.mark.parametrize(("method", "when", "rounds"), [("vote", 2, 2), ("tell", 1, 1),
                                                       ("play", 1, 0)])
def test_ctrl_c_while_a_bot_decides_writes_the_record_then_exits_interrupted(
        tmp_path, monkeypatch, capsys, method, when, rounds):
    """Ctrl-C while a bot decided (not at a prompt) went past play_game: no record was
    written. Now the game so far is written, with the interrupted seat's failure, and the
    command exits 130."""
    answers = itertools.count()

    def person(prompt: str = "") -> str:  # never quits; a refused answer is followed by another
        if prompt.startswith("Card ("):
            return "1 storm"
        return str(1 + next(answers) % 3)

    monkeypatch.setattr("builtins.input", person)
    real = play_command.make_seat_agents

    def seats_with_an_interrupted_bot(*args, **kwargs):
        agents = real(*args, **kwargs)
        agents[1] = _InterruptedBot(method, when)  # seat 1 tells in round 1
        return agents

    monkeypatch.setattr(play_command, "make_seat_agents", seats_with_an_interrupted_bot)
    record = _play_interrupted(tmp_path, capsys)
    assert len(record.rounds) == rounds
    (failure,) = record.failures
    assert failure.seat == 1 and failure.error == "KeyboardInterrupt"
    assert failure.phase == method and failure.round == rounds and failure.penalty == "abort"
    assert "interrupted (Ctrl-C)" in failure.reason
    replay_record(record)  # the rounds played so far replay
    assert main(["replay", str(tmp_path / "game.json")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards", "game.json"]


def test_play_game_hands_the_partial_record_to_its_caller_when_interrupted():
    """play_game raises GameInterrupted (a KeyboardInterrupt: callers that stop on Ctrl-C,
    such as simulate and tournament, still do) carrying the record of the game so far."""
    bots = [RandomAgent(), _InterruptedBot("vote", 3), RandomAgent()]
    with pytest.raises(KeyboardInterrupt) as caught:
        play_game(bots, edition="refresh-2021", seed=5, on_failure="forfeit")
    assert isinstance(caught.value, match.GameInterrupted)
    record = caught.value.record
    assert record.status == "aborted" and record.winners == []
    assert [f.error for f in record.failures] == ["KeyboardInterrupt"]
    assert record.final_scores == (record.rounds[-1].scores if record.rounds else [0, 0, 0])
    replay_record(GameRecord.from_json(record.to_json()))
    again = pickle.loads(pickle.dumps(caught.value))  # crosses a process pool as it is
    assert isinstance(again, match.GameInterrupted) and again.record == record
