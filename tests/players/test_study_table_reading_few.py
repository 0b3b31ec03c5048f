"""``scripts/study_table_reading.py`` says when its intervals rest on too few games (before:
"95% CI over 1 games" with zero-width intervals and nothing said, where the tournament's report
says its intervals are not reliable)."""

from __future__ import annotations

import runpy

import pytest

from tests.run_folders import REPO

pytest.importorskip("torch")


def test_one_game_is_said_to_give_no_reliable_interval(tmp_path, capsys):
    main = runpy.run_path(str(REPO / "scripts" / "study_table_reading.py"),
                          run_name="dixit_ai_script")["main"]
    assert main(["--out", str(tmp_path), "--tables", "mirror", "--storytellers", "random",
                 "--games", "1", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    out = " ".join(captured.out.split())  # the table's title may wrap
    assert "95% CI over 1 game (only 1 game: the intervals are not reliable)" in out
    assert "fewer than 10, the intervals are not reliable" in captured.err
    assert "1 game in" in out
