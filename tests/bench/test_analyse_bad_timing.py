"""``dixit-ai bench --analyse RUN`` on a run folder whose ``timing.json`` is not JSON (or not the
timing object the bench writes) is refused before any report is written: exit 2, the file and
what is wrong named. It once wrote results.json, the CSV and the plots, then ended in a
JSONDecodeError (exit 1, the report folder left partial)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.cli import main
from tests.bench.conftest import bench_config

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from models.bench import run_bench

    out = tmp_path_factory.mktemp("runs")
    run = run_bench(bench_config(out, ["random"], tasks=["guess"], items=2, bootstrap=20),
                    progress=False, show=False, log=None)
    return Path(run.folder)


@pytest.mark.parametrize(("timing", "message"), [
    ("{not json", "not JSON"),
    ("[1, 2]", "not the bench's timing (a JSON array, where an object"),
    (json.dumps({"inference_s": "fast"}), "not the bench's timing ('inference_s' is 'fast'"),
    (json.dumps({"inference_s": 1.0}), "not the bench's timing (no 'items_encoded')"),
])
def test_a_bad_timing_json_is_refused_before_the_report(
        run_folder: Path, tmp_path: Path, timing: str, message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    (folder / "timing.json").write_text(timing)
    out = tmp_path / "report"
    capsys.readouterr()
    assert main(["bench", "--analyse", str(folder), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 'timing.json'}: {message}" in err, err
    assert "Traceback" not in err and not out.exists()


def test_a_run_without_timing_is_still_analysed(run_folder: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "run"
    shutil.copytree(run_folder, folder)
    (folder / "timing.json").unlink()
    assert main(["bench", "--analyse", str(folder), "--out", str(tmp_path / "report")]) == 0
    assert (tmp_path / "report" / "report.md").is_file()


def test_the_run_s_own_timing_is_reported(run_folder: Path, tmp_path: Path) -> None:
    timing: dict[str, Any] = json.loads((run_folder / "timing.json").read_text())
    assert main(["bench", "--analyse", str(run_folder), "--out", str(tmp_path / "r")]) == 0
    assert f"whole run {timing['total_s']:.2f} s" in (tmp_path / "r" / "report.md").read_text()
