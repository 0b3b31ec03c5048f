"""Command-line glue for the players' scripts: CleanRL-style ``Args`` dataclasses, and
``register`` functions for ``dixit-ai train calibration`` / ``dixit-ai train storyteller``.

Each script declares ``@dataclass class Args`` whose fields carry their help text in
``metadata={"help": ...}``; :func:`parse_args` turns it into ``--flags``. To wire the ``train``
jobs, ``dixit_ai/cli/train.py`` calls ``register_train_commands(jobs)`` with its job
sub-parsers, and its ``run`` runs the job, as it does its own, inside ``running(...,
started=False)`` with an ``announce`` hook (the run folder is made: the work begins)::

    job = getattr(args, "players_job", None) or args.train_runner
    with running(f"train {args.train_job}", started=False) as work:
        ...
        return int(job(args, announce=announce))

The jobs run the scripts' ``main(argv, announce=announce)`` with the options that follow the
job's name.
"""

from __future__ import annotations

import argparse
import contextvars
import dataclasses
import math
import runpy
import sys
import types
import typing
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from dixit_ai.cli.common import check_at_least as check_at_least  # re-exported for the scripts
from dixit_ai.cli.common import check_at_most, refuse_input

T = TypeVar("T")
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
"""The scripts of a source checkout or editable install."""
INSTALLED_SCRIPTS = Path(sys.prefix) / "share" / "dixit-ai" / "scripts"
"""Where a wheel installs the same scripts (``data-files`` in ``pyproject.toml``)."""
SMOKE_AGENT_OPTIONS: dict[str, Any] = {"n_simulations": 16, "pair_clues": 0,
                                       "vocabulary_size": 300}
"""The clip players' options in a script's ``--smoke`` run (seconds, for CI); copy before
changing."""


SCRIPT_PROG: contextvars.ContextVar[str | None] = contextvars.ContextVar("script_prog",
                                                                       default=None)
"""The command a script runs as (``dixit-ai train calibration``), for its usage line; ``None``
when it runs as itself (``fit_calibration.py``)."""


def _parser_for(cls: type, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=SCRIPT_PROG.get(), description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    add_arguments(parser, cls)
    return parser


def add_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """Add one ``--flag`` per field of the dataclass ``cls`` to ``parser``."""
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        flag = "--" + f.name.replace("_", "-")
        kind = hints[f.name]
        factory: Any = f.default_factory
        default = f.default if f.default is not dataclasses.MISSING else factory()
        help_text = f.metadata.get("help", "")
        args = typing.get_args(kind)
        if kind is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default,
                                help=help_text)
            continue
        origin = typing.get_origin(kind)
        if origin in (list, tuple):
            parser.add_argument(flag, nargs="*", type=args[0], default=default, help=help_text)
            continue
        if origin in (typing.Union, types.UnionType):
            base = next(a for a in args if a is not type(None))
            parser.add_argument(flag, type=base, default=default, help=help_text)
            continue
        parser.add_argument(flag, type=kind, default=default, help=help_text)


def refuse_bad_population_options(aim: str, temperature_scale: float,
                                   tolerance: float | None = None) -> None:
    """A script's ``--aim``, ``--temperature-scale`` (and ``--tolerance``) for its population
    storytellers, checked before it loads or writes anything.

    Raises:
        SystemExit: one is not valid; the message names the flag and its limit.
    """
    from models.players.population import check_aim
    from models.players.simulation import temperature_scale as check_scale

    try:
        check_aim(aim, "--aim")
        check_scale(temperature_scale, "--temperature-scale")
    except ValueError as error:
        refuse_input(str(error))
    if tolerance is not None and not tolerance >= 0:
        refuse_input(f"--tolerance must be at least 0, not {tolerance}")


def refuse_bad_counts(args: Any, least: Iterable[tuple[str, float]],
                      most: Iterable[tuple[str, int]] = ()) -> None:
    """Refuse, as bad input (exit 2, :func:`~dixit_ai.cli.common.refuse_input`), the first of
    ``args``' counts below its least value (:func:`check_at_least`) or above its largest
    (``most``: ``(setting, limit)`` pairs, :func:`~dixit_ai.cli.common.check_at_most`): counts a
    run would die on part-way, or exhaust memory with, found before any work."""
    try:
        check_at_least(args, least)
        for name, limit in most:
            check_at_most(f"--{name.replace('_', '-')}", getattr(args, name), limit)
    except ValueError as error:
        refuse_input(str(error))


