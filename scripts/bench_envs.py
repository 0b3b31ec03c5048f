"""Benchmark: the environments' cost over the raw rules engine, with the same random agents.

Plays the same seeded games of random agents (``dixit_ai.agents.RandomAgent``) three ways and
checks that they end with the same scores:

- **raw**: the rules engine alone (``observe`` -> agent -> ``apply_action``), as the match runner
  plays, without records;
- **AEC**: ``envs.dixit_v0.env()`` (in its wrappers) through the canonical loop (``agent_iter``,
  ``last``, ``step``), the agents deciding through ``envs.agent_player.AgentPlayer``;
- **Parallel**: ``envs.dixit_v0.parallel_env()``, one ``step`` per simultaneous choice.

A *decision* is one choice an agent makes in the rules (a tell, a guesser's card(s), a vote): the
same count for the three. An AEC *step* is one environment turn (a 3-player guesser's two cards
are two steps, so are a first and a second vote). It prints decisions and steps per second, and the
overhead ratio: the AEC (or Parallel) time of the games over the raw time of the same games. The
target: the AEC environment costs at most 2x the raw engine per decision.

``--learner`` measures the single-agent environment ``dixit_ai/Dixit-v0`` as a learner sees it:
learner steps per second (a learner taking uniformly random legal actions; the other seats'
decisions are inside each step) for today's configuration (``ids`` observation, random
opponents), for ``clip-greedy`` opponents, and for the fast embedding opponents with ``ids`` and
with ``embedding`` observations (flat ``float32``, one ``Discrete`` action), and the
embedding/ids per-step cost ratio (target: at most 2x; >= 1,000 learner steps/s).

Then one line per target (met, MISSED, or not judged on a run smaller than the defaults: fewer
games per cell, fewer learner steps); exit status 1 if a target was missed or the three ways
disagree on a game's scores (:mod:`dixit_ai.cli.targets`), 2 on bad input.

    python scripts/bench_envs.py                  # the default cells
    python scripts/bench_envs.py --games 50 --cells refresh-2021:4 odyssey-2024:8 --json out.json
    python scripts/bench_envs.py --learner --learner-steps 5000  # learner steps/s
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.agents import RandomAgent
from dixit_ai.cli.common import check_at_least, check_out_file
from dixit_ai.cli.targets import Targets, too_small
from dixit_ai.match import decide, game_seeds, game_streams
from dixit_ai.rules import RuleSet, apply_action, new_game, observe
from envs import dixit_v0
from envs.agent_player import AgentPlayer

DECK = list(range(84))
CELLS = ("refresh-2021:4", "refresh-2021:3", "original-2008:5", "odyssey-2011:7", "odyssey-2024:8")
GAMES = 100
"""Games per cell by default, and the least that judges the overhead target."""
LEARNER_STEPS = 5000
"""Learner steps per configuration by default, and the least that judges the learner targets."""
DEFAULTS: dict[str, Any] = {"games": GAMES, "repeats": 3, "cells": list(CELLS),
                           "learner_steps": LEARNER_STEPS, "clip_steps": 300}
"""The flags' defaults (``None`` on the command line: a flag of the mode not run is refused)."""
TARGET_AEC_OVERHEAD = 2.0
"""The AEC environment's time over the raw engine's, per decision, at most."""
TARGET_EMBEDDING_COST_RATIO = 2.0
"""Per-step CPU cost of embedding observations over flat ids (embedding opponents), at most."""
TARGET_LEARNER_STEPS_PER_S = 1000.0
"""Learner steps/s of embedding observations with embedding opponents, at least."""
EMBEDDING_ROWS = ("embedding obs, embedding opponents",
                  "embedding obs (PCA 32), embedding opponents")


