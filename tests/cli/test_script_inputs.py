"""Scripts refuse an output path they cannot write before they write anything: exit 2 naming
it, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def run_script(name: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"})


@pytest.mark.parametrize(("name", "args", "named"), [
    ("study_table_reading.py", ("--bootstrap", "0", "--out", "out"),
     "--bootstrap must be at least 1, not 0"),
    ("study_table_reading.py", ("--games", "0", "--out", "out"),
     "--games must be at least 1, not 0"),
    ("study_who_reads_whom.py", ("--items", "0", "--out", "out"),
     "--items must be at least 1, not 0"),
    ("study_guesser_reading.py", ("--games", "0", "--out", "out"),
     "--games must be at least 1, not 0"),
    ("eval_embedder.py", ("--boards", "0", "--runs-dir", "out"),
     "--boards must be at least 1, not 0"),
    ("eval_embedder.py", ("--cards", "5", "--runs-dir", "out"),
     "--cards must be at least 6, not 5"),
    ("load_test_web.py", ("--tables", "0"), "--tables must be at least 1, not 0"),
    ("load_test_web.py", ("--runs", "0"), "--runs must be at least 1, not 0"),
    ("bench_bench.py", ("--items", "0", "--out", "out"), "--items must be at least 1, not 0"),
])
def test_scripts_refuse_bad_counts_before_any_work(tmp_path: Path, name: str,
                                                   args: tuple[str, ...], named: str) -> None:
    result = run_script(name, *args, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []
