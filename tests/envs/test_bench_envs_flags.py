"""scripts/bench_envs.py refuses flags of the mode it does not run.

``--learner-steps`` and ``--clip-steps`` without ``--learner`` were ignored (the table of the
environments ran, as if they had not been given); so were ``--games``, ``--repeats`` and
``--cells`` with ``--learner``. Each is refused (exit 2) naming the flag and what it needs.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def script() -> dict[str, Any]:
    return runpy.run_path(str(ROOT / "scripts" / "bench_envs.py"), run_name="dixit_ai_script")


@pytest.mark.parametrize("bad, message", [
    (["--learner-steps", "20"], "--learner-steps is for --learner"),
    (["--clip-steps", "2"], "--clip-steps is for --learner"),
    (["--learner", "--games", "2"], "--games is for the environments' table, not --learner"),
    (["--learner", "--repeats", "1"], "--repeats is for the environments' table, not --learner"),
    (["--learner", "--cells", "refresh-2021:4"],
     "--cells is for the environments' table, not --learner"),
])
def test_flags_of_the_other_mode_exit_2(bad: list[str], message: str, monkeypatch,
                                        capsys) -> None:
    bench = script()

    def measured(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("something was measured")

    monkeypatch.setitem(bench["main"].__globals__, "measure", measured)
    monkeypatch.setitem(bench["main"].__globals__, "learner_table", measured)
    with pytest.raises(SystemExit) as done:
        bench["main"](bad)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_defaults_of_each_mode_are_accepted() -> None:
    import argparse

    bench = script()
    common = {"json": None, "seed": 0}
    table = argparse.Namespace(learner=False, games=2, repeats=1, cells=["refresh-2021:4"],
                               learner_steps=None, clip_steps=None, **common)
    assert bench["check_args"](table) == [("refresh-2021", 4)]
    learner = argparse.Namespace(learner=True, games=None, repeats=None, cells=None,
                                 learner_steps=20, clip_steps=2, **common)
    assert bench["check_args"](learner) == []
