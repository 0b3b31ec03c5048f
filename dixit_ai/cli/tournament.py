"""``dixit-ai tournament``: seeded games among agents, seats rotated, rated, resumable.

Examples::

    dixit-ai tournament --agents clip-greedy,clip-expected,clip-obvious,random \\
        --edition refresh-2021 --players 5 --games 500 --seed 0 --workers 2
    dixit-ai tournament --config configs/tournaments/clip-four.yaml --backend ray
    dixit-ai tournament --agents clip-expected,clip-population,panel:panel-heldout --games 50
    dixit-ai tournament --agents clip-expected,caption-teller --panel panel-derived
    dixit-ai tournament --resume runs/tournament__clip-four__0__20261129T210000Z
    dixit-ai tournament --resume runs/tournament__clip-four__0__20261129T210000Z --games 1000
    dixit-ai tournament --analyse runs/tournament__clip-four__0__20261129T210000Z --out report/
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    FAILURES_SHOWN,
    MAX_GAMES,
    MAX_RESAMPLES,
    check_at_most,
    failure_status,
    numbered_failure_lines,
    progress_line,
    refuse_run_options,
    rule_argument,
    running,
)
from dixit_ai.rules import EDITIONS
from dixit_ai.tournament import (
    TournamentConfig,
    analyse_folder,
    load_config,
    print_leaderboard,
    run_tournament,
)
from dixit_ai.tournament.config import split_names
from dixit_ai.tournament.folder import run_failures, unseated_note
from dixit_ai.tournament.player import MAX_STUCK_DECISIONS
from dixit_ai.tournament.run import MAX_STALL_AFTER, STALL_REPORT_AFTER, EveryGameAborted
from dixit_ai.tournament.runner import BACKENDS, MAX_WORKERS
from dixit_ai.tournament.schedule import balance_period, games_to_seat_everyone, unseated
from dixit_ai.tournament.store import on_failure_chosen as stored_choice
from dixit_ai.tournament.store import read_config, schedule_of

PANEL_ENTRY_POINT = "models.players.panel:panel_agents"
"""Expands a panel spec into its members' registry names (imported only when a panel is named:
``dixit_ai`` never imports ``models`` at import time)."""

PANEL_PREFIX = "panel:"
"""An ``--agents`` entry ``panel:SPEC`` stands for the members of the panel ``SPEC``."""

DEFAULTS: dict[str, Any] = {"edition": "refresh-2021", "players": 5, "games": 100, "seed": 0,
                            "deck": "dream", "on_failure": "forfeit"}
"""Defaults of the config options when neither a file nor a resumed run gives them."""


RUN_ONLY = {"config": "--config", "agents": "--agents", "panel": "--panel",
            "edition": "--edition", "players": "--players", "games": "--games", "seed": "--seed",
            "deck": "--deck", "rule": "--rule", "on_failure": "--on-failure",
            "max_rounds": "--max-rounds", "decision_timeout": "--decision-timeout",
            "name": "--name", "workers": "--workers",
            "backend": "--backend", "address": "--address", "stall_warning": "--stall-warning"}
"""The options of a new run, which ``--analyse`` refuses (it recomputes the run's own)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "tournament", help="seeded games among agents, seats rotated, with ratings",
        description=(
            "Play a tournament among registered agents. Every agent plays every seat equally\n"
            "often; the games of a deal share one seeded deal, seats rotated (duplicate deals);\n"
            "with more agents than seats, tables are drawn balanced. Records are appended to\n"
            "games.jsonl as games finish (resumable with --resume). The report (OpenSkill\n"
            "ratings, win rate, points, storytelling, each with a 95% bootstrap interval) goes\n"
            "to runs/tournament__<name>__<seed>__<time>/."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:" + __doc__.split("Examples::", 1)[1] if __doc__ else None)
    what = parser.add_argument_group("the tournament (stored in config.json)")
    what.add_argument("--config", type=Path, default=None, metavar="YAML",
                      help="a tournament file (configs/tournaments/*.yaml); the options below "
                           "override it")
    what.add_argument("--agents", default=None,
                      help="comma-separated registry names (dixit-ai agents lists them), in "
                           "any order (the set decides the games, not the order); "
                           "LABEL=NAME enters one agent under another label; panel:SPEC "
                           "enters the members of a guesser panel (panel:panel-heldout)")
    what.add_argument("--panel", default=None, metavar="SPEC",
                      help="add the members of a guesser panel to the agents: a named panel "
                           "(panel, panel-heldout, panel-family, panel-derived) or member names "
                           "separated by commas")
    what.add_argument("--edition", choices=EDITIONS, default=None,
                      help=f"edition of the rules (default {DEFAULTS['edition']})")
    what.add_argument("--players", type=int, default=None,
                      help=f"seats per game (default {DEFAULTS['players']})")
    what.add_argument("--games", type=int, default=None,
                      help=f"games to play (default {DEFAULTS['games']})")
    what.add_argument("--seed", type=int, default=None,
                      help=f"seed of the tournament (default {DEFAULTS['seed']})")
    what.add_argument("--deck", default=None, help=f"deck spec (default {DEFAULTS['deck']})")
    what.add_argument("--rule", type=rule_argument, action="append", default=None,
                      metavar="KEY=VALUE",
                      help="override a rule parameter, typed by the rule, e.g. --rule "
                           "score_limit=20 (repeatable)")
    what.add_argument("--on-failure", choices=("abort", "forfeit"), default=None,
                      help="what a failing agent costs: forfeit its move that round (the "
                           "default) or abort the game (left out of the ratings). Failures "
                           "are always recorded and printed; they make the exit status 1 "
                           "unless forfeit is chosen here or in the file")
    what.add_argument("--max-rounds", type=int, default=None,
                      help="truncate each game after this many rounds")
    what.add_argument("--decision-timeout", type=float, default=None, metavar="SECONDS",
                      help="the most seconds an agent may take over one decision (default: no "
                           "limit, so that the seed alone decides every record); a decision "
                           "past it is the agent's failure (error DecisionTimeout, handled by "
                           "--on-failure), and the hung agent is replaced for the next game; "
                           f"an agent with {MAX_STUCK_DECISIONS} decisions still running past "
                           "it fails its next decisions at once, until one ends (a running "
                           "decision cannot be stopped)")
    what.add_argument("--name", default=None, help="name of the run (default: the agents)")
    how = parser.add_argument_group("how it runs (never changes a result)")
    how.add_argument("--workers", type=int, default=None,
                     help="worker processes (local) or actors (ray), at most "
                          f"{MAX_WORKERS:,}; 1 plays in this process (default: one per CPU "
                          "core, at most the number of games; more than the cores is noted)")
    how.add_argument("--backend", choices=BACKENDS, default=None,
                     help="local processes (default) or Ray (pip install 'dixit-ai[dist]')")
    how.add_argument("--address", default=None,
                     help="Ray cluster to join (default: RAY_ADDRESS, a `ray start` cluster on "
                          "this machine, else a new local Ray)")
    how.add_argument("--out", type=Path, default=None,
                     help="folder for the run folder (default: runs; not with --resume, "
                          "which goes on in its own folder); with --analyse, the "
                          "folder the report is written to (default: a new run folder "
                          "runs/tournament-analysis__<name>__<seed>__<time>)")
    how.add_argument("--resume", type=Path, default=None, metavar="RUN_DIR",
                     help="continue the tournament of this run folder from its records; with "
                          "a larger --games, extend a finished one with the next games of "
                          "the same schedule")
    how.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    how.add_argument("--stall-warning", type=float, default=None, metavar="SECONDS",
                     help="when no game has finished for this long, say which games are in "
                          f"play and for how long, and again as often (default "
                          f"{STALL_REPORT_AFTER:g}; 0: never)")
    report = parser.add_argument_group("the report")
    report.add_argument("--analyse", "--analyze", type=Path, default=None, metavar="PATH",
                        help="play nothing: recompute the report of a run folder (or of any "
                             "games .jsonl file) from its records. A torn, empty or corrupt "
                             "records file is refused, naming the file and line; the report "
                             "goes to --out, never over an earlier one")
    report.add_argument("--allow-partial", action="store_true",
                        help="with --analyse: drop unreadable records (a torn last line, a "
                             "corrupt line) instead of refusing the file; the report says how "
                             "many were dropped")
    report.add_argument("--overwrite", action="store_true",
                        help="with --analyse: replace a report already in the --out folder")
    report.add_argument("--resamples", type=int, default=None,
                        help="bootstrap resamples (default 2000; with --resume or --analyse "
                             "of a run folder, the run's own)")
    report.add_argument("--rating-resamples", type=int, default=None,
                        help="bootstrap resamples of the ratings, each re-rating every game "
                             "(default 200; 0: no rating interval; with --resume or --analyse "
                             "of a run folder, the run's own)")
    parser.set_defaults(func=run)


def panel_members(spec: str) -> list[str]:
    """The registry names of the members of the panel ``spec``, through
    :data:`PANEL_ENTRY_POINT`.

    Raises:
        ValueError: an empty spec, an unknown panel or member, or the models extra is missing.
    """
    if not spec.strip():
        raise ValueError("a panel spec is empty: give a named panel (panel-heldout, ...) or "
                         "member names, e.g. panel:panel-heldout")
    module_name, attr = PANEL_ENTRY_POINT.split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"a guesser panel needs the models extra ({error}); install it with: "
                         "pip install 'dixit-ai[models]'") from error
    return [str(name) for name in getattr(module, attr)(spec.strip())]


def expand_panels(names: list[str], panel: str | None = None) -> list[str]:
    """``names`` with every ``panel:SPEC`` entry replaced by the panel's members, then the
    members of ``panel`` (``--panel``) added."""
    expanded: list[str] = []
    for name in names:
        if name.startswith(PANEL_PREFIX):
            expanded.extend(panel_members(name[len(PANEL_PREFIX):]))
        else:
            expanded.append(name)
    if panel is not None:
        expanded.extend(panel_members(panel))
    return expanded


def explicit_options(args: argparse.Namespace) -> dict[str, Any]:
    """The config options given on the command line (``None``: not given)."""
    agents = split_names(args.agents) if args.agents is not None else None
    if agents is not None:
        agents = expand_panels(agents, getattr(args, "panel", None))
    options = {
        "agents": agents,
        "edition": args.edition, "players": args.players, "games": args.games,
        "seed": args.seed, "deck": args.deck, "on_failure": args.on_failure,
        "max_rounds": args.max_rounds, "decision_timeout": args.decision_timeout,
        "name": args.name,
    }
    return {key: value for key, value in options.items() if value is not None}


def build_config(args: argparse.Namespace) -> TournamentConfig:
    """The tournament the command line describes (a file, a resumed run, options)."""
    explicit = explicit_options(args)
    rules = dict(args.rule) if args.rule else None
    if args.config is not None:
        base = load_config(args.config)
    elif args.resume is not None:
        if getattr(args, "panel", None) is not None:
            raise ValueError("--panel does not go with --resume: a resumed tournament keeps "
                             "its agents")
        base = read_config(args.resume)
    else:
        if "agents" not in explicit:
            raise ValueError("give the agents: --agents a,b,... (or --config FILE, or "
                             "--resume RUN_DIR); --panel adds a panel's members to them")
        values = {**DEFAULTS, **explicit}
        return TournamentConfig(agents=tuple(values.pop("agents")), rules=rules or {},
                                **values)
    if "agents" not in explicit and getattr(args, "panel", None) is not None:
        explicit["agents"] = [*base.agents, *panel_members(args.panel)]
    if rules is not None:
        explicit["rules"] = {**base.rules, **rules}
    return base.with_changes(**explicit)


def failure_policy_chosen(args: argparse.Namespace) -> bool:
    """Whether the user chose the failure policy (``--on-failure``, or ``on_failure`` in the
    tournament file), rather than taking the default."""
    if args.on_failure is not None:
        return True
    if args.resume is not None:
        return stored_choice(args.resume)
    if args.config is not None:
        from dixit_ai.files import read_yaml

        data = read_yaml(args.config)
        return isinstance(data, dict) and data.get("on_failure") is not None
    return False


def run_analyse(args: argparse.Namespace) -> int:
    """``--analyse PATH``: recompute the report from the records, strictly."""
    if args.resume is not None:
        raise ValueError("--analyse and --resume do not go together")
    refuse_run_options(args, RUN_ONLY, "--analyse")
    # The records are read and checked first (bad input: exit 2); once the report's folder is
    # announced, an error is a failure to write the report (exit 1).
    with running("writing the report", started=False) as work:
        results, files = analyse_folder(
            args.analyse, out=args.out, new_folder_in=None if args.out else "runs",
            n_resamples=args.resamples, rating_resamples=args.rating_resamples,
            allow_partial=args.allow_partial, overwrite=args.overwrite,
            announce=lambda folder: work.start(f"writing the report to {folder}"))
    run_dir = args.analyse if args.analyse.is_dir() else args.analyse.parent
    own_records = args.analyse.is_dir() or args.analyse.name == "games.jsonl"
    name = (read_config(run_dir).name if own_records and (run_dir / "config.json").exists()
            else args.analyse.name)
    if results.dropped:
        print(f"warning: {results.dropped} unreadable record(s) of {results.source} dropped "
              "(--allow-partial); the report says so", file=sys.stderr)
    for note in results.notes:
        print(f"warning: {note}; the report says so", file=sys.stderr)
    settings = results.settings or "Bootstrap settings: the run's own"
    print(f"{settings}: "
          f"{results.n_resamples} resamples, {results.rating_resamples} for the ratings, seed "
          f"{results.seed}", file=sys.stderr)
    print_leaderboard(results, title=f"Tournament {name}")
    _print_files(files)
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    if ((args.resamples is not None and args.resamples < 1)
            or (args.rating_resamples is not None and args.rating_resamples < 0)):
        raise ValueError("--resamples must be at least 1 and --rating-resamples at least 0")
    for flag, value in (("--resamples", args.resamples),
                        ("--rating-resamples", args.rating_resamples)):
        if value is not None:
            check_at_most(flag, value, MAX_RESAMPLES)
    if args.analyse is not None:
        return run_analyse(args)
    # --resamples / --rating-resamples left out stay None: run_tournament then takes a resumed
    # run's own settings (a new run, the defaults), as --analyse does.
    if args.allow_partial or args.overwrite:
        raise ValueError("--allow-partial and --overwrite go with --analyse")
    if args.resume is not None and args.out is not None:
        raise ValueError(f"--out does not go with --resume: a resumed run goes on in its own "
                         f"folder ({args.resume})")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")
    stall_after = stall_warning(args.stall_warning)
    if args.workers is not None:
        check_at_most("--workers", args.workers, MAX_WORKERS)
    for flag, value, least in (("--games", args.games, 1), ("--players", args.players, 1),
                               ("--seed", args.seed, 0), ("--max-rounds", args.max_rounds, 1)):
        if value is not None and value < least:  # named as given, before any file is read
            raise ValueError(f"{flag} must be at least {least}, not {value}")
    config = build_config(args)
    config.validate()
    # games from --games, a tournament file or a resumed run's config.json: the schedule of
    # more would exhaust memory before the first game.
    check_at_most("--games" if args.games is not None else "games", config.games, MAX_GAMES)
    chosen = failure_policy_chosen(args)
    cores = os.cpu_count() or 1
    notes: list[str] = []  # printed once the run begins, not above an error that refuses it
    if args.workers is None:
        args.workers = max(1, min(cores, config.games))
    elif (args.backend or "local") == "local" and min(args.workers, config.games) > cores:
        # Allowed (agents that wait on a server, over HTTP, gain from more), but said: each
        # worker makes its own agents, and models that compute share the cores.
        notes.append(f"note: {args.workers} workers on {cores} CPU "
                     f"core{'s' if cores != 1 else ''}: agents that compute share the cores "
                     "(only agents that wait, such as HTTP agents, gain from more workers than "
                     "cores), and each worker loads its own agents' models")
    period = balance_period(len(config.agents), config.players)
    if config.games < games_to_seat_everyone(len(config.labels), config.players):
        left = unseated(schedule_of(config), config.labels)
        notes.append(f"note: {unseated_note(left, config)}; they stand last, with no figures")
    folder: list[Path] = []
    # run_tournament checks the config, the deck and a resumed folder first (bad input: exit
    # 2); once it announces the run folder the games begin, and an error is a failure of the
    # run (exit 1): the games recorded so far are kept.
    with running("the tournament", started=False) as work:

        def announce(path: Path, already: int, total: int) -> None:
            folder.append(path)
            work.start(f"the tournament in {path}",
                       then=f"the games recorded so far are kept; continue with: dixit-ai "
                            f"tournament --resume {path}")
            if total % period:
                notes.append(f"note: the number of games, {total}, is not a multiple of "
                             f"{period}: the seats are balanced up to the last, incomplete "
                             "rotation")
            for note in notes:
                print(note, file=sys.stderr)
            done = f" ({already} of {total} games already played)" if already else ""
            print(f"run folder: {path}{done}", file=sys.stderr, flush=True)

        try:
            outcome = run_tournament(
                config, out=args.out or Path("runs"), resume=args.resume,
                workers=args.workers, backend=args.backend or "local", address=args.address,
                progress=not args.no_progress, n_resamples=args.resamples,
                rating_resamples=args.rating_resamples, announce=announce, log=progress_line,
                on_failure_chosen=chosen or None, stall_after=stall_after)
        except EveryGameAborted:
            work.then = ""   # nothing is left to play: no --resume to suggest
            shown, failures = run_failures(folder[0], limit=FAILURES_SHOWN)
            for line in numbered_failure_lines(((0, record) for record in shown),
                                               total=failures):
                print(line, file=sys.stderr)
            raise
        except KeyboardInterrupt:
            if folder:
                print(f"\ninterrupted; the games played so far are in {folder[0]}; continue "
                      f"with: dixit-ai tournament --resume {folder[0]}", file=sys.stderr)
            return EXIT_INTERRUPTED
        if outcome.dropped_bytes:
            print(f"cut off an incomplete last record ({outcome.dropped_bytes} bytes) and "
                  "played that game again", file=sys.stderr)
        rate = outcome.played / outcome.elapsed if outcome.elapsed > 0 else 0.0
        # as many workers start as there are games to play, at most
        used = min(args.workers, outcome.played)
        print(f"played {outcome.played} game{'' if outcome.played == 1 else 's'} in "
              f"{outcome.elapsed:.1f} s ({rate:.2f} games/s; {used} "
              f"worker{'' if used == 1 else 's'}, {args.backend or 'local'})", file=sys.stderr)
        if outcome.results is not None:
            print_leaderboard(outcome.results, title=f"Tournament {config.name}")
            _print_files(outcome.files)
        shown, failures = run_failures(outcome.folder, limit=FAILURES_SHOWN)
    for line in numbered_failure_lines(((0, record) for record in shown), total=failures):
        print(line, file=sys.stderr)
    return failure_status(failures, config.on_failure, chosen=chosen)


def stall_warning(seconds: float | None) -> float | None:
    """``run_tournament``'s ``stall_after`` for ``--stall-warning`` (``None``: not given, the
    default; 0: no warning).

    Raises:
        ValueError: a negative, infinite or NaN value, or one above a week.
    """
    if seconds is None:
        return STALL_REPORT_AFTER
    if not (math.isfinite(seconds) and 0 <= seconds <= MAX_STALL_AFTER):
        raise ValueError(f"--stall-warning must be a number of seconds, 0 (off) or above, at "
                         f"most {MAX_STALL_AFTER:,.0f}, not {seconds:g}")
    return seconds or None


def _print_files(files: dict[str, Any]) -> None:
    for kind, path in files.items():
        print(f"{kind}: {path}")
