"""``--smoke`` gives a script its tiny budget only where the command line gave no option: an
explicit ``--items 50`` beside ``--smoke`` is kept, never thrown away in silence.

The scripts are stopped at their argument stage (their ``apply_smoke`` call, or the first
function that would do work), so nothing is loaded, played or written.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import runpy
import sys
from pathlib import Path
from typing import Any

import pytest

import models.players.cli as cli
from models.players.cli import apply_smoke, given_options, options_given, parse_args

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
SMOKE_SCRIPTS = sorted(p.name for p in SCRIPTS.glob("*.py")
                       if re.search(r'"--smoke"|^    smoke: bool', p.read_text(), re.M)
                       or "panel_settings import Args" in p.read_text())


class Stop(Exception):
    """Raised in place of a script's work, carrying the settings it would have run with."""

    def __init__(self, settings: Any) -> None:
        super().__init__("stopped at the argument stage")
        self.settings = settings


def _spy_main(name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], Any]:
    """The script's globals and its ``main``, whose ``apply_smoke`` stops the run."""
    real = cli.apply_smoke

    def spy(args: Any, values: Any, given: Any = None) -> Any:
        real(args, values, given)
        raise Stop(args)

    monkeypatch.setattr(cli, "apply_smoke", spy)
    module = runpy.run_path(str(SCRIPTS / name), run_name="smoke_flags_test")
    return module, module["main"]


def _effective(main: Any, argv: list[str]) -> Any:
    with pytest.raises(Stop) as stopped:
        main(argv)
    return stopped.value.settings


def _other(value: Any) -> Any:
    """A value of the same kind as a smoke value, but not it."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, str) and value.startswith("dream:size="):
        return "dream:size=48"
    if isinstance(value, str) and re.fullmatch(r"[a-z0-9-]+:\d+(,[a-z0-9-]+:\d+)*", value):
        return "refresh-2021:4"  # tables, EDITION:PLAYERS
    raise AssertionError(f"no other value for {value!r}")


def test_the_smoke_scripts_are_found() -> None:
    assert {"bench_players.py", "bench_storyteller_panel.py", "bench_embed.py",
            "eval_embedder.py", "train_storyteller.py", "study_decks.py"} <= set(SMOKE_SCRIPTS)


@pytest.mark.parametrize("name", SMOKE_SCRIPTS)
def test_smoke_keeps_each_option_given(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module, main = _spy_main(name, monkeypatch)
    smoke = module["SMOKE"]
    assert smoke, f"{name}: an empty SMOKE table"
    alone = _effective(main, ["--smoke"])
    assert {k: getattr(alone, k) for k in smoke} == smoke
    for key, value in smoke.items():
        flag, given = "--" + key.replace("_", "-"), _other(value)
        args = _effective(main, ["--smoke", flag, str(given)])
        assert getattr(args, key) == given, f"{name} --smoke {flag} {given}"
        assert {k: getattr(args, k) for k in smoke if k != key} == {
            k: v for k, v in smoke.items() if k != key}


@pytest.mark.parametrize("name", SMOKE_SCRIPTS)
def test_no_script_assigns_smoke_values_itself(name: str) -> None:
    """The budget lives in the script's SMOKE table and is set by apply_smoke alone."""
    text = (SCRIPTS / name).read_text()
    assert "apply_smoke(args, SMOKE" in text
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if line.strip().startswith("if args.smoke"):
            depth = len(line) - len(line.lstrip())
            for inner in lines[number + 1:]:
                if inner.strip() and len(inner) - len(inner.lstrip()) <= depth:
                    break
                assert not re.match(r"\s*args\.\w+(, args\.\w+)* = ", inner), inner


def test_bench_panel_runs_the_items_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """``bench_storyteller_panel.py --smoke --items 50`` measures 50 items (it measured 3)."""
    module = runpy.run_path(str(SCRIPTS / "bench_storyteller_panel.py"), run_name="t")

    def measure(args: Any, restored: Any) -> Any:
        raise Stop(args)

    monkeypatch.setitem(module["main"].__globals__, "measure", measure)
    with pytest.raises(Stop) as stopped:
        module["main"](["--smoke", "--items", "50", "--bootstrap", "999"])
    args = stopped.value.settings
    assert (args.items, args.bootstrap, args.deals, args.decisions) == (50, 999, 2, 2)


