"""dixit_ai.files.atomic_writer: a file appears whole or not at all, with plain permissions."""

from __future__ import annotations

import os
import stat

import pytest

from dixit_ai.files import _FILE_MODE, atomic_writer, not_a_regular_file
from dixit_ai.records import GameRecord, write_records


def test_the_file_appears_whole_with_the_permissions_of_a_plain_open(tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    target = tmp_path / "new" / "out.txt"
    with atomic_writer(target) as handle:
        handle.write("first\n")
        assert not target.exists()  # nothing there until the block ends
    assert target.read_text() == "first\n"
    # mkstemp makes owner-only files (0600); a record or report must be as readable as one
    # written by open(): 0o666 less the umask.
    assert stat.S_IMODE(target.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode)
    assert stat.S_IMODE(target.stat().st_mode) == _FILE_MODE
    assert os.listdir(target.parent) == ["out.txt"]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_a_failure_inside_leaves_the_old_file_and_no_temporary_file(tmp_path, error):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with pytest.raises(error):
        with atomic_writer(target, "wb") as handle:
            handle.write(b"new, half")
            raise error()
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_only_whole_file_modes(tmp_path):
    with pytest.raises(ValueError, match="mode 'w' or 'wb', not 'a'"):
        with atomic_writer(tmp_path / "x", "a"):
            pass
    assert not list(tmp_path.iterdir())


def test_write_records_leaves_the_old_file_when_a_record_is_refused(tmp_path, monkeypatch):
    from dixit_ai import play_game
    from dixit_ai.agents import make_agent

    good = play_game([make_agent("random") for _ in range(3)], edition="refresh-2021", seed=1)
    target = tmp_path / "games.jsonl"
    write_records(target, [good])
    before = target.read_bytes()

    def refused(self: GameRecord) -> str:
        raise ValueError("header['agents'][0] is nan")

    bad = GameRecord.from_json(good.to_json())
    monkeypatch.setattr(GameRecord, "to_json",
                        lambda self: refused(self) if self is bad else GameRecord_to_json(self))
    with pytest.raises(ValueError, match="is nan"):
        write_records(target, [good, bad])
    assert target.read_bytes() == before
    with pytest.raises(ValueError, match="is nan"):
        write_records(target, [bad], append=True)
    assert target.read_bytes() == before
    assert os.listdir(tmp_path) == ["games.jsonl"]


GameRecord_to_json = GameRecord.to_json


def test_a_link_is_written_through_and_kept(tmp_path):
    """Replacing the link itself would leave its target stale and the link a plain file."""
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "target.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    with atomic_writer(link) as handle:
        handle.write("new\n")
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new\n"
    assert sorted(os.listdir(tmp_path / "real")) == ["target.jsonl"]
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "real" / "later.jsonl")
    with atomic_writer(dangling) as handle:
        handle.write("made\n")
    assert dangling.is_symlink() and (tmp_path / "real" / "later.jsonl").read_text() == "made\n"


def test_a_pipe_or_a_device_is_refused_never_replaced(tmp_path):
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    with pytest.raises(OSError, match=f"{pipe}: a named pipe, not a regular file"):
        with atomic_writer(pipe) as handle:
            handle.write("x")
    assert stat.S_ISFIFO(os.stat(pipe).st_mode) and os.listdir(tmp_path) == ["pipe.jsonl"]
    # a device is refused the same way (not written to here: a regression would replace it)
    assert not_a_regular_file("/dev/null") == "a device, not a regular file"
    assert not_a_regular_file(tmp_path) == "a folder"
    assert not_a_regular_file(tmp_path / "nothing") is None


def test_an_output_option_naming_a_pipe_is_bad_input(tmp_path):
    from dixit_ai.cli import main

    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    assert main(["simulate", "--games", "1", "--no-progress", "--out", str(pipe)]) == 2
    assert os.listdir(tmp_path) == ["pipe.jsonl"] and stat.S_ISFIFO(os.stat(pipe).st_mode)
    real = tmp_path / "games.jsonl"
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    assert main(["simulate", "--games", "1", "--no-progress", "--out", str(link)]) == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == 1
