"""``--resume`` and ``--analyse`` on odd paths: each refused with a message that says what the
path is and what to give, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.cli import main

RUN = ["tournament", "--agents", "a=random,b=random,c=random", "--players", "3", "--games",
       "3", "--seed", "2", "--workers", "1", "--no-progress", "--resamples", "20",
       "--rating-resamples", "0"]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd")
    assert main([*RUN, "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_resuming_a_runs_records_file_names_its_folder(run, capsys):
    before = snapshot(run)
    capsys.readouterr()
    assert main(["tournament", "--resume", str(run / "games.jsonl"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'games.jsonl'} is a file, not a run folder; give its folder: {run}" in err
    assert snapshot(run) == before


def test_resuming_another_file_says_it_is_not_a_folder(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("x")
    assert main(["tournament", "--resume", str(path), "--no-progress"]) == 2
    assert f"{path} is a file, not a run folder" in capsys.readouterr().err
    assert main(["tournament", "--resume", str(tmp_path / "nope"), "--no-progress"]) == 2
    assert f"{tmp_path / 'nope'}: no such run folder" in capsys.readouterr().err


def test_analysing_a_run_with_no_records_yet_says_so(run, tmp_path, capsys):
    folder = tmp_path / "started"
    folder.mkdir()
    (folder / "config.json").write_bytes((run / "config.json").read_bytes())
    assert main(["tournament", "--analyse", str(folder), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert (f"{folder}: no game recorded yet (no games.jsonl); play its games with: "
            f"dixit-ai tournament --resume {folder}") in err
    assert "Errno" not in err
    assert sorted(p.name for p in folder.iterdir()) == ["config.json"]
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("locked", ["folder", "games.jsonl"])
def test_resuming_a_run_that_cannot_be_written_is_refused_before_anything(
        locked, run, tmp_path, monkeypatch, capsys):
    import os
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    target = copy if locked == "folder" else copy / "games.jsonl"
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: (
        False if Path(path) == target and mode & os.W_OK else real(path, mode, **kw)))
    before = snapshot(copy)
    capsys.readouterr()
    assert main(["tournament", "--resume", str(copy), "--games", "6", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"{target}: cannot write there (permission denied)" in err
    assert "run folder:" not in err
    assert snapshot(copy) == before


def test_a_refused_resume_prints_its_error_alone(run, tmp_path, capsys):
    # 3 agents at 3 seats: a rotation is 3 games; 4 games would draw a note on a run that starts
    import shutil

    run = Path(shutil.copytree(run, tmp_path / "run"))
    capsys.readouterr()
    assert main(["tournament", "--resume", str(run), "--agents", "a=random,b=random,d=random",
                 "--games", "4", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "holds another tournament" in err
    assert "note:" not in err
    # ... and a run that starts says it, above its folder
    assert main(["tournament", "--resume", str(run), "--games", "4", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert ("note: the number of games, 4, is not a multiple of 3: the seats are balanced up to "
            f"the last, incomplete rotation\nrun folder: {run} (3 of 4 games already "
            "played)") in err


def test_a_run_being_played_by_another_process_is_not_resumed(run, tmp_path, capsys):
    import fcntl
    import os
    import shutil

    copy = Path(shutil.copytree(run, tmp_path / "run"))
    before = snapshot(copy)
    held = os.open(copy, os.O_RDONLY)  # as the process playing it holds it
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        capsys.readouterr()
        assert main(["tournament", "--resume", str(copy), "--games", "6",
                     "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"{copy}: another process is playing this run" in err
        assert snapshot(copy) == before
    finally:
        os.close(held)
    # once it is done, the run goes on; and a finished run holds no lock
    assert main(["tournament", "--resume", str(copy), "--games", "6", "--no-progress"]) == 0
    held = os.open(copy, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(held)


def test_analysing_an_unfinished_run_says_it_is_unfinished(run, tmp_path, capsys):
    import shutil

    copy = Path(shutil.copytree(run, tmp_path / "run"))
    lines = (copy / "games.jsonl").read_text().splitlines(keepends=True)
    (copy / "games.jsonl").write_text("".join(lines[:2]))
    capsys.readouterr()
    assert main(["tournament", "--analyse", str(copy), "--out", str(tmp_path / "r")]) == 0
    err = capsys.readouterr().err
    note = (f"the run is unfinished: 2 of its {len(lines)} scheduled games are recorded (the "
            "seats are not balanced: a rotation is 3 games); continue it with: dixit-ai "
            f"tournament --resume {copy}")
    assert f"warning: {note}; the report says so" in err
    assert note in (tmp_path / "r" / "report.md").read_text()
    # a finished run says nothing of the kind
    assert main(["tournament", "--analyse", str(run), "--out", str(tmp_path / "r2")]) == 0
    assert "unfinished" not in capsys.readouterr().err


def test_analysing_a_run_being_played_leaves_out_the_game_being_written(run, tmp_path, capsys):
    import fcntl
    import os
    import shutil

    copy = Path(shutil.copytree(run, tmp_path / "run"))
    lines = (copy / "games.jsonl").read_text().splitlines(keepends=True)
    # two games written, the third half-way: as a process playing the run leaves it
    (copy / "games.jsonl").write_text("".join(lines[:2]) + lines[2][:200])
    capsys.readouterr()
    # not in play: the torn line is refused, as ever (a run cut off while writing it)
    assert main(["tournament", "--analyse", str(copy), "--out", str(tmp_path / "r0")]) == 2
    assert "incomplete last line" in capsys.readouterr().err
    held = os.open(copy, os.O_RDONLY)  # as the process playing it holds it
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main(["tournament", "--analyse", str(copy), "--out", str(tmp_path / "r")]) == 0
        err = capsys.readouterr().err
    finally:
        os.close(held)
    note = (f"the run is being played: 2 of its {len(lines)} scheduled games are recorded so "
            "far (the seats are not balanced: a rotation is 3 games); another process is "
            "playing it (analyse it again once it ends)")
    assert f"warning: {note}; the report says so" in err
    assert "incomplete" not in err and "--resume" not in err
    report = (tmp_path / "r" / "report.md").read_text()
    assert note in report and "2 games" in report
    # a corrupt line before the last is refused even while the run is played
    (copy / "games.jsonl").write_text(lines[0] + "{not json}\n" + lines[2][:200])
    held = os.open(copy, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main(["tournament", "--analyse", str(copy), "--out", str(tmp_path / "r2")]) == 2
    finally:
        os.close(held)
    assert "line 2" in capsys.readouterr().err
