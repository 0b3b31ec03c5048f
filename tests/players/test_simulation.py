"""The storyteller's simulation against brute force, and calibration fitting."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dixit_ai.rules import RuleSet
from models.players.calibration import (
    VoteObservation,
    calibrated_ece,
    ece_interval,
    fit_guess_model,
    reliability,
    story_correlation,
)
from models.players.simulation import (
    GuessModel,
    draw_deals,
    simulate,
    storyteller_points_by_finders,
)


def shared_finders(weights, n_voters):
    """Exact distribution of the number of finders when one Plackett-Luce ranking of the board
    (item 0 the storyteller's card, item 1 + g voter g's decoy) serves every voter: every
    ranking, its probability, and each voter's vote (its top card other than its own)."""
    dist = np.zeros(n_voters + 1)
    for order in itertools.permutations(range(len(weights))):
        p = 1.0
        for position, item in enumerate(order):
            p *= weights[item] / sum(weights[i] for i in order[position:])
        finders = sum(next(i for i in order if i != 1 + g) == 0 for g in range(n_voters))
        dist[finders] += p
    return dist


def brute_force(hand_sims, pool_sims, hand, n_opponents, n_voters, model, points_by_finders):
    """Every deal of the pool to the opponents, every vote outcome, with plain loops."""
    h, k_count = hand_sims.shape
    u = len(pool_sims)
    rate = np.zeros((h, k_count))
    points = np.zeros((h, k_count))
    success = np.zeros((h, k_count))
    deals = list(itertools.permutations(range(u), n_opponents * hand))
    for deal in deals:
        hands = [deal[g * hand:(g + 1) * hand] for g in range(n_opponents)]
        for c in range(h):
            for k in range(k_count):
                decoys = [max(pool_sims[i, k] for i in cards) for cards in hands]
                found = []
                for g in range(n_voters):
                    weights = [np.exp(hand_sims[c, k] / model.temperature + model.bias)]
                    weights += [np.exp(d / model.temperature)
                                for j, d in enumerate(decoys) if j != g]
                    found.append(weights[0] / sum(weights))
                rate[c, k] += np.mean(found) / len(deals)
                independent = np.zeros(n_voters + 1)
                for outcome in itertools.product((0, 1), repeat=n_voters):
                    p = np.prod([f if o else 1 - f for f, o in zip(found, outcome, strict=True)])
                    independent[sum(outcome)] += p
                top = max(hand_sims[c, k], *decoys) / model.temperature
                board = [np.exp(hand_sims[c, k] / model.temperature + model.bias - top)]
                board += [np.exp(d / model.temperature - top) for d in decoys]
                shared = shared_finders(board, n_voters)
                dist = model.correlation * shared + (1 - model.correlation) * independent
                points[c, k] += dist @ points_by_finders / len(deals)
                success[c, k] += (1 - dist[0] - dist[-1]) / len(deals)
    return rate, points, success, np.asarray(deals).reshape(len(deals), n_opponents, hand)


