"""A tournament whose games are cut short at ``max_rounds`` says so in its summary and report:
their winners are the seats with the top score, which the report did not say."""

from __future__ import annotations

import json
from pathlib import Path

from dixit_ai.cli import main


def test_games_cut_short_are_counted_and_the_limit_is_in_the_report(tmp_path: Path) -> None:
    assert main(["tournament", "--agents", "a=random,b=random,c=random", "--players", "3",
                 "--games", "3", "--max-rounds", "2", "--seed", "0", "--workers", "1",
                 "--no-progress", "--resamples", "20", "--rating-resamples", "0", "--out",
                 str(tmp_path)]) == 0
    (run,) = tmp_path.iterdir()
    results = json.loads((run / "results.json").read_text())
    assert results["truncated"] == results["games"] == 3
    report = (run / "report.md").read_text()
    assert "every one cut short at max_rounds (won by the top scores)" in report
    assert "at most 2 rounds a game" in report
    assert main(["tournament", "--agents", "a=random,b=random,c=random", "--players", "3",
                 "--games", "3", "--seed", "0", "--workers", "1", "--no-progress",
                 "--resamples", "20", "--rating-resamples", "0", "--out",
                 str(tmp_path / "full")]) == 0
    (full,) = (tmp_path / "full").iterdir()
    assert json.loads((full / "results.json").read_text())["truncated"] == 0
    assert "max_rounds" not in (full / "report.md").read_text()
