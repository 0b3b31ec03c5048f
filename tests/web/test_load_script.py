"""Smoke run of scripts/load_test_web.py: two tables, short games, a real server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.web.servers import ROOT


def test_load_test_script_runs_tiny(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "load_test_web.py"), "--tables", "2",
         "--score-limit", "6", "--deck", "dream:size=40", "--timeout", "60", "--runs", "2",
         "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    summary = json.loads(out.read_text())
    assert summary["games_completed"] == 4 and summary["errors"] == 0
    assert summary["first_bot_move_ms"] > 0 and len(summary["server_rss_mb"]) == 2
    assert summary["lost_events"] == 0 and summary["moves_measured"] > 0
    assert summary["p95_ms"] is not None
    assert "p50" in result.stdout and "lost events: 0" in result.stdout
