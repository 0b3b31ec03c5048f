"""``dixit-ai simulate``: play many seeded games of registered agents and summarise them."""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from dixit_ai.agents import make_agent_for_deck, party_problem, prepare_agents
from dixit_ai.agents.requirements import check_agent_requirements
from dixit_ai.cli.common import (
    EXIT_OK,
    FAILURES_SHOWN,
    MAX_GAMES,
    check_at_most,
    check_out_file,
    failure_status,
    numbered_failure_lines,
    progress_line,
    rule_argument,
    running,
)
from dixit_ai.decks import load_deck
from dixit_ai.files import atomic_writer
from dixit_ai.match import FailurePolicy, game_seeds, play_game
from dixit_ai.records import GameRecord
from dixit_ai.reporting import progress_interval
from dixit_ai.rules import EDITIONS, RuleSet
from dixit_ai.tournament.config import MAX_DECISION_TIMEOUT, check_seconds, split_names
from dixit_ai.tournament.player import time_decisions

parse_rule = rule_argument
"""``--rule KEY=VALUE``, typed by the RuleSet field (kept under its old name)."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "simulate", help="play seeded games between agents and summarise them",
        description="Play K seeded games (random agents by default), write their records as "
                    "JSON Lines and print a summary.")
    parser.add_argument("--edition", default="refresh-2021", choices=EDITIONS,
                        help="edition of the rules (default: %(default)s)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    parser.add_argument("--games", type=int, default=10, help="games to play (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--agents", default="random",
                        help="comma-separated registry names, one per seat or one for all "
                             "(default: random)")
    parser.add_argument("--deck", default="dream", help="deck spec (default: dream)")
    parser.add_argument("--rule", type=rule_argument, action="append", default=[],
                        metavar="KEY=VALUE",
                        help="override a rule parameter, typed by the rule: e.g. --rule "
                             "score_limit=20, --rule teams=true, --rule bonus_cap=none "
                             "(repeatable)")
    parser.add_argument("--on-failure", choices=("abort", "forfeit"), default=None,
                        help="what a failing agent costs: abort the game (default) or "
                             "forfeit its move that round; failures are always recorded and "
                             "printed, and make the exit status 1 unless forfeit is chosen")
    parser.add_argument("--max-rounds", type=int, default=None,
                        help="truncate each game after this many rounds")
    parser.add_argument("--decision-timeout", type=float, default=None, metavar="SECONDS",
                        help="the most seconds an agent may take over one decision, as in "
                             "tournament (default: no limit, so that the seed alone decides "
                             "every record); a decision past it is the agent's failure (error "
                             "DecisionTimeout, handled by --on-failure) and the agent is set "
                             "aside for the rest of that game")
    parser.add_argument("--out", type=Path, default=None,
                        help="write the records here as JSON Lines (an existing file is "
                             "replaced once every game is played and written; a run that "
                             "fails or is interrupted leaves it as it was)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, not {args.games}")
    check_at_most("--games", args.games, MAX_GAMES)
    if args.seed < 0:
        raise ValueError(f"--seed must be non-negative, not {args.seed}")
    if args.max_rounds is not None and args.max_rounds < 1:
        raise ValueError(f"--max-rounds must be at least 1, not {args.max_rounds}")
    check_seconds(args.decision_timeout, "--decision-timeout", MAX_DECISION_TIMEOUT,
                  "or leave it out: no limit")
    if args.out is not None:
        check_out_file(args.out)
    overrides = dict(args.rule)
    rules = RuleSet.edition(args.edition, **overrides)
    # The player count first: a negative one would otherwise be reported as --agents naming
    # too few agents.
    rules.check_players(args.players)
    names = split_names(args.agents)
    if len(names) == 1:
        names *= args.players
    if len(names) != args.players:
        raise ValueError(f"--agents names {len(names)} agents for {args.players} players")
    # Every agent's entry exists and its packages are installed, before the deck is loaded or
    # anything prepared: unknown names and missing packages are named here (exit 2).
    check_agent_requirements(names)
    if rules.mode == "party":  # read from the agents' classes: nothing is made or loaded
        for seat, name in enumerate(names):
            problem = party_problem(name)
            if problem:
                raise ValueError(f"seat {seat}: {problem}")
    chosen = args.on_failure is not None
    on_failure: FailurePolicy = args.on_failure or "abort"
    deck = load_deck(args.deck)  # once, and before any game: a bad deck fails early
    rules.check_deck(args.players, len(deck.card_ids))
    # The records carry the deck's fingerprint; the first run draws the cards to compute it
    # (then it is cached), which is not the games' time.
    _ = deck.fingerprint
    # One-time steps (loading a model, embedding the cards and clues) say what they do.
    prepare_agents(sorted(set(names)), deck=args.deck, progress=progress_line)

    # The records stream into a temporary file beside --out, which replaces --out once every
    # game is written: a failure part-way (a record that cannot be serialised, an error, Ctrl-C)
    # removes it and leaves an existing file as it was.
    # Each record is counted and written, then let go: a long run keeps only its tallies and
    # the records of the failures it prints.
    tally = Tally(len(names))
    started = time.perf_counter()
    # From here on the work has begun: an error is a failure of the run (exit 1), not bad input.
    what, then = "playing the games", ""
    if args.out:
        what += f" and writing their records to {args.out}"
        then = f"{args.out} was not written (an existing file is left as it was)"
    try:
        with (running(what, then=then),
              atomic_writer(args.out) if args.out else nullcontext() as out):
            seeds = game_seeds(args.seed, args.games)
            for index, seed in enumerate(tqdm(seeds, desc="games", unit="game",
                                              disable=args.no_progress, file=sys.stderr,
                                              mininterval=progress_interval(sys.stderr))):
                agents: list[Any] = [make_agent_for_deck(name, args.deck) for name in names]
                if args.decision_timeout is not None:
                    agents = time_decisions(agents, [(name, name) for name in names],
                                            args.decision_timeout)
                record = play_game(agents, edition=args.edition, deck=deck, seed=seed,
                                   on_failure=on_failure, max_rounds=args.max_rounds,
                                   writable=True, **overrides)
                # Which run the record comes from: its --seed, and the game's place in it
                # (the game's own seed is game_seeds(seed, games)[game]).
                record.header["simulation"] = {"seed": args.seed, "game": index,
                                               "games": args.games}
                tally.add(record)
                if out is not None:
                    out.write(record.to_json() + "\n")
    except KeyboardInterrupt:
        if args.out:
            print(f"dixit-ai simulate: interrupted after {tally.games} of {args.games} "
                  f"game(s); {args.out} was not written", file=sys.stderr)
        raise
    elapsed = time.perf_counter() - started
    print_summary(tally, elapsed, args, names)
    for line in tally.failure_lines(recorded=args.out is not None):
        print(line, file=sys.stderr)
    failures = tally.failures
    return failure_status(failures, on_failure, chosen=chosen) if failures else EXIT_OK


class Tally:
    """What the summary needs of the games played, counted as each ends (no record is kept but
    those of the first failures, which are printed)."""

    def __init__(self, players: int) -> None:
        self.games = 0
        self.rounds = 0
        self.statuses = {"complete": 0, "aborted": 0, "truncated": 0}
        self.failures = 0
        self.scores = np.zeros(players)
        self.wins = np.zeros(players)
        self.shown: list[tuple[int, GameRecord]] = []  # (game number, record), printed

    def add(self, record: GameRecord) -> None:
        self.games += 1
        self.rounds += len(record.rounds)
        self.statuses[record.status] = self.statuses.get(record.status, 0) + 1
        self.scores += np.asarray(record.final_scores, dtype=float)
        for seat in record.winners:
            self.wins[seat] += 1 / len(record.winners)
        if record.failures and self.failures < FAILURES_SHOWN:
            self.shown.append((self.games, record))
        self.failures += len(record.failures)

    def failure_lines(self, *, recorded: bool = True) -> list[str]:
        """:func:`~dixit_ai.cli.common.failure_lines` of every game played, from the records
        kept (those of the first failures, which are the ones printed) and the count;
        ``recorded=False``: the games' records were not written (no ``--out``)."""
        return numbered_failure_lines(
            self.shown, total=self.failures,
            unrecorded=None if recorded else "pass --out FILE to keep every failure")


def print_summary(tally: Tally, elapsed: float, args: argparse.Namespace,
                  names: list[str]) -> None:
    rounds, games, statuses = tally.rounds, tally.games, tally.statuses
    print(f"edition {args.edition}, {args.players} players, deck {args.deck}, seed {args.seed}")
    print(f"games: {games} ({statuses['complete']} complete, {statuses['aborted']} "
          f"aborted, {statuses['truncated']} truncated); agent failures: {tally.failures}")
    print(f"rounds: {rounds} (mean {rounds / games:.1f} per game)")
    width = max(5, *(len(name) for name in names))
    print(f"seat  {'agent':<{width}}  mean score  win share")
    for seat in range(len(tally.scores)):
        print(f"{seat:>4}  {names[seat]:<{width}}  {tally.scores[seat] / games:>10.2f}  "
              f"{tally.wins[seat] / games:>9.3f}")
    print(f"speed: {rounds / elapsed:,.0f} rounds/s, {games / elapsed:,.1f} games/s "
          f"({elapsed:.2f} s)")
    if args.out:
        print(f"records: {args.out}")
