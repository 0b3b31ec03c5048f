"""``dixit-ai bench``: rank embedders and agents at Dixit on fixed, seeded items.

Examples::

    dixit-ai bench --models default,clip-greedy,random --tasks guess,decoy,tell --items 50
    dixit-ai bench --config configs/bench/default.yaml --seed 1
    dixit-ai bench --analyse runs/bench__bench__0__20260101T000000Z   # recompute from records
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

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
        epilog="Settings given on the command line override those of --config.")
    parser.add_argument("--config", type=Path, default=None,
                        help="a bench YAML file (see configs/bench/)")
    parser.add_argument("--models", default=None,
                        help="comma-separated embedders (default, openclip:..., hf:...), "
                             "text-only oracles (oracle:default: cards read as their "
                             "captions) and registered agents (clip-greedy, random, HTTP "
                             "agents...); default: default")
    parser.add_argument("--tasks", default=None,
                        help="comma-separated tasks among guess, decoy, tell (default: all)")
    parser.add_argument("--seed", type=int, default=None, help="seed (default 0)")
    parser.add_argument("--items", type=int, default=None,
                        help="items per task and clue kind (default 50)")
    parser.add_argument("--out", default=None, help="folder of run folders (default: runs)")
    parser.add_argument("--name", default=None, help="the run's name (default: bench)")
    parser.add_argument("--deck", default=None, help="deck spec (default: dream)")
    parser.add_argument("--board-size", type=int, default=None,
                        help="cards on a guess board, 3 to 7 (default 6)")
    parser.add_argument("--reference", default=None,
                        help="embedder of the reference players (default: default)")
    parser.add_argument("--device", default=None, help="cpu, cuda or auto (default: cpu)")
    parser.add_argument("--bootstrap", type=int, default=None,
                        help="bootstrap resamples per interval (default 2000)")
    parser.add_argument("--analyse", type=Path, default=None, metavar="RUN_FOLDER",
                        help="recompute every figure of an earlier run from its records "
                             "(runs nothing else)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def _bench_module() -> Any:
    try:
        import models.bench as bench
    except ImportError as error:
        raise ValueError(
            f"dixit-ai bench needs the models extra ({error}); install it with: "
            f"{MODELS_EXTRA_HINT}") from error
    return bench


def run(args: argparse.Namespace) -> int:
    """Run (or re-analyse) a benchmark; returns the exit status."""
    bench = _bench_module()
    if args.analyse is not None:
        bench.analyse(args.analyse)
        print(f"recomputed from the records: {args.analyse}")
        return 0
    overrides = {
        "models": args.models, "tasks": args.tasks, "seed": args.seed, "items": args.items,
        "out": args.out, "name": args.name, "deck": args.deck, "board_size": args.board_size,
        "reference": args.reference, "device": args.device, "bootstrap": args.bootstrap,
    }
    if args.config is not None:
        config = bench.load_bench_config(args.config, **overrides)
    else:
        config = bench.BenchConfig(**{k: v for k, v in overrides.items() if v is not None})
    try:
        bench.run_bench(config, progress=not args.no_progress)
    except ImportError as error:  # an agent whose optional dependency is missing
        raise ValueError(str(error)) from error
    return 0