@pytest.mark.parametrize("correlation", [1.0, 0.0, 0.4])
@pytest.mark.parametrize(("points_by_finders", "temperature"), [
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.1),
    (np.asarray([0.0, 4.0, 3.0, 0.0]), 0.1),
    # Sharp guessers and similarities far apart: weights span hundreds of orders of magnitude.
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.004),
])
def test_simulation_agrees_with_brute_force(points_by_finders, temperature, correlation):
    rng = np.random.default_rng(0)
    hand_sims = rng.uniform(0.1, 0.5, (2, 3))
    pool_sims = rng.uniform(0.1, 0.5, (6, 3))
    model = GuessModel(temperature=temperature, bias=0.3, correlation=correlation)
    rate, points, success, all_deals = brute_force(hand_sims, pool_sims, hand=2, n_opponents=3,
                                          n_voters=3, model=model,
                                          points_by_finders=points_by_finders)
    kwargs = {"n_voters": 3, "cards_per_guesser": 1, "model": model,
              "points_by_finders": points_by_finders}
    exact = simulate(hand_sims, pool_sims, all_deals, **kwargs)
    np.testing.assert_allclose(exact.guess_rate, rate, rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(exact.expected_points, points, rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(exact.success_rate, success, rtol=1e-3, atol=1e-6)
    sampled = simulate(hand_sims, pool_sims, draw_deals(rng, 6, 4000, 3, 2), **kwargs)
    np.testing.assert_allclose(sampled.guess_rate, rate, atol=0.01)
    np.testing.assert_allclose(sampled.expected_points, points, atol=0.05)


def test_two_decoys_per_guesser_against_brute_force():
    """3-player games where guessers play two cards: the two most similar are the decoys."""
    rng = np.random.default_rng(1)
    hand_sims = rng.uniform(0.1, 0.5, (2, 2))
    pool_sims = rng.uniform(0.1, 0.5, (6, 2))
    model = GuessModel(temperature=0.05)
    deals = np.asarray(list(itertools.permutations(range(6), 6))).reshape(-1, 2, 3)
    result = simulate(hand_sims, pool_sims, deals, n_voters=2, cards_per_guesser=2, model=model,
                      points_by_finders=np.asarray([0.0, 3.0, 0.0]))
    expected = np.zeros((2, 2))
    for deal in deals:
        for c, k in itertools.product(range(2), range(2)):
            tops = [sorted(pool_sims[list(cards), k])[-2:] for cards in deal]
            for g in range(2):
                w = np.exp(hand_sims[c, k] / model.temperature)
                other = sum(np.exp(np.asarray(tops[1 - g]) / model.temperature))
                expected[c, k] += w / (w + other) / 2 / len(deals)
    np.testing.assert_allclose(result.guess_rate, expected, rtol=1e-4)


def test_points_by_finders_follow_the_rules():
    refresh = RuleSet.edition("refresh-2021")
    assert list(storyteller_points_by_finders(refresh, 5, 4)) == [0, 3, 3, 3, 0]
    rules = next((RuleSet.edition(e) for e in ("odyssey-2024", "refresh-2021", "odyssey-2011",
                                               "original-2008")
                  if RuleSet.edition(e).three_player_solo_points is not None), None)
    if rules is not None:
        solo = rules.three_player_solo_points
        assert list(storyteller_points_by_finders(rules, 3, 2)) == [0, solo, 0]


def test_calibration_fitting_recovers_a_known_temperature():
    rng = np.random.default_rng(0)
    truth = GuessModel(temperature=0.05, bias=0.8)
    observations = []
    for _ in range(3000):
        sims = rng.normal(0.25, 0.06, 4)
        story = int(rng.integers(4))
        p = truth.vote_probabilities(sims, story)
        observations.append(VoteObservation(sims, story, int(rng.choice(4, p=p))))
    fitted = fit_guess_model(observations)
    assert fitted.temperature == pytest.approx(truth.temperature, rel=0.15)
    assert fitted.bias == pytest.approx(truth.bias, abs=0.2)
    no_bias = fit_guess_model(observations[:500], fit_bias=False)
    assert no_bias.bias == 0.0


def test_reliability_of_calibrated_predictions_is_small():
    rng = np.random.default_rng(0)
    predicted = rng.random(4000)
    observed = (rng.random((4000, 4)) < predicted[:, None]).mean(axis=1)
    assert reliability(predicted, observed).ece < 0.03
    assert reliability(predicted, 1 - observed).ece > 0.3


def test_calibrated_ece_is_the_noise_of_a_calibrated_teller_and_shrinks_with_votes():
    """A calibrated teller's binned ECE is not 0 on few votes: calibrated_ece gives that floor,
    it matches the ECE of outcomes really drawn from the predictions, and shrinks with more
    votes per turn."""
    rng = np.random.default_rng(1)
    predicted = rng.uniform(0.05, 0.95, 200)
    few = calibrated_ece(predicted, [1] * 200, seed=0, draws=300)
    many = calibrated_ece(predicted, [16] * 200, seed=0, draws=300)
    assert 0.0 < many.estimate < few.estimate
    assert few.low <= few.estimate <= few.high
    drawn = [reliability(predicted, rng.binomial(1, predicted)).ece for _ in range(300)]
    assert float(np.mean(drawn)) == pytest.approx(few.estimate, abs=0.01)
    assert calibrated_ece(predicted, [1] * 200, seed=0, draws=300) == few   # seeded
    with pytest.raises(ValueError, match="at least 1 vote per turn"):
        calibrated_ece([0.5, 0.5], [1, 0])
    with pytest.raises(ValueError, match="predictions in \\[0, 1\\]"):
        calibrated_ece([1.5], [1])
    with pytest.raises(ValueError, match="2 predictions and 1 counts"):
        calibrated_ece([0.5, 0.5], [1])


def _story_votes(rng, rho: float, stories: int = 400, tellings: int = 5, votes: int = 4):
    """Turns of a calibrated storyteller whose votes on one story go together with ``rho``
    (calibrated_ece's model): each vote reads its story's shared draw with chance
    ``sqrt(rho)``, so any two votes on a story are correlated by ``rho``."""
    chance = rng.uniform(0.1, 0.9, stories)
    story = np.repeat(np.arange(stories), tellings)
    p = chance[story]
    shared = rng.random(stories)[story][:, None]
    own = rng.random((story.size, votes))
    draw = np.where(rng.random((story.size, votes)) < math.sqrt(rho), shared, own)
    return p, (draw < p[:, None]).mean(axis=1), np.full(story.size, votes), story


@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_story_correlation_recovers_how_far_votes_on_one_story_go_together(rho):
    p, observed, votes, story = _story_votes(np.random.default_rng(int(rho * 10)), rho)
    assert story_correlation(p, observed, votes, story) == pytest.approx(rho, abs=0.06)
    # Each turn a story of its own: no pairs across turns, only within them.
    assert story_correlation(p, observed, votes, np.arange(p.size)) == pytest.approx(
        rho, abs=0.08)
    assert math.isnan(story_correlation([0.5], [1.0], [1], ["one vote"]))
    with pytest.raises(ValueError, match="one observation per prediction"):
        story_correlation([0.5, 0.5], [1.0], [1, 1], ["a", "b"])


def test_calibrated_ece_grows_with_the_correlation_of_votes_on_a_story():
    """Stories told again and again, found every time or never, leave a calibrated storyteller
    a far larger ECE than independent votes: the noise it is measured against says so."""
    p, observed, votes, story = _story_votes(np.random.default_rng(3), 1.0, stories=40,
                                             tellings=10)
    independent = calibrated_ece(p, votes, clusters=story, correlation=0.0, draws=200)
    all_or_none = calibrated_ece(p, votes, clusters=story, correlation=1.0, draws=200)
    assert all_or_none.estimate > 3 * independent.estimate
    # Without clusters every turn is its own story: correlation then only ties a turn's votes.
    own = calibrated_ece(p, votes, correlation=1.0, draws=200)
    assert independent.estimate < own.estimate < all_or_none.estimate
    # The ECE of a storyteller calibrated in this very way lies within the range it gives.
    assert all_or_none.low <= reliability(p, observed).ece <= all_or_none.high
    with pytest.raises(ValueError, match=r"correlation must be in \[0, 1\], not 1.5"):
        calibrated_ece(p, votes, correlation=1.5)
    with pytest.raises(ValueError, match="3 labels for 400 turns"):
        calibrated_ece(p, votes, clusters=[1, 2, 3])


def test_ece_interval_over_clusters_is_wider_than_over_turns():
    """A miscalibrated story told in many hands is one piece of evidence: the ECE is the same,
    its interval over the stories wider."""
    rng = np.random.default_rng(2)
    stories = rng.uniform(0.1, 0.9, 20)
    found = np.clip(stories + rng.choice([-0.3, 0.3], 20), 0.0, 1.0)
    predicted, observed = np.repeat(stories, 10), np.repeat(found, 10)
    labels = np.repeat(np.arange(20), 10)
    turns = ece_interval(predicted, observed, seed=0, n_resamples=400)
    cards = ece_interval(predicted, observed, clusters=labels, seed=0, n_resamples=400)
    assert turns.estimate == cards.estimate == pytest.approx(
        reliability(predicted, observed).ece)
    assert cards.high - cards.low > 2 * (turns.high - turns.low)
    assert cards.low <= cards.estimate <= cards.high
    with pytest.raises(ValueError, match="0 predictions and 0 observations"):
        ece_interval([], [])


def test_shared_votes_leave_no_room_for_two_or_three_finders():
    """With one reading of the board, a near tie of the card and one decoy is all or nothing
    for the voters who do not own that decoy: independent voters would split instead."""
    hand_sims = np.asarray([[0.300]])
    pool_sims = np.asarray([[0.3005], [0.1], [0.1], [0.1]])
    deals = np.asarray([[[0], [1], [2], [3]]])
    points = np.asarray([0.0, 3.0, 3.0, 3.0, 0.0])
    kwargs = {"n_voters": 4, "cards_per_guesser": 1, "points_by_finders": points}
    shared = simulate(hand_sims, pool_sims, deals, model=GuessModel(0.001, 0.0, 1.0), **kwargs)
    apart = simulate(hand_sims, pool_sims, deals, model=GuessModel(0.001, 0.0, 0.0), **kwargs)
    np.testing.assert_allclose(shared.guess_rate, apart.guess_rate)
    # The card beats the decoy with probability 1/(1 + e^0.5) = 0.38: then everyone finds it;
    # otherwise only the decoy's owner does (success).
    assert shared.success_rate[0, 0] == pytest.approx(1 - 1 / (1 + np.exp(0.5)), abs=1e-4)
    assert apart.success_rate[0, 0] > 0.9


def test_guess_model_round_trips(tmp_path):
    model = GuessModel(0.02, -0.5, 0.7)
    model.save(tmp_path / "g.json", votes=10, embedder="default-abc")
    assert GuessModel.load(tmp_path / "g.json") == model
    assert GuessModel.fitted_for(tmp_path / "g.json") == "default-abc"
    (tmp_path / "old.json").write_text('{"temperature": 0.02}')
    assert GuessModel.load(tmp_path / "old.json") == GuessModel(0.02, 0.0, 1.0)
    assert GuessModel.fitted_for(tmp_path / "old.json") is None
    with pytest.raises(ValueError):
        GuessModel(0.0)
    with pytest.raises(ValueError):
        GuessModel(0.02, 0.0, 1.5)


def test_sharp_outcomes_count_every_deal():
    """The exact sharp-guesser outcomes against every deal, voters voting by plain argmax."""
    from models.players.simulation import sharp_outcomes

    rng = np.random.default_rng(3)
    hand_sims = rng.uniform(0.1, 0.5, (3, 4))
    pool_sims = rng.uniform(0.1, 0.5, (7, 4))
    n_opponents, hand = 3, 2
    one = np.zeros((3, 4))
    every = np.zeros((3, 4))
    deals = list(itertools.permutations(range(7), n_opponents * hand))
    for deal in deals:
        for c, k in itertools.product(range(3), range(4)):
            decoys = [max(pool_sims[i, k] for i in deal[g * hand:(g + 1) * hand])
                      for g in range(n_opponents)]
            finders = sum(hand_sims[c, k] > max(d for j, d in enumerate(decoys) if j != g)
                          for g in range(n_opponents))
            one[c, k] += (finders == 1) / len(deals)
            every[c, k] += (finders == n_opponents) / len(deals)
    result = sharp_outcomes(hand_sims, pool_sims, n_opponents=n_opponents, hand_size=hand)
    assert result is not None
    np.testing.assert_allclose(result[0], one, atol=1e-9)
    np.testing.assert_allclose(result[1], every, atol=1e-9)
    # The sampled simulation of sharp, shared voters converges to it.
    model = GuessModel(temperature=0.001, correlation=1.0)
    sampled = simulate(hand_sims, pool_sims, draw_deals(rng, 7, 6000, n_opponents, hand),
                       n_voters=3, cards_per_guesser=1, model=model,
                       points_by_finders=np.asarray([0.0, 3.0, 3.0, 0.0]))
    np.testing.assert_allclose(sampled.success_rate, result[0], atol=0.03)


def test_correlation_fit_tells_shared_from_independent_votes():
    """Synthetic rounds of 4 voters: one shared Gumbel reading per round vs one per voter."""
    from types import SimpleNamespace

    from models.players.calibration import fit_correlation

    rng = np.random.default_rng(0)
    model = GuessModel(temperature=0.05)
    vectors = {card: rng.standard_normal(8) for card in range(5)}
    clue = rng.standard_normal(8)

    def card_vectors(cards):
        return np.stack([vectors[c] for c in cards]) / 3.0

    def text_vectors(texts):
        return clue[None, :] / np.linalg.norm(clue)

    def rounds(shared):
        out = []
        sims = card_vectors(range(5)) @ text_vectors(["x"])[0]
        for _ in range(400):
            noise = rng.gumbel(size=5)
            votes = {}
            for seat in range(1, 5):  # seat s owns board position s; the storyteller is 0
                mine = noise if shared else rng.gumbel(size=5)
                scores = sims / model.temperature + mine
                scores[seat] = -np.inf
                votes[seat] = [int(np.argmax(scores))]
            out.append(SimpleNamespace(votes=votes, storyteller_card=0, board=[0, 1, 2, 3, 4],
                                       board_owner=[0, 1, 2, 3, 4], clue="x"))
        return [SimpleNamespace(rounds=out)]

    shared, _ = fit_correlation(rounds(True), card_vectors, text_vectors, model)
    apart, notes = fit_correlation(rounds(False), card_vectors, text_vectors, model)
    assert shared == 1.0
    assert apart < 0.3 and notes["between_independent"] > 20


# --- The second vote (Odyssey) ----------------------------------------------------------------

def _state_probabilities(card_logit, decoy_logits, margin, grid=2001):
    """Given the card's utility ``x`` (a Gumbel around its logit, on a fine grid), each decoy is
    below it, above it by less than ``margin`` (near) or by more (far): ``(n, 3, grid)``
    probabilities and the grid's integration weights (Simpson, over the card's density)."""
    x = np.linspace(card_logit - 4.0, card_logit + 36.0, grid)
    density = np.exp(-(x - card_logit) - np.exp(-(x - card_logit)))
    simpson = np.ones(grid)
    simpson[1:-1:2], simpson[2:-1:2] = 4.0, 2.0
    weights = density * simpson * (x[1] - x[0]) / 3.0
    decoys = np.asarray(decoy_logits)[:, None]
    below = np.exp(-np.exp(decoys - x[None, :]))
    within = (np.exp(-np.exp(decoys - x[None, :] - margin)) if np.isfinite(margin)
              else np.ones_like(below))
    return np.stack([below, within - below, 1.0 - within], axis=1), weights


def two_vote_brute_force(hand_sims, pool_sims, deals, cards, model, points_by_finders, reach):
    """Every deal and every state of the board around the card's utility, with plain loops.

    A voter votes for its top card and casts a second vote on its second one when the top leads
    by less than ``log(1 / (1 - reach))`` (the clip guesser's rule), so it finds the card iff no
    decoy it may vote for is above the card, or exactly one is, near. Shared: one reading for
    every voter; independent: one each (its own states); the two mixed by the correlation.
    """
    margin = -math.log(1.0 - reach) if reach < 1 else math.inf
    h, k_count = hand_sims.shape
    n_voters = deals.shape[1]
    rate, points, success = (np.zeros((h, k_count)) for _ in range(3))
    for deal in deals:
        owner = np.repeat(np.arange(n_voters), cards)
        for c, k in itertools.product(range(h), range(k_count)):
            decoys = np.concatenate([np.sort(pool_sims[list(hand), k])[::-1][:cards]
                                     for hand in deal])
            probabilities, weights = _state_probabilities(
                hand_sims[c, k] / model.temperature + model.bias, decoys / model.temperature,
                margin)
            shared = np.zeros(n_voters + 1)
            each = np.zeros(n_voters)
            for states in itertools.product(range(3), repeat=len(decoys)):
                p = weights @ np.prod([probabilities[j, s] for j, s in enumerate(states)],
                                      axis=0)
                finds = []
                for g in range(n_voters):
                    above = [s for s, o in zip(states, owner, strict=True) if o != g and s]
                    finds.append(not above or above == [1])
                shared[sum(finds)] += p
                each += p * np.asarray(finds)
            independent = np.zeros(n_voters + 1)
            independent[0] = 1.0
            for p in each:
                independent[1:] = independent[1:] * (1 - p) + independent[:-1] * p
                independent[0] *= 1 - p
            dist = model.correlation * shared + (1 - model.correlation) * independent
            rate[c, k] += each.mean() / len(deals)
            points[c, k] += dist @ points_by_finders / len(deals)
            success[c, k] += (1 - dist[0] - dist[-1]) / len(deals)
    return rate, points, success


def _three_voters_match_brute_force(hand_sims, pool_sims, model, points_by_finders, reach):
    """Three voters, one decoy each, every deal of five unseen cards: simulate's guess rate,
    points and success against brute force; returns simulate's result and the brute force's
    rate."""
    deals = np.asarray(list(itertools.permutations(range(5), 3))).reshape(-1, 3, 1)
    rate, points, success = two_vote_brute_force(hand_sims, pool_sims, deals, 1, model,
                                                 points_by_finders, reach)
    result = simulate(hand_sims, pool_sims, deals, n_voters=3, cards_per_guesser=1, model=model,
                      points_by_finders=points_by_finders, second_vote=reach)
    np.testing.assert_allclose(result.guess_rate, rate, rtol=1e-3, atol=2e-5)
    np.testing.assert_allclose(result.expected_points, points, rtol=1e-3, atol=5e-5)
    np.testing.assert_allclose(result.success_rate, success, rtol=1e-3, atol=2e-5)
    return result, rate


@pytest.mark.parametrize("correlation", [1.0, 0.0, 0.4])
@pytest.mark.parametrize(("points_by_finders", "temperature", "reach"), [
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.1, 2 / 3),
    (np.asarray([0.0, 4.0, 3.0, 0.0]), 0.1, 2 / 3),   # points that tell 1 from 2 finders
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.1, 1.0),     # no single-vote bonus: always cast
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.004, 2 / 3),  # sharp: weights hundreds of e apart
])
def test_second_vote_agrees_with_brute_force(points_by_finders, temperature, reach,
                                             correlation):
    rng = np.random.default_rng(0)
    hand_sims = rng.uniform(0.1, 0.5, (2, 2))
    pool_sims = rng.uniform(0.1, 0.5, (5, 2))
    model = GuessModel(temperature=temperature, bias=0.3, correlation=correlation)
    result, _ = _three_voters_match_brute_force(hand_sims, pool_sims, model, points_by_finders,
                                                reach)
    deals = np.asarray(list(itertools.permutations(range(5), 3))).reshape(-1, 3, 1)
    first = simulate(hand_sims, pool_sims, deals, n_voters=3, cards_per_guesser=1, model=model,
                     points_by_finders=points_by_finders)
    assert np.all(result.guess_rate >= first.guess_rate - 1e-9)    # second votes find more
    if temperature > 0.01:    # (sharp guessers hardly ever cast one)
        assert np.all(result.guess_rate > first.guess_rate + 0.01)


