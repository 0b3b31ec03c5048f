"""A benchmark stopped midway counts every record it lacks, its storytellers' story items
included, and its records reach the file as they are answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.cli import main
from models.bench import run as bench_run
from models.bench.analysis import read_run
from tests.bench.helpers import BENCH_DECK

ARGS = ["bench", "--models", "default,random", "--items", "3", "--deck", BENCH_DECK,
        "--bootstrap", "20", "--no-progress"]


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench-full")
    assert main([*ARGS, "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def stopped_after(records: int, out: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run stopped (as by Ctrl-C) while writing its record number ``records + 1``; the
    records before it are on disk, read back as the run goes (the file is not closed yet)."""
    write = bench_run._Recorder.write
    seen: list[int] = []

    def stop(self: Any, record: dict[str, Any]) -> None:
        if self.count == records:
            # what a kill -9 would leave: the lines written so far are in the file
            seen.append(len(self.path.read_text(encoding="utf-8").splitlines()))
            raise KeyboardInterrupt
        write(self, record)

    monkeypatch.setattr(bench_run._Recorder, "write", stop)
    assert main([*ARGS, "--out", str(out)]) == 130
    assert seen == [records]
    (folder,) = out.iterdir()
    return folder


@pytest.mark.parametrize("written", [2, 12])  # in the tell task; in the guess task
def test_a_stopped_run_counts_every_missing_record(full, tmp_path, monkeypatch, capsys,
                                                   written):
    total = len((full / "records.jsonl").read_text().splitlines())
    kinds = json.loads((full / "bench.json").read_text())["items"]["guess"]
    assert "story:random" in kinds  # the agent's stories are guessed too
    folder = stopped_after(written, tmp_path / "runs", monkeypatch)
    header, records = read_run(folder, allow_partial=True)
    assert len(records) == written
    assert header["missing_records"] == total - written
    stories = json.loads((folder / "bench.json").read_text())["items"]["stories"]
    assert stories == ("at most" if written == 2 else "counted")
    capsys.readouterr()
    assert main(["bench", "--analyse", str(folder), "--allow-partial", "--out",
                 str(tmp_path / "report")]) == 0
    err = capsys.readouterr().err
    bound = "at most " if written == 2 else ""
    assert f"warning: {bound}{total - written} record(s) missing" in err
