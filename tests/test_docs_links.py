"""Every relative link in the repository's Markdown files leads somewhere: the file exists and,
for a link into a Markdown file, the heading it names is there (GitHub's anchor rules)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#+) (.*)")


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but hyphens dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.replace("`", "").strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a repeated one gets ``-1``, ``-2``...), outside
    code fences."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            name = anchor(match.group(2))
            count = seen.get(name, 0)
            found.add(name if count == 0 else f"{name}-{count}")
            seen[name] = count + 1
    return found


def markdown_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    if listed.returncode != 0:  # not a checkout (an unpacked sdist): every file below the root
        return sorted(p for p in ROOT.rglob("*.md") if ".git" not in p.parts)
    return [ROOT / name for name in listed.stdout.split()]


def broken_links(path: Path) -> list[str]:
    broken = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for target in LINK.findall(line):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            file_part, _, fragment = target.partition("#")
            linked = (path.parent / file_part) if file_part else path
            if not linked.exists():
                broken.append(f"line {number}: {target} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                broken.append(f"line {number}: {target} (no such heading)")
    return broken


def test_anchor_follows_githubs_rules() -> None:
    assert anchor("Clip bots: start-up, shipped embeddings, workers") == (
        "clip-bots-start-up-shipped-embeddings-workers")
    assert anchor("Calibrated to each mind: `clip-calibrated`") == (
        "calibrated-to-each-mind-clip-calibrated")
    assert anchor("Who reads whom: the guessers on each other's clues") == (
        "who-reads-whom-the-guessers-on-each-others-clues")


def test_a_missing_heading_is_found(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## Part one\n\nSee [one](#part-one), [two](#part-two), "
                    "[file](other.md).\n", encoding="utf-8")
    assert broken_links(page) == ["line 5: #part-two (no such heading)",
                                  "line 5: other.md (no such file)"]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(path: Path) -> None:
    assert broken_links(path) == []
