"""The storyteller's simulation against brute force, and calibration fitting."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dixit_ai.rules import RuleSet
from models.players.calibration import VoteObservation, fit_guess_model, reliability
from models.players.simulation import (
    GuessModel,
    draw_deals,
    simulate,
    storyteller_points_by_finders,
)


def brute_force(hand_sims, pool_sims, hand, n_opponents, n_voters, model, points_by_finders):
    """Every deal of the pool to the opponents, every vote outcome, with plain loops."""
    h, k_count = hand_sims.shape
    u = len(pool_sims)
    rate = np.zeros((h, k_count))
    points = np.zeros((h, k_count))
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
                for outcome in itertools.product((0, 1), repeat=n_voters):
                    p = np.prod([f if o else 1 - f for f, o in zip(found, outcome, strict=True)])
                    points[c, k] += p * points_by_finders[sum(outcome)] / len(deals)
    return rate, points, np.asarray(deals).reshape(len(deals), n_opponents, hand)


@pytest.mark.parametrize(("points_by_finders", "temperature"), [
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.1),
    (np.asarray([0.0, 4.0, 3.0, 0.0]), 0.1),
    # Sharp guessers and similarities far apart: weights span hundreds of orders of magnitude.
    (np.asarray([0.0, 3.0, 3.0, 0.0]), 0.004),
])
def test_simulation_agrees_with_brute_force(points_by_finders, temperature):
    rng = np.random.default_rng(0)
    hand_sims = rng.uniform(0.1, 0.5, (2, 3))
    pool_sims = rng.uniform(0.1, 0.5, (6, 3))
    model = GuessModel(temperature=temperature, bias=0.3)
    rate, points, all_deals = brute_force(hand_sims, pool_sims, hand=2, n_opponents=3,
                                          n_voters=3, model=model,
                                          points_by_finders=points_by_finders)
    kwargs = {"n_voters": 3, "cards_per_guesser": 1, "model": model,
              "points_by_finders": points_by_finders}
    exact = simulate(hand_sims, pool_sims, all_deals, **kwargs)
    np.testing.assert_allclose(exact.guess_rate, rate, rtol=1e-3, atol=1e-6)
    np.testing.assert_allclose(exact.expected_points, points, rtol=1e-3, atol=1e-6)
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


def test_guess_model_round_trips(tmp_path):
    model = GuessModel(0.02, -0.5)
    model.save(tmp_path / "g.json", votes=10)
    assert GuessModel.load(tmp_path / "g.json") == model
    with pytest.raises(ValueError):
        GuessModel(0.0)
