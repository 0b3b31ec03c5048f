"""How long a tournament of the clip agents takes, with 1 and with 2 worker processes.

The targets, on a 2-core machine with warm caches: ``--workers 2`` at least 1.8x faster than
``--workers 1`` on 40 games of four ``clip-*`` agents on 5 seats (issue 17), and 500 games in
under 10 minutes. Each configuration runs as its own ``dixit-ai tournament`` process, timed from
start to exit (Python start, imports, preparing the agents' embeddings, starting every worker,
games, report), after one short warm-up tournament that fills the embedding caches. The runs'
``games.jsonl`` must be identical, byte for byte (seeds are per game).

The figures come first, then one line per target and game count: met, MISSED, or not judged
(fewer than 40 games: start-up is most of such a run; one worker count: no speed-up). Exit status
1 if a target was missed, a tournament failed or the records differ
(:mod:`dixit_ai.cli.targets`), 2 on bad input.

    python scripts/bench_tournament.py --games 40       # the speed-up (about 1 min)
    python scripts/bench_tournament.py --games 40,500   # and the 500-game run (~10 min)
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from dixit_ai.cli.targets import Targets, too_small

DEFAULT_AGENTS = "clip-greedy,clip-expected,clip-obvious,clip-cryptic"
JUDGED_GAMES = 40
"""The least game count that judges the targets (the speed-up's is stated for 40 games)."""


@dataclass
class Args:
    """Command-line arguments (see ``--help``)."""

    games: list[int]
    """game counts of the tournaments, in order (each timed with every worker count)"""
    agents: str
    """comma-separated registry names"""
    players: int
    """seats per game"""
    edition: str
    """edition of the rules"""
    seed: int
    """seed of the tournament"""
    workers: list[int]
    """worker counts to time, in order (the first is the speed-up's reference)"""
    out: Path | None
    """where the run folders go (default: a temporary folder, removed afterwards)"""
    target_minutes: float
    """time target for the largest worker count, scaled to 500 games"""
    target_speedup: float
    """speed-up target of the largest worker count over the first"""


def _counts(parser: argparse.ArgumentParser, flag: str, text: str) -> list[int]:
    """A comma-separated list of counts, each at least 1 (``parser.error`` otherwise)."""
    try:
        counts = [int(c) for c in text.split(",") if c.strip()]
    except ValueError:
        parser.error(f"{flag} must be whole numbers, comma-separated, not {text!r}")
    if not counts:
        parser.error(f"{flag} must name at least one count, not {text!r}")
    if min(counts) < 1:
        parser.error(f"{flag} must be at least 1, not {min(counts)}")
    return counts


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="40",
                        help="game counts, comma-separated (default 40; 40,500 for both)")
    parser.add_argument("--agents", default=DEFAULT_AGENTS,
                        help=f"comma-separated registry names (default {DEFAULT_AGENTS})")
    parser.add_argument("--players", type=int, default=5, help="seats per game (default 5)")
    parser.add_argument("--edition", default="refresh-2021", help="edition (default refresh-2021)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the tournament (default 0)")
    parser.add_argument("--workers", default="1,2",
                        help="worker counts to time, comma-separated (default 1,2)")
    parser.add_argument("--out", type=Path, default=None,
                        help="keep the run folders here (default: a temporary folder)")
    parser.add_argument("--target-minutes", type=float, default=10.0,
                        help="target for the fastest run, scaled to 500 games (default 10)")
    parser.add_argument("--target-speedup", type=float, default=1.8,
                        help="target speed-up of the last worker count (default 1.8)")
    ns = parser.parse_args(argv)
    games, workers = (_counts(parser, flag, text) for flag, text in
                      (("--games", ns.games), ("--workers", ns.workers)))
    return Args(games, ns.agents, ns.players, ns.edition, ns.seed, workers, ns.out,
                ns.target_minutes, ns.target_speedup)


def tournament(args: Args, out: Path, games: int, workers: int) -> tuple[float, float, Path]:
    """Run one ``dixit-ai tournament`` process.

    Returns:
        Its wall time, the time it reports for playing the games (workers started, models
        loaded and games played; not Python's start, imports or the report), and its run folder.
    """
    folder = out / f"workers-{workers}-games-{games}"
    command = [sys.executable, "-m", "dixit_ai.cli", "tournament", "--agents", args.agents,
               "--players", str(args.players), "--edition", args.edition, "--games", str(games),
               "--seed", str(args.seed), "--workers", str(workers), "--out", str(folder),
               "--no-progress"]
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"FAILED: {' '.join(command)}:\n{result.stdout}\n{result.stderr}")
    (run,) = folder.glob("tournament__*")
    played = re.search(r"played \d+ games in ([0-9.]+) s", result.stderr)
    return elapsed, float(played.group(1)) if played else float("nan"), run


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as scratch:
        out = args.out or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        print(f"warm-up: a {args.players}-game tournament fills the caches ...", flush=True)
        warm, _, _ = tournament(args, out / "warm-up", args.players, 1)
        print(f"  {warm:.1f} s")
        targets = Targets()
        for games in args.games:
            bench_games(args, out, games, targets)
        return targets.report()


def bench_games(args: Args, out: Path, games: int, targets: Targets) -> None:
    """Time one game count with every worker count; print the table; judge it in
    ``targets``."""
    timings: list[tuple[int, float, Path]] = []
    for workers in args.workers:
        print(f"{games} games, {workers} worker(s) ...", flush=True)
        elapsed, playing, run = tournament(args, out, games, workers)
        timings.append((workers, elapsed, run))
        print(f"  {elapsed:.1f} s end to end, {playing:.1f} s of it starting workers and "
              f"playing ({games / elapsed:.2f} games/s end to end)", flush=True)
    reference = timings[0]
    identical = all(filecmp.cmp(reference[2] / "games.jsonl", run / "games.jsonl",
                                shallow=False) for _, _, run in timings[1:])
    print()
    print(f"{games} games of {args.agents} on {args.players} seats "
          f"({args.edition}, seed {args.seed}), {os.cpu_count()} CPUs")
    print(f"{'workers':>7}  {'seconds':>8}  {'games/s':>7}  {'speed-up':>8}  "
          f"{'500 games (min)':>15}")
    for workers, elapsed, _ in timings:
        print(f"{workers:>7}  {elapsed:>8.1f}  {games / elapsed:>7.2f}  "
              f"{reference[1] / elapsed:>7.2f}x  {elapsed * 500 / games / 60:>15.1f}")
    fastest = min(elapsed for _, elapsed, _ in timings)
    minutes = fastest * 500 / games / 60
    print(f"records identical across worker counts: {identical}")
    print(flush=True)
    if not identical:
        targets.fail(f"{games} games: the records differ across worker counts")
    unjudged = too_small("games", games, JUDGED_GAMES)
    fastest_name = f"time of 500 games{'' if games == 500 else f' (from {games} games)'}"
    targets.below(fastest_name, minutes, args.target_minutes, unit=" min", digits=1,
                  unjudged=unjudged)
    name = f"speed-up of {timings[-1][0]} workers over {reference[0]} ({games} games)"
    if len(timings) > 1:
        targets.at_least(name, reference[1] / timings[-1][1], args.target_speedup, unit="x",
                         unjudged=unjudged)
    else:
        targets.not_judged(name, "one worker count timed")


if __name__ == "__main__":
    sys.exit(main())