def check_positive(args: Any, name: str) -> None:
    """Refuse a setting that is not a positive finite number (a learning rate), as a flag.

    Raises:
        ValueError: ``--flag-name must be a positive finite number, not V``.
    """
    value = getattr(args, name)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"--{name.replace('_', '-')} must be a positive finite number, not "
                         f"{value}")


def check_table_agents(edition: str, agents: Sequence[str], deck: str,
                       overrides: Mapping[str, Any]) -> None:
    """Refuse a table a script would play before it loads a model or writes anything: a number
    of seats the edition does not allow, or an agent that does not take the deck and
    ``overrides`` (``random`` takes neither).

    Raises:
        ValueError: the message names the flag (``--agents``) and the problem.
    """
    from dixit_ai.agents.registry import check_agent_arguments
    from dixit_ai.rules import RuleSet

    rules = RuleSet.edition(edition)   # an unknown edition names itself
    try:
        rules.check_players(len(agents))
    except ValueError as error:
        raise ValueError(f"--agents: {error}") from None
    for name in dict.fromkeys(agents):
        try:
            check_agent_arguments(name, {"deck": deck, **overrides} if name != "random" else {})
        except (ValueError, ImportError) as error:
            raise ValueError(f"--agents {name}: {error}") from None


CLIP_ENTRY_POINT = "models.players:ClipAgent"


def parse_tables(text: str, flag: str = "--tables") -> list[tuple[str, int]]:
    """``"odyssey-2024:4,odyssey-2011:8"`` as ``[(edition, players), ...]``.

    Raises:
        ValueError: an entry that is not EDITION:PLAYERS, an unknown edition, or a player count
            outside the edition's range (the message names ``flag`` and the limits).
    """
    from dixit_ai.rules import RuleSet

    tables = []
    for entry in (e.strip() for e in text.split(",")):
        edition, _, players = entry.partition(":")
        if not edition or not players.isdigit():
            raise ValueError(f"{flag}: {entry!r} is not EDITION:PLAYERS (odyssey-2024:12)")
        try:
            rules = RuleSet.edition(edition)
        except ValueError as error:
            raise ValueError(f"{flag}: {error}") from None
        if not rules.min_players <= int(players) <= rules.max_players:
            raise ValueError(f"{flag}: {edition} seats {rules.min_players} to "
                             f"{rules.max_players} players, not {players}")
        tables.append((edition, int(players)))
    return tables


def is_clip_player(name: str) -> bool:
    """Whether the registry agent ``name`` is a clip player (it has embeddings).

    Raises:
        ValueError: no agent of that name (the message lists the registered names).
    """
    from dixit_ai.agents.registry import agent_spec

    return agent_spec(name).entry_point == CLIP_ENTRY_POINT


def registry_storytellers(names: Sequence[str]) -> list[tuple[str, bool]]:
    """``--also``: registry storytellers, each with whether it is a clip player (a smoke
    budget is for those only).

    Raises:
        SystemExit: a name given twice, or one not registered (the message lists the
            registered names).
    """
    if len(set(names)) != len(names):
        refuse_input(f"--also names a storyteller twice: {list(names)}")
    out = []
    for name in names:
        try:
            out.append((name, is_clip_player(name)))
        except ValueError as error:
            refuse_input(f"--also: {error}")
    return out


def check_deck_option(deck: str) -> None:
    """Refuse a ``--deck`` that does not load.

    Raises:
        ValueError: ``--deck SPEC: why``.
    """
    from dixit_ai.decks import load_deck

    try:
        load_deck(deck)
    except (ValueError, OSError) as error:
        raise ValueError(f"--deck {deck}: {error}") from None


def parse_args(cls: type[T], argv: list[str] | None = None, description: str = "") -> T:
    """An instance of the ``Args`` dataclass ``cls`` from the command line; it remembers which
    options the command line gave (:func:`apply_smoke` leaves those alone)."""
    parser = _parser_for(cls, description)
    namespace = parser.parse_args(argv)
    args = cls(**vars(namespace))
    # Kept beside the instance, not in it: vars(args) and asdict(args) stay its settings alone.
    _GIVEN[id(args)] = given_options(parser, argv)
    weakref.finalize(args, _GIVEN.pop, id(args), None)
    return args


_GIVEN: dict[int, frozenset[str]] = {}
"""What :func:`parse_args` recorded: the options given, by ``id`` of the live ``Args``."""
_UNSET = object()


