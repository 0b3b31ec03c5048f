"""The population's simulation with Odyssey's second vote (``simulate_population(...,
second_vote=reach)``): against literal votes, pinned where there is no second vote, and the
population storyteller's recorded prediction at tables of its simulated minds."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.rules import RuleSet
from models.players.population import assignment, member_reach, simulate_population
from models.players.simulation import GuessModel, draw_deals, second_vote_reach
from models.players.storyteller import ClipStoryteller
from tests.players.conftest import storyteller_opening, vector_resources

REACH = 2.0 / 3.0    # Odyssey: single-vote bonus 1, finder points 3


def _literal(hands, pools, deals, kinds, models, reaches, rng, draws):
    """Rate, P(some but not all find) and P(all find), ``(h, K)`` each, averaged over the
    deals, of literal votes: every opponent plays its hand card most similar to the clue in its
    member's space; a member of correlation 1 reads the board once per round for all its voters
    (one Gumbel draw on each card's logit), one of correlation 0 once per voter; each voter votes
    for its top card it may vote for and for its second when the top leads by less than
    log(1 / (1 - reach)) in its logits (``reaches``: per member). A finder has either vote on
    the card."""
    n_sims, n_opponents, _ = deals.shape
    h, k = hands[0].shape
    columns = np.arange(k)
    rate, some, every = np.zeros((h, k)), np.zeros((h, k)), np.zeros((h, k))
    for s in range(n_sims):
        decoy = np.stack([deals[s, g][pools[kinds[s, g]][deals[s, g]].argmax(axis=0)]
                          for g in range(n_opponents)])                       # (G, K)
        readings = {}
        finders = np.zeros((draws, h, k))
        for g in range(n_opponents):
            q = kinds[s, g]
            model = models[q]
            if model.correlation == 1.0 and q in readings:
                card, board = readings[q]
            else:
                card = (hands[q] / model.temperature + model.bias)[None] + rng.gumbel(
                    size=(draws, h, k))
                board = (pools[q][decoy, columns] / model.temperature)[None] + rng.gumbel(
                    size=(draws, n_opponents, k))
                readings[q] = (card, board)
            margin = -np.log(1.0 - reaches[q])
            votable = np.delete(board, g, axis=1)[:, :, None, :]            # (D, G-1, 1, K)
            above = votable > card[:, None]
            count = above.sum(axis=1)
            top = votable.max(axis=1)
            finders += (count == 0) | ((count == 1) & (top - card < margin))
        rate += finders.mean(axis=0) / n_opponents
        every += (finders == n_opponents).mean(axis=0)
        some += ((finders > 0) & (finders < n_opponents)).mean(axis=0)
    return rate / n_sims, some / n_sims, every / n_sims


def _table(n_opponents, seed):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.4, (30, 3))
    pools = [np.clip(base + rng.normal(0, 0.04, base.shape), 0, 1) for _ in range(3)]
    hands = [rng.uniform(0.15, 0.4, (2, 3)) for _ in range(3)]
    deals = draw_deals(rng, 30, 6, n_opponents, 3)
    return hands, pools, deals


MODELS = [GuessModel(0.02, -0.2, 1.0), GuessModel(0.05, 0.0, 0.0), GuessModel(0.04, 0.3, 0.0)]


@pytest.mark.parametrize(("n_opponents", "table_mix", "seats", "beliefs"), [
    (3, 0.5, None, None),    # one-kind tables (whole-table reading) and mixed ones
    (7, 0.5, None, None),    # and pairs of the shared member among others
    (5, 0.0, [[0, 0, 0, 1, 2], [0, 1, 0, 2, 0], [1, 1, 2, 2, 0], [0, 0, 1, 0, 2],
              [2, 0, 1, 0, 0], [0, 0, 0, 0, 1]], None),   # threes and fours of it, not the table
    (2, 1.0, None, None),    # two voters reading one board
    (3, 0.5, None, 0.02),    # beliefs sharper than most members: smaller reaches
    (3, 0.5, None, 0.5),     # beliefs 10 to 25 times broader: reaches within 1e-12 of 1
    (7, 0.5, None, 0.5),
])
def test_population_second_vote_agrees_with_literal_votes(n_opponents, table_mix, seats,
                                                          beliefs):
    hands, pools, deals = _table(n_opponents, seed=n_opponents)
    points = np.asarray([0.0] + [3.0] * (n_opponents - 1) + [0.0])
    kinds = (assignment(len(deals), n_opponents, 3, table_mix) if seats is None
             else np.asarray(seats))
    result = simulate_population(hands, pools, deals, n_voters=n_opponents,
                                 cards_per_guesser=1, models=MODELS, points_by_finders=points,
                                 table_mix=table_mix, seats=None if seats is None else kinds,
                                 second_vote=REACH, belief_temperature=beliefs)
    reaches = [member_reach(REACH, m.temperature, beliefs) for m in MODELS]
    rate, some, every = _literal(hands, pools, deals, kinds, MODELS, reaches,
                                 np.random.default_rng(1), draws=40_000)
    # Measured with 200,000 draws: at most 0.0006 (rate) and 0.0011 (success) apart.
    assert np.abs(result.guess_rate - rate).max() < 0.006, result.guess_rate - rate
    assert np.abs(result.success_rate - some).max() < 0.008, result.success_rate - some
    assert np.abs(result.expected_points - 3.0 * some).max() < 0.024
    one_vote = simulate_population(hands, pools, deals, n_voters=n_opponents,
                                   cards_per_guesser=1, models=MODELS, points_by_finders=points,
                                   table_mix=table_mix, seats=None if seats is None else kinds)
    assert (result.guess_rate - one_vote.guess_rate).mean() > 0.02   # second votes count here
    assert every.mean() > 0.005   # boards where all find: the shared terms are exercised


def test_population_second_vote_refuses_what_simulate_refuses():
    hands, pools, deals = _table(3, seed=3)
    kwargs = {"cards_per_guesser": 1, "models": MODELS,
              "points_by_finders": np.asarray([0.0, 3.0, 3.0, 0.0])}
    with pytest.raises(ValueError, match=r"second_vote must be a reach in \[0, 1\], not 1.5"):
        simulate_population(hands, pools, deals, n_voters=3, second_vote=1.5, **kwargs)
    with pytest.raises(ValueError, match="every opponent votes; here 2 of 3"):
        simulate_population(hands, pools, deals, n_voters=2, second_vote=0.5,
                            **{**kwargs, "points_by_finders": np.zeros(3)})


def _population(correlation):
    resources = vector_resources(n_cards=150, n_clues=120, seed=3)
    others = [vector_resources(n_cards=150, n_clues=120, seed=s) for s in (4, 5)]
    return resources, [(resources, GuessModel(0.01, -0.3, correlation)),
                       (others[0], GuessModel(0.05, 0.0, 0.0)),
                       (others[1], GuessModel(0.08, 0.1, 0.0))]


# Population storyteller decisions on fixed seeds, recorded before the population simulated the
# second vote: editions without one (and the team variant) must decide exactly as then.
# (edition, players, overrides, correlation, card, clue, rate, points)
ONE_VOTE_DECISIONS = [
    ("original-2008", 3, {}, 1.0, 98, "word101", 0.4743864707487109, 0.9185342521383658),
    ("refresh-2021", 5, {}, 1.0, 139, "word90", 0.4861065396125994, 1.915046343135102),
    ("refresh-2021", 5, {}, 0.4, 139, "word90", 0.4861065396125994, 1.9285319786513746),
    ("odyssey-2011", 6, {}, 1.0, 139, "word93", 0.48643894389496517, 1.9024818374306884),
    ("odyssey-2011", 6, {}, 0.4, 139, "word93", 0.48643894389496517, 1.955330919482683),
    ("odyssey-2024", 8, {"teams": True}, 1.0, 98, "word47", 0.49707905637743827,
     2.007071355584782),
]


@pytest.mark.parametrize(("edition", "n_players", "overrides", "correlation", "card", "clue",
                          "rate", "points"), ONE_VOTE_DECISIONS)
def test_population_editions_without_a_second_vote_decide_as_before(
        edition, n_players, overrides, correlation, card, clue, rate, points):
    resources, population = _population(correlation)
    rules = RuleSet.edition(edition, **overrides)
    assert second_vote_reach(rules, n_players) == 0.0
    _, view, unseen = storyteller_opening(resources, rules, n_players, 7)
    decision = ClipStoryteller(pair_clues=0, n_simulations=16, refine=8, refine_simulations=32,
                               sharp_shortlist=8, confirm_simulations=32, table_mix=0.5).decide(
        view, resources, GuessModel(0.03, 0.2, correlation), np.random.default_rng(11),
        unseen=unseen, population=population)
    assert (decision.card, decision.clue) == (card, clue)
    assert decision.guess_rate == pytest.approx(rate, rel=1e-12)
    assert decision.expected_points == pytest.approx(points, rel=1e-12)


@pytest.mark.parametrize(("edition", "n_players", "beliefs"), [
    ("odyssey-2024", 4, None), ("odyssey-2011", 8, None),
    ("odyssey-2024", 4, 0.3),   # the storyteller's guessers believe at their own temperature
])
def test_population_prediction_counts_the_second_vote(edition, n_players, beliefs):
    """A population storyteller's recorded prediction is unbiased against tables of its
    simulated minds (fresh deals, minds seated as its simulation seats them, literal two votes),
    a finder being anyone with either vote on the card. Before the population simulated the
    second vote, it predicted the first votes' rate: measured here 0.052 +- 0.004 (4 players) and
    0.065 +- 0.005 (8 players) too low; now -0.006 +- 0.004 and -0.003 +- 0.003."""
    resources, population = _population(1.0)
    members = [m for m, _ in population]
    # The storyteller's own model (the table's beliefs) as broad as the members': second votes
    # reach about as far in every member's reading.
    models = [GuessModel(0.04, -0.3, 1.0), GuessModel(0.05, 0.0, 0.0), GuessModel(0.06, 0.1, 0.0)]
    population = list(zip(members, models, strict=True))
    rules = RuleSet.edition(edition)
    reach = second_vote_reach(rules, n_players)
    storyteller = ClipStoryteller(pair_clues=0, n_simulations=32, refine=8,
                                  refine_simulations=64, table_mix=0.5,
                                  belief_temperature=beliefs)
    believed = models[0].temperature if beliefs is None else beliefs
    errors, extra = [], []
    for trial in range(20):
        _, view, unseen = storyteller_opening(resources, rules, n_players, 3000 + trial)
        decision = storyteller.decide(view, resources, models[0], np.random.default_rng(trial),
                                      unseen=unseen, population=population)
        rng = np.random.default_rng(9000 + trial)
        deals = draw_deals(rng, len(unseen), 240, n_players - 1, rules.hand_size_for(n_players))
        kinds = assignment(len(deals), n_players - 1, len(members), 0.5)
        hands = [m.clue_column(decision.clue)[m.rows([decision.card])][:, None] for m in members]
        pools = [m.clue_column(decision.clue)[m.rows(unseen)][:, None] for m in members]
        # The table's guessers cast the second vote by beliefs at the storyteller's model's
        # temperature (a clip agent's guesser: its calibration's), or at its own.
        reaches = [member_reach(reach, m.temperature, believed) for m in models]
        either = _literal(hands, pools, deals, kinds, models, reaches, rng, draws=40)[0]
        first = _literal(hands, pools, deals, kinds, models, [1e-12] * 3, rng, draws=40)[0]
        errors.append(decision.guess_rate - float(either[0, 0]))
        extra.append(float(either[0, 0] - first[0, 0]))
    errors = np.asarray(errors)
    bias, error = float(errors.mean()), float(errors.std(ddof=1) / np.sqrt(len(errors)))
    assert np.mean(extra) > 0.03    # second votes matter at these tables
    assert abs(bias) < 3 * error + 0.01, (bias, error)


def test_member_reach_scales_the_margin_by_the_beliefs_over_the_members_temperature():
    assert member_reach(REACH, 0.05, None) == REACH
    assert member_reach(REACH, 0.03, 0.03) == pytest.approx(REACH)
    assert member_reach(REACH, 0.06, 0.03) == pytest.approx(1.0 - (1.0 / 3.0) ** 0.5)
    assert member_reach(0.0, 0.06, 0.03) == 0.0
    assert member_reach(REACH, 0.0001, 0.025) == pytest.approx(1.0 - (1.0 / 3.0) ** 25)
    assert member_reach(1.0, 0.001, 0.05) == 1.0    # no single-vote bonus: always cast
    # (1/3) ** 30 is 5e-15: as 1 - reach in a float64 it keeps one significant digit.
    with pytest.raises(ValueError, match=r"^beliefs at temperature 0\.03 are 30\.0 times broader "
                                         r"than a reading at 0\.001: .*at most 29\.3 times"):
        member_reach(REACH, 0.0001, 0.03)
