"""Issue 16, item 10: a test session leaves no cache folder behind."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.cli.helpers import ROOT


def test_a_test_session_removes_its_cache_folder(tmp_path):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("DIXIT_AI_CACHE_DIR", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/cli/test_rules.py::test_teams_no_means_no_team_variant"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    left = [p.name for p in tmp_path.iterdir() if p.name.startswith("dixit-ai-tests-")]
    assert left == []
