"""An agent label (or run name) holding Markdown is shown as text in report.md: its emphasis,
links, code, HTML and '|' do not become markup, and the leaderboard table keeps its columns."""

from __future__ import annotations

import re

from dixit_ai.cli import main

RUN = ["--players", "6", "--games", "2", "--workers", "1", "--no-progress", "--resamples",
       "10", "--rating-resamples", "0"]

LABELS = ["*x*", "a|b", "[a](http://b)", "`code`", "<script>alert(1)</script>", "_u_ & &amp;"]


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells, split on the '|' that are not escaped."""
    inner = line.strip()[1:-1]
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", inner)]


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def test_labels_with_markdown_are_text_in_the_report(tmp_path):
    out = tmp_path / "runs"
    agents = ",".join(f"{label}=random" for label in LABELS)
    assert main(["tournament", "--agents", agents, "--name", "**bold**", *RUN,
                 "--out", str(out)]) == 0
    (folder,) = out.iterdir()
    report = (folder / "report.md").read_text(encoding="utf-8")
    lines = report.splitlines()
    assert lines[0] == r"# Tournament \*\*bold\*\*"
    start = lines.index("## Leaderboard") + 2
    header = _cells(lines[start])
    rows = [_cells(line) for line in lines[start + 2:start + 2 + len(LABELS)]]
    assert all(len(row) == len(header) for row in rows), rows
    shown = [_unescape(row[header.index("agent")]) for row in rows]
    assert sorted(shown) == sorted(LABELS)
    # no character that makes markup is left bare where a label is written
    for row in rows:
        cell = row[header.index("agent")]
        assert not re.search(r"(?<!\\)[*_`<>\[\]&]", cell), cell
    agents_line = next(line for line in lines if line.startswith("- agents: "))
    assert "<script>" not in agents_line and "*x*" not in agents_line
    assert r"\<script\>" in agents_line
    details = lines.index("## Details") + 2
    detail_rows = [_cells(line) for line in lines[details + 2:details + 2 + len(LABELS)]]
    assert sorted(_unescape(row[0]) for row in detail_rows) == sorted(LABELS)