def raw_games(edition: str, n: int, seeds: list[int]) -> tuple[list[list[int]], int, int]:
    """The rules engine alone; returns final scores, decisions and (raw) steps."""
    rules = RuleSet.edition(edition)
    finals, decisions = [], 0
    for seed in seeds:
        streams = game_streams(seed, n)
        rng = np.random.default_rng(streams[0])
        state = new_game(rules, n, DECK, rng)
        agents = [RandomAgent() for _ in range(n)]
        for seat, agent in enumerate(agents):
            agent.reset(seat=seat, rng=np.random.default_rng(streams[seat + 1]))
        while not state.is_over:
            seat = state.pending[0]
            action, _notes, _prediction = decide(agents[seat], observe(state, seat))
            state = apply_action(state, action, rng)
            decisions += 1
        finals.append(list(state.scores))
    return finals, decisions, decisions


def aec_games(edition: str, n: int, seeds: list[int]) -> tuple[list[list[int]], int, int]:
    """The AEC environment in its wrappers, the canonical loop."""
    env = dixit_v0.env(edition=edition, n_players=n, deck=DECK)
    finals, steps = [], 0
    for seed in seeds:
        env.reset(seed=seed)
        players = {agent: AgentPlayer(RandomAgent()) for agent in env.possible_agents}
        for agent, player in players.items():
            player.reset(env, agent)
        for agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            action = None if termination or truncation else players[agent].act(env, agent)
            env.step(action)
            steps += 1
        finals.append(list(env.unwrapped.core.state.scores))
    return finals, 0, steps


def parallel_games(edition: str, n: int, seeds: list[int]) -> tuple[list[list[int]], int, int]:
    """The Parallel environment: every acting agent acts in each step."""
    env = dixit_v0.parallel_env(edition=edition, n_players=n, deck=DECK)
    finals, steps = [], 0
    for seed in seeds:
        env.reset(seed=seed)
        players = {agent: AgentPlayer(RandomAgent()) for agent in env.possible_agents}
        for agent, player in players.items():
            player.reset(env, agent)
        while env.agents:
            actions = {agent: players[agent].act(env, agent) for agent in env.acting_agents()}
            env.step(actions)
            steps += 1
        finals.append(list(env.core.state.scores))
    return finals, 0, steps


def measure(edition: str, n: int, games: int, seed: int, repeats: int) -> dict[str, Any]:
    """One cell: raw, AEC and Parallel on the same games, each the best of ``repeats`` runs.

    The three run in turn within each repeat, so that a change of load on the machine touches
    them alike.
    """
    seeds = game_seeds(seed, games)
    runs: dict[str, Callable[[str, int, list[int]], tuple[list[list[int]], int, int]]] = {
        "raw": raw_games, "aec": aec_games, "parallel": parallel_games}
    best = dict.fromkeys(runs, float("inf"))
    results: dict[str, tuple[list[list[int]], int, int]] = {}
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.perf_counter()
            results[name] = run(edition, n, seeds)
            best[name] = min(best[name], time.perf_counter() - started)
    (raw_finals, decisions, _), (aec_finals, _, aec_steps), (par_finals, _, par_steps) = (
        results["raw"], results["aec"], results["parallel"])
    if not raw_finals == aec_finals == par_finals:
        raise SystemExit(f"FAILED: {edition} {n} players: the raw engine, AEC and Parallel "
                         "disagree on the games' final scores")
    raw_s, aec_s, par_s = best["raw"], best["aec"], best["parallel"]
    return {
        "edition": edition, "players": n, "games": games, "decisions": decisions,
        "aec_steps": aec_steps, "parallel_steps": par_steps,
        "raw_decisions_per_s": decisions / raw_s,
        "aec_steps_per_s": aec_steps / aec_s, "aec_decisions_per_s": decisions / aec_s,
        "parallel_steps_per_s": par_steps / par_s, "parallel_decisions_per_s": decisions / par_s,
        "aec_overhead": aec_s / raw_s, "parallel_overhead": par_s / raw_s,
        "aec_overhead_per_step": (aec_s / aec_steps) / (raw_s / decisions),
    }


LEARNER_CONFIGS: dict[str, dict[str, Any]] = {
    "ids obs, random opponents (today)": {"opponents": "random"},
    "ids obs, clip-greedy opponents": {"opponents": "clip-greedy", "deck": "dream"},
    "ids obs (flat), embedding opponents": {"opponents": "embedding", "observation": "ids",
                                            "flatten": True, "actions": "discrete"},
    "embedding obs, embedding opponents": {"opponents": "embedding", "observation": "embedding",
                                           "flatten": True, "actions": "discrete"},
    "embedding obs (PCA 32), embedding opponents": {
        "opponents": "embedding", "observation": "embedding", "flatten": True,
        "actions": "discrete", "embedding_dim": 32},
}


