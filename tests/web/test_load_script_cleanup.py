"""scripts/load_test_web.py keeps its server's database in a temporary folder of its own; the
folder goes when the run ends (every run left a dixit-load-* folder, database and lock file, in
the system's temporary folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.web.servers import ROOT


def test_the_load_test_leaves_no_temporary_folder(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "load_test_web.py"), "--tables", "1",
         "--score-limit", "3", "--deck", "dream:size=40", "--timeout", "60"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "TMPDIR": str(temporary), "HF_HUB_OFFLINE": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "database " + str(temporary) in result.stdout  # the run did use that folder
    assert list(temporary.iterdir()) == []
