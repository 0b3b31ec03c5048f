"""Bad input to ``scripts/measure_second_vote.py`` and ``scripts/make_photo_set.py`` is refused
with one line and exit 2, before any game is played or anything written; ``make_photo_set.py
--help`` needs no scikit-image; ``dixit-ai train storyteller`` prints its interval to 3 decimals.
"""

from __future__ import annotations

import json
import math
import os
import re
import runpy
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts"
PHOTOS = REPO / "models" / "data" / "photos"


def _main(name: str) -> Any:
    return runpy.run_path(str(SCRIPTS / name), run_name="input_test")["main"]


def _no_games(main: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any game ``main`` would play fail the test."""
    def untouchable(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a game was played before the input was checked")

    monkeypatch.setitem(main.__globals__, "play_game", untouchable)
    monkeypatch.setitem(main.__globals__, "make_agent", untouchable)


# measure_second_vote.py

@pytest.mark.parametrize(("argv", "message"), [
    (["--agent", "nosuch"], "error: --agent: no agent named 'nosuch'; registered agents:"),
    (["--storyteller", "nosuch"], "error: --storyteller: no agent named 'nosuch'"),
    (["--deck", "nosuch"], "error: --deck nosuch: unknown deck spec 'nosuch'"),
    (["--agent", "random"], "error: --agent random is not a clip player: this script measures "
                            "the predicted guess rate of clip agents' storytellers"),
    (["--storyteller", "random-teller"], "error: --storyteller random-teller is not a clip "
                                         "player"),
])
def test_measure_second_vote_refuses_bad_agents_and_decks(argv: list[str], message: str,
                                                          tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    main = _main("measure_second_vote.py")
    _no_games(main, monkeypatch)
    out = tmp_path / "figures.json"
    assert main([*argv, "--games", "1", "--json", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message) and captured.err.count("\n") == 1
    assert "Traceback" not in captured.err and captured.out == ""
    assert not list(tmp_path.iterdir())


def test_measure_second_vote_refuses_a_json_file_in_a_missing_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    main = _main("measure_second_vote.py")
    _no_games(main, monkeypatch)
    out = tmp_path / "nodir" / "x.json"
    assert main(["--games", "1", "--json", str(out)]) == 2
    assert capsys.readouterr().err == (f"error: --json {out}: the folder {out.parent} does not "
                                       "exist\n")
    assert not list(tmp_path.iterdir())   # no folder made
    assert main(["--games", "1", "--json", str(tmp_path)]) == 2
    assert "is a folder; give the name of a file" in capsys.readouterr().err


def test_measure_second_vote_refuses_before_smoke_games(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    main = _main("measure_second_vote.py")
    _no_games(main, monkeypatch)
    assert main(["--smoke", "--agent", "caption-teller"]) == 2
    assert "caption-teller is not a clip player" in capsys.readouterr().err


# make_photo_set.py

def test_make_photo_set_help_needs_no_scikit_image(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # A path entry that hides scikit-image, installed or not.
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "skimage.py").write_text("raise ImportError('hidden')\n",
                                                   encoding="utf-8")
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "hide"), str(REPO)])
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run([sys.executable, str(SCRIPTS / "make_photo_set.py"), "--help"],
                          cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:") and "--out" in done.stdout
    assert "Builds models/data/photos" in done.stdout
    assert not list(work.iterdir())


def test_make_photo_set_names_missing_scikit_image(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "skimage", None)   # import skimage raises ImportError
    monkeypatch.setitem(sys.modules, "skimage.data", None)
    main = _main("make_photo_set.py")
    assert main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: scripts/make_photo_set.py needs scikit-image")
    assert "pip install scikit-image" in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())


def test_make_photo_set_refuses_a_missing_folder(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)   # not the repository root: the default folder is not there
    main = _main("make_photo_set.py")
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --out models/data/photos does not exist")
    assert not list(tmp_path.iterdir())
    (tmp_path / "file").write_text("", encoding="utf-8")
    assert main(["--out", "file"]) == 2
    assert "--out file is a file, not a folder" in capsys.readouterr().err


def test_make_photo_set_builds_the_committed_index(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """With a stand-in for ``skimage.data`` (noise photographs), the script still writes the
    committed index and the same illustrations, pixel for pixel."""
    rng = np.random.default_rng(0)
    data = types.ModuleType("skimage.data")
    for name in ("chelsea", "coffee", "astronaut", "rocket", "hubble_deep_field", "retina"):
        setattr(data, name, lambda: rng.integers(0, 256, (40, 50, 3), dtype=np.uint8))
    for name in ("camera", "coins", "brick", "grass", "gravel", "clock"):
        setattr(data, name, lambda: rng.random((40, 50)))
    data.horse = lambda: rng.random((40, 50)) > 0.5  # type: ignore[attr-defined]
    package = types.ModuleType("skimage")
    package.data = data  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "skimage", package)
    monkeypatch.setitem(sys.modules, "skimage.data", data)
    main = _main("make_photo_set.py")
    assert main(["--out", str(tmp_path)]) == 0
    committed = json.loads((PHOTOS / "index.json").read_text(encoding="utf-8"))
    assert json.loads((tmp_path / "index.json").read_text(encoding="utf-8")) == committed
    assert capsys.readouterr().out == f"{len(committed['images'])}\n"
    from PIL import Image

    for name in ("house.png", "night_sky.png", "snowman.png"):
        with Image.open(tmp_path / name) as built, Image.open(PHOTOS / name) as kept:
            assert np.array_equal(np.asarray(built), np.asarray(kept)), name


# train_storyteller.py (dixit-ai train storyteller)

def _summary(**changes: Any) -> dict[str, Any]:
    summary = {"eval_games": 6, "learned_points_per_tell": 1.7916666666666667,
               "heuristic": "clip-expected-self", "heuristic_points_per_tell": 1.833333333333,
               "difference": -0.041666666666666664,
               "difference_ci95": [-0.31952867837713617, 0.23619534504380282],
               "verdict": "the learned policy is not distinguishable from clip-expected-self"}
    return {**summary, **changes}


def test_train_storyteller_rounds_its_interval() -> None:
    line = runpy.run_path(str(SCRIPTS / "train_storyteller.py"),
                          run_name="input_test")["summary_line"](_summary())
    assert line == ("held-out (6 games): learned 1.792 vs clip-expected-self 1.833 points per "
                    "storytelling turn; difference -0.042, 95% CI [-0.320, 0.236]: the learned "
                    "policy is not distinguishable from clip-expected-self")


@pytest.mark.parametrize("ci", [None, [math.nan, math.nan]])
def test_train_storyteller_prints_no_interval_it_lacks(ci: Any) -> None:
    summary_line = runpy.run_path(str(SCRIPTS / "train_storyteller.py"),
                                  run_name="input_test")["summary_line"]
    line = summary_line(_summary(difference_ci95=ci, eval_games=1))
    assert "95% CI n/a:" in line and "nan" not in line


def test_train_storyteller_smoke_prints_three_decimals(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    pytest.importorskip("torch")
    from dixit_ai.cli import main

    assert main(["train", "storyteller", "--smoke", "--runs-dir", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    found = re.search(r"^held-out .*difference [+-]\d+\.\d{3}, 95% CI "
                      r"\[(-?\d+\.\d{3}), (-?\d+\.\d{3})\]: the learned policy", printed, re.M)
    assert found, printed
    (run,) = tmp_path.iterdir()
    kept = json.loads((run / "summary.json").read_text(encoding="utf-8"))["difference_ci95"]
    assert [float(found[1]), float(found[2])] == [round(v, 3) + 0.0 for v in kept]