def learner_steps(config: dict[str, Any], steps: int, seed: int) -> tuple[float, float]:
    """Learner steps per wall-clock second and per CPU second of ``dixit_ai/Dixit-v0`` with
    random legal learner actions (per CPU second: what one idle core would give, on a machine
    whose other jobs share the core)."""
    from envs.single_agent import DixitSingleAgentEnv

    env = DixitSingleAgentEnv(**{"deck": "dream", "clue_mode": "vocab", **config}
                              if config.get("actions") != "discrete" else {"deck": "dream",
                                                                            **config})
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(50):  # warm-up: vectors loaded, caches filled
        action = _random_action(env, rng)
        if env.step(action)[2]:
            env.reset()
    done, started, cpu = 0, time.perf_counter(), time.process_time()
    env.reset(seed=seed + 1)
    while done < steps:
        _, _, terminated, truncated, _ = env.step(_random_action(env, rng))
        done += 1
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - started), steps / (time.process_time() - cpu)


def _random_action(env: Any, rng: np.random.Generator) -> Any:
    index = int(rng.choice(np.flatnonzero(env.action_masks())))
    if env.encoding.actions == "discrete":
        return index
    return {"card": index, "clue": int(rng.integers(len(env.table.core.vocab or ())))}


def learner_table(steps: int, seed: int, clip_steps: int,
                  targets: Targets) -> list[dict[str, Any]]:
    """Learner steps/s of every :data:`LEARNER_CONFIGS` row, and the embedding/ids ratio,
    judged in ``targets``."""
    rows: list[dict[str, Any]] = []
    for name, config in LEARNER_CONFIGS.items():
        count = clip_steps if "clip" in name else steps
        rate, cpu_rate = learner_steps(config, count, seed)
        rows.append({"configuration": name, "steps": count, "learner_steps_per_s": rate,
                     "learner_steps_per_cpu_s": cpu_rate})
        print(f"{name:<46} {rate:>10,.0f} steps/s {cpu_rate:>10,.0f} steps/CPU s "
              f"({count} steps)", flush=True)
    rates = {row["configuration"]: row["learner_steps_per_cpu_s"] for row in rows}
    ids = rates["ids obs (flat), embedding opponents"]
    unjudged = too_small("learner steps", steps, LEARNER_STEPS)
    ratios = {}
    for name in EMBEDDING_ROWS:
        ratios[name] = ids / rates[name]
        print(f"per-step CPU cost, {name} / ids (flat): {ratios[name]:.2f}x")
        rows.append({"configuration": f"cost ratio: {name} / ids", "ratio": ratios[name]})
    walls = {row["configuration"]: row["learner_steps_per_s"] for row in rows
             if "learner_steps_per_s" in row}
    targets.at_least(f"learner steps/s, {EMBEDDING_ROWS[0]}", walls[EMBEDDING_ROWS[0]],
                     TARGET_LEARNER_STEPS_PER_S, unit=" steps/s", digits=0, unjudged=unjudged)
    for name, ratio in ratios.items():
        targets.at_most(f"per-step CPU cost, {name} / ids (flat)", ratio,
                        TARGET_EMBEDDING_COST_RATIO, unit="x", unjudged=unjudged)
    return rows


