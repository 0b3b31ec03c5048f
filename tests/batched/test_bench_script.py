"""Smoke run of the batched rows of scripts/bench_rules.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_batched_rows_print_and_write(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_rules.py"), "--batched-only",
         "--seconds", "0.2", "--batched-games", "40", "--json", str(out)],
        capture_output=True, text=True, check=False, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "rounds/s" in result.stdout and "learner steps/s" in result.stdout
    rows = json.loads(out.read_text())
    engine = [r for r in rows if r.get("engine") == "batched"]
    assert len(engine) == 2 and all(r["rounds_per_s"] > 0 for r in engine)
    assert engine[0]["records_per_s"] > 0
    assert next(r for r in rows if r.get("engine") == "vector-env")["steps_per_s"] > 0
