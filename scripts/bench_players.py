"""Benchmark: one storyteller decision, and a whole 5-player game of ``clip-greedy`` bots.

The storyteller decision is timed on fresh ``refresh-2021`` deals: 6 hand cards x every candidate
clue (the whole vocabulary, 3,527 clues, plus pair clues) x 64 simulated deals, with the card,
vocabulary and pair-clue embeddings already cached (a first, untimed pass over the same deals
embeds their pair clues; the vocabulary and cards are embedded once per model, ever). The game is
timed with a warm cache too (card and clue embeddings loaded, pair clues embedded by an earlier
game). Targets: a decision at most 100 ms, a game under 2 s. Wall-clock and CPU time are both
printed, with the load average: on a shared machine the wall clock includes waiting for a core.

    python scripts/bench_players.py
    python scripts/bench_players.py --decisions 50 --games 5 --json runs/bench_players.json
    python scripts/bench_players.py --smoke
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
from dixit_ai.match import game_seeds
from dixit_ai.rules import RuleSet, new_game, observe
from models.players.cli import check_at_least, is_clip_player, parse_args


@dataclass
class Args:
    decisions: int = field(default=30, metadata={"help": "storyteller decisions timed"})
    games: int = field(default=5, metadata={"help": "whole games timed"})
    agent: str = field(default="clip-greedy", metadata={"help": "registry name of the bots"})
    deck: str = field(default="dream", metadata={"help": "deck spec"})
    simulations: int = field(default=64, metadata={"help": "simulated deals per decision"})
    pair_clues: int = field(default=12, metadata={"help": "pair clues per hand card (0: none)"})
    seed: int = field(default=0, metadata={"help": "seed of deals and games"})
    json: str = field(default="", metadata={"help": "also write the figures to this JSON file"})
    smoke: bool = field(default=False, metadata={"help": "tiny deck, vocabulary and budget"})


def check_args(args: Args) -> None:
    """Refuse counts the run cannot time, before any model loads.

    Raises:
        ValueError: ``--decisions`` or ``--games`` or ``--simulations`` below 1, or
            ``--pair-clues`` or ``--seed`` below 0 (the message names the flag and its limit);
            an ``--agent`` that is not registered, or not a CLIP player.
    """
    check_at_least(args, (("decisions", 1), ("games", 1), ("simulations", 1),
                          ("pair_clues", 0), ("seed", 0)))
    if not is_clip_player(args.agent):
        raise ValueError(f"--agent {args.agent} is not a CLIP player: it has no embeddings to "
                         "time")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    try:
        check_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2  # bad input: nothing loaded or timed
    overrides: dict[str, Any] = {"deck": args.deck, "n_simulations": args.simulations,
                                 "pair_clues": args.pair_clues}
    if args.smoke:
        args.deck = overrides["deck"] = "dream:size=40"
        overrides["vocabulary_size"] = 300
        args.decisions, args.games = 2, 1
    agent = make_agent(args.agent, **overrides)
    resources: Any = cast(Any, agent).resources  # a clip player: loads its embedder, embeddings
    rules = RuleSet.edition("refresh-2021")

    views = []
    for index in range(args.decisions):
        state = new_game(rules, 5, list(resources.card_ids), np.random.default_rng(
            [args.seed, index]))
        views.append(observe(state, state.storyteller))
    for view in views:  # warm-up: the pair clues of these hands are embedded and cached
        agent.reset(seat=view.seat, rng=np.random.default_rng(0))
        agent.tell(view)
    times, cpu_times = [], []
    for index, view in enumerate(views):
        agent.reset(seat=view.seat, rng=np.random.default_rng(index))
        start, cpu_start = time.perf_counter(), time.process_time()
        story = agent.tell(view)
        times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu_start)
    candidates = int(story.info["candidates"])
    decision_ms = 1000 * statistics.median(times)

    bots = [make_agent(args.agent, **overrides) for _ in range(5)]
    seeds = game_seeds(args.seed, args.games + 1)
    play_game(bots, edition="refresh-2021", deck=args.deck, seed=seeds[0])  # warm-up game
    game_times, game_cpu, rounds = [], [], []
    for seed in seeds[1:]:
        start, cpu_start = time.perf_counter(), time.process_time()
        record = play_game(bots, edition="refresh-2021", deck=args.deck, seed=seed)
        game_times.append(time.perf_counter() - start)
        game_cpu.append(time.process_time() - cpu_start)
        rounds.append(len(record.rounds))
    figures = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "vocabulary": len(resources.vocabulary), "candidates_per_decision": candidates,
        "hand_cards": 6, "simulations": args.simulations,
        "decision_ms_median": round(decision_ms, 1),
        "decision_ms_p90": round(1000 * float(np.quantile(times, 0.9)), 1),
        "decision_cpu_ms_median": round(1000 * statistics.median(cpu_times), 1),
        "game_cpu_s_median": round(statistics.median(game_cpu), 3),
        "game_s_median": round(statistics.median(game_times), 3),
        "game_s_max": round(max(game_times), 3),
        "rounds_per_game": rounds,
    }
    print(f"storyteller decision: {figures['decision_ms_median']} ms median "
          f"({figures['decision_ms_p90']} ms p90; CPU time {figures['decision_cpu_ms_median']} ms) "
          f"for 6 cards x {candidates // 6} clues x {args.simulations} simulations  "
          f"[target <= 100 ms]")
    print(f"whole 5-player {args.agent} game (warm cache): {figures['game_s_median']} s median, "
          f"{figures['game_s_max']} s max (CPU time {figures['game_cpu_s_median']} s), "
          f"rounds {rounds}  [target < 2 s]")
    print(f"load average while measuring: {figures['load_average']} on {os.cpu_count()} cores")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
