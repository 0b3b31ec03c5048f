"""The records file of an analysis is read line by line: reading it held the whole file twice
over (its bytes, then its lines) beside what the analysis keeps of each record."""

from __future__ import annotations

import tracemalloc

from dixit_ai.jsonl import read_jsonl


def test_a_records_file_is_not_held_whole_while_read(tmp_path):
    path = tmp_path / "big.jsonl"
    line = '{"x": "' + "y" * 2000 + '"}\n'
    path.write_text(line * 1000)  # 2 MB
    tracemalloc.start()
    try:
        read = read_jsonl(path, lambda text: len(text))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(read.items) == 1000 and read.items[0] == (1, len(line) - 1)
    assert peak < path.stat().st_size / 4, peak


def test_lines_and_a_torn_last_line_are_numbered_as_before(tmp_path):
    path = tmp_path / "torn.jsonl"
    path.write_bytes(b'{"a": 1}\n\n  \n{"a": 2}\r\n{"a": 3')
    read = read_jsonl(path, allow_partial=True)
    assert read.records == [{"a": 1}, {"a": 2}]
    assert [number for number, _ in read.items] == [1, 4]
    assert read.dropped[0][0] == 5 and "incomplete last line" in read.dropped[0][1]
    assert read_jsonl(path, being_written=True).records == [{"a": 1}, {"a": 2}]
    blank_end = tmp_path / "blank.jsonl"
    blank_end.write_bytes(b'{"a": 1}\n   ')
    assert read_jsonl(blank_end).records == [{"a": 1}]
