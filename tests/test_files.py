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


def test_read_yaml_refuses_a_key_given_twice_and_names_the_lines(tmp_path):
    from dixit_ai.files import read_yaml

    path = tmp_path / "t.yaml"
    path.write_text("players: 3\nagents: [random, b=random]\nplayers: 4\n")
    with pytest.raises(ValueError, match=rf"^{path}, line 3: the key 'players' is given twice "
                                         r"\(first on line 1\); give it once$"):
        read_yaml(path)
    path.write_text("agents:\n  - {label: a, agent: random, label: b}\n")
    with pytest.raises(ValueError, match="line 2: the key 'label' is given twice"):
        read_yaml(path)
    path.write_text("players: 3\nrules: {score_limit: 10}\n")
    assert read_yaml(path) == {"players": 3, "rules": {"score_limit": 10}}


def test_read_yaml_names_the_file_it_cannot_read(tmp_path):
    from dixit_ai.files import read_yaml

    with pytest.raises(FileNotFoundError, match=rf"^{tmp_path / 'none.yaml'}: no such file$"):
        read_yaml(tmp_path / "none.yaml")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"name: caf\xe9\n")
    with pytest.raises(ValueError, match=rf"^{latin}: not UTF-8 text"):
        read_yaml(latin)
    broken = tmp_path / "broken.yaml"
    broken.write_text("agents: [random\n")
    with pytest.raises(ValueError, match=rf"^{broken}: not valid YAML"):
        read_yaml(broken)


def test_a_tournament_file_with_a_key_given_twice_is_bad_input(tmp_path, capsys):
    from dixit_ai.cli import main

    path = tmp_path / "t.yaml"
    path.write_text("agents: [random, b=random]\nplayers: 3\ngames: 2\nplayers: 4\n")
    out = tmp_path / "runs"
    assert main(["tournament", "--config", str(path), "--out", str(out), "--no-progress"]) == 2
    assert "line 4: the key 'players' is given twice" in capsys.readouterr().err
    assert not out.exists()
    path.write_bytes(b"agents: [random, b=random]\nname: caf\xe9\n")
    assert main(["tournament", "--config", str(path), "--out", str(out), "--no-progress"]) == 2
    assert f"{path}: not UTF-8 text" in capsys.readouterr().err
