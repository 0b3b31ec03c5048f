"""The fast embedding policies: batch shapes, legality, and agreement with the one-row agent."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from envs.policies import (
    EmbeddingAgent,
    clue_candidates,
    decoy_cards,
    second_votes,
    similarities,
    specificity,
    tell_choices,
    vote_positions,
)
from envs.vectors import VectorTable

TABLE = VectorTable.random(range(84), [f"w{i}" for i in range(100)], dim=12, seed=1)


def test_batched_functions_keep_leading_axes_and_respect_masks() -> None:
    rng = np.random.default_rng(0)
    clue = rng.standard_normal((3, 5, 12))
    cards = rng.standard_normal((3, 5, 6, 12))
    sims = similarities(clue, cards)
    assert sims.shape == (3, 5, 6)
    legal = rng.random((3, 5, 6)) < 0.6
    legal[..., 0] = True
    for temperature in (0.0, 0.05):
        votes = vote_positions(sims, legal, temperature=temperature, rng=rng)
        assert votes.shape == (3, 5)
        assert np.take_along_axis(legal, votes[..., None], axis=-1).all()
    picks = decoy_cards(sims, legal, 1)
    assert picks.shape == (3, 5, 1) and np.take_along_axis(legal, picks, axis=-1).all()
    first = vote_positions(sims, legal)
    second = second_votes(sims, legal, first, finder_points=1, single_vote_bonus=1)
    assert second.shape == (3, 5) and not np.any(second == first)
    with pytest.raises(ValueError, match="allows nothing"):
        vote_positions(sims, np.zeros_like(legal))
    with pytest.raises(ValueError, match="needs a generator"):
        vote_positions(sims, legal, temperature=1.0)


def test_clue_proposer_gives_each_cards_most_specific_clues() -> None:
    indices, scores = clue_candidates(TABLE, 5)
    z = specificity(TABLE)
    assert indices.shape == (84, 5)
    assert np.all(np.diff(scores, axis=1) <= 0)
    assert np.allclose(scores[:, 0], z.max(axis=1))
    hand, candidate = tell_choices(scores[:6][None], np.ones((1, 6), dtype=bool), 10.0)
    assert candidate[0] == 0 and hand[0] == int(np.argmax(scores[:6, 0]))
    with pytest.raises(ValueError, match="clues per card"):
        clue_candidates(TABLE, 0)


def test_embedding_agents_play_legal_games_and_their_guesser_finds_more_than_random() -> None:
    found = {"embedding": 0, "random": 0}
    for seed in range(6):
        for name in found:
            guesser = EmbeddingAgent(TABLE) if name == "embedding" else RandomAgent()
            agents = [guesser, *(EmbeddingAgent(TABLE, target_specificity=(0.5, 2.0))
                                 for _ in range(3))]
            record = play_game(agents, edition="refresh-2021", deck=list(range(84)), seed=seed)
            for round_ in record.rounds:
                if round_.storyteller != 0:
                    found[name] += sum(round_.board_owner[p] == round_.storyteller
                                       for p in round_.votes[0])
    assert found["embedding"] > found["random"]
    with pytest.raises(ValueError, match="low <= high"):
        EmbeddingAgent(TABLE, target_specificity=(2.0, 1.0))


def test_spread_proposer_reaches_from_obvious_to_cryptic_clues() -> None:
    spread, spread_z = clue_candidates(TABLE, 6, spread=True)
    top, top_z = clue_candidates(TABLE, 6)
    assert spread.shape == top.shape == (84, 6)
    assert np.array_equal(spread[:, 0], top[:, 0])
    assert np.all(np.diff(spread_z, axis=1) <= 0) and np.all(spread_z[:, -1] < top_z[:, -1])
    assert all(len(set(row)) == 6 for row in spread.tolist())


def test_spread_proposer_refuses_more_clues_than_its_depth_reaches() -> None:
    # With more clues per card than the spread's depth (256 ranks), the proposer's loop that
    # fills missing ranks found none left and never ended: train_rl.py --clues-per-card 257
    # (spread, its default) hung in building its first environment.
    from envs.policies import SPREAD_DEPTH

    table = VectorTable.random(range(4), [f"w{i}" for i in range(SPREAD_DEPTH + 10)], dim=4,
                               seed=0)
    with pytest.raises(ValueError, match=rf"spread.*\[1, {SPREAD_DEPTH}\], not {SPREAD_DEPTH + 1}"):
        clue_candidates(table, SPREAD_DEPTH + 1, spread=True)
    chosen, _ = clue_candidates(table, SPREAD_DEPTH, spread=True)
    assert all(len(set(row)) == SPREAD_DEPTH for row in chosen.tolist())
    assert clue_candidates(table, SPREAD_DEPTH + 1)[0].shape == (4, SPREAD_DEPTH + 1)
