"""The README's Python examples run as written (python-chess style)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


SKIP = re.compile(r"<!-- readme-test: skip \((?P<reason>[^)]+)\) -->\n```python\n")


def test_readme_python_blocks_run() -> None:
    """Every Python block runs, except those marked ``readme-test: skip (reason)``."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", SKIP.sub("```skipped\n", text), re.S)
    assert len(blocks) >= 4
    assert len(SKIP.findall(text)) <= 1, "skip only what another test covers, and say why"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})


def test_readme_score_example_is_right() -> None:
    from dixit_ai.rules import RuleSet, score_round

    text = README.read_text(encoding="utf-8")
    assert "# -> [3, 4, 0, 3]" in text
    assert score_round(RuleSet.edition("refresh-2021"), n_players=4, storyteller=0,
                       board_owner=[1, 0, 3, 2], votes={1: [1], 2: [0], 3: [1]}) == [3, 4, 0, 3]