@pytest.mark.parametrize("correlation", [1.0, 0.0, 0.4])
def test_second_vote_of_beliefs_far_broader_than_the_reading_agrees_with_brute_force(
        correlation):
    """Voters reading the board at the fit's floor (0.001) and believing at 0.026: the margin is
    26 log 3 logits, the reach within 4e-13 of 1 (float32 rounds it to 1). The board's cards
    lie up to 0.08 apart in similarity, so decoys far beyond the margin (0.029) are common:
    there the second vote must not reach."""
    from models.players.population_voters import member_reach

    rng = np.random.default_rng(3)
    hand_sims = rng.uniform(0.2, 0.28, (2, 3))
    pool_sims = rng.uniform(0.2, 0.28, (5, 3))
    model = GuessModel(temperature=0.001, bias=-0.61, correlation=correlation)
    reach = member_reach(2 / 3, 0.001, 0.026)
    assert 0 < 1.0 - reach < 1e-12 and np.float32(reach) == 1.0
    points_by_finders = np.asarray([0.0, 3.0, 3.0, 0.0])
    _, rate = _three_voters_match_brute_force(hand_sims, pool_sims, model, points_by_finders,
                                              reach)
    deals = np.asarray(list(itertools.permutations(range(5), 3))).reshape(-1, 3, 1)
    always = two_vote_brute_force(hand_sims, pool_sims, deals, 1, model, points_by_finders,
                                  1.0)[0]
    assert np.abs(always - rate).max() > 0.05    # the margin decides somewhere on this board


