"""``train_default_model.py --smoke`` (and ``dixit-ai train align --smoke``) keeps the options
the command line gave: ``--smoke --steps 200`` trains 200 steps. It set every smoke value over
them in silence (20 steps, 48 cards, ...).

Stopped at the argument stage: ``settle_args`` runs, then the run stops before any model loads.
"""

from __future__ import annotations

import runpy
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.cli import main as dixit_main
from models import train_default

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "train_default_model.py"
SMOKE = {"train_seeds": "1001", "train_cards": 48, "eval_cards": 24, "boards_per_query": 2,
         "steps": 20, "batch_size": 32}
GIVEN = {"train_seeds": "1002", "train_cards": 55, "eval_cards": 31, "boards_per_query": 3,
         "steps": 27, "batch_size": 8}


class Stop(Exception):
    pass


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The settings each run would train with (the run stops once they are settled)."""
    seen: list[Any] = []
    real = train_default.settle_args

    def settle(args: Any, *rest: Any, **kwargs: Any) -> None:
        real(args, *rest, **kwargs)
        seen.append(args)
        raise Stop

    monkeypatch.setattr(train_default, "settle_args", settle)
    return seen


def _script(argv: list[str]) -> None:
    runpy.run_path(str(SCRIPT), run_name="smoke_flags")["main"](argv)


def _cli(argv: list[str]) -> None:
    dixit_main(["train", "align", *argv])


def _module(argv: list[str]) -> None:
    train_default.main(argv)


@pytest.mark.parametrize("entry", [_script, _cli, _module])
@pytest.mark.parametrize("name", sorted(SMOKE))
def test_a_flag_given_beside_smoke_is_kept(entry: Any, name: str, settled: list[Any]) -> None:
    flag = "--" + name.replace("_", "-")
    with pytest.raises(Stop):
        entry(["--smoke", flag, str(GIVEN[name])])
    (args,) = settled
    assert getattr(args, name) == GIVEN[name], f"--smoke {flag} {GIVEN[name]}"
    assert {k: getattr(args, k) for k in SMOKE if k != name} == {
        k: v for k, v in SMOKE.items() if k != name}


@pytest.mark.parametrize("entry", [_script, _cli, _module])
def test_smoke_alone_and_a_default_given_explicitly(entry: Any, settled: list[Any]) -> None:
    with pytest.raises(Stop):
        entry(["--smoke"])
    with pytest.raises(Stop):  # the default's own value, given: the user's choice
        entry(["--smoke", "--steps", "3000"])
    alone, explicit = settled
    assert {k: getattr(alone, k) for k in SMOKE} == SMOKE
    assert explicit.steps == 3000 and explicit.train_cards == 48


def test_settings_made_in_code_keep_what_differs_from_the_defaults(settled: list[Any]) -> None:
    with pytest.raises(Stop):
        train_default.run(train_default.Args(smoke=True, steps=7))
    (args,) = settled
    assert (args.steps, args.batch_size, args.train_cards) == (7, 32, 48)


@pytest.mark.parametrize("entry", [_script, _cli, _module])
def test_a_member_takes_its_settings_where_none_was_given(entry: Any,
                                                          settled: list[Any]) -> None:
    """``--member`` gives its settings to the flags the command line did not give: ``--seed 0``
    (the default's value, given) stays 0 where the member's seed 4 replaced it."""
    with pytest.raises(Stop):
        entry(["--member", "lite1-minilm", "--smoke"])
    with pytest.raises(Stop):
        entry(["--member", "lite1-minilm", "--smoke", "--seed", "0", "--train-seeds", "4002",
               "--exp-name", "train_default_model"])
    alone, given = settled
    assert (alone.seed, alone.train_seeds, alone.train_cards, alone.steps) == (4, "4001", 48, 20)
    assert alone.exp_name == "train_lite1-minilm" and alone.caption_mix == "full+scene"
    assert (given.seed, given.train_seeds, given.exp_name) == (0, "4002", "train_default_model")
    assert given.caption_mix == "full+scene" and given.steps == 20
