"""scripts/eval_embedder.py refuses an embedder it cannot load before it writes anything.

``--model bogus`` made the run folder, then died with an EmbedderError traceback (exit 1).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("model, message", [
    ("bogus", "unknown embedder 'bogus'"),
    ("default:{tmp}/missing.npz", "no head file at"),
])
def test_an_embedder_that_cannot_load_exits_2_with_no_run_folder(model, message, tmp_path,
                                                                 capsys):
    main = runpy.run_path(str(ROOT / "scripts" / "eval_embedder.py"), run_name="x")["main"]
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as done:
        main(["--model", model.format(tmp=tmp_path), "--runs-dir", str(runs), "--smoke"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"--model {model.format(tmp=tmp_path)}: " in err and message in err, err
    assert "Traceback" not in err
    assert not runs.exists()
