"""``bench --analyse`` reads records.jsonl as strictly as the tournament reads games.jsonl: a
duplicated record, a missing one and a value outside its range are refused (file and line or
item named, exit 2), unless ``--allow-partial`` (then dropped or counted, and the report says
so)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dixit_ai.cli import main
from models.bench.analysis import read_run
from tests.bench.helpers import BENCH_DECK


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench-records")
    assert main(["bench", "--models", "random", "--tasks", "guess", "--items", "3", "--deck",
                 BENCH_DECK, "--bootstrap", "20", "--out", str(root), "--name", "checks",
                 "--no-progress"]) == 0
    (folder,) = root.iterdir()
    return folder


def edited(run: Path, target: Path, edit) -> Path:  # type: ignore[no-untyped-def]
    shutil.copytree(run, target)
    path = target / "records.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(edit(lines)) + "\n")
    return target


def test_a_duplicated_record_is_refused(run, tmp_path, capsys):
    folder = edited(run, tmp_path / "dup", lambda lines: [*lines, lines[-1]])
    n = len((run / "records.jsonl").read_text().splitlines()) + 1
    pattern = (rf"records.jsonl, line {n}: the guess record of model 'random', clue kind "
               r"'[\w:]+', item \d is recorded twice")
    with pytest.raises(ValueError, match=pattern):
        read_run(folder)
    assert main(["bench", "--analyse", str(folder), "--out", str(tmp_path / "r")]) == 2
    assert "recorded twice" in capsys.readouterr().err
    header, records = read_run(folder, allow_partial=True)
    assert header["dropped_records"] == 1 and len(records) == n - 1


def test_a_missing_record_is_refused(run, tmp_path, capsys):
    first = json.loads((run / "records.jsonl").read_text().splitlines()[0])
    folder = edited(run, tmp_path / "del", lambda lines: lines[1:])
    with pytest.raises(ValueError, match=rf"records.jsonl: records are missing: guess "
                                         rf"\({first['kind']}\) of random: item {first['item']}"):
        read_run(folder)
    assert main(["bench", "--analyse", str(folder), "--out", str(tmp_path / "r")]) == 2
    assert main(["bench", "--analyse", str(folder), "--out", str(tmp_path / "p"),
                 "--allow-partial"]) == 0
    assert "1 record(s) missing" in capsys.readouterr().err
    assert "1 record(s) are missing from `records.jsonl`" in (tmp_path / "p" / "report.md"
                                                              ).read_text()
    results = json.loads((tmp_path / "p" / "results.json").read_text())
    assert results["run"]["missing_records"] == 1


def test_fewer_items_than_the_header_says_are_refused(run, tmp_path):
    def drop_last_item(lines: list[str]) -> list[str]:
        return [line for line in lines
                if not (json.loads(line)["kind"] == "caption" and json.loads(line)["item"] == 2)]

    folder = edited(run, tmp_path / "short", drop_last_item)
    with pytest.raises(ValueError, match=r"guess \(caption\) of random: item 2"):
        read_run(folder)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("correct", 5.0, "correct 5.0 is not a number in"),
    ("rank", 99, "rank 99 is not a position on the board"),
    ("reciprocal_rank", 1.5, r"reciprocal_rank 1.5 is not a number in \[0, 1\]"),
    ("reciprocal_rank", 0, "reciprocal_rank 0 is not the reciprocal of a rank"),
    ("item", -1, "item -1 is not a non-negative integer"),
])
def test_a_value_outside_its_range_is_refused(run, tmp_path, field, value, message):
    def forge(lines: list[str]) -> list[str]:
        record = json.loads(lines[1])
        record[field] = value
        return [lines[0], json.dumps(record), *lines[2:]]

    folder = edited(run, tmp_path / "forged", forge)
    with pytest.raises(ValueError, match=f"records.jsonl, line 2: {message}"):
        read_run(folder)
    header, _ = read_run(folder, allow_partial=True)
    assert header["dropped_records"] == 1


def test_a_genuine_run_reads_clean(run):
    header, records = read_run(run)
    assert header["dropped_records"] == 0 and header["missing_records"] == 0 and records