def test_bench_players_note_names_the_deck_given(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its "not judged" note names the deck the run used, not the smoke deck it no longer
    used."""
    module = runpy.run_path(str(SCRIPTS / "bench_players.py"), run_name="t")

    def measure(args: Any, overrides: dict[str, Any]) -> Any:
        raise Stop((args, overrides))

    monkeypatch.setitem(module["main"].__globals__, "measure", measure)
    with pytest.raises(Stop) as stopped:
        module["main"](["--smoke", "--deck", "dream:size=48", "--games", "4"])
    args, overrides = stopped.value.settings
    assert (args.deck, overrides["deck"], args.games, args.decisions) == (
        "dream:size=48", "dream:size=48", 4, 2)
    note = module["other_configuration"](args)
    assert "dream:size=48" in note and "40-card" not in note


def test_study_decks_analyse_refuses_run_options_from_the_shell(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Run as a script (``main()`` reads ``sys.argv``), ``--analyse`` with ``--items`` is refused
    as it is when ``argv`` is passed (it was ignored: the check read only the argv passed)."""
    module = runpy.run_path(str(SCRIPTS / "study_decks.py"), run_name="t")
    monkeypatch.setattr(sys, "argv", ["study_decks.py", "--analyse", str(tmp_path / "f.json"),
                                      "--item", "5", "--deck-size", "40"])
    with pytest.raises(SystemExit) as refused:
        module["main"]()
    assert refused.value.code == 2  # bad input
    assert "not --deck-size, --items" in capsys.readouterr().err


def test_given_options_counts_what_the_command_line_said() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--plot", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--names", nargs="*", default=[])
    assert given_options(parser, []) == frozenset()
    # the default's own value, an abbreviation, the = form, a negated flag, an empty list
    assert given_options(parser, ["--items", "200", "--smoke"]) == {"items", "smoke"}
    assert given_options(parser, ["--ite", "3", "--no-plot"]) == {"items", "plot"}
    assert given_options(parser, ["--deals=5", "--names"]) == {"deals", "names"}


@dataclasses.dataclass
class Args:
    items: int = dataclasses.field(default=200, metadata={"help": "items"})
    deals: int = dataclasses.field(default=5, metadata={"help": "deals"})
    smoke: bool = dataclasses.field(default=False, metadata={"help": "tiny"})


def test_apply_smoke_sets_only_what_was_not_given() -> None:
    args = parse_args(Args, ["--smoke", "--items", "200"])
    assert options_given(args) == {"smoke", "items"}
    # the record is kept beside the settings: vars(args) is its fields alone (an --analyse
    # check that reads vars(args) met a stray attribute)
    assert set(vars(args)) == {f.name for f in dataclasses.fields(Args)}
    assert apply_smoke(args, {"items": 3, "deals": 2}) == {"deals": 2}
    assert (args.items, args.deals) == (200, 2)
    made = Args(items=50, smoke=True)  # made in code: what differs from the defaults is given
    apply_smoke(made, {"items": 3, "deals": 2})
    assert (made.items, made.deals) == (50, 2)
    with pytest.raises(AttributeError, match="itmes"):
        apply_smoke(Args(), {"itmes": 3})
    with pytest.raises(TypeError, match="given_options"):
        apply_smoke(argparse.Namespace(items=1), {"items": 3})


# Counts below their limit: one wording, "--flag must be at least N, not V", and exit 2.

@pytest.mark.parametrize(("games", "said"), [
    ("0,40", "--games must be at least 1, not 0"),
    ("40,a", "--games must be whole numbers, comma-separated, not '40,a'"),
    (",", "--games must name at least one count, not ','"),
])
def test_bench_tournament_names_the_bad_count(games: str, said: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    module = runpy.run_path(str(SCRIPTS / "bench_tournament.py"), run_name="t")
    with pytest.raises(SystemExit) as refused:
        module["parse_args"](["--games", games])
    assert refused.value.code == 2
    assert said in capsys.readouterr().err


def test_candidate_clues_oracle_deals_below_two_is_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    module = runpy.run_path(str(SCRIPTS / "study_candidate_clues.py"), run_name="t")
    with pytest.raises(SystemExit) as refused:
        module["main"](["--oracle", "--deals", "1"])
    assert refused.value.code == 2
    assert "--deals must be at least 2, not 1" in capsys.readouterr().err