def given_options(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> frozenset[str]:
    """The settings (``dest`` names) that ``argv`` gives an option for, whatever the value:
    ``--items 200`` is given even where 200 is the default. ``argv`` must parse (parse it
    first: an error there is the user's to see once)."""
    names = vars(parser.parse_args(argv))
    probe = argparse.Namespace(**dict.fromkeys(names, _UNSET))
    parser.parse_args(argv, namespace=probe)   # argparse fills no default a namespace holds
    return frozenset(name for name, value in vars(probe).items() if value is not _UNSET)


def apply_smoke(args: Any, values: Mapping[str, Any],
                given: Iterable[str] | None = None) -> dict[str, Any]:
    """``--smoke``'s budget: set each of ``values`` (``{"items": 3, ...}``) on ``args``, except
    the settings the command line gave: an explicit ``--items 50`` beside ``--smoke`` is the
    user's choice, kept (a smoke run with more items), never thrown away in silence.

    Args:
        args: The parsed settings (an ``Args`` from :func:`parse_args`, or a namespace).
        values: The smoke value of each setting, by its ``dest`` name.
        given: The settings the command line gave (:func:`given_options`); by default what
            :func:`parse_args` recorded, or, for ``args`` made in code, the fields that
            differ from their dataclass default.

    Returns:
        The settings it set, with their values (the others in ``values`` kept the user's).
    """
    taken = frozenset(given) if given is not None else options_given(args)
    unknown = [name for name in values if not hasattr(args, name)]
    if unknown:  # a typo in a script's table would set an attribute nothing reads
        raise AttributeError(f"--smoke sets settings {args!r} does not have: {unknown}")
    applied = {name: value for name, value in values.items() if name not in taken}
    for name, value in applied.items():
        setattr(args, name, value)
    return applied


def options_given(args: Any) -> frozenset[str]:
    """The settings of ``args`` that the command line gave an option for (``dest`` names), as
    :func:`parse_args` recorded them; for an ``Args`` made in code, the fields that differ from
    their default.

    Raises:
        TypeError: ``args`` is neither (a namespace: use :func:`given_options`).
    """
    recorded = _GIVEN.get(id(args))
    if recorded is not None:
        return frozenset(recorded)
    if dataclasses.is_dataclass(args) and not isinstance(args, type):
        defaults = type(args)()
        return frozenset(f.name for f in dataclasses.fields(args)
                         if getattr(args, f.name) != getattr(defaults, f.name))
    raise TypeError("settings not made by parse_args: pass what given_options(parser, argv) "
                    "returns")


def script_path(name: str) -> Path:
    """The path of ``scripts/<name>``, in a checkout or where a wheel installed it."""
    for folder in (SCRIPTS, INSTALLED_SCRIPTS):
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(f"scripts/{name} is neither in {SCRIPTS} nor in {INSTALLED_SCRIPTS}; "
                            "reinstall dixit-ai")


def _script_main(name: str) -> Any:
    module = runpy.run_path(str(script_path(name)), run_name="dixit_ai_script")
    return module["main"]


def register_train_commands(subparsers: Any) -> None:
    """Add ``calibration`` and ``storyteller`` to the sub-parsers of ``dixit-ai train``.

    Every option after the subcommand is passed to the script
    (``dixit-ai train calibration --help`` shows them).
    """
    for command, script, summary in (
        ("calibration", "fit_calibration.py",
         "fit the guess model (temperature, bias) to recorded games; reliability diagram"),
        ("storyteller", "train_storyteller.py",
         "learn a clue-choice policy by self-play (REINFORCE with a baseline)"),
    ):
        # No options of its own ("+" prefixes none of them): every --flag, --help included,
        # goes to the script.
        parser = subparsers.add_parser(command, help=summary, description=summary,
                                       add_help=False, prefix_chars="+")
        parser.add_argument("script_args", nargs=argparse.REMAINDER)
        parser.set_defaults(players_job=_runner(script, command))


def run_script(script: str, prog: str, argv: list[str],
               announce: Callable[[Path], None] | None = None) -> int:
    """Run ``scripts/<script>``'s ``main(argv, announce=announce)`` as the command ``prog`` (its
    usage and help name ``prog``, not ``dixit-ai`` or the script's file); a ``main`` that
    returns its run folder (a path) succeeded (0)."""
    token = SCRIPT_PROG.set(prog)
    try:
        status = _script_main(script)(argv, announce=announce)
        return 0 if status is None or isinstance(status, Path) else int(status)
    finally:
        SCRIPT_PROG.reset(token)


def _runner(script: str, command: str) -> Any:
    def run(args: argparse.Namespace, announce: Callable[[Path], None] | None = None) -> int:
        return run_script(script, f"dixit-ai train {command}", list(args.script_args),
                          announce=announce)

    return run