@pytest.mark.parametrize("correlation", [1.0, 0.0])
def test_second_vote_of_three_players_with_two_decoys_each_agrees_with_brute_force(
        correlation):
    """odyssey-2024 at 3 players: two voters, each facing the other's two decoys."""
    rng = np.random.default_rng(1)
    hand_sims = rng.uniform(0.1, 0.5, (2, 2))
    pool_sims = rng.uniform(0.1, 0.5, (6, 2))
    model = GuessModel(temperature=0.08, bias=-0.2, correlation=correlation)
    deals = np.stack([rng.permutation(6)[:6].reshape(2, 3) for _ in range(12)])
    points = np.asarray([0.0, 4.0, 0.0])
    rate, expected, success = two_vote_brute_force(hand_sims, pool_sims, deals, 2, model,
                                                   points, 2 / 3)
    result = simulate(hand_sims, pool_sims, deals, n_voters=2, cards_per_guesser=2, model=model,
                      points_by_finders=points, second_vote=2 / 3)
    np.testing.assert_allclose(result.guess_rate, rate, rtol=1e-3, atol=2e-5)
    np.testing.assert_allclose(result.expected_points, expected, rtol=1e-3, atol=5e-5)
    np.testing.assert_allclose(result.success_rate, success, rtol=1e-3, atol=2e-5)


