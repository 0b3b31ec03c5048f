"""Is the storyteller's simulation statistically sound? Seeded experiments on synthetic spaces.

1. Self-consistency (the winner's curse): the real guessers are exactly the simulated ones
   (same similarities, same guess model); the chosen clue's recorded prediction is compared with
   its true guess rate (the simulation's exact per-deal probabilities averaged over many fresh
   deals: the expectation of the observed rate). Choosing the candidate nearest the target on
   the same noisy deals that then predict its rate biases the prediction toward the target;
   the confirmation on fresh deals (``confirm_simulations``) removes that bias.
2. The simulated deals are drawn as the game deals (unseen cards only, the storyteller's hand
   excluded, each opponent's hand size, two cards per guesser at three players, the board's
   size in the team variant).
3. Seeds: a decision is reproducible from its generator, and turns draw fresh deals.
"""

from __future__ import annotations

import numpy as np
import pytest

import models.players.storyteller as storyteller_module
from dixit_ai.rules import Play, RuleSet, Tell, Vote, apply_action, new_game, observe, voting_seats
from models.players import ClipAgent
from models.players.hand_inference import unseen_cards
from models.players.simulation import (
    GuessModel,
    draw_deals,
    simulate,
    storyteller_points_by_finders,
)
from models.players.storyteller import ClipStoryteller
from tests.players.conftest import storyteller_opening, vector_resources


def _true_rate(resources, view, unseen, card, clue, model, seed, n_deals=4000):
    """The chosen clue's guess rate at a table of the simulated guessers, over fresh deals."""
    rules, n_players = view.rules, view.n_players
    column = resources.clue_column(clue)
    n_voters = len(voting_seats(rules, n_players, view.storyteller))
    deals = draw_deals(np.random.default_rng(seed), len(unseen), n_deals, n_players - 1,
                       rules.hand_size_for(n_players))
    result = simulate(column[resources.rows([card])][:, None],
                      column[resources.rows(unseen)][:, None], deals, n_voters=n_voters,
                      cards_per_guesser=view.cards_to_play, model=model,
                      points_by_finders=storyteller_points_by_finders(rules, n_players,
                                                                     n_voters))
    return float(result.guess_rate[0, 0])


def _bias_toward_target(teller_options, trials=30, target=0.5):
    """Mean of (prediction - truth) * sign(target - truth) over seeded decisions: positive when
    predictions sit on the target's side of the truth (the winner's curse); 0 when unbiased
    (the prediction's noise is then independent of where the truth lies)."""
    resources = vector_resources(n_cards=150, n_clues=320, seed=3)
    model = GuessModel(temperature=0.03)
    rules = RuleSet.edition("refresh-2021")
    toward = []
    for trial in range(trials):
        _, view, unseen = storyteller_opening(resources, rules, 5, 1000 + trial)
        teller = ClipStoryteller(target_guess_rate=target, pair_clues=0, **teller_options)
        decision = teller.decide(view, resources, model, np.random.default_rng(trial),
                                 unseen=unseen)
        truth = _true_rate(resources, view, unseen, decision.card, decision.clue, model,
                           seed=5000 + trial)
        toward.append((decision.guess_rate - truth) * np.sign(target - truth))
    values = np.asarray(toward)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def test_choosing_on_the_deals_that_predict_biases_the_prediction_toward_the_target():
    # 16 deals, 1,920 candidates, the prediction read off the search: a clear winner's curse
    # (measured: +0.069 +- 0.009 with 40 decisions; +0.032 at 64 deals, +0.015 at 256).
    bias, error = _bias_toward_target(dict(n_simulations=16, refine=0, sharp_shortlist=0,
                                           confirm_simulations=0))
    assert bias > 0.04 and bias > 4 * error


def test_the_confirmed_prediction_of_the_chosen_clue_is_unbiased():
    # The shipped search (64 deals, refine 48 on 512, sharp shortlist) with the chosen clue
    # confirmed on 256 fresh deals: no bias toward the target beyond the noise.
    bias, error = _bias_toward_target(dict(n_simulations=64, refine=48,
                                           refine_simulations=512, sharp_shortlist=48,
                                           confirm_simulations=256))
    assert abs(bias) < 0.015 and abs(bias) < 3 * error + 0.005


