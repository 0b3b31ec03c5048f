"""``dixit-ai play`` never loses its record: Ctrl-C at a prompt is a quit (the record is written,
with the seat's failure, then the command exits 130), and the record is written atomically."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from dixit_ai.cli import main
from dixit_ai.cli.common import EXIT_INTERRUPTED, EXIT_USAGE
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


@pytest.mark.parametrize("prompt_number", [1, 4])
def test_ctrl_c_in_play_writes_the_record_then_exits_interrupted(
        tmp_path, monkeypatch, capsys, prompt_number):
    """Ctrl-C at a prompt lost the game: KeyboardInterrupt went past the record."""
    monkeypatch.setattr("builtins.input", _interrupt_at(prompt_number))
    out = tmp_path / "game.json"
    status = main(["play", "--seats", "human,random,random,random", "--seed", "3",
                   "--images", str(tmp_path / "cards"), "--out", str(out)])
    captured = capsys.readouterr()
    assert status == EXIT_INTERRUPTED
    assert "dixit-ai play: interrupted" in captured.err
    assert f"Record: {out}" in captured.out
    record = GameRecord.from_json(out.read_text())
    assert record.status == "aborted" and record.winners == []
    (failure,) = record.failures
    assert failure.seat == 0 and failure.error == "HumanQuit"
    assert "interrupted (Ctrl-C)" in failure.reason
    replay_record(record)  # raises on any mismatch
    assert main(["replay", str(out)]) == 0
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
    assert done.returncode == EXIT_USAGE, done.stderr
    assert "dixit-ai play: error:" in done.stderr
    assert out.read_text() == OLD
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards", "driver.py", "game.json"]