def check_args(args: argparse.Namespace) -> list[tuple[str, int]]:
    """The cells to measure, each ``(edition, players)``, with the settings checked before
    anything runs.

    Raises:
        ValueError: a flag of the other mode (``--learner-steps``, ``--clip-steps`` without
            ``--learner``; ``--games``, ``--repeats``, ``--cells`` with it: it was ignored), a
            count below 1, a cell that is not ``EDITION:PLAYERS`` of a known edition and a
            player count it allows (found only when its row came, after the rows before it),
            a ``--json`` file that cannot be written (found only after every row was
            measured); the message names the flag and its limit.
    """
    if args.json:
        check_out_file(Path(args.json), "--json")
    # A flag of the mode not run is refused (it would change nothing); then its defaults.
    learner_flags, table_flags = ("learner_steps", "clip_steps"), ("games", "repeats", "cells")
    for name in table_flags if args.learner else learner_flags:
        if getattr(args, name) is not None:
            flag = "--" + name.replace("_", "-")
            raise ValueError(f"{flag} is for the environments' table, not --learner"
                             if args.learner else f"{flag} is for --learner (learner steps "
                             f"of dixit_ai/Dixit-v0); give --learner or leave it out")
    for name, default in DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.learner:
        check_at_least(args, (("learner_steps", 1), ("clip_steps", 1)))
        return []
    check_at_least(args, (("games", 1), ("repeats", 1)))
    cells = []
    for cell in args.cells:
        edition, colon, players = cell.partition(":")
        if not colon or not players.strip().isdigit():
            raise ValueError(f"--cells {cell!r}: write EDITION:PLAYERS, e.g. refresh-2021:4")
        try:
            RuleSet.edition(edition).check_players(int(players))
        except ValueError as error:
            raise ValueError(f"--cells {cell}: {error}") from None
        cells.append((edition, int(players)))
    return cells


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=None,
                        help=f"games per cell (default {GAMES})")
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs per measurement; the best (default 3)")
    parser.add_argument("--cells", nargs="*", default=None,
                        help=f"edition:players pairs (default: {' '.join(CELLS)})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the table here")
    parser.add_argument("--learner", action="store_true",
                        help="measure learner steps/s of dixit_ai/Dixit-v0 instead")
    parser.add_argument("--learner-steps", type=int, default=None,
                        help=f"learner steps per configuration (--learner; default "
                             f"{LEARNER_STEPS})")
    parser.add_argument("--clip-steps", type=int, default=None,
                        help="learner steps with clip-greedy opponents (slow; --learner; "
                             "default 300)")
    args = parser.parse_args(argv)
    try:
        cells = check_args(args)
    except ValueError as error:
        parser.error(str(error))  # exit 2, nothing measured

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    targets = Targets()
    if args.learner:
        print(f"python {platform.python_version()} on {platform.machine()}, one core, "
              f"dixit_ai/Dixit-v0, refresh-2021, 4 players, dream deck, default embedder; "
              f"load average {os.getloadavg()[0]:.1f}")
        rows = learner_table(args.learner_steps, args.seed, args.clip_steps, targets)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump(rows, out, indent=2)
        return targets.report()
    print(f"python {platform.python_version()} on {platform.machine()}, one core, "
          f"{args.games} games per cell, best of {args.repeats}")
    print(f"{'edition':<14} {'n':>2} {'raw dec/s':>10} {'AEC steps/s':>12} {'AEC dec/s':>10} "
          f"{'par steps/s':>12} {'par dec/s':>10} {'AEC x':>6} {'AEC x/step':>10} {'par x':>6}")
    rows = []
    for edition, players in cells:
        row = measure(edition, players, args.games, args.seed, args.repeats)
        rows.append(row)
        print(f"{edition:<14} {row['players']:>2} {row['raw_decisions_per_s']:>10,.0f} "
              f"{row['aec_steps_per_s']:>12,.0f} {row['aec_decisions_per_s']:>10,.0f} "
              f"{row['parallel_steps_per_s']:>12,.0f} {row['parallel_decisions_per_s']:>10,.0f} "
              f"{row['aec_overhead']:>6.2f} {row['aec_overhead_per_step']:>10.2f} "
              f"{row['parallel_overhead']:>6.2f}", flush=True)
    for row in rows:
        targets.at_most(f"AEC overhead per decision, {row['edition']} {row['players']} players",
                        row["aec_overhead"], TARGET_AEC_OVERHEAD, unit="x",
                        unjudged=too_small("games per cell", args.games, GAMES))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(rows, out, indent=2)
    return targets.report()


if __name__ == "__main__":
    raise SystemExit(main())
