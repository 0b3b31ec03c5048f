"""``bench_storyteller_panel.py --analyse FOLDER`` on a folder whose ``bench.json`` is not JSON,
or JSON of another shape, is bad input: exit 2 and ``error: ...`` naming the file and what is
wrong, nothing written. It once ended in a JSONDecodeError, KeyError or TypeError traceback."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import refused

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"

CROWD = {"population": "p", "robustness": 0.0, "aim": "target",
         "population_temperature_scale": 1.0, "table_mix": 0.5, "tolerance": 0.05,
         "population_calibration": ""}


def header(**config: Any) -> dict[str, Any]:
    return {"config": {"models": [], **config}}


@pytest.mark.parametrize(("content", "message"), [
    (b"{not json", r"bench\.json: not JSON \(.*line 1"),
    (b"\xff\xfe\x00", r"bench\.json: not UTF-8 text"),
    (b"[1, 2]", r"bench\.json: not a benchmark header \(a JSON array, where an object"),
    (json.dumps({}).encode(), r"bench\.json: not a benchmark header \(no 'config'\)"),
    (json.dumps({"config": 3}).encode(), r"bench\.json: not a benchmark header \('config' is"),
    (json.dumps({"config": {"models": 3}}).encode(),
     r"bench\.json: not a benchmark header \('config'\['models'\] is not a list of models"),
    (json.dumps({"config": {"models": [{"name": "x"}]}}).encode(),
     r"bench\.json: not a benchmark header \('config'\['models'\] is not a list of models"),
    (json.dumps({"config": {"models": [{"label": "x"}]}}).encode(),
     r"bench\.json: not a benchmark header \('config'\['models'\] is not a list of models"),
    (json.dumps(header(models=[{"name": "n", "label": "population@0.5", "kwargs": 3}])).encode(),
     r"bench\.json: not a benchmark header \(the kwargs of population@0\.5 are not an object"),
    (json.dumps(header(models=[{"name": "n", "label": "population@0.5",
                                "kwargs": CROWD}])).encode(),
     r"bench\.json: not a run of this bench \(no clip-expected storyteller\)"),
])
def test_a_bad_bench_json_is_refused_naming_the_file(
        content: bytes, message: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bench.json").write_bytes(content)
    main = runpy.run_path(str(SCRIPTS / "bench_storyteller_panel.py"), run_name="t")["main"]
    refused(lambda: main(["--analyse", str(tmp_path)]), message, capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.json"]


def test_the_message_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bench.json").write_text("{not json")
    main = runpy.run_path(str(SCRIPTS / "bench_storyteller_panel.py"), run_name="t")["main"]
    refused(lambda: main(["--analyse", str(tmp_path)]),
            f"--analyse {tmp_path}: {tmp_path / 'bench.json'}: not JSON", capsys)
