"""Measure: the storyteller's predicted guess rate against the observed one in Odyssey bot games.

Plays seeded games of ``clip-greedy`` bots (every seat the same agent; ``--storyteller`` names
another, such as ``clip-expected``, whose simulation of a population of minds is then measured:
it guesses and plays decoys as clip-greedy) and compares, round by round, the storyteller's
recorded prediction (``predicted_guess_rate``) with the observed guess
rate, the fraction of voters who found the storyteller's card with *either* vote (as the rules
count a finder); the first-vote rate is printed beside it. Prints the mean difference (predicted
minus observed) with a 95% interval over games (rounds of one game are not independent draws),
per configuration; ``--json`` also writes the figures (into a folder that exists: none is made).

    python scripts/measure_second_vote.py
    python scripts/measure_second_vote.py --games 40 --json second_vote.json
    python scripts/measure_second_vote.py --storyteller clip-expected --games 40
    python scripts/measure_second_vote.py --agent clip-sharp --tables odyssey-2024:12
    python scripts/measure_second_vote.py --smoke

Each table also reports the storyteller's points per storytelling turn (95% interval over
games). At 12 players the deal is nearly known and ``clip-greedy``'s noisy simulation misses by
far; ``clip-sharp`` simulates its copies as they vote (:mod:`models.players.sharp_voters`).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai import play_game
from dixit_ai.agents import make_agent
from dixit_ai.cli.common import check_out_file
from dixit_ai.match import game_seeds
from models.players.cli import (
    apply_smoke,
    check_at_least,
    check_deck_option,
    is_clip_player,
    parse_args,
    parse_tables,
)

TABLES = "odyssey-2024:4,odyssey-2011:8,odyssey-2024:12"
"""The (edition, players) measured by default: a second vote at 4 players (2024), from 7 (2011),
and the largest table, where the deal is nearly known."""
SMOKE = {"deck": "dream:size=60", "games": 1, "tables": "odyssey-2024:4,odyssey-2011:8"}
"""``--smoke``'s settings, each where the command line gave none."""


@dataclass
class Args:
    games: int = field(default=30, metadata={"help": "games per configuration"})
    agent: str = field(default="clip-greedy", metadata={"help": "registry name of the bots"})
    storyteller: str = field(default="", metadata={
        "help": "registry name of the bots instead (every seat), named as the storyteller "
                "measured (clip-expected: a population storyteller); empty: --agent"})
    deck: str = field(default="dream", metadata={"help": "deck spec"})
    seed: int = field(default=0, metadata={"help": "seed of the games"})
    tables: str = field(default=TABLES, metadata={
        "help": "the tables measured: EDITION:PLAYERS, separated by commas"})
    json: str = field(default="", metadata={"help": "also write the figures to this JSON file"})
    smoke: bool = field(default=False, metadata={"help": "tiny deck, one game each"})


def round_rates(record: Any) -> list[tuple[float, float, float, float]]:
    """``(predicted, observed by either vote, observed by first votes, storyteller's points)``
    per round with a prediction."""
    rows = []
    for played in record.rounds:
        if played.predicted_guess_rate is None or not played.votes:
            continue
        position = list(played.board_owner).index(played.storyteller)
        votes = [list(v) for v in played.votes.values()]
        either = np.mean([position in v for v in votes])
        first = np.mean([v[0] == position for v in votes])
        rows.append((float(played.predicted_guess_rate), float(either), float(first),
                     float(played.points[played.storyteller])))
    return rows


def interval(per_game: list[float]) -> tuple[float, float, float]:
    """Mean and 95% interval (normal, over games) of per-game values."""
    values = np.asarray(per_game, dtype=np.float64)
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


def measure(args: Args) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for edition, n_players in parse_tables(args.tables):
        bots = [make_agent(args.storyteller or args.agent, deck=args.deck)
                for _ in range(n_players)]
        differences, first_differences, predicted, observed, rounds = [], [], [], [], 0
        points: list[float] = []
        for seed in game_seeds(args.seed, args.games):
            rows = round_rates(play_game(bots, edition=edition, deck=args.deck, seed=seed))
            if not rows:
                continue
            table = np.asarray(rows)
            rounds += len(rows)
            differences.append(float((table[:, 0] - table[:, 1]).mean()))
            first_differences.append(float((table[:, 0] - table[:, 2]).mean()))
            predicted.append(float(table[:, 0].mean()))
            observed.append(float(table[:, 1].mean()))
            points.append(float(table[:, 3].mean()))
        mean, low, high = interval(differences)
        told, told_low, told_high = interval(points)
        first, first_low, first_high = interval(first_differences)
        figures[f"{edition}/{n_players}"] = {
            "agent": args.storyteller or args.agent, "games": len(differences), "rounds": rounds,
            "predicted": round(float(np.mean(predicted)), 4),
            "observed_either_vote": round(float(np.mean(observed)), 4),
            "predicted_minus_observed": [round(mean, 4), round(low, 4), round(high, 4)],
            "predicted_minus_first_votes": [round(first, 4), round(first_low, 4),
                                            round(first_high, 4)],
            "storyteller_points_per_turn": [round(told, 4), round(told_low, 4),
                                            round(told_high, 4)],
        }
        print(f"{args.storyteller or args.agent}, {edition}, {n_players} players: "
              f"{len(differences)} games, {rounds} rounds; "
              f"predicted {np.mean(predicted):.3f}, observed (either vote) "
              f"{np.mean(observed):.3f}; predicted - observed {mean:+.3f} "
              f"[{low:+.3f}, {high:+.3f}]; predicted - first-vote rate {first:+.3f} "
              f"[{first_low:+.3f}, {first_high:+.3f}]; storyteller's points per turn "
              f"{told:.2f} [{told_low:.2f}, {told_high:.2f}]", flush=True)
    return figures


def check_args(args: Args) -> None:
    """Refuse settings the run cannot use, before any game is played or anything written.

    Raises:
        ValueError: ``--games`` below 1 or ``--seed`` below 0; a ``--tables`` entry that is not
            a table of its edition; an ``--agent`` or ``--storyteller`` that is not registered,
            or not a clip player (the storyteller measured is a clip player's: its recorded
            prediction); a ``--deck`` that does not load; a ``--json`` file that cannot be
            written (its folder missing, or a folder named). The message names the flag.
    """
    from dixit_ai.agents.registry import check_agent_arguments

    check_at_least(args, (("games", 1), ("seed", 0)))
    parse_tables(args.tables)
    check_deck_option(args.deck)
    if args.json:
        check_out_file(Path(args.json), "--json")
    for flag, name in (("--agent", args.agent), ("--storyteller", args.storyteller)):
        if flag == "--storyteller" and not name:
            continue
        try:
            clip = is_clip_player(name)
        except ValueError as error:
            raise ValueError(f"{flag}: {error}") from None
        if not clip:
            raise ValueError(f"{flag} {name} is not a clip player: this script measures the "
                             "predicted guess rate of clip agents' storytellers (clip-greedy, "
                             "clip-expected, clip-sharp, ...)")
        try:  # its code imported and its keywords checked; no model loaded
            check_agent_arguments(name, {"deck": args.deck})
        except (ValueError, ImportError) as error:
            raise ValueError(f"{flag} {name}: {error}") from None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:
        apply_smoke(args, SMOKE)
    try:
        check_args(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    figures = measure(args)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
