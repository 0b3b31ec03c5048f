"""``study_decks.py --analyse FILE`` on JSON of another shape (``arguments`` or ``runs`` not an
object) is refused with exit 2 naming the file, where ``.items()`` on a list or a number ended
in an AttributeError traceback (exit 1)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from tests.cli.helpers import refused

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"


@pytest.mark.parametrize("figures", [
    {"arguments": {}, "runs": 3},
    {"arguments": [], "runs": {}},
    {"arguments": "x", "runs": []},
])
def test_figures_of_another_shape_are_refused(figures: dict[str, object], tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "decks.json"
    path.write_text(json.dumps(figures))
    main = runpy.run_path(str(SCRIPTS / "study_decks.py"), run_name="t")["main"]
    refused(lambda: main(["--analyse", str(path)]),
            f"--analyse {path}: not the figures of a study_decks run", capsys)
    assert [p.name for p in tmp_path.iterdir()] == ["decks.json"]
