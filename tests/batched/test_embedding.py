"""Batched embedding agents decide as the fast embedding policies of envs.policies do."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from dixit_ai.batched import BatchedEmbeddingAgent, BatchedRandomAgent, play_batch, to_records
from dixit_ai.replay import replay_record
from dixit_ai.rules import RuleSet
from dixit_ai.rules.batched import BatchedGames
from envs import policies
from envs.vectors import VectorTable

CLUES = [f"clue {i}" for i in range(50)]


@pytest.fixture(scope="module")
def table() -> VectorTable:
    return VectorTable.random(range(100, 184), CLUES, dim=12, seed=3)


@pytest.mark.parametrize(("edition", "n"), [("odyssey-2024", 5), ("refresh-2021", 3),
                                            ("odyssey-2011", 8)])
def test_decisions_match_envs_policies(table: VectorTable, edition: str, n: int) -> None:
    rules = RuleSet.edition(edition)
    games = BatchedGames(rules, n, 6, seed=1, deck=range(100, 184))
    agent = BatchedEmbeddingAgent.from_table(table, games.card_ids, clues_per_card=8,
                                             target_specificity=1.5)
    reference = policies.EmbeddingAgent(table, clues_per_card=8, target_specificity=1.5)
    ids = games.card_ids
    for _ in range(3):
        slots, clues = agent.tell(games)
        for g in range(games.n_slots):
            hand = ids[games.hands[g, games.storyteller[g]]]
            rows = table.rows(hand.tolist())
            slot, candidate = policies.tell_choices(reference.candidate_specificity[rows],
                                                    np.ones(len(rows), dtype=bool), 1.5)
            assert slots[g] == slot
            assert table.clues[clues[g]] == table.clues[reference.candidates[rows[slot],
                                                                             candidate]]
        games.tell(slots, clues)
        plays = agent.play(games)
        for g in range(games.n_slots):
            clue = table.clue_vectors[games.clue[g]]
            for seat in range(n):
                sims = policies.similarities(clue, table.card_vectors[
                    table.rows(ids[games.hands[g, seat]].tolist())])
                want = policies.decoy_cards(sims, np.ones(len(sims), dtype=bool),
                                            games.cards_per_guesser)
                assert plays[g, seat].tolist() == want.tolist()
        games.play(plays)
        votes = agent.vote(games)
        legal = games.legal_vote()
        for g in range(games.n_slots):
            sims = policies.similarities(table.clue_vectors[games.clue[g]], table.card_vectors[
                table.rows(ids[games.board[g]].tolist())])
            for seat in range(n):
                if seat == games.storyteller[g]:
                    continue
                first = int(policies.vote_positions(sims, legal[g, seat]))
                assert votes[g, seat, 0] == first
                if games.max_votes > 1:
                    second = int(policies.second_votes(
                        sims, legal[g, seat], first, finder_points=rules.finder_points,
                        single_vote_bonus=rules.single_vote_bonus))
                    assert votes[g, seat, 1] == second
        games.vote(votes)


def test_mixed_seats_play_legal_replayable_games(table: VectorTable) -> None:
    rules = RuleSet.edition("odyssey-2024")
    deck = range(100, 184)
    probe = BatchedGames(rules, 4, 1, seed=0, deck=deck)
    clever = BatchedEmbeddingAgent.from_table(table, probe.card_ids, temperature=0.05, seed=2)
    noise = BatchedRandomAgent(1, n_clues=len(CLUES))
    games = play_batch([clever, noise, clever, noise], rules, n_games=8, total_games=20,
                       seed=5, deck=deck)
    records = to_records(games, games.take_finished(), clues=CLUES)
    assert len(records) == 20
    for record in records:
        replay_record(record)
    points = np.array([r.final_scores for r in records])
    assert points.shape == (20, 4)


def test_bad_vectors() -> None:
    with pytest.raises(ValueError, match="same dimension"):
        BatchedEmbeddingAgent(np.zeros((84, 3)), np.zeros((5, 4)))
    with pytest.raises(ValueError, match="clues_per_card"):
        BatchedEmbeddingAgent(np.ones((84, 3)), np.ones((5, 3)), clues_per_card=6)


def test_a_seat_decides_on_what_it_may_know(table: VectorTable) -> None:
    """Shuffling the cards nobody at a seat may see (other hands, the draw pile) changes none
    of that seat's decisions."""
    rules = RuleSet.edition("odyssey-2024")
    games = BatchedGames(rules, 5, 6, seed=3, deck=range(100, 184))
    agent = BatchedEmbeddingAgent.from_table(table, games.card_ids)
    rng = np.random.default_rng(0)

    def shuffled_copy(seat: int) -> BatchedGames:
        other = copy.deepcopy(games)
        others = [s for s in range(5) if s != seat]
        hidden = np.concatenate([other.hands[:, others].reshape(6, -1), other.pile], axis=1)
        for g in range(6):
            rng.shuffle(hidden[g])
        other.hands[:, others] = hidden[:, :len(others) * other.hand_size].reshape(
            6, len(others), other.hand_size)
        other.pile[:] = hidden[:, len(others) * other.hand_size:]
        return other

    for seat in range(5):
        tell = agent.tell(games)
        mine = games.storyteller == seat
        other_tell = agent.tell(shuffled_copy(seat))
        assert (tell[0][mine] == other_tell[0][mine]).all()
        assert (tell[1][mine] == other_tell[1][mine]).all()
    games.tell(*agent.tell(games))
    for seat in range(5):
        assert (agent.play(games)[:, seat] == agent.play(shuffled_copy(seat))[:, seat]).all()
    games.play(agent.play(games))
    for seat in range(5):
        assert (agent.vote(games)[:, seat] == agent.vote(shuffled_copy(seat))[:, seat]).all()


def test_a_population_of_storytellers(table: VectorTable) -> None:
    rules = RuleSet.edition("refresh-2021")
    games = BatchedGames(rules, 4, 64, seed=1, deck=range(100, 184))
    fixed = BatchedEmbeddingAgent.from_table(table, games.card_ids, target_specificity=1.0)
    spread = BatchedEmbeddingAgent.from_table(table, games.card_ids,
                                              target_specificity=(-1.0, 3.0), seed=4)
    assert spread.describe()["target_specificity"] == [-1.0, 3.0]
    slots, clues = spread.tell(games)
    assert ((0 <= slots) & (slots < games.hand_size)).all()
    assert (clues != fixed.tell(games)[1]).any()
    with pytest.raises(ValueError, match="low <= high"):
        BatchedEmbeddingAgent.from_table(table, games.card_ids, target_specificity=(2.0, 1.0))
