"""Every run of a model script writes into a folder of its own.

``eval_embedder.py`` and ``bench_embed.py`` named their run folder
``{runs_dir}/{name}__{seed}__{int(time.time())}`` and made it with ``exist_ok=True``: two runs
started in the same second wrote into one folder. They now make it with
:func:`dixit_ai.reporting.new_run_dir` (``-2``, ``-3``, ... on a collision), the name's format
unchanged. The clock stands still; the models' work is stubbed (the scripts' smoke tests run it).
"""

from __future__ import annotations

import json
import runpy
from typing import Any

import pytest

pytest.importorskip("torch")

from tests import run_folders
from tests.run_folders import REPO, SECOND, Stop, folders, stop

same_second = run_folders.same_second


def script_main(name: str) -> Any:
    return runpy.run_path(str(REPO / "scripts" / name), run_name="dixit_ai_script")["main"]


def test_eval_embedder(tmp_path, same_second, monkeypatch):
    import dixit_ai.decks
    import models

    # The embedder loads before the folder is made (one that cannot load is refused with
    # none); the deck is the first work in the run folder.
    monkeypatch.setattr(models, "load_embedder", lambda *a, **k: object())
    monkeypatch.setattr(dixit_ai.decks, "load_deck", stop)
    for _ in range(2):
        with pytest.raises(Stop):
            script_main("eval_embedder.py")(["--runs-dir", str(tmp_path), "--seed", "7"])
    assert folders(tmp_path) == [f"eval_embedder__7__{SECOND}", f"eval_embedder__7__{SECOND}-2"]


def test_bench_embed(tmp_path, same_second, monkeypatch):
    """The timings are stubbed, each run times differently, and each keeps its own
    ``bench.json`` in a folder of its own."""
    import models

    monkeypatch.setattr(models, "load_embedder", lambda *a, **k: object())
    monkeypatch.setattr(models, "embed_deck", lambda *a, **k: None)
    for run in (1, 2):
        main = script_main("bench_embed.py")
        row = {"harness_per_s": float(run), "raw_per_s": 1.0, "harness_over_raw": 1.0,
               "unlimited_over_raw": 1.0, "tower_per_s": 1.0}
        main.__globals__["bench_images"] = lambda _e, _i, batch, _r, row=row: {"batch": batch,
                                                                                **row}
        main.__globals__["bench_texts"] = lambda _e, _t, batch, _r, row=row: {"batch": batch,
                                                                               **row}
        main.__globals__["timed"] = lambda *a, **k: 1.0
        assert main(["--runs-dir", str(tmp_path), "--smoke"]) == 0
    first, second = f"bench_embed__0__{SECOND}", f"bench_embed__0__{SECOND}-2"
    assert folders(tmp_path) == [first, second]
    for run, name in enumerate((first, second), start=1):
        record = json.loads((tmp_path / name / "bench.json").read_text())
        assert record["images"][0]["harness_per_s"] == run


@pytest.mark.parametrize("script", ["eval_embedder.py", "bench_embed.py"])
def test_a_runs_dir_that_is_a_file_is_refused(script, tmp_path, monkeypatch, capsys):
    """A file as ``--runs-dir``: a usage error (exit 2) naming it, the file left alone."""
    import models

    monkeypatch.setattr(models, "load_embedder", lambda *a, **k: object())
    monkeypatch.setattr(models, "embed_deck", lambda *a, **k: None)
    main = script_main(script)
    row = {"harness_per_s": 1.0, "raw_per_s": 1.0, "harness_over_raw": 1.0,
           "unlimited_over_raw": 1.0, "tower_per_s": 1.0}
    main.__globals__["bench_images"] = lambda _e, _i, batch, _r: {"batch": batch, **row}
    main.__globals__["bench_texts"] = lambda _e, _t, batch, _r: {"batch": batch, **row}
    main.__globals__["timed"] = lambda *a, **k: 1.0
    out = tmp_path / "runs"
    out.write_text("a file")
    with pytest.raises(SystemExit) as done:
        main(["--runs-dir", str(out), "--smoke"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"--runs-dir {out} is a file, not a folder" in err and "Traceback" not in err
    assert out.read_text() == "a file" and folders(tmp_path) == ["runs"]


def test_bench_embed_refuses_its_runs_dir_before_it_measures(tmp_path, monkeypatch, capsys):
    """The folder is made first: a ``--runs-dir`` that cannot hold it is a usage error before
    the model is loaded or anything is timed (it was found only after the whole benchmark)."""
    import models

    monkeypatch.setattr(models, "load_embedder", stop)
    out = tmp_path / "runs"
    out.write_text("a file")
    with pytest.raises(SystemExit) as done:
        script_main("bench_embed.py")(["--runs-dir", str(out), "--smoke"])
    assert done.value.code == 2
    assert f"--runs-dir {out} is a file, not a folder" in capsys.readouterr().err
    assert out.read_text() == "a file"