def _points_overestimate(teller_options, trials=30):
    """Mean predicted minus true expected points of the clue an expected-points storyteller
    chose (shared votes), with its standard error."""
    resources = vector_resources(n_cards=150, n_clues=320, seed=3)
    model = GuessModel(temperature=0.03)
    rules = RuleSet.edition("refresh-2021")
    points = storyteller_points_by_finders(rules, 5, 4)
    errors = []
    for trial in range(trials):
        _, view, unseen = storyteller_opening(resources, rules, 5, 1000 + trial)
        teller = ClipStoryteller(mode="expected_points", pair_clues=0, **teller_options)
        decision = teller.decide(view, resources, model, np.random.default_rng(trial),
                                 unseen=unseen)
        column = resources.clue_column(decision.clue)
        deals = draw_deals(np.random.default_rng(5000 + trial), len(unseen), 4000, 4, 6)
        truth = simulate(column[resources.rows([decision.card])][:, None],
                         column[resources.rows(unseen)][:, None], deals, n_voters=4,
                         cards_per_guesser=1, model=model, points_by_finders=points)
        errors.append(decision.expected_points - float(truth.expected_points[0, 0]))
    values = np.asarray(errors)
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(len(values)))


def test_expected_points_of_the_best_clue_are_overestimated_unless_confirmed():
    # The most points of 1,920 noisy 64-deal estimates: measured +0.28 +- 0.014 points too many
    # (+0.16 with independent votes); confirmed on fresh deals: -0.009 +- 0.012.
    search, search_error = _points_overestimate(dict(n_simulations=64, refine=0,
                                                     sharp_shortlist=0, confirm_simulations=0))
    assert search > 0.15 and search > 5 * search_error
    confirmed, error = _points_overestimate({})
    assert abs(confirmed) < 0.04 and abs(confirmed) < 3 * error + 0.01


def _captured_tell(monkeypatch, edition, n_players, seed=0, **overrides):
    """Tell once from a fresh game; return the state, the storyteller's seat, its unseen cards
    and the arguments of every draw and simulation of that decision."""
    resources = vector_resources(n_cards=160, seed=1)
    calls: list[tuple[str, dict]] = []

    def draw(rng, pool_size, n_simulations, n_opponents, hand_size, weights=None):
        deals = draw_deals(rng, pool_size, n_simulations, n_opponents, hand_size, weights)
        calls.append(("draw", dict(pool_size=pool_size, n_opponents=n_opponents,
                                   hand_size=hand_size, deals=deals)))
        return deals

    def sim(hand_sims, pool_sims, deals, **kwargs):
        calls.append(("simulate", dict(kwargs, deals=deals, pool_rows=len(pool_sims))))
        return simulate(hand_sims, pool_sims, deals, **kwargs)

    monkeypatch.setattr(storyteller_module, "draw_deals", draw)
    monkeypatch.setattr(storyteller_module, "simulate", sim)
    rules = RuleSet.edition(edition, **overrides)
    state = new_game(rules, n_players, list(resources.card_ids), np.random.default_rng(seed))
    seat = state.storyteller
    agent = ClipAgent(deck=resources, calibration=None, n_simulations=8, pair_clues=2)
    agent.reset(seat=seat, rng=np.random.default_rng(seed))
    view = observe(state, seat)
    agent.tell(view)
    return state, seat, agent.unseen_cards(view), calls


