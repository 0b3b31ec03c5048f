"""Benchmark: one storyteller decision, and a whole 5-player game of ``clip-greedy`` bots.

The storyteller decision is timed on fresh ``refresh-2021`` deals: 6 hand cards x every candidate
clue (the whole vocabulary, 3,527 clues, plus pair clues) x 64 simulated deals, with the card,
vocabulary and pair-clue embeddings already cached (a first, untimed pass over the same deals
embeds their pair clues; the vocabulary and cards are embedded once per model, ever). The game is
timed with a warm cache too (card and clue embeddings loaded, pair clues embedded by an earlier
game). Targets: a decision at most 100 ms, a game under 2 s (the medians, wall clock). Wall-clock
and CPU time are both printed, with the load average: on a shared machine the wall clock includes
waiting for a core.

The figures come first, then one line per target: met, MISSED, or not judged (``--smoke``, fewer
decisions or games than the defaults, or another agent, deck, simulation or pair-clue budget than
the defaults the targets are stated for); exit status 1 if a target was missed
(:mod:`dixit_ai.cli.targets`), 2 on bad input.

    python scripts/bench_players.py
    python scripts/bench_players.py --decisions 50 --games 5 --json runs/bench_players.json
    python scripts/bench_players.py --agent clip-sharp --table odyssey-2024:12
    python scripts/bench_players.py --smoke

``--table EDITION:PLAYERS`` times the decisions and the games at another table (the targets are
stated for ``refresh-2021:5`` and are not judged elsewhere).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from dixit_ai import play_game
from dixit_ai.agents import make_agent
from dixit_ai.cli.targets import Targets, too_small
from dixit_ai.match import game_seeds
from models.bench.timing import storyteller_views, time_tells
from models.players.cli import (
    apply_smoke,
    check_at_least,
    is_clip_player,
    parse_args,
    parse_tables,
)

TARGET_DECISION_MS = 100.0
"""A storyteller decision's median wall time, at most (milliseconds)."""
TARGET_GAME_S = 2.0
"""A whole 5-player game's median wall time, under (seconds)."""
SMOKE = {"deck": "dream:size=40", "decisions": 2, "games": 1}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""
SMOKE_VOCABULARY = 300
"""``--smoke``'s vocabulary (clues), which no option sets."""


@dataclass
class Args:
    decisions: int = field(default=30, metadata={"help": "storyteller decisions timed"})
    games: int = field(default=5, metadata={"help": "whole games timed"})
    agent: str = field(default="clip-greedy", metadata={"help": "registry name of the bots"})
    deck: str = field(default="dream", metadata={"help": "deck spec"})
    simulations: int = field(default=64, metadata={"help": "simulated deals per decision"})
    pair_clues: int = field(default=12, metadata={"help": "pair clues per hand card (0: none)"})
    seed: int = field(default=0, metadata={"help": "seed of deals and games"})
    table: str = field(default="refresh-2021:5", metadata={
        "help": "the table timed, EDITION:PLAYERS (the targets are for refresh-2021:5)"})
    json: str = field(default="", metadata={"help": "also write the figures to this JSON file"})
    smoke: bool = field(default=False, metadata={"help": "tiny deck, vocabulary and budget"})


