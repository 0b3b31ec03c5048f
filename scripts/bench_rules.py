"""Benchmark: random-agent simulation throughput of the rules engine and match runner.

Plays seeded games of random agents through ``dixit_ai.play_game`` (rules, observer, agents and
records together) for each edition and player count, pinned to one core, and prints rounds per
second and games per second. The target for the README: at least 5,000 rounds per second for 5
players on one core.

Then the batched engine (:mod:`dixit_ai.rules.batched`), on the same core: 1,000 parallel
refresh-2021 5-player games of batched random agents, every move checked against the legality
masks, every round kept as the arrays that build its GameRecord (converted lazily; the
conversion is timed on its own row), games restarting as they end; then learner steps through
:class:`envs.vector.DixitVectorEnv` with embedding opponents (targets: 500,000 rounds/s and
50,000 learner steps/s).

Then one line per target (met, MISSED, or not judged on a run smaller than the defaults: fewer
games per cell, fewer parallel games or seconds per batched row); exit status 1 if a target was
missed (:mod:`dixit_ai.cli.targets`), 2 on bad input.

    python scripts/bench_rules.py                 # every edition, 3-6 players, then batched
    python scripts/bench_rules.py --games 50 --players 5 --json bench.json
    python scripts/bench_rules.py --batched-only --seconds 5
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.cli.common import check_at_least, check_out_file
from dixit_ai.cli.targets import Targets, too_small
from dixit_ai.match import game_seeds
from dixit_ai.rules import EDITIONS, RuleSet

VARIANT_ROWS: tuple[tuple[str, int, dict[str, object]], ...] = (
    ("odyssey-2011", 6, {"teams": True}),
    ("odyssey-2011", 8, {"teams": True}),
    ("odyssey-2011", 6, {"mode": "party"}),
    ("odyssey-2011", 8, {"mode": "party"}),
)
"""The Team Dixit and Dixit Party rows (each game: every player tells once)."""

GAMES = 200
"""Games per scalar cell by default, and the least that judges the scalar target."""
BATCHED_GAMES = 1000
"""Parallel games of the batched rows by default, and the least that judges their targets."""
SECONDS = 3.0
"""Seconds per batched row by default, and the least that judges their targets."""
TARGET_ROUNDS_PER_S = 5_000.0
"""Scalar engine and match runner, 5 players, one core."""
TARGET_BATCHED_ROUNDS_PER_S = 500_000.0
"""Batched engine, 1,000 parallel refresh-2021 5-player games, one core."""
TARGET_LEARNER_STEPS_PER_S = 50_000.0
"""DixitVectorEnv with embedding opponents, 1,000 envs, one core."""


def measure(edition: str, n_players: int, games: int, seed: int, repeats: int,
            **overrides: Any) -> dict[str, float]:
    """Best of ``repeats`` runs of ``games`` games (the least disturbed by other processes)."""
    best: dict[str, float] = {}
    for _ in range(repeats):
        rounds = 0
        started, cpu = time.perf_counter(), time.process_time()
        for game_seed in game_seeds(seed, games):
            agents = [RandomAgent() for _ in range(n_players)]
            record = play_game(agents, edition=edition, deck=range(84), seed=game_seed,
                               **overrides)
            rounds += len(record.rounds)
        elapsed, cpu_elapsed = time.perf_counter() - started, time.process_time() - cpu
        if not best or rounds / elapsed > best["rounds_per_s"]:
            best = {"rounds_per_s": rounds / elapsed, "games_per_s": games / elapsed,
                    "rounds_per_game": rounds / games, "seconds": elapsed,
                    "rounds_per_cpu_s": rounds / cpu_elapsed}
    return best


def measure_batched(n_games: int, seconds: float, record: bool, seed: int) -> dict[str, float]:
    """Rounds per second of ``n_games`` lockstep refresh-2021 5-player random games."""
    from dixit_ai.batched import BatchedRandomAgent, play_rounds
    from dixit_ai.rules.batched import BatchedGames

    games = BatchedGames(RuleSet.edition("refresh-2021"), 5, n_games, seed=seed, record=record)
    agents = [BatchedRandomAgent(seed)] * 5
    play_rounds(games, agents, 30)  # warm up: the first cohorts of draws, every code path
    games.take_finished()
    games.release()
    finished_before = games.games_finished
    rounds = 0
    started, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        active = int(games.active.sum())
        play_rounds(games, agents, 10)
        rounds += 10 * active  # every slot is always active (games restart as they end)
    elapsed, cpu_elapsed = time.perf_counter() - started, time.process_time() - cpu
    finished = games.games_finished - finished_before
    cell = {"rounds_per_s": rounds / elapsed, "rounds_per_cpu_s": rounds / cpu_elapsed,
            "games_per_s": finished / elapsed, "rounds_per_game": rounds / max(finished, 1),
            "seconds": elapsed, "log_rows": len(games.log)}
    if record:
        from dixit_ai.batched import CLUE_WORDS, to_records
        from dixit_ai.replay import replay_record

        taken = games.take_finished()[:2000]
        started, cpu = time.perf_counter(), time.process_time()
        records = to_records(games, taken, clues=CLUE_WORDS)
        convert, convert_cpu = time.perf_counter() - started, time.process_time() - cpu
        for record_ in records[:200]:
            replay_record(record_)
        converted = sum(len(r.rounds) for r in records)
        cell.update(records_per_s=len(records) / convert, record_rounds_per_s=converted / convert,
                    record_rounds_per_cpu_s=converted / convert_cpu)
    return cell


def measure_vector_env(n_envs: int, seconds: float, seed: int) -> dict[str, float]:
    """Learner steps per second through the batched env with embedding opponents."""
    from envs.vector import DixitVectorEnv
    from envs.vectors import VectorTable

    vocabulary = [f"clue {i}" for i in range(3527)]  # the players' vocabulary size
    table = VectorTable.random(range(84), vocabulary, dim=64, seed=seed)
    env = DixitVectorEnv(n_envs, n_players=5, opponents="embedding", vectors=table,
                         vector_observations=False, seed=seed)
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    c, v = env.choices, len(env.clues)

    def learner(obs: dict[str, np.ndarray], mask: np.ndarray) -> np.ndarray:
        # A cheap random legal learner: the timing is the environment's, not a policy's.
        first = np.argmax(rng.random((n_envs, c)) * mask[:, :c], axis=1)
        telling = obs["storyteller"] == obs["seat"]
        clue = np.where(telling, rng.integers(0, v, n_envs), 0)
        second = mask[:, c + v:].astype(float) * rng.random((n_envs, c + 1))
        second[np.arange(n_envs), first] = 0
        second[:, c] += 1e-9
        return np.stack([first, clue, np.argmax(second, axis=1)], axis=1)

    for _ in range(20):
        obs, _, _, _, info = env.step(learner(obs, info["action_mask"]))
    steps = 0
    in_env = 0.0
    started, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        action = learner(obs, info["action_mask"])
        tick = time.perf_counter()
        obs, _, _, _, info = env.step(action)
        in_env += time.perf_counter() - tick
        steps += n_envs
    elapsed, cpu_elapsed = time.perf_counter() - started, time.process_time() - cpu
    return {"steps_per_s": steps / elapsed, "env_steps_per_s": steps / in_env,
            "steps_per_cpu_s": steps / cpu_elapsed, "seconds": elapsed}


def batched_rows(args: argparse.Namespace, targets: Targets) -> list[dict[str, object]]:
    """The batched engine's rows: printed, judged in ``targets``, and returned for --json."""
    unjudged = (too_small("parallel games", args.batched_games, BATCHED_GAMES)
                or too_small("seconds per row", args.seconds, SECONDS))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nbatched engine: {args.batched_games:,} parallel refresh-2021 5-player games, "
          f"batched random agents, one core, legality checks on, {args.seconds:.0f} s per row "
          f"(load average {load:.1f} on {os.cpu_count()} cores, nice {os.nice(0)})")
    rows: list[dict[str, object]] = []
    for record in (True, False):
        cell = measure_batched(args.batched_games, args.seconds, record, args.seed)
        label = "with round records" if record else "no records"
        print(f"  {label:<20} {cell['rounds_per_s']:>11,.0f} rounds/s  "
              f"({cell['rounds_per_cpu_s']:,.0f} per CPU second, "
              f"{cell['games_per_s']:,.0f} games/s, {cell['rounds_per_game']:.1f} rounds/game)"
              f"  target {TARGET_BATCHED_ROUNDS_PER_S:,.0f}", flush=True)
        targets.at_least(f"batched engine rounds/s, {label}", cell["rounds_per_s"],
                         TARGET_BATCHED_ROUNDS_PER_S, unit=" rounds/s", digits=0,
                         unjudged=unjudged)
        rows.append({"engine": "batched", "records": record, **cell})
        if record:
            print(f"  {'GameRecord building':<20} {cell['record_rounds_per_s']:>11,.0f} rounds/s "
                  f"({cell['record_rounds_per_cpu_s']:,.0f} per CPU second, "
                  f"{cell['records_per_s']:,.0f} records/s; lazily, outside the row above; "
                  f"200 of them replayed through the scalar engine)", flush=True)
    cell = measure_vector_env(args.batched_games, args.seconds, args.seed)
    print(f"  {'vector env':<20} {cell['steps_per_s']:>11,.0f} learner steps/s "
          f"({cell['steps_per_cpu_s']:,.0f} per CPU second, {cell['env_steps_per_s']:,.0f} "
          f"counting env.step alone; embedding opponents, {args.batched_games:,} envs)"
          f"  target {TARGET_LEARNER_STEPS_PER_S:,.0f}", flush=True)
    targets.at_least("vector env learner steps/s", cell["steps_per_s"],
                     TARGET_LEARNER_STEPS_PER_S, unit=" steps/s", digits=0, unjudged=unjudged)
    rows.append({"engine": "vector-env", **cell})
    return rows


