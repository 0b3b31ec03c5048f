"""Benchmark: random-agent simulation throughput of the rules engine and match runner.

Plays seeded games of random agents through ``dixit_ai.play_game`` (rules, observer, agents and
records together) for each edition and player count, pinned to one core, and prints rounds per
second and games per second. The target for the README: at least 5,000 rounds per second for 5
players on one core.

    python scripts/bench_rules.py                 # every edition, 3-6 players
    python scripts/bench_rules.py --games 50 --players 5 --json bench.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.match import game_seeds
from dixit_ai.rules import EDITIONS, RuleSet


def measure(edition: str, n_players: int, games: int, seed: int, repeats: int) -> dict[str, float]:
    """Best of ``repeats`` runs of ``games`` games (the least disturbed by other processes)."""
    best: dict[str, float] = {}
    for _ in range(repeats):
        rounds = 0
        started = time.perf_counter()
        for game_seed in game_seeds(seed, games):
            agents = [RandomAgent() for _ in range(n_players)]
            record = play_game(agents, edition=edition, deck=range(84), seed=game_seed)
            rounds += len(record.rounds)
        elapsed = time.perf_counter() - started
        if not best or rounds / elapsed > best["rounds_per_s"]:
            best = {"rounds_per_s": rounds / elapsed, "games_per_s": games / elapsed,
                    "rounds_per_game": rounds / games, "seconds": elapsed}
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs per cell; the best counts")
    parser.add_argument("--editions", nargs="*", default=list(EDITIONS), choices=EDITIONS)
    parser.add_argument("--players", type=int, nargs="*", default=[3, 4, 5, 6])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the table here")
    args = parser.parse_args()

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    print(f"python {platform.python_version()} on {platform.machine()}, one core, "
          f"{args.games} games per cell, best of {args.repeats}")
    print(f"{'edition':<15} {'players':>7} {'rounds/s':>10} {'games/s':>9} {'rounds/game':>12}")
    rows = []
    for edition in args.editions:
        rules = RuleSet.edition(edition)
        for n in args.players:
            if not rules.min_players <= n <= rules.max_players:
                continue
            cell = measure(edition, n, args.games, args.seed, args.repeats)
            rows.append({"edition": edition, "players": n, **cell})
            print(f"{edition:<15} {n:>7} {cell['rounds_per_s']:>10,.0f} "
                  f"{cell['games_per_s']:>9,.1f} {cell['rounds_per_game']:>12.1f}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=2)


if __name__ == "__main__":
    main()