@pytest.mark.parametrize("correlation", [1.0, 0.0])
def test_second_vote_approximation_of_many_decoys_is_close_to_brute_force(correlation):
    """Six voters: beyond the strongest decoy (each voter's, or the deal's in the shared
    reading), the others are taken as equal decoys of the same total and sum of squares (module
    docstring); over near-tied boards the error stays within a few thousandths."""
    rng = np.random.default_rng(2)
    hand_sims = rng.normal(0.25, 0.02, (1, 2))
    pool_sims = rng.normal(0.25, 0.02, (12, 2))
    deals = np.stack([rng.permutation(12)[:6].reshape(6, 1) for _ in range(4)])
    model = GuessModel(temperature=0.02, correlation=correlation)
    points = np.asarray([0.0, 3.0, 3.0, 3.0, 3.0, 3.0, 0.0])
    rate, expected, success = two_vote_brute_force(hand_sims, pool_sims, deals, 1, model,
                                                   points, 2 / 3)
    result = simulate(hand_sims, pool_sims, deals, n_voters=6, cards_per_guesser=1, model=model,
                      points_by_finders=points, second_vote=2 / 3)
    # Measured: 0.0002, 0.0009 and 0.0027 off (one exact decoy; 0.00004, 0.0001 and 0.0003
    # with two).
    np.testing.assert_allclose(result.guess_rate, rate, atol=5e-4)
    np.testing.assert_allclose(result.success_rate, success, atol=2e-3)
    np.testing.assert_allclose(result.expected_points, expected, atol=6e-3)


