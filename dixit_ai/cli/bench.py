"""``dixit-ai bench``: rank embedders and agents at Dixit on fixed, seeded items.

Examples::

    dixit-ai bench --models default,clip-greedy,random --tasks guess,decoy,tell --items 50
    dixit-ai bench --config configs/bench/default.yaml --seed 1
    dixit-ai bench --models default,clip-population --tasks tell --panel panel-heldout
    dixit-ai bench --analyse runs/bench__default__0__20260101T000000Z --out report/
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    FAILURES_SHOWN,
    MAX_ITEMS,
    MAX_RESAMPLES,
    check_at_most,
    failure_status,
    progress_line,
    refuse_run_options,
    running,
)

MODELS_EXTRA_HINT = "pip install 'dixit-ai[models]'"


def register(subparsers: Any) -> None:
    """Add the ``bench`` subcommand to the ``dixit-ai`` parser."""
    parser = subparsers.add_parser(
        "bench", help="benchmark embedders and agents: guess, decoy, tell",
        description="Rank image-text models (embedders) and agents at Dixit on seeded item "
                    "sets: guess (find the storyteller's card for clues of increasing "
                    "difficulty), decoy (draw votes from reference guessers) and tell (some but "
                    "not all reference guessers find the card; calibration). Writes "
                    "runs/bench__<name>__<seed>__<time>/ with the records, results.csv, "
                    "results.json, plots and report.md, and prints the leaderboard.",
        epilog="Settings given on the command line override those of --config. An agent's "
               "failed decision (an error, an illegal move) scores 0, is recorded and counted "
               "in the invalid-answer rate, and is printed; the run then exits with status 1.")
    parser.add_argument("--config", type=Path, default=None,
                        help="a bench YAML file (see configs/bench/)")
    parser.add_argument("--models", default=None,
                        help="comma-separated embedders (default, openclip:..., hf:...), "
                             "text-only oracles (oracle:default: cards read as their "
                             "captions) and registered agents (clip-greedy, random, HTTP "
                             "agents...); default: default")
    parser.add_argument("--tasks", default=None,
                        help="comma-separated tasks among guess, decoy, tell (default: all); "
                             "tell plays agents' stories, so it needs an agent among the "
                             "models")
    parser.add_argument("--seed", type=int, default=None, help="seed (default 0)")
    parser.add_argument("--items", type=int, default=None,
                        help="items per task and clue kind (default 50)")
    parser.add_argument("--out", default=None,
                        help="folder of run folders (default: runs); with --analyse, the folder "
                             "the report is written to (default: a new run folder "
                             "runs/bench-analysis__<name>__<seed>__<time>)")
    parser.add_argument("--name", default=None,
                        help="the run's name (default: the config's name, else the models "
                             "joined by '+', or their count past 64 characters: '7-models')")
    parser.add_argument("--deck", default=None, help="deck spec (default: dream)")
    parser.add_argument("--board-size", type=int, default=None,
                        help="cards on a guess board, 3 to 7 (default 6)")
    parser.add_argument("--reference", default=None,
                        help="embedder of the reference players (default: default)")
    parser.add_argument("--panel", default=None, metavar="PANEL",
                        help="also play the tell task against a guesser panel: a named panel "
                             "(panel, panel-heldout, panel-family, panel-derived) or member "
                             "names separated by commas (panel-sibling,lite2-mpnet); needs the "
                             "tell task and an agent to tell. A storyteller that simulates "
                             "with a member's model is refused")
    parser.add_argument("--tell-cards", default=None, choices=("all", "half-a", "half-b"),
                        help="the cards the tell task deals the storytellers' hands from "
                             "(default all): one fixed half of the deck, to develop a "
                             "storyteller on one half's stories and hold it out on the other's")
    parser.add_argument("--device", default=None, help="cpu, cuda or auto (default: cpu)")
    parser.add_argument("--bootstrap", type=int, default=None,
                        help="bootstrap resamples per interval (default 2000)")
    parser.add_argument("--analyse", type=Path, default=None, metavar="RUN_FOLDER",
                        help="recompute every figure of an earlier run from its records "
                             "(runs nothing else). An empty, torn or corrupt records.jsonl is "
                             "refused, naming the file and line; the report goes to --out, "
                             "never over an earlier one")
    parser.add_argument("--allow-partial", action="store_true",
                        help="with --analyse: drop unreadable records instead of refusing "
                             "the file; the report says how many were dropped")
    parser.add_argument("--overwrite", action="store_true",
                        help="with --analyse: replace a report already in the --out folder")
    parser.add_argument("--on-failure", choices=("abort", "forfeit"), default=None,
                        help="what an agent's failed decision costs: forfeit (the default: "
                             "the item scores 0 and counts as invalid) or abort (stop the "
                             "benchmark). Failures are always recorded and printed; they make "
                             "the exit status 1 unless forfeit is chosen")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


RUN_ONLY = {"config": "--config", "models": "--models", "tasks": "--tasks", "seed": "--seed",
            "items": "--items", "name": "--name", "deck": "--deck", "board_size": "--board-size",
            "reference": "--reference", "panel": "--panel", "tell_cards": "--tell-cards",
            "device": "--device",
            "bootstrap": "--bootstrap", "on_failure": "--on-failure"}
"""The options of a new run, which ``--analyse`` refuses (it recomputes the run's own)."""


def _bench_module() -> Any:
    try:
        import models.bench as bench
    except ImportError as error:
        raise ValueError(
            f"dixit-ai bench needs the models extra ({error}); install it with: "
            f"{MODELS_EXTRA_HINT}") from error
    return bench


def default_name(models: Any) -> str:
    """A run named after its models: their labels joined by ``+`` (short), else their count."""
    if isinstance(models, str):
        models = [m.strip() for m in models.split(",") if m.strip()]
    labels = [str(m.get("label") or m.get("name")) if isinstance(m, dict) else str(m)
              for m in models or ["default"]]
    joined = "+".join(labels)
    return joined if len(joined) <= 64 else f"{len(labels)}-models"


def _named_in(path: Path) -> bool:
    from dixit_ai.files import read_yaml

    data = read_yaml(path)
    return isinstance(data, dict) and bool(data.get("name"))


def check_out_folder(out: str | Path | None) -> None:
    """Refuse an ``--out`` that is a file (it names a folder), before anything runs.

    Raises:
        ValueError: naming it (:func:`dixit_ai.reporting.check_folder_path`).
    """
    from dixit_ai.reporting import check_folder_path

    if out is not None:
        check_folder_path(out, "--out")


def partial_folder(folder: Path) -> str:
    """What to do with ``folder``, a run folder that a failure left partial."""
    return (f"{folder} is left partial: `dixit-ai bench --analyse {folder} --allow-partial` "
            "reports on the records it holds; or fix what failed, remove it and run the "
            "benchmark again")


def run_analyse(args: argparse.Namespace, bench: Any) -> int:
    """``--analyse RUN_FOLDER``: every figure again, from the records, strictly."""
    from dixit_ai.reporting import run_folder
    from models.bench.config import check_run_header

    source = args.analyse
    refuse_run_options(args, RUN_ONLY, "--analyse")
    check_out_folder(args.out)
    # The records and the header are checked before any folder is made.
    header, _ = bench.read_run(source, allow_partial=args.allow_partial)
    settings = check_run_header(header, source / "bench.json")
    if header.get("finished") is False:
        stopped = (f"an aborted benchmark ({header['aborted']})" if header.get("aborted")
                   else "an interrupted benchmark")
        print(f"warning: {source} is the run folder of {stopped}: its figures cover only the "
              "records it holds", file=sys.stderr)
    targets: list[Path] = []

    def new_report_folder() -> Path:  # made once analyse has read the records again
        return run_folder("bench-analysis", settings.name, settings.seed)

    # analyse reads and checks the records again (and refuses a report already in --out
    # without --overwrite): bad input, exit 2, and no folder made; once it announces the
    # report's folder, an error is a failure to write the report (exit 1).
    with running("writing the report", started=False) as work:

        def announce(folder: Path) -> None:
            targets.append(folder)
            again = ("run the same command again with --overwrite" if args.out is not None
                     else "remove it and run the same command again")
            work.start(f"writing the report to {folder}",
                       then=f"{folder} is left partial: fix what failed and {again}")

        results = bench.analyse(source, out=Path(args.out) if args.out is not None
                                else new_report_folder, allow_partial=args.allow_partial,
                                overwrite=args.overwrite if args.out is not None else True,
                                announce=announce)
    (target,) = targets
    dropped = results["run"].get("dropped_records")
    if dropped:
        print(f"warning: {dropped} unreadable record(s) of {source / 'records.jsonl'} dropped "
              "(--allow-partial); the report says so", file=sys.stderr)
    print(f"recomputed from the records of {source}: {target}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run (or re-analyse) a benchmark; returns the exit status."""
    bench = _bench_module()
    if args.analyse is not None:
        return run_analyse(args, bench)
    if args.allow_partial or args.overwrite:
        raise ValueError("--allow-partial and --overwrite go with --analyse")
    check_out_folder(args.out)
    overrides = {
        "models": args.models, "tasks": args.tasks, "seed": args.seed, "items": args.items,
        "out": args.out, "name": args.name, "deck": args.deck, "board_size": args.board_size,
        "reference": args.reference, "device": args.device, "bootstrap": args.bootstrap,
        "panel": args.panel, "tell_cards": args.tell_cards,
    }
    if args.config is not None:
        config = bench.load_bench_config(args.config, **overrides)
        named = args.name is not None or _named_in(args.config)
    else:
        config = bench.BenchConfig(**{k: v for k, v in overrides.items() if v is not None})
        named = args.name is not None
    # The tasks and models become lists ('guess' is not g, u, e, s, s), and tasks that the
    # models would leave with nothing to play (the tell task of embedders alone, a panel
    # without the tell task) are refused: BenchConfig.check_tasks_play.
    specs = config.validate()
    # A count from the flags or the file that would take days to draw (items) or exhaust
    # memory (the bootstrap's indices, drawn once the records are written) is refused here.
    check_at_most("--items" if args.items is not None else "items", config.items, MAX_ITEMS)
    check_at_most("--bootstrap" if args.bootstrap is not None else "bootstrap",
                  config.bootstrap, MAX_RESAMPLES)
    if not named:
        config.name = default_name(config.models)
    on_failure = args.on_failure or "forfeit"
    from dixit_ai.agents import prepare_agents
    from dixit_ai.agents.requirements import check_agent_requirements
    from models.base import progress_to
    from models.bench.run import BenchInterrupted
    from models.players.panel import panel_agents

    # The agents are checked and loaded, and run_bench checks the settings, the deck and the
    # models (bad input: exit 2, nothing written); once it announces the run folder the records
    # are written, and an error is a failure of the run (exit 1) that leaves the folder partial.
    with running("the benchmark", started=False) as work:

        def announce(folder: Path) -> None:
            work.start(f"the benchmark in {folder}", then=partial_folder(folder))

        try:
            # Every agent and panel member has its packages, before anything is loaded or
            # embedded.
            check_agent_requirements([spec.name for spec in specs if spec.kind == "agent"]
                                     + (panel_agents(config.panel) if config.panel else []))
            # One-time steps (loading a model, embedding the cards and clues) say what they do.
            # A model that cannot load is bad input; the embeddings' cache is not the run's
            # output: one that cannot be written (a full disk) is a warning, and the run goes on.
            prepare_agents([(spec.name, spec.kwargs) for spec in specs if spec.kind == "agent"],
                           deck=config.deck, progress=progress_line)
            with progress_to(progress_line):
                outcome = bench.run_bench(config, progress=not args.no_progress,
                                          on_failure=on_failure, announce=announce)
        except ImportError as error:  # an agent whose optional dependency is missing
            raise ValueError(str(error)) from error
        except bench.BenchAborted as error:
            print(f"dixit-ai bench: stopped: {error}", file=sys.stderr)
            return EXIT_FAILED
        except BenchInterrupted as interrupted:
            print(f"dixit-ai bench: {interrupted}; `dixit-ai bench --analyse "
                  f"{interrupted.folder}` reports on them", file=sys.stderr)
            return EXIT_INTERRUPTED
        failures = print_invalid_answers(outcome.folder)
    return failure_status(failures, on_failure, chosen=args.on_failure is not None)


def print_invalid_answers(folder: Path, *, limit: int = FAILURES_SHOWN) -> int:
    """Print the benchmark's failed decisions (model, task, item, reason), the first ``limit``
    of them then a count, to stderr; return how many there were."""
    from dixit_ai.jsonl import read_jsonl

    failed = [record for record in read_jsonl(Path(folder) / "records.jsonl").records
              if record.get("invalid")]
    if failed:
        print(f"agent failures: {len(failed)} invalid answer(s), scored 0 (every one is in "
              f"{Path(folder) / 'records.jsonl'})", file=sys.stderr)
    for record in failed[:limit]:
        print(f"  {record['model']}, {record['task']} item {record['item']}: "
              f"{record.get('error') or 'invalid answer'}", file=sys.stderr)
    if len(failed) > limit:
        print(f"  ... and {len(failed) - limit} more", file=sys.stderr)
    return len(failed)
