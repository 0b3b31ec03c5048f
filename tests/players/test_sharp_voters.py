"""Sharp voters (models.players.sharp_voters): the storyteller's noise-free simulation of its
deterministic copies, against the clip guesser's own votes deal by deal."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dixit_ai.rules import RuleSet
from models.players.guesser import ClipGuesser
from models.players.sharp_voters import simulate_sharp
from models.players.simulation import (
    GuessModel,
    draw_deals,
    simulate,
    storyteller_points_by_finders,
)
from models.players.storyteller import ClipStoryteller

BELIEF_TEMPERATURE = 0.01


def literal_finders(card_sim, pool_sims, deal, *, n_voters, cards_per_guesser, rules,
                    n_players, second_vote):
    """Finders of one deal when every opponent plays its most similar cards and every voter
    votes as :class:`ClipGuesser` does (the storyteller's card at position 0)."""
    board = [card_sim]
    owners = [-1]
    for g, hand in enumerate(deal):
        best = sorted(hand, key=lambda c: -pool_sims[c])[:cards_per_guesser]
        board += [pool_sims[c] for c in best]
        owners += [g] * len(best)
    guesser = ClipGuesser(temperature=0.0, belief_temperature=BELIEF_TEMPERATURE,
                          second_vote=second_vote)
    found = 0
    for g in range(n_voters):
        legal = [i for i, owner in enumerate(owners) if owner != g]
        votes, _ = guesser.vote(np.asarray(board), legal, rules=rules,
                                max_votes=rules.votes_per_guesser(n_players),
                                rng=np.random.default_rng(0))
        found += 0 in votes
    return found


def margin_of(rules, n_players, second_vote=True):
    if not second_vote or rules.votes_per_guesser(n_players) < 2:
        return 0.0
    return BELIEF_TEMPERATURE * math.log(rules.finder_points / rules.single_vote_bonus)


@pytest.mark.parametrize(("edition", "n_players", "silent"), [
    ("odyssey-2024", 12, 0),      # 11 voters, a second vote each
    ("odyssey-2024", 4, 0),
    ("odyssey-2011", 8, 0),
    ("refresh-2021", 5, 0),       # one vote each
    ("odyssey-2024", 3, 0),       # two decoys per opponent, a second vote
    ("refresh-2021", 6, 1),       # an opponent who plays a card and does not vote (a teammate)
    ("odyssey-2024", 9, 2),
])
def test_every_deal_counts_the_finders_the_clip_guessers_make(edition, n_players, silent):
    rules = RuleSet.edition(edition)
    n_givers = n_players - 1
    n_voters = n_givers - silent
    cards = rules.cards_per_guesser_3p if n_players == 3 else rules.cards_per_guesser
    hand = rules.hand_size_for(n_players)
    rng = np.random.default_rng(7)
    # Similarities on a coarse grid of small gaps: many boards fall within the margin.
    pool_sims = rng.normal(0.3, 0.01, size=(40, 9))
    hand_sims = rng.normal(0.3, 0.01, size=(3, 9))
    deals = draw_deals(rng, len(pool_sims), 24, n_givers, hand)
    points = storyteller_points_by_finders(rules, n_players, n_voters)
    margin = margin_of(rules, n_players)
    result = simulate_sharp(hand_sims, pool_sims, deals, n_voters=n_voters,
                            cards_per_guesser=cards, points_by_finders=points, margin=margin)
    for c in range(3):
        for k in range(9):
            finders = np.array([literal_finders(hand_sims[c, k], pool_sims[:, k], deal,
                                                n_voters=n_voters, cards_per_guesser=cards,
                                                rules=rules, n_players=n_players,
                                                second_vote=True)
                                for deal in deals])
            assert result.guess_rate[c, k] == pytest.approx(finders.mean() / n_voters)
            assert result.expected_points[c, k] == pytest.approx(points[finders].mean())
            assert result.success_rate[c, k] == pytest.approx(
                ((finders > 0) & (finders < n_voters)).mean())


def test_the_second_vote_decides_boards_within_the_margin():
    """Eleven voters, the card second by less than the margin: everyone finds it (the
    best decoy's owner with its first vote, the others with their second); by more: its owner
    alone."""
    rules = RuleSet.edition("odyssey-2024")
    points = storyteller_points_by_finders(rules, 12, 11)
    pool = np.array([[0.50], [0.40], [0.39], [0.38], [0.37], [0.36], [0.35], [0.34], [0.33],
                     [0.32], [0.31]])
    deals = np.arange(11).reshape(1, 11, 1)
    for card, finders in ((0.495, 11), (0.48, 1), (0.51, 11)):
        result = simulate_sharp(np.array([[card]]), pool, deals, n_voters=11,
                                cards_per_guesser=1, points_by_finders=points, margin=0.011)
        assert result.guess_rate[0, 0] == pytest.approx(finders / 11)
    without = simulate_sharp(np.array([[0.495]]), pool, deals, n_voters=11,
                             cards_per_guesser=1, points_by_finders=points, margin=0.0)
    assert without.guess_rate[0, 0] == pytest.approx(1 / 11)


def test_it_is_the_noisy_simulation_in_the_limit_of_no_noise():
    """Without a second vote and far from ties, the noisy simulation at a temperature far
    below the gaps gives the sharp voters' figures."""
    rng = np.random.default_rng(3)
    rules = RuleSet.edition("refresh-2021")
    points = storyteller_points_by_finders(rules, 5, 4)
    pool_sims = rng.uniform(0.0, 1.0, size=(30, 6))
    hand_sims = rng.uniform(0.0, 1.0, size=(4, 6))
    deals = draw_deals(rng, 30, 32, 4, 6)
    sharp = simulate_sharp(hand_sims, pool_sims, deals, n_voters=4, cards_per_guesser=1,
                           points_by_finders=points)
    noisy = simulate(hand_sims, pool_sims, deals, n_voters=4, cards_per_guesser=1,
                     model=GuessModel(temperature=0.001, correlation=1.0),
                     points_by_finders=points)
    np.testing.assert_allclose(noisy.guess_rate, sharp.guess_rate, atol=0.02)
    np.testing.assert_allclose(noisy.expected_points, sharp.expected_points, atol=0.06)


def test_bad_arguments_are_refused():
    deals = np.zeros((2, 3, 1), dtype=np.int64)
    sims = np.zeros((1, 1))
    points = np.zeros(4)
    with pytest.raises(ValueError, match="n_voters must be between 1 and the 3 opponents"):
        simulate_sharp(sims, sims, deals, n_voters=4, cards_per_guesser=1,
                       points_by_finders=np.zeros(5))
    with pytest.raises(ValueError, match="points_by_finders needs 4 entries"):
        simulate_sharp(sims, sims, deals, n_voters=3, cards_per_guesser=1,
                       points_by_finders=np.zeros(3))
    for margin in (-0.1, math.nan):
        with pytest.raises(ValueError, match="margin must be a number >= 0"):
            simulate_sharp(sims, sims, deals, n_voters=3, cards_per_guesser=1,
                           points_by_finders=points, margin=margin)
    with pytest.raises(ValueError, match="sharp_voters must be True or False"):
        ClipStoryteller(sharp_voters="yes")  # type: ignore[arg-type]


def test_the_agent_refuses_sharp_voters_with_a_population_or_sampled_votes():
    from models.players.agent import ClipAgent

    with pytest.raises(ValueError, match="sharp_voters simulates copies of this agent"):
        ClipAgent(sharp_voters=True, population="copy,lite1-minilm")
    with pytest.raises(ValueError, match=r"vote_temperature=0\.1: use 0"):
        ClipAgent(sharp_voters=True, vote_temperature=0.1)


def _known_deal_round(teller, seed, model):
    """One odyssey-2024 round at 12 players on a 72-card deck: every card the storyteller has
    not seen is in an opponent's hand, so with deterministic guessers the outcome of a clue
    depends only on who holds what, and the best decoys are known. Returns the recorded
    prediction and the observed guess rate (opponents play their most similar card, guessers
    vote as the clip guesser at the guess model's temperature)."""
    from tests.players.conftest import storyteller_opening, vector_resources

    resources = vector_resources(n_cards=72, n_clues=400, seed=seed)
    rules = RuleSet.edition("odyssey-2024")
    state, view, unseen = storyteller_opening(resources, rules, 12, seed)
    assert len(unseen) == 66
    decision = teller.decide(view, resources, model, np.random.default_rng(seed), unseen=unseen)
    column = resources.clue_column(decision.clue)
    sims = column[resources.rows(list(resources.card_ids))]
    by_card = dict(zip(resources.card_ids, sims, strict=True))
    board = [by_card[decision.card]]
    owners = [state.storyteller]
    for seat, hand in enumerate(state.hands):
        if seat != state.storyteller:
            board.append(max(by_card[c] for c in hand))
            owners.append(seat)
    guesser = ClipGuesser(temperature=0.0, belief_temperature=model.temperature)
    found = 0
    for seat in owners[1:]:
        legal = [i for i, owner in enumerate(owners) if owner != seat]
        votes, _ = guesser.vote(np.asarray(board), legal, rules=rules, max_votes=2,
                                rng=np.random.default_rng(0))
        found += 0 in votes
    return decision.guess_rate, found / 11


def test_where_the_deal_is_known_sharp_voters_predict_the_outcome_and_noisy_ones_do_not():
    """The miss this module mends: with the guess model at the fit's floor (temperature 0.001,
    the shipped bias), the noisy simulation aims at clues whose outcome its noise decides, and
    its predictions are far from what deterministic guessers do; sharp voters predict it."""
    model = GuessModel(temperature=0.001, bias=-0.61, correlation=1.0)
    sharp_errors, noisy_errors = [], []
    for seed in range(8):
        predicted, observed = _known_deal_round(
            ClipStoryteller(pair_clues=0, sharp_voters=True), seed, model)
        sharp_errors.append(abs(predicted - observed))
        predicted, observed = _known_deal_round(ClipStoryteller(pair_clues=0), seed, model)
        noisy_errors.append(abs(predicted - observed))
    assert max(sharp_errors) < 1e-9
    assert np.mean(noisy_errors) > 0.2


def test_beliefs_are_fitted_to_where_the_storytellers_card_is_not_to_the_votes():
    """Deterministic voters (always their most similar card): the votes' own temperature runs
    to the fit's floor, while the storyteller's card, drawn at a known temperature, gives the
    beliefs that temperature."""
    from models.players.calibration import fit_belief_temperature, fit_guess_model
    from models.players.vote_observations import VoteObservation

    rng = np.random.default_rng(1)
    observations = []
    for _ in range(3000):
        sims = rng.normal(0.25, 0.06, 5)
        weights = np.exp((sims - sims.max()) / 0.03)
        story = int(rng.choice(5, p=weights / weights.sum()))
        observations.append(VoteObservation(sims, story, int(np.argmax(sims))))
    assert fit_guess_model(observations, fit_bias=False).temperature == pytest.approx(0.001)
    assert fit_belief_temperature(observations) == pytest.approx(0.03, rel=0.15)
    with pytest.raises(ValueError, match="no votes to fit the beliefs to"):
        fit_belief_temperature([])


def test_sharp_voters_cast_the_second_vote_by_their_belief_temperature():
    """The margin is the guessers' belief temperature times log(finder / bonus): a storyteller
    told its guessers' beliefs predicts what guessers with those beliefs do, deal by deal."""
    rules = RuleSet.edition("odyssey-2024")
    points = storyteller_points_by_finders(rules, 12, 11)
    pool = np.array([[0.50], [0.40], [0.39], [0.38], [0.37], [0.36], [0.35], [0.34], [0.33],
                     [0.32], [0.31]])
    deals = np.arange(11).reshape(1, 11, 1)
    card = np.array([[0.48]])   # 0.02 below the best decoy
    for belief, finders in ((0.001, 1), (0.03, 11)):  # margins 0.0011 and 0.033
        guesser = ClipGuesser(temperature=0.0, belief_temperature=belief)
        board = np.array([0.48, *pool[:, 0]])
        found = sum(0 in guesser.vote(board, [i for i in range(12) if i != 1 + g], rules=rules,
                                      max_votes=2, rng=np.random.default_rng(0))[0]
                    for g in range(11))
        assert found == finders
        result = simulate_sharp(card, pool, deals, n_voters=11, cards_per_guesser=1,
                                points_by_finders=points, margin=belief * math.log(3))
        assert result.guess_rate[0, 0] == pytest.approx(finders / 11)


def test_a_belief_temperature_is_refused_past_the_noisy_simulation_or_when_not_a_temperature():
    from models.players.agent import ClipAgent

    # The shipped guess model reads at 0.001: beliefs up to 29 times that are simulated by the
    # noisy copies (and a population's members); past it, only sharp voters represent them.
    assert ClipAgent(belief_temperature=0.0259).guesser.belief_temperature == 0.0259
    with pytest.raises(ValueError, match=r"^clip: belief_temperature: beliefs at temperature "
                                         r"0\.04 are 40\.0 times broader than a reading at 0\.001.*"
                                         r"at most 29\.3 times.*sharp_voters: true"):
        ClipAgent(belief_temperature=0.04)
    assert ClipAgent(sharp_voters=True, belief_temperature=0.04).guesser.belief_temperature == 0.04
    for bad in (0, -0.1, math.inf, math.nan, True, "0.02"):
        with pytest.raises(ValueError, match="belief_temperature must be a positive finite"):
            ClipAgent(sharp_voters=True, belief_temperature=bad)
    with pytest.raises(ValueError,
                       match=r"^belief_temperature must be a positive finite number, not -1\.0$"):
        ClipStoryteller(sharp_voters=True, belief_temperature=-1.0)
