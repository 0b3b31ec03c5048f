"""The batched embedding agent's clear errors for vectors that do not fit the games."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.batched import BatchedEmbeddingAgent, BatchedRandomAgent, play_batch
from dixit_ai.rules import RuleSet


def _unit(rows: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(rows, 8))
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_clue_outside_the_agents_vocabulary_is_named() -> None:
    # A random storyteller tells clue ids up to 31; guessers with 10 clue vectors used to fail
    # with a bare numpy IndexError.
    guesser = BatchedEmbeddingAgent(_unit(84, 0), _unit(10, 1))
    agents = [BatchedRandomAgent(0), guesser, guesser, guesser]
    with pytest.raises(ValueError, match=r"game \d+ \(slot \d+\) has clue id \d+; this "
                                         r"agent's vocabulary has 10 clues"):
        play_batch(agents, RuleSet.edition("refresh-2021"), n_games=4, total_games=4, seed=0)


def test_vectors_for_another_deck_are_named() -> None:
    agent = BatchedEmbeddingAgent(_unit(60, 0), _unit(40, 1))
    with pytest.raises(ValueError, match="vectors for 60 cards; the games' deck has 84"):
        play_batch([agent] * 4, RuleSet.edition("refresh-2021"), n_games=4, total_games=4,
                   seed=0)