def test_second_vote_brute_force_rule_matches_literal_votes():
    """The brute force's rule (found iff no decoy above, or one within the margin) is the clip
    guesser's: sampled readings, top card voted, second cast iff the gap is below the margin."""
    rng = np.random.default_rng(3)
    card, decoys = 0.30 / 0.05, np.asarray([0.31, 0.29, 0.27]) / 0.05
    probabilities, weights = _state_probabilities(card, decoys, math.log(3.0))
    exact = np.zeros(3)
    for states in itertools.product(range(3), repeat=3):
        p = weights @ np.prod([probabilities[j, s] for j, s in enumerate(states)], axis=0)
        for g in range(3):
            above = [s for j, s in enumerate(states) if j != g and s]
            exact[g] += p * (not above or above == [1])
    utilities = np.concatenate([[card], decoys]) + rng.gumbel(size=(200_000, 4))
    for g in range(3):
        legal = utilities.copy()
        legal[:, 1 + g] = -np.inf
        order = np.argsort(-legal, axis=1)
        gap = (np.take_along_axis(legal, order[:, :1], 1)
               - np.take_along_axis(legal, order[:, 1:2], 1))[:, 0]
        found = (order[:, 0] == 0) | ((order[:, 1] == 0) & (gap < math.log(3.0)))
        assert found.mean() == pytest.approx(exact[g], abs=0.005)