def check_args(args: Args) -> None:
    """Refuse counts the run cannot time, before any model loads.

    Raises:
        ValueError: ``--decisions`` or ``--games`` or ``--simulations`` below 1, or
            ``--pair-clues`` or ``--seed`` below 0 (the message names the flag and its limit);
            an ``--agent`` that is not registered, or not a CLIP player; a ``--table`` that is
            not one table of an edition's player range.
    """
    check_at_least(args, (("decisions", 1), ("games", 1), ("simulations", 1),
                          ("pair_clues", 0), ("seed", 0)))
    tables = parse_tables(args.table, "--table")
    if len(tables) != 1:
        raise ValueError(f"--table takes one EDITION:PLAYERS, not {args.table!r}")
    if not is_clip_player(args.agent):
        raise ValueError(f"--agent {args.agent} is not a CLIP player: it has no embeddings to "
                         "time")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    try:
        check_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2  # bad input: nothing loaded or timed
    overrides: dict[str, Any] = {"deck": args.deck, "n_simulations": args.simulations,
                                 "pair_clues": args.pair_clues}
    if args.smoke:
        overrides["vocabulary_size"] = SMOKE_VOCABULARY
    figures = measure(args, overrides)
    print(f"storyteller decision: {figures['decision_ms_median']} ms median "
          f"({figures['decision_ms_p90']} ms p90; CPU time {figures['decision_cpu_ms_median']} ms) "
          f"for {figures['hand_cards']} cards x "
          f"{figures['candidates_per_decision'] // figures['hand_cards']} clues x "
          f"{args.simulations} simulations, {args.table}")
    players = parse_tables(args.table, "--table")[0][1]
    print(f"whole {players}-player {args.agent} game (warm cache): "
          f"{figures['game_s_median']} s median, "
          f"{figures['game_s_max']} s max (CPU time {figures['game_cpu_s_median']} s), "
          f"rounds {figures['rounds_per_game']}")
    print(f"load average while measuring: {figures['load_average']} on {os.cpu_count()} cores")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    unjudged = other_configuration(args)
    targets = Targets()
    targets.at_most("storyteller decision, median wall time", figures["decision_ms_median"],
                    TARGET_DECISION_MS, unit=" ms", digits=1,
                    unjudged=unjudged or too_small("decisions timed", args.decisions,
                                                   Args().decisions))
    targets.below(f"whole {players}-player {args.agent} game, median wall time",
                  figures["game_s_median"], TARGET_GAME_S, unit=" s", digits=3,
                  unjudged=unjudged or too_small("games timed", args.games, Args().games))
    return targets.report()


def other_configuration(args: Args) -> str | None:
    """Why no target is judged on this run's configuration (``None``: the defaults, which the
    targets are stated for); the counts of decisions and games are judged apart."""
    if args.smoke:
        return (f"--smoke (deck {args.deck}, {SMOKE_VOCABULARY} clues); judged on the "
                "defaults")
    defaults = Args()
    for name in ("agent", "deck", "simulations", "pair_clues", "table"):
        if getattr(args, name) != getattr(defaults, name):
            return (f"--{name.replace('_', '-')} {getattr(args, name)}; the targets are for "
                    f"{getattr(defaults, name)}")
    return None


def measure(args: Args, overrides: dict[str, Any]) -> dict[str, Any]:
    """Time the storyteller decisions and the whole games; the figures (``--json``'s)."""
    agent = make_agent(args.agent, **overrides)
    resources: Any = cast(Any, agent).resources  # a clip player: loads its embedder, embeddings
    ((edition, n_players),) = parse_tables(args.table, "--table")
    views = storyteller_views(list(resources.card_ids), args.decisions, seed=args.seed,
                              edition=edition, n_players=n_players)
    times, cpu_times, story = time_tells(agent, views)
    candidates = int(story.info["candidates"])
    decision_ms = 1000 * statistics.median(times)

    bots = [make_agent(args.agent, **overrides) for _ in range(n_players)]
    seeds = game_seeds(args.seed, args.games + 1)
    play_game(bots, edition=edition, deck=args.deck, seed=seeds[0])  # warm-up game
    game_times, game_cpu, rounds = [], [], []
    for seed in seeds[1:]:
        start, cpu_start = time.perf_counter(), time.process_time()
        record = play_game(bots, edition=edition, deck=args.deck, seed=seed)
        game_times.append(time.perf_counter() - start)
        game_cpu.append(time.process_time() - cpu_start)
        rounds.append(len(record.rounds))
    return {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "vocabulary": len(resources.vocabulary), "candidates_per_decision": candidates,
        "hand_cards": len(views[0].hand), "simulations": args.simulations,
        "table": args.table,
        "decision_ms_median": round(decision_ms, 1),
        "decision_ms_p90": round(1000 * float(np.quantile(times, 0.9)), 1),
        "decision_cpu_ms_median": round(1000 * statistics.median(cpu_times), 1),
        "game_cpu_s_median": round(statistics.median(game_cpu), 3),
        "game_s_median": round(statistics.median(game_times), 3),
        "game_s_max": round(max(game_times), 3),
        "rounds_per_game": rounds,
    }


if __name__ == "__main__":
    raise SystemExit(main())