def check_args(args: argparse.Namespace) -> None:
    """Refuse settings the benchmark cannot measure, before anything runs.

    Raises:
        ValueError: a count below 1, a player count that no chosen edition allows (a row of no
            edition would leave the table empty), a ``--json`` file that cannot be written
            (found only after every row was measured, it lost them all); the message names the
            flag and its limit.
    """
    check_at_least(args, (("games", 1), ("repeats", 1)))
    if args.batched_only and args.no_batched:
        raise ValueError("--batched-only and --no-batched together measure nothing; give one "
                         "of them")
    if not args.no_batched:
        check_at_least(args, (("batched_games", 1),))
        if not args.seconds > 0:
            raise ValueError(f"--seconds must be above 0, not {args.seconds:g}")
    if not args.batched_only and not args.editions:
        raise ValueError(f"--editions names no edition; give one or more of "
                         f"{', '.join(EDITIONS)}, or leave it out for all")
    if not args.batched_only:
        ranges = {e: RuleSet.edition(e) for e in args.editions}
        for n in args.players:
            if not any(r.min_players <= n <= r.max_players for r in ranges.values()):
                allowed = ", ".join(f"{e} {r.min_players}-{r.max_players}"
                                    for e, r in ranges.items())
                raise ValueError(f"--players {n}: no chosen edition is for {n} players "
                                 f"({allowed})")
    if args.json:
        check_out_file(Path(args.json), "--json")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=GAMES, help="games per measurement")
    parser.add_argument("--repeats", type=int, default=3, help="runs per cell; the best counts")
    parser.add_argument("--editions", nargs="*", default=list(EDITIONS), choices=EDITIONS)
    parser.add_argument("--players", type=int, nargs="*", default=[3, 4, 5, 6])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the table here")
    parser.add_argument("--batched-games", type=int, default=BATCHED_GAMES,
                        help="parallel games of the batched rows")
    parser.add_argument("--seconds", type=float, default=SECONDS,
                        help="seconds per batched row")
    parser.add_argument("--batched-only", action="store_true", help="only the batched rows")
    parser.add_argument("--no-batched", action="store_true", help="skip the batched rows")
    parser.add_argument("--no-variants", action="store_true",
                        help="skip the Team Dixit and Dixit Party rows")
    args = parser.parse_args(argv)
    try:
        check_args(args)
    except ValueError as error:
        parser.error(str(error))  # exit 2, nothing measured

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {platform.python_version()} on {platform.machine()}, one core, "
          f"{args.games} games per cell, best of {args.repeats} (load average {load:.1f} on "
          f"{os.cpu_count()} cores; rounds/CPU s counts this process's CPU time only)")
    rows: list[dict[str, object]] = []
    targets = Targets()
    if args.batched_only:
        args.editions = []
    else:
        print(f"{'edition':<20} {'players':>7} {'rounds/s':>10} {'games/s':>9} "
              f"{'rounds/game':>12} {'rounds/CPU s':>13}")
    for edition in args.editions:
        rules = RuleSet.edition(edition)
        for n in args.players:
            if not rules.min_players <= n <= rules.max_players:
                continue
            cell = measure(edition, n, args.games, args.seed, args.repeats)
            rows.append({"edition": edition, "players": n, **cell})
            print(f"{edition:<20} {n:>7} {cell['rounds_per_s']:>10,.0f} "
                  f"{cell['games_per_s']:>9,.1f} {cell['rounds_per_game']:>12.1f} "
                  f"{cell['rounds_per_cpu_s']:>13,.0f}", flush=True)
            if n == 5:
                targets.at_least(f"rounds/s, {edition} 5 players", cell["rounds_per_s"],
                                 TARGET_ROUNDS_PER_S, unit=" rounds/s", digits=0,
                                 unjudged=too_small("games per cell", args.games, GAMES))
    if not (args.batched_only or args.no_variants):
        for edition, n, overrides in VARIANT_ROWS:
            label = "teams" if overrides.get("teams") else "party"
            cell = measure(edition, n, args.games, args.seed, args.repeats, **overrides)
            rows.append({"edition": edition, "players": n, "variant": label, **cell})
            print(f"{edition + ' ' + label:<20} {n:>7} {cell['rounds_per_s']:>10,.0f} "
                  f"{cell['games_per_s']:>9,.1f} {cell['rounds_per_game']:>12.1f} "
                  f"{cell['rounds_per_cpu_s']:>13,.0f}", flush=True)
    if not args.no_batched:
        rows.extend(batched_rows(args, targets))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=2)
    return targets.report()


if __name__ == "__main__":
    raise SystemExit(main())
