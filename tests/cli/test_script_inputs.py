"""Scripts refuse an output path they cannot write before they write anything: exit 2 naming
it, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.cli.helpers import ROOT


def test_regen_golden_refuses_an_out_that_is_a_file(tmp_path: Path) -> None:
    out = tmp_path / "golden"
    out.write_text("not a folder")
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "regen_golden.py"),
                             "--out", str(out)], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert f"{out} is a file" in result.stderr, result.stderr
    assert out.read_text() == "not a folder"