def test_second_vote_reach_follows_the_edition_and_player_count():
    from models.players.simulation import second_vote_reach

    assert second_vote_reach(RuleSet.edition("original-2008"), 5) == 0.0
    assert second_vote_reach(RuleSet.edition("refresh-2021"), 8) == 0.0
    assert second_vote_reach(RuleSet.edition("odyssey-2011"), 6) == 0.0
    assert second_vote_reach(RuleSet.edition("odyssey-2011"), 7) == pytest.approx(2 / 3)
    assert second_vote_reach(RuleSet.edition("odyssey-2024"), 3) == pytest.approx(2 / 3)
    assert second_vote_reach(RuleSet.edition("odyssey-2011", teams=True), 8) == 0.0
    assert second_vote_reach(RuleSet.edition("odyssey-2024", single_vote_bonus=0), 4) == 1.0
    assert second_vote_reach(RuleSet.edition("odyssey-2024", single_vote_bonus=3), 4) == 0.0


def test_second_vote_refuses_what_it_does_not_simulate():
    rng = np.random.default_rng(0)
    hand_sims, pool_sims = rng.uniform(0.1, 0.5, (1, 2)), rng.uniform(0.1, 0.5, (12, 2))
    kwargs = {"model": GuessModel(0.05), "points_by_finders": np.asarray([0.0, 3.0, 3.0, 0.0])}
    deals = draw_deals(rng, 12, 4, 3, 2)
    with pytest.raises(ValueError, match=r"second_vote must be a reach in \[0, 1\], not 1.5"):
        simulate(hand_sims, pool_sims, deals, n_voters=3, cards_per_guesser=1,
                 second_vote=1.5, **kwargs)
    with pytest.raises(ValueError, match="every opponent votes; here 2 of 3"):
        simulate(hand_sims, pool_sims, deals, n_voters=2, cards_per_guesser=1,
                 second_vote=0.5, **{**kwargs, "points_by_finders": np.zeros(3)})
    with pytest.raises(ValueError, match="2 decoys each for 3 opponents"):
        simulate(hand_sims, pool_sims, deals, n_voters=3, cards_per_guesser=2,
                 second_vote=0.5, **kwargs)


