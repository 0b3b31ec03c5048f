"""Exit statuses of failures part-way through a command's work: an error once the input is
checked and the work has begun (a full disk, a folder that turned unwritable) is a failure of
the run (exit 1, a message naming what failed), never bad input (exit 2, which says that
nothing was done); bad input found before the work still exits 2."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.cli.common import EXIT_FAILED, EXIT_USAGE

TOURNAMENT = ["tournament", "--agents", "random,b=random", "--players", "3", "--games", "3",
              "--workers", "1", "--no-progress", "--resamples", "20", "--rating-resamples", "0"]


def no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def files_in(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_simulate_out_of_disk_space_while_writing_records_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("old\n")
    monkeypatch.setattr(os, "fsync", no_space)  # the records' file is synced before it replaces
    status = main(["simulate", "--games", "2", "--max-rounds", "2", "--no-progress",
                   "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(out) in err
    assert "bad input" not in err and "Traceback" not in err
    assert out.read_text() == "old\n"  # left as it was
    assert files_in(tmp_path) == ["games.jsonl"]


def test_simulate_out_that_is_a_folder_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["simulate", "--games", "1", "--no-progress", "--out", str(tmp_path)])
    assert status == EXIT_USAGE
    assert "is a folder" in capsys.readouterr().err


def test_tournament_out_of_disk_space_while_recording_games_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from dixit_ai.tournament import store

    monkeypatch.setattr(store.GamesWriter, "append", no_space)
    status = main([*TOURNAMENT, "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and str(folder) in err
    assert f"--resume {folder}" in err  # what to do next
    assert "Traceback" not in err


def test_tournament_bad_paths_are_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--config", str(tmp_path / "missing.yaml")]) == EXIT_USAGE
    assert "missing.yaml" in capsys.readouterr().err
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main([*TOURNAMENT, "--out", str(a_file)]) == EXIT_USAGE
    assert "not a folder" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tournament")
    assert main([*TOURNAMENT, "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def test_analyse_out_of_disk_space_while_writing_the_report_is_a_failed_run(
        run_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(os, "fsync", no_space)  # every report file is synced as it is written
    status = main(["tournament", "--analyse", str(run_folder), "--out", str(tmp_path / "report"),
                   "--resamples", "20", "--rating-resamples", "0"])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(tmp_path / "report") in err
    assert "Traceback" not in err


def test_analyse_out_that_is_a_file_is_bad_input(
        run_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    status = main(["tournament", "--analyse", str(run_folder), "--out", str(a_file),
                   "--resamples", "20", "--rating-resamples", "0"])
    assert status == EXIT_USAGE
    assert "not a folder" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


def test_deck_sheet_out_of_disk_space_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    monkeypatch.setattr(Image.Image, "save", no_space)
    status = main(["deck", "sheet", "dream:size=12,seed=0", "--out", str(tmp_path / "s.png")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(tmp_path / "s.png") in err


def test_deck_sheet_out_that_is_a_folder_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.png").mkdir()
    status = main(["deck", "sheet", "dream:size=12,seed=0", "--out", str(tmp_path / "s.png")])
    assert status == EXIT_USAGE
    assert "is a folder" in capsys.readouterr().err


def test_deck_export_out_of_disk_space_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    monkeypatch.setattr(Image.Image, "save", no_space)
    status = main(["deck", "export", "dream:size=12,seed=0", str(tmp_path / "cards")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(tmp_path / "cards") in err


def test_deck_export_to_a_file_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cards").write_text("")
    status = main(["deck", "export", "dream:size=12,seed=0", str(tmp_path / "cards")])
    assert status == EXIT_USAGE
    assert "is a file" in capsys.readouterr().err
