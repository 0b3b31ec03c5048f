"""Batched random play matches the scalar engine's random play in distribution."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.batched import CLUE_WORDS, BatchedRandomAgent, play_batch, to_records
from dixit_ai.match import game_seeds
from dixit_ai.records import GameRecord
from dixit_ai.rules import RuleSet

GAMES = 240


def _statistics(records: list[GameRecord]) -> dict[str, np.ndarray]:
    rounds = [r for record in records for r in record.rounds]
    return {
        "rounds per game": np.array([len(record.rounds) for record in records], dtype=float),
        "winning score": np.array([max(record.final_scores) for record in records], dtype=float),
        "storyteller points": np.array([r.points[r.storyteller] for r in rounds], dtype=float),
        "guess rate": np.array([r.guess_rate for r in rounds], dtype=float),
        "second votes": np.array([sum(len(v) == 2 for v in r.votes.values()) for r in rounds],
                                 dtype=float),
        "bonus points": np.array([sum(r.points) for r in rounds], dtype=float),
    }


@pytest.mark.parametrize(("edition", "n"), [("refresh-2021", 5), ("odyssey-2011", 8),
                                            ("original-2008", 3), ("odyssey-2024", 4)])
def test_score_distributions_match_the_scalar_engine(edition: str, n: int) -> None:
    rules = RuleSet.edition(edition)
    games = play_batch([BatchedRandomAgent(1)] * n, rules, n_games=60, total_games=GAMES,
                       seed=100)
    batched = _statistics(to_records(games, games.take_finished(), clues=CLUE_WORDS))
    scalar = _statistics([play_game([RandomAgent() for _ in range(n)], edition=edition,
                                    deck=range(84), seed=seed)
                          for seed in game_seeds(200, GAMES)])
    for name, values in batched.items():
        other = scalar[name]
        error = np.sqrt(values.var() / len(values) + other.var() / len(other))
        assert abs(values.mean() - other.mean()) <= 4 * error + 1e-9, (
            f"{name}: batched {values.mean():.3f} vs scalar {other.mean():.3f} (se {error:.3f})")
    # The whole distribution of winning scores, not only its mean (two-sample KS, alpha ~0.001).
    a, b = np.sort(batched["winning score"]), np.sort(scalar["winning score"])
    grid = np.union1d(a, b)
    gap = np.abs(np.searchsorted(a, grid, side="right") / len(a)
                 - np.searchsorted(b, grid, side="right") / len(b)).max()
    assert gap < 1.95 * np.sqrt(2 / GAMES)