@pytest.mark.parametrize(("edition", "n_players", "overrides"), [
    ("original-2008", 3, {}), ("refresh-2021", 5, {}), ("odyssey-2011", 8, {}),
    ("odyssey-2024", 12, {}), ("odyssey-2011", 6, {"teams": True}),
    ("odyssey-2024", 8, {"teams": True}),
])
def test_simulated_deals_are_drawn_as_the_game_deals(monkeypatch, edition, n_players,
                                                     overrides):
    state, seat, unseen, calls = _captured_tell(monkeypatch, edition, n_players, **overrides)
    rules = state.rules
    # The pool is exactly the cards the storyteller has not seen: every opponent's hand and the
    # draw pile, never its own hand.
    opponents = [card for s, hand in enumerate(state.hands) if s != seat for card in hand]
    assert set(unseen) == set(opponents) | set(state.draw_pile)
    assert not set(unseen) & set(state.hands[seat])
    # The opponents who put cards on the board (every guesser; in the team variant, one per
    # guessing team and the storyteller's teammate).
    givers = (rules.board_size(n_players) - 1) // rules.cards_per_guesser_for(n_players)
    voters = len(voting_seats(rules, n_players, seat))
    draws = [c for kind, c in calls if kind == "draw"]
    sims = [c for kind, c in calls if kind == "simulate"]
    assert draws and sims
    for call in draws:
        assert call["pool_size"] == len(unseen)
        assert call["n_opponents"] == givers
        assert call["hand_size"] == rules.hand_size_for(n_players)
        deals = call["deals"]
        assert deals.shape[1:] == (givers, rules.hand_size_for(n_players))
        flat = deals.reshape(len(deals), -1)
        assert all(len(set(row)) == flat.shape[1] for row in flat)  # no card dealt twice
    for call in sims:
        assert call["n_voters"] == voters
        assert call["cards_per_guesser"] == rules.cards_per_guesser_for(n_players)
        assert call["deals"].shape[1] == givers


def test_uniform_deals_give_every_unseen_card_the_same_odds():
    rng = np.random.default_rng(0)
    deals = draw_deals(rng, 40, 4000, 4, 6)
    counts = np.bincount(deals.reshape(-1), minlength=40)
    expected = 4000 * 24 / 40
    # Binomial noise: sd ~ sqrt(2400 * 0.4) ~ 31; every card within 5 sd.
    assert np.all(np.abs(counts - expected) < 160)
    # Each opponent's hand is a uniform draw too: no card favours an opponent.
    per_opponent = np.stack([np.bincount(deals[:, g].reshape(-1), minlength=40)
                             for g in range(4)])
    assert np.all(np.abs(per_opponent - 4000 * 6 / 40) < 5 * np.sqrt(600 * 0.85))


def test_a_decision_is_reproducible_from_its_generator_and_turns_draw_fresh_deals(
        monkeypatch):
    _, _, _, first = _captured_tell(monkeypatch, "refresh-2021", 5, seed=4)
    _, _, _, again = _captured_tell(monkeypatch, "refresh-2021", 5, seed=4)
    deals = [c["deals"] for kind, c in first if kind == "draw"]
    assert all(np.array_equal(a, c["deals"]) for a, (kind, c) in
               zip(deals, [x for x in again if x[0] == "draw"], strict=True))
    # Within one decision, the search, the refinement and the confirmation draw fresh deals.
    assert len(deals) >= 2
    assert not np.array_equal(deals[0][:8], deals[1][:8])


