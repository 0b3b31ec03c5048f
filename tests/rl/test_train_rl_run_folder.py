"""Every run of scripts/train_rl.py writes into a folder of its own.

The folder was ``{out}/{exp_name}__{seed}__{int(time.time())}``, made with ``exist_ok=True``: two
runs started in the same second (a sweep launching its seeds' siblings, a job array) wrote into
one folder, the second's checkpoints, curve and evaluation over the first's. The folder is now
made exclusively, the next free name (``-2``, ``-3``, ...) taken on a collision; an ``--out`` that
cannot hold a folder exits 2 before anything is trained.
"""

from __future__ import annotations

import json
import runpy
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")

from envs.vectors import VectorTable

ROOT = Path(__file__).resolve().parents[2]
SECOND = 1_700_000_000
TINY = ["--roles", "guesser", "--n-envs", "1", "--n-steps", "64", "--hidden", "8",
        "--embedding-dim", "8", "--clues-per-card", "2", "--eval-games", "0", "--no-progress"]


def script() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "scripts" / "train_rl.py"), run_name="dixit_ai_script")


def random_table() -> VectorTable:
    return VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)


@pytest.fixture
def same_second(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run starts in the same second (the clock stands still a quarter past it)."""
    import envs.vectors

    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *a, **k: random_table())
    monkeypatch.setattr(time, "time", lambda: SECOND + 0.25)


def recorded_timesteps(run_dir: Path) -> int:
    config = json.loads((run_dir / "guesser.json").read_text(encoding="utf-8"))
    return int(config["args"]["total_timesteps"])


def test_two_runs_in_the_same_second_write_two_folders(tmp_path: Path, same_second: None,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    main = script()["main"]
    first = main(["--out", str(tmp_path), "--total-timesteps", "64", *TINY])
    first_zip = (first / "guesser.zip").read_bytes()
    second = main(["--out", str(tmp_path), "--total-timesteps", "128", *TINY])
    assert first.name == f"train_rl__1__{SECOND}"
    assert second.name == f"train_rl__1__{SECOND}-2"
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.name, second.name]
    # Each run's files are its own: the first run's were not overwritten by the second's.
    assert recorded_timesteps(first) == 64 and recorded_timesteps(second) == 128
    assert (first / "guesser.zip").read_bytes() == first_zip
    assert f"wrote {second}" in capsys.readouterr().out


def test_the_next_free_name_is_taken_past_anything_in_the_way(tmp_path: Path) -> None:
    new_run_dir = script()["new_run_dir"]
    taken = tmp_path / f"train_rl__1__{SECOND}"
    taken.mkdir()
    (taken / "guesser.zip").write_bytes(b"another run's")
    (tmp_path / f"train_rl__1__{SECOND}-2").write_text("a file", encoding="utf-8")
    made = new_run_dir(tmp_path, "train_rl", 1, now=SECOND + 0.9)
    assert made == tmp_path / f"train_rl__1__{SECOND}-3" and made.is_dir()
    assert not list(made.iterdir())
    assert (taken / "guesser.zip").read_bytes() == b"another run's"
    assert new_run_dir(tmp_path, "train_rl", 1, now=SECOND) == tmp_path / f"train_rl__1__{SECOND}-4"
    assert new_run_dir(tmp_path / "a" / "b", "x", 2, now=SECOND) == (
        tmp_path / "a" / "b" / f"x__2__{SECOND}")


def test_an_out_that_is_a_file_exits_2_before_training(tmp_path: Path, same_second: None,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    out = tmp_path / "runs"
    out.write_text("not a folder", encoding="utf-8")
    with pytest.raises(SystemExit) as done:
        script()["main"](["--out", str(out), "--total-timesteps", "64", *TINY])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"--out {out} is a file, not a folder" in err and "Traceback" not in err, err
    assert out.read_text(encoding="utf-8") == "not a folder"
    assert [p.name for p in tmp_path.iterdir()] == ["runs"]