# Storyteller decisions on fixed seeds, recorded before the second vote was simulated: editions
# without a second vote (and Odyssey below its player count, and the team variant) must decide
# exactly as then. (edition, players, overrides, correlation, card, clue, rate, points)
ONE_VOTE_DECISIONS = [
    ("original-2008", 3, {}, 1.0, 98, "word20", 0.4921855032444, 1.4856463355681626),
    ("original-2008", 3, {}, 0.4, 98, "word20", 0.4921855032444, 1.52236042555256),
    ("refresh-2021", 5, {}, 1.0, 66, "word41", 0.6204453706741333, 1.212042611266952),
    ("refresh-2021", 5, {}, 0.4, 66, "word41", 0.6204453706741333, 1.534060016770123),
    ("odyssey-2011", 6, {}, 1.0, 139, "word29", 0.5049726009368897, 1.3341374325100332),
    ("odyssey-2011", 6, {}, 0.4, 139, "word29", 0.5049726009368897, 1.7167925088388438),
    ("odyssey-2011", 8, {'teams': True}, 1.0, 98, "word85", 0.5514500141143799, 0.9111471171618177),
    ("odyssey-2011", 8, {'teams': True}, 0.4, 98, "word85", 0.5514500141143799, 1.1045990610396252),
]


@pytest.mark.parametrize(("edition", "n_players", "overrides", "correlation", "card", "clue",
                          "rate", "points"), ONE_VOTE_DECISIONS)
def test_editions_without_a_second_vote_decide_as_before(edition, n_players, overrides,
                                                         correlation, card, clue, rate, points):
    from models.players.storyteller import ClipStoryteller
    from tests.players.conftest import storyteller_opening, vector_resources

    resources = vector_resources(n_cards=150, n_clues=120, seed=3)
    rules = RuleSet.edition(edition, **overrides)
    _, view, unseen = storyteller_opening(resources, rules, n_players, 7)
    decision = ClipStoryteller(pair_clues=0, n_simulations=16, refine=8, refine_simulations=32,
                               sharp_shortlist=8, confirm_simulations=32).decide(
        view, resources, GuessModel(0.03, 0.2, correlation), np.random.default_rng(11),
        unseen=unseen)
    assert (decision.card, decision.clue) == (card, clue)
    # The same float operations in the same order: equal to the last bit on one machine (a
    # relative 1e-12 leaves room for another CPU's vector exp, nothing for a model change).
    assert decision.guess_rate == pytest.approx(rate, rel=1e-12)
    assert decision.expected_points == pytest.approx(points, rel=1e-12)


def test_no_second_vote_is_the_one_vote_simulation_bit_for_bit():
    rng = np.random.default_rng(5)
    hand_sims, pool_sims = rng.uniform(0.1, 0.5, (3, 40)), rng.uniform(0.1, 0.5, (30, 40))
    deals = draw_deals(rng, 30, 32, 4, 5)
    for correlation in (1.0, 0.3):
        kwargs = {"n_voters": 4, "cards_per_guesser": 1,
                  "model": GuessModel(0.03, 0.4, correlation),
                  "points_by_finders": np.asarray([0.0, 3.0, 3.0, 3.0, 0.0])}
        before = simulate(hand_sims, pool_sims, deals, **kwargs)
        after = simulate(hand_sims, pool_sims, deals, second_vote=0.0, **kwargs)
        for name in ("guess_rate", "expected_points", "success_rate", "decoy_gap"):
            assert np.array_equal(getattr(before, name), getattr(after, name))
