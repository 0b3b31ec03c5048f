"""Reading the table: the posterior over the minds at the table, and the simulation that
follows it (models/players/table_reading.py, simulate_population's ``seats``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dixit_ai import play_game
from models.players import ClipAgent, GuessModel
from models.players.population import assignment, simulate_population
from models.players.simulation import draw_deals
from models.players.table_reading import (
    BIASES,
    LAPSE_PRIOR,
    LAPSES,
    TableBelief,
    prior_belief,
    read_table,
    read_votes,
)
from tests.players.test_panel import SMALL, related_spaces

SHARP = GuessModel(0.02, 0.0, 0.0)


def test_with_no_votes_read_the_belief_is_the_prior():
    belief = prior_belief(4, 3, table_mix=0.5)
    np.testing.assert_allclose(belief.one_kind, [1 / 6] * 3)
    assert belief.mixed == pytest.approx(0.5)
    lapse = float(np.dot(LAPSES, LAPSE_PRIOR))
    np.testing.assert_allclose(belief.seats[:, :3], (1 - lapse) / 3)
    np.testing.assert_allclose(belief.seats[:, 3], lapse)
    np.testing.assert_allclose(belief.seats.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match=r"table_mix must be in \[0, 1\]"):
        read_votes(np.zeros((4, 3, len(LAPSES), len(BIASES))), table_mix=2.0,
                   votes=np.zeros(4))
    with pytest.raises(ValueError, match="log-likelihoods must be"):
        read_votes(np.zeros((4, 3)), table_mix=0.5, votes=np.zeros(4))


def _rounds(spaces, voters, n_rounds: int, seed: int = 0) -> list[SimpleNamespace]:
    """Revealed 5-player rounds told by seat 0 (the reader tells elsewhere: it is seat 4):
    seat ``s`` in ``voters`` votes for the board card most similar to the clue in space
    ``voters[s]`` (``None``: at random)."""
    rng = np.random.default_rng(seed)
    ids = list(spaces[0].card_ids)
    words = list(spaces[0].vocabulary.texts)
    rounds = []
    for t in range(n_rounds):
        board = [int(c) for c in rng.choice(ids, 5, replace=False)]
        owner = [int(s) for s in rng.permutation(5)]
        clue = str(rng.choice(words))
        votes: list[tuple[int, ...]] = [()] * 5
        for seat in range(1, 5):
            legal = [i for i in range(5) if owner[i] != seat]
            space = voters.get(seat)
            if space is None:
                votes[seat] = (int(rng.choice(legal)),)
            else:
                sims = spaces[space].clue_similarities(clue, board)
                votes[seat] = (max(legal, key=lambda i: sims[i]),)
        rounds.append(SimpleNamespace(round=t, clue=clue, board=tuple(board),
                                      board_owner=tuple(owner), storyteller=0,
                                      votes=tuple(votes)))
    return rounds


def test_reading_votes_tells_the_minds_and_the_random_player_apart():
    spaces = related_spaces(3, noise=1.0, seed=2)
    members = [(space, SHARP) for space in spaces]
    # The reader sits at seat 4: its opponents are seats 0, 1, 2, 3 (seat 0 tells, never votes).
    rounds = _rounds(spaces, {1: 2, 2: None, 3: 0}, 24)
    belief = read_table(rounds, seat=4, n_players=5, members=members, table_mix=0.5)
    assert belief.votes.tolist() == [0, 24, 24, 24] and belief.unread == 0
    assert belief.mixed > 0.99                        # no one kind explains a random player
    assert int(np.argmax(belief.seats[1])) == 2       # seat 1 votes as member 2
    assert int(np.argmax(belief.seats[3])) == 0       # seat 3 as member 0
    assert belief.seats[2, -1] > 0.8                  # seat 2 is a random player
    assert belief.seats[1, -1] < 0.05 and belief.seats[3, -1] < 0.05
    np.testing.assert_allclose(belief.seats[0], prior_belief(4, 3, 0.5).seats[0])  # no votes
    summary = belief.summary(["a", "b", "c"])
    assert summary["opponents"][1:] == ["c", "random", "a"]

    copies = read_table(_rounds(spaces, {1: 1, 2: 1, 3: 1}, 16), seat=4, n_players=5,
                        members=members, table_mix=0.5)
    # A table of one kind, member 1 (the rest is the prior odds of three alike by chance).
    assert copies.one_kind[1] > 0.9 and np.argmax(copies.seats[1]) == 1


def test_an_opponent_who_finds_the_card_more_often_than_its_member_reads_as_a_bias():
    spaces = related_spaces(2, noise=1.0, seed=5)
    # A soft guess model (these spaces' similarities spread over +-1): a bias of 1 or 2 counts.
    members = [(space, GuessModel(0.5, 0.0, 0.0)) for space in spaces]
    rounds = _rounds(spaces, {1: 0, 2: 0, 3: 0}, 30, seed=1)
    for r in rounds:  # seat 1 always finds the card; seat 2 never does; seat 3 as member 0
        teller = r.board_owner.index(0)
        votes = list(r.votes)
        votes[1] = (teller,)
        if votes[2] == (teller,):
            votes[2] = (next(i for i in range(5) if i != teller and r.board_owner[i] != 2),)
        r.votes = tuple(votes)
    belief = read_table(rounds, seat=4, n_players=5, members=members, table_mix=0.0)
    bias = belief.seat_bias()
    assert bias[1] > 1.0 and bias[2] < -1.0 and abs(bias[3]) < 0.5 and abs(bias[0]) < 1e-9
    assert belief.summary(["a", "b"])["bias"][1] == round(float(bias[1]), 2)
    # In the simulation, an opponent's bias moves its guess rate, and only its own.
    hands, pools, deals = _tables(2)
    models = [GuessModel(0.05, 0.0, 0.0)] * 2
    points = np.array([0.0, 3, 3, 3, 0])
    layout = assignment(16, 4, 2)
    plain = simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                                models=models, points_by_finders=points, seats=layout)
    moved = simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                                models=models, points_by_finders=points, seats=layout,
                                seat_bias=np.array([2.0, 0.0, -2.0, 0.0]))
    assert plain.seat_rate is not None and moved.seat_rate is not None
    assert (moved.seat_rate[0] > plain.seat_rate[0]).all()
    assert (moved.seat_rate[2] < plain.seat_rate[2]).all()
    np.testing.assert_allclose(moved.seat_rate[[1, 3]], plain.seat_rate[[1, 3]])
    np.testing.assert_allclose(plain.seat_rate.mean(axis=0), plain.guess_rate)
    with pytest.raises(ValueError, match="seat_bias must be one logit per opponent"):
        simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                            models=models, points_by_finders=points, seat_bias=np.zeros(3))


def test_rounds_with_clues_some_member_cannot_read_are_counted_not_read():
    spaces = related_spaces(2, seed=3)
    rounds = _rounds(spaces, {1: 0, 2: 0, 3: 1}, 3)
    rounds[1].clue = "a clue nobody embedded"
    members = [(space, SHARP) for space in spaces]
    belief = read_table(rounds, seat=4, n_players=5, members=members, table_mix=0.0)
    assert belief.unread == 1 and belief.votes.tolist() == [0, 2, 2, 2]
    assert not spaces[0].knows("a clue nobody embedded")   # and nothing was embedded
    assert spaces[0].knows(spaces[0].vocabulary.texts[0])


def test_the_simulated_deals_follow_the_belief():
    seats = np.array([[0.7, 0.3, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5], [0.25, 0.25, 0.25, 0.25]])
    belief = TableBelief(one_kind=np.array([0.25, 0.0, 0.0]), seats=seats,
                         votes=np.zeros(3, dtype=np.intp))
    table = belief.assignment(64)
    assert (table[:16] == 0).all()                    # a quarter: one-kind tables of member 0
    mixed = table[16:]
    assert np.bincount(mixed[:, 0], minlength=4).tolist() == [34, 14, 0, 0]
    assert np.bincount(mixed[:, 1], minlength=4).tolist() == [0, 0, 24, 24]
    assert np.bincount(mixed[:, 2], minlength=4).tolist() == [12, 12, 12, 12]
    # The prior spreads opponents over different members in each deal, as the fixed mixture.
    prior = TableBelief(one_kind=np.zeros(4), seats=np.full((4, 5), 0.25) * [1, 1, 1, 1, 0],
                        votes=np.zeros(4, dtype=np.intp)).assignment(64)
    assert all(len(set(row)) == 4 for row in prior)


def _tables(n_members: int = 2):
    rng = np.random.default_rng(1)
    pool = rng.normal(0.0, 0.1, (30, 5)).astype(np.float32)
    hands = [rng.normal(0.1, 0.1, (2, 5)).astype(np.float32) for _ in range(n_members)]
    pools = [pool + rng.normal(0, 0.05, pool.shape).astype(np.float32)
             for _ in range(n_members)]
    return hands, pools, draw_deals(rng, 30, 16, 4, 6)


def test_seats_equal_to_the_fixed_mixture_simulate_the_same():
    hands, pools, deals = _tables(3)
    models = [GuessModel(0.05, 0.2, 0.0), GuessModel(0.03, 0.0, 0.0), GuessModel(0.1, 0, 0)]
    points = np.array([0.0, 3, 3, 3, 0])
    for mix in (0.0, 0.5):
        fixed = simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                                    models=models, points_by_finders=points, table_mix=mix)
        given = simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                                    models=models, points_by_finders=points,
                                    seats=assignment(16, 4, 3, table_mix=mix))
        for field in ("guess_rate", "expected_points", "success_rate", "member_rate"):
            np.testing.assert_allclose(getattr(given, field), getattr(fixed, field), atol=1e-6)
    with pytest.raises(ValueError, match="seats must be"):
        simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                            models=models, points_by_finders=points,
                            seats=np.zeros((3, 4), dtype=np.intp))


def test_a_random_player_finds_one_card_in_the_board_of_those_it_may_vote_for():
    hands, pools, deals = _tables(2)
    models = [GuessModel(0.01, 0.0, 0.0)] * 2
    points = np.array([0.0, 3, 3, 3, 0])
    every = np.full((16, 4), 2, dtype=np.intp)        # kind 2 (past the 2 members): random
    result = simulate_population(hands, pools, deals, n_voters=4, cards_per_guesser=1,
                                 models=models, points_by_finders=points, seats=every)
    np.testing.assert_allclose(result.guess_rate, 0.25)
    p_none, p_all = 0.75 ** 4, 0.25 ** 4
    np.testing.assert_allclose(result.success_rate, 1 - p_none - p_all, rtol=1e-5)
    assert result.member_deals is not None and not result.member_deals.any()
    np.testing.assert_allclose(result.spread, 0.0)    # no member simulated: no spread
    # Three sure finders and one random player: everyone finds 1 time in 4, else success.
    sure = [np.full((2, 5), 0.9, dtype=np.float32)] * 2
    mixed = np.zeros((16, 4), dtype=np.intp)
    mixed[:, 3] = 2
    result = simulate_population(sure, pools, deals, n_voters=4, cards_per_guesser=1,
                                 models=models, points_by_finders=points, seats=mixed)
    np.testing.assert_allclose(result.success_rate, 0.75, atol=1e-3)
    np.testing.assert_allclose(result.guess_rate, (3 + 0.25) / 4, atol=1e-3)


def test_a_reading_storyteller_plays_a_game_and_says_what_it_read():
    spaces = related_spaces(3, seed=4)
    own = spaces[0]
    ids = list(own.card_ids)
    with pytest.raises(ValueError, match="read_table needs a population"):
        ClipAgent(deck=own, read_table=True, **SMALL)
    reader = ClipAgent(name="reader", deck=own, population=["copy", *spaces[1:]],
                       mode="expected_points", read_table=True, table_mix=0.5, **SMALL)
    others = [ClipAgent(name=f"p{k}", deck=spaces[k % 3], **SMALL) for k in range(4)]
    record = play_game([reader, *others], edition="refresh-2021", deck=ids, seed=5)
    assert record.status == "complete"
    told = [r for r in record.rounds if r.storyteller == 0]
    assert len(told) >= 2
    table = reader.last_story.info["table"]
    assert sum(table["votes_read"]) > 0 and len(table["opponents"]) == 4
    assert reader.describe()["read_table"] is True