def test_the_next_turn_draws_fresh_deals(monkeypatch):
    # The same agent telling twice from the same view: its generator moves on, so the second
    # turn's deals are new (turns are independent draws of one seeded stream).
    resources = vector_resources(n_cards=160, seed=1)
    rules = RuleSet.edition("refresh-2021")
    state = new_game(rules, 5, list(resources.card_ids), np.random.default_rng(4))
    agent = ClipAgent(deck=resources, calibration=None, n_simulations=8, pair_clues=2,
                      avoid_repeats=False)
    agent.reset(seat=state.storyteller, rng=np.random.default_rng(4))
    seen: list[np.ndarray] = []
    original = storyteller_module.draw_deals

    def draw(*args, **kwargs):
        seen.append(original(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(storyteller_module, "draw_deals", draw)
    view = observe(state, state.storyteller)
    agent.tell(view)
    first = len(seen)
    agent.tell(view)
    assert not np.array_equal(seen[0], seen[first])


@pytest.mark.parametrize(("edition", "n_players"), [("refresh-2021", 5), ("original-2008", 3),
                                                    ("odyssey-2011", 8)])
def test_the_unseen_pool_stays_exact_as_rounds_go_by(edition, n_players):
    # Played with simple moves for a few rounds: at every storyteller turn the pool the deals
    # come from is exactly the opponents' hands and the draw pile (every board seen since is out).
    rules = RuleSet.edition(edition)
    rng = np.random.default_rng(3)
    state = new_game(rules, n_players, range(120), rng)
    tells = 0
    while tells < 4 and state.phase.value != "end":
        seat = state.to_act
        view = observe(state, seat)
        if state.phase.value == "tell":
            unseen = unseen_cards(view, range(120))
            opponents = {c for s, hand in enumerate(state.hands) if s != seat for c in hand}
            assert set(unseen) == opponents | set(state.draw_pile)
            tells += 1
            action = Tell(seat=seat, card=view.hand[0], clue=f"clue {tells}")
        elif state.phase.value == "play":
            action = Play(seat=seat, cards=tuple(view.hand[: view.cards_to_play]))
        else:
            action = Vote(seat=seat, positions=view.legal_vote_positions()[:1])
        state = apply_action(state, action, rng)
    assert tells == 4


def _two_vote_table(resources, view, unseen, card, clue, model, rng, deals=400, beliefs=None):
    """The chosen clue told at tables of guessers identical to the simulated ones, each round
    dealt afresh from the cards the storyteller has not seen (as the game deals them): every
    opponent plays its hand card most similar to the clue; the voters read the board once per
    round (a Gumbel draw on each card's logit, shared), vote for their top card and cast a second
    vote on their second as the clip guesser does (when the top leads it by less than
    log(finder points / single-vote bonus), times ``beliefs / model.temperature`` where they
    believe at a temperature of their own). Returns the mean over the rounds of the fraction of
    voters who found the card with either vote, and with the first."""
    rules, n_players = view.rules, view.n_players
    hand = rules.hand_size_for(n_players)
    column = resources.clue_column(clue)
    pool = column[resources.rows(unseen)]
    order = rng.random((deals, len(unseen))).argsort(axis=1)[:, : (n_players - 1) * hand]
    decoys = pool[order].reshape(deals, n_players - 1, hand).max(axis=2)    # best card each
    logits = np.concatenate([np.full((deals, 1), column[resources.rows([card])[0]]), decoys],
                            axis=1) / model.temperature
    logits[:, 0] += model.bias
    margin = np.log(rules.finder_points / rules.single_vote_bonus)
    if beliefs is not None:
        margin *= beliefs / model.temperature
    utilities = logits + rng.gumbel(size=logits.shape)
    either, first = [], []
    for position in range(1, n_players):    # the voter who owns this board position
        legal = utilities.copy()
        legal[:, position] = -np.inf
        ranked = np.argsort(-legal, axis=1)
        gap = (np.take_along_axis(legal, ranked[:, :1], 1)
               - np.take_along_axis(legal, ranked[:, 1:2], 1))[:, 0]
        first.append(ranked[:, 0] == 0)
        either.append(first[-1] | ((ranked[:, 1] == 0) & (gap < margin)))
    return float(np.mean(either)), float(np.mean(first))


@pytest.mark.parametrize(("edition", "n_players", "beliefs"), [
    ("odyssey-2024", 4, None), ("odyssey-2011", 8, None),
    ("odyssey-2024", 4, 0.3),   # guessers whose beliefs are 10 times broader than their reading
])
def test_the_prediction_counts_the_second_vote(edition, n_players, beliefs):
    """Odyssey: a guesser who found the card with either vote is a finder. The recorded
    prediction is unbiased against the rate observed at tables of guessers identical to the
    simulated ones, counting either vote (before the second vote was simulated, the prediction
    was the first votes' rate: measured 0.07 (4 players) and 0.09 (8 players) too low here)."""
    resources = vector_resources(n_cards=150, n_clues=320, seed=3)
    model = GuessModel(temperature=0.03)
    rules = RuleSet.edition(edition)
    errors, extra = [], []
    for trial in range(30):
        _, view, unseen = storyteller_opening(resources, rules, n_players, 2000 + trial)
        decision = ClipStoryteller(pair_clues=0, belief_temperature=beliefs).decide(
            view, resources, model, np.random.default_rng(trial), unseen=unseen)
        either, first = _two_vote_table(resources, view, unseen, decision.card, decision.clue,
                                        model, np.random.default_rng(7000 + trial),
                                        beliefs=beliefs)
        errors.append(decision.guess_rate - either)
        extra.append(either - first)
    errors = np.asarray(errors)
    bias, error = float(errors.mean()), float(errors.std(ddof=1) / np.sqrt(len(errors)))
    assert np.mean(extra) > 0.05    # second votes matter at these tables
    assert abs(bias) < 3 * error + 0.01, (bias, error)
