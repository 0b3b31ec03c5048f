"""The storyteller's simulation of a round, vectorised over candidates (the guess model it
simulates voters by: :mod:`models.players.guess_model`).

**Simulation.** For every hand card ``c`` and candidate clue ``k`` the storyteller predicts the
guess rate (the probability that a guesser finds ``c``) and its expected points, averaging over
``n_simulations`` deals: each deal gives every opponent a hand drawn without replacement from the
cards the storyteller has not seen; each opponent plays its best decoy(s) for clue ``k`` (the
hand card(s) most similar to it, as the decoy picker would with ``bluff=0``); each voter then
votes by the guess model, never for its own card(s). Votes are not sampled: the probability that
voter ``g`` finds the card is used directly (the expectation of a sampled vote, with less noise).
The same deals serve every candidate (common random numbers), so candidates are compared on
equal footing. Everything is one array expression over ``(simulations, voters, hand cards,
candidates)``: no Python loop over candidates.

**Correlated votes.** The voters of one round read the same clue on the same board, so their
errors are not independent: when the storyteller's card and a decoy are nearly tied, they all
lean the same way. The guess model's ``correlation`` (``rho``) mixes two joint models with the
same per-voter probabilities:

* *shared* (``rho = 1``): one noisy reading of the board serves every voter. It is the
  softmax's own random-utility form (a Gumbel perturbation of each board card's logit, the
  Plackett-Luce ranking), drawn once per round; each voter then votes for the top card it may
  vote for. Voter ``g`` finds the card iff every card ranked above it is ``g``'s, so the
  finders are nobody, one voter (``g``, whose decoy(s) alone beat the card) or everyone.
  Closed form, from ``P(card above every card of a set A) = w_card / (w_card + w(A))``:
  ``P(all find) = p_all``, the card beats every decoy, and ``P(only g finds) = p_g - p_all``,
  ``p_g`` the probability that voter ``g`` finds it (it beats every decoy but ``g``'s).
* *independent* (``rho = 0``): every voter draws its own Gumbel noise; the number of finders
  is a sum of independent Bernoulli variables given the deal.

Deterministic guessers reading the same similarities (the bots) are the shared case; human
tables lie in between. Either way the guess rate is the mean of the ``p_g``.

**Second vote (Odyssey).** Where the edition and the player count allow one, a simulated
voter casts a second vote as the clip guesser does, and a finder is anyone with either vote on
the card: the closed forms are in :mod:`models.players.second_vote`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dixit_ai.rules import RuleSet, score_round, voting_seats
from models.players.guess_model import GuessModel as GuessModel
from models.players.guess_model import temperature_scale as temperature_scale
from models.players.second_vote import (
    VoterReach,
    check_second_vote,
    either_vote,
    many_voters_shared,
    two_voters_shared,
)
from models.players.second_vote import second_vote_reach as second_vote_reach
from models.players.work_arrays import FLOOR as _FLOOR
from models.players.work_arrays import work_array as _buffer

MIN_TEMPERATURE = 0.001
"""Temperatures below this are simulated at it: a guesser this sharp is all but deterministic
(it follows similarity gaps of a thousandth), and the float64 decoy weights stay in range for
decoys up to 0.7 apart in similarity (far more than the spread of one board)."""


def storyteller_points_by_finders(rules: RuleSet, n_players: int, n_voters: int) -> np.ndarray:
    """The storyteller's points when ``k`` voters find its card, for ``k = 0..n_voters``."""
    points = np.zeros(n_voters + 1)
    solo = rules.three_player_solo_points
    for k in range(1, n_voters):
        points[k] = (solo if solo is not None and n_players == 3 and k == 1
                     else rules.storyteller_points)
    return points


def storyteller_margin_by_finders(rules: RuleSet, n_players: int) -> np.ndarray:
    """The storyteller's lead in a round when ``k`` voters find its card, for ``k = 0..V``: its
    points minus the mean points of the other players, as the rules score the round
    (:func:`points_by_finders`).

    A storyteller that scores its own points alone gives the others' points no weight: a clue
    three opponents find scores it 3 and each finder 3 as well, a lead of nothing over them.

    Raises:
        ValueError: the team variant or Dixit Party, whose rounds are not scored by finders
            alone.
    """
    return np.array([points[0] - sum(points[1:]) / (n_players - 1)
                     for points in points_by_finders(rules, n_players)])


def points_by_finders(rules: RuleSet, n_players: int) -> list[list[int]]:
    """Every seat's points in a round told by seat 0 when ``k`` voters find its card, for
    ``k = 0..V``, as :func:`dixit_ai.rules.score_round` scores it.

    Finders vote the storyteller's card; the others each vote the next voter's card, so every
    vote that misses scores one bonus point for an opponent (spread as evenly as a cap on one
    card's bonus allows). One vote each: Odyssey's second votes are not counted (a finder's
    single-vote bonus is).

    Raises:
        ValueError: the team variant or Dixit Party, whose rounds are not scored by finders
            alone.
    """
    if rules.teams or rules.mode == "party":
        raise ValueError("the storyteller's margin is scored for the standard game, not the "
                         "team variant or Dixit Party")
    voters = list(voting_seats(rules, n_players, 0))
    each = (rules.board_size(n_players) - 1) // len(voters)  # cards a voter puts on the board
    owners = [0, *(seat for seat in voters for _ in range(each))]  # position 0: the teller's
    rounds = []
    for k in range(len(voters) + 1):
        votes = {seat: [0] if i < k else [1 + each * ((i + 1) % len(voters))]
                 for i, seat in enumerate(voters)}
        rounds.append(score_round(rules, n_players=n_players, storyteller=0, board_owner=owners,
                                  votes=votes))
    return rounds


@dataclass(frozen=True)
class SimulationResult:
    """Predictions for every (hand card, candidate clue).

    Attributes:
        guess_rate: ``(h, K)``: expected fraction of voters who find the card.
        expected_points: ``(h, K)``: the storyteller's expected points.
        success_rate: ``(h, K)``: probability that some but not all voters find the card.
        decoy_gap: ``(h, K)``: similarity of the card minus the mean best decoy similarity.
    """

    guess_rate: np.ndarray
    expected_points: np.ndarray
    success_rate: np.ndarray
    decoy_gap: np.ndarray


def draw_deals(rng: np.random.Generator, pool_size: int, n_simulations: int, n_opponents: int,
               hand_size: int, weights: np.ndarray | None = None) -> np.ndarray:
    """``(n_simulations, n_opponents, hand)`` indices into the pool, distinct within a deal.

    The hand is ``min(hand_size, pool_size // n_opponents)`` cards (at least one; when the pool is
    smaller than one card per opponent, cards are drawn with replacement).

    Args:
        weights: ``(n_opponents, pool_size)`` relative odds that each opponent holds each pool
            card (what the storyteller inferred from earlier rounds), or ``None``: uniform.
            Hands are then drawn opponent after opponent, each without replacement with these
            odds (Gumbel top-k) from the cards not yet dealt.
    """
    if pool_size < 1:
        raise ValueError("no unseen cards to deal to the opponents")
    hand = max(1, min(hand_size, pool_size // max(n_opponents, 1)))
    if pool_size < n_opponents * hand:
        return rng.integers(0, pool_size, size=(n_simulations, n_opponents, hand))
    if weights is None:
        order = rng.random((n_simulations, pool_size)).argsort(axis=1)[:, : n_opponents * hand]
        return np.ascontiguousarray(order.reshape(n_simulations, n_opponents, hand))
    log_weights = np.log(np.maximum(np.asarray(weights, dtype=np.float64), 1e-12))
    keys = log_weights[None, :, :] + rng.gumbel(size=(n_simulations, n_opponents, pool_size))
    deals = np.empty((n_simulations, n_opponents, hand), dtype=np.int64)
    rows = np.arange(n_simulations)[:, None]
    for g in range(n_opponents):
        if g:
            keys[rows, g, deals[:, :g].reshape(n_simulations, -1)] = -np.inf
        deals[:, g] = np.argpartition(-keys[:, g], hand - 1, axis=1)[:, :hand]
    return deals


def opponent_decoys(pool_sims: np.ndarray, deals: np.ndarray, m: int) -> np.ndarray:
    """``(S, G, m, K)``: the similarities of the ``m`` cards each opponent plays, its most
    similar ones (``pool_sims``: ``(u, K)``; ``deals``: ``(S, G, hand)`` indices into it)."""
    if m == 1:  # each opponent's best decoy, one hand slot at a time: no (S, G, hand, K) array
        decoys = pool_sims[deals[:, :, 0]]
        for slot in range(1, deals.shape[2]):
            np.maximum(decoys, pool_sims[deals[:, :, slot]], out=decoys)
        return decoys[:, :, None, :]
    return -np.partition(-pool_sims[deals], m - 1, axis=2)[:, :, :m]


def simulate(
    hand_sims: np.ndarray,
    pool_sims: np.ndarray,
    deals: np.ndarray,
    *,
    n_voters: int,
    cards_per_guesser: int,
    model: GuessModel,
    points_by_finders: np.ndarray,
    second_vote: float = 0.0,
) -> SimulationResult:
    """Predict guess rates and storyteller points for every (hand card, clue).

    Args:
        hand_sims: ``(h, K)`` similarity of each hand card to each candidate clue.
        pool_sims: ``(u, K)`` similarity of each unseen card to each candidate clue.
        deals: ``(S, G, hand)`` opponents' hands as indices into the pool (:func:`draw_deals`).
        n_voters: How many of the ``G`` opponents vote (the first ``n_voters``; all but partners
            in the team variant).
        cards_per_guesser: Decoys each opponent plays (2 in 3-player games of some editions).
        model: The guess model.
        points_by_finders: The storyteller's points for ``0..n_voters`` finders (finders by
            either vote where there is a second vote).
        second_vote: The second vote's reach ``1 - single_vote_bonus / finder_points``
            (:func:`second_vote_reach`; see :mod:`models.players.second_vote`); ``0``: one
            vote each, the simulation of an edition without a second vote, unchanged.

    Returns:
        A :class:`SimulationResult`.

    Raises:
        ValueError: ``second_vote`` outside ``[0, 1]``; or a second vote where not every
            opponent votes (the team variant has none), or with several decoys per opponent at
            more than two opponents (not simulated: no edition deals so).
    """
    hand_sims = np.asarray(hand_sims, dtype=np.float64)
    n_sims, n_opponents, hand = deals.shape
    m = min(cards_per_guesser, hand)
    reach = check_second_vote(second_vote, n_voters, n_opponents, m)
    decoys = opponent_decoys(pool_sims, deals, m)                           # (S, G, m, K)
    # In log space: voter g finds card c with probability 1 / (1 + exp(L_g - l_c)), where
    # l_c = sim_c / T + bias and L_g = log(sum of exp(decoy / T) over every decoy but g's own).
    # L_g is a log-sum-exp shifted by the deal's best decoy, and "every decoy but g's own" is a
    # sum of the others (prefix + suffix), never a difference: nothing overflows, underflows or
    # cancels, whatever the temperature.
    inverse = 1.0 / max(model.temperature, MIN_TEMPERATURE)
    shift = decoys.max(axis=(1, 2)).astype(np.float64)                            # (S, K)
    card_weight = np.exp((decoys - shift[:, None, None, :]) * inverse)           # (S, G, m, K)
    decoy_weight = np.ascontiguousarray(
        card_weight[:, :, 0] if m == 1 else card_weight.sum(axis=2))             # (S, G, K)
    others = np.zeros_like(decoy_weight)
    for g in range(1, n_opponents):  # prefix sums, then suffix sums, over the few opponents
        np.add(others[:, g - 1], decoy_weight[:, g - 1], out=others[:, g])
    suffix = np.zeros_like(shift)
    for g in range(n_opponents - 1, -1, -1):
        others[:, g] += suffix
        suffix += decoy_weight[:, g]
    with np.errstate(divide="ignore"):
        log_others = (np.log(others) + shift[:, None, :] * inverse).astype(np.float32)
    log_card = (hand_sims * inverse + model.bias).astype(np.float32)              # (h, K)

    # Voter by voter (a handful), each over (S, h, K): P(voter finds the card | deal).
    rho = float(getattr(model, "correlation", 1.0))
    independent = rho < 1.0
    rate_sum = np.zeros(hand_sims.shape, dtype=np.float64)
    shape = (n_sims, *hand_sims.shape)
    odds, found = _buffer("odds", shape), _buffer("found", shape)    # exp(L_g - l_c), P(find)
    middle = points_by_finders[1:-1]
    simple = n_voters < 2 or bool(np.all(middle == middle[0]))
    p_all = p_none = dist = None

    def finds(log_rest: np.ndarray) -> None:
        """``found = 1 / (1 + exp(log_rest - l_c))`` and ``odds = 1 - found``, in place."""
        np.subtract(log_rest[:, None, :], log_card[None, :, :], out=odds)
        # Log-odds beyond +-60 change probabilities by less than 1e-26; clipping them keeps
        # every number a normal float32 (denormals are many times slower).
        np.clip(odds, -60.0, 60.0, out=odds)
        with np.errstate(over="ignore", invalid="ignore"):
            np.exp(odds, out=odds)
            np.add(odds, 1.0, out=found)
            np.reciprocal(found, out=found)
        np.subtract(1.0, found, out=odds)
        np.maximum(odds, _FLOOR, out=odds)  # 1 - found: 0 when found rounds to 1

    # With a second vote, each voter's chance by either vote (only the independent model needs
    # it voter by voter; see models.players.second_vote).
    reaches = (VoterReach(card_weight, others, reach)
               if reach > 0 and (independent or n_opponents == 2) else None)
    either_sum = np.zeros(hand_sims.shape, dtype=np.float64)
    for g in range(n_voters):
        finds(log_others[:, g])                              # P(voter g finds), (S, h, K)
        rate_sum += found.sum(axis=0)
        if reaches is not None:
            either_vote(found, odds, *reaches(g))
            if n_opponents == 2:
                either_sum += found.sum(axis=0)
        if not independent:
            continue
        np.maximum(found, _FLOOR, out=found)
        if simple:
            if p_all is None:
                p_all, p_none = _buffer("all", shape), _buffer("none", shape)
                np.copyto(p_all, found)
                np.copyto(p_none, odds)
            else:
                assert p_none is not None
                p_all *= found
                p_none *= odds
                np.maximum(p_all, _FLOOR, out=p_all)
                np.maximum(p_none, _FLOOR, out=p_none)
        else:  # the number of finders (only the 3-player solo rule needs it)
            if dist is None:
                dist = np.zeros((n_voters + 1, *found.shape))
                dist[0] = 1.0
            dist[1:] = dist[1:] * odds + dist[:-1] * found
            dist[0] *= odds
    guess_rate = rate_sum / (n_sims * n_voters)

    # Shared reading of the board: nobody, exactly one voter, or everyone finds the card.
    with np.errstate(divide="ignore"):
        log_total = (np.log(suffix) + shift * inverse).astype(np.float32)         # (S, K)
    finds(log_total)                                         # P(the card beats every decoy)
    mean_found = rate_sum / n_sims                           # E[sum over voters of p_g]
    if reach > 0:  # either vote: the finders' distribution of the module docstring
        if n_opponents == 2:
            shared = two_voters_shared(card_weight, suffix, shift, inverse, log_card, found,
                                        reach, either_sum / n_sims)
            guess_rate = either_sum / (n_sims * n_voters)
        else:
            shared = many_voters_shared(decoy_weight, suffix, shift, inverse, log_card, found,
                                         odds, reach, mean_found)
            guess_rate = (mean_found + shared.pop()) / n_voters
        finders = [0, 1, n_voters] if n_opponents == 2 else [0, 1, 2, n_voters]
        distribution = dict(zip(finders, shared, strict=True))    # finders -> probability
        success_rate = np.zeros_like(mean_found)
        expected_points = np.zeros_like(mean_found)
        for k, p in distribution.items():
            expected_points += float(points_by_finders[k]) * p
            if 0 < k < n_voters:
                success_rate += p
    else:
        if n_voters > 1:
            all_shared = found.sum(axis=0, dtype=np.float64) / n_sims
            one_shared = np.maximum(mean_found - n_voters * all_shared, 0.0)
        else:
            all_shared, one_shared = mean_found, np.zeros_like(mean_found)
        none_shared = np.maximum(1.0 - all_shared - one_shared, 0.0)
        success_rate = one_shared
        expected_points = (float(points_by_finders[1]) * one_shared
                           + float(points_by_finders[-1]) * all_shared
                           + float(points_by_finders[0]) * none_shared)

    if independent:
        if simple:
            assert p_all is not None and p_none is not None
            mid_points = float(middle[0]) if len(middle) else 0.0
            # Everything below is linear in p_all and p_none: average over deals first.
            mean_all = p_all.sum(axis=0, dtype=np.float64) / n_sims
            mean_none = p_none.sum(axis=0, dtype=np.float64) / n_sims
            success_independent = 1.0 - mean_all - mean_none
            points_independent = (mid_points * success_independent
                                  + points_by_finders[0] * mean_none
                                  + points_by_finders[-1] * mean_all)
        else:
            assert dist is not None
            success_independent = (1.0 - dist[0] - dist[-1]).mean(axis=0)
            points_independent = np.tensordot(points_by_finders, dist, axes=1).mean(axis=0)
        success_rate = rho * success_rate + (1.0 - rho) * success_independent
        expected_points = rho * expected_points + (1.0 - rho) * points_independent
    best_decoy = decoys.max(axis=2).max(axis=1).mean(axis=0)                # (K,)
    return SimulationResult(
        guess_rate=guess_rate,
        expected_points=expected_points,
        success_rate=success_rate,
        decoy_gap=hand_sims - best_decoy[None, :],
    )


def sharp_outcomes(hand_sims: np.ndarray, pool_sims: np.ndarray, *, n_opponents: int,
                   hand_size: int, bias_similarity: float = 0.0
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact outcome probabilities for sharp guessers who share one reading of the board.

    The limit of :func:`simulate` as the temperature goes to 0 with shared votes, averaged over
    *every* deal instead of sampled ones (so with no sampling noise): voter ``g`` finds the card
    iff no card of another opponent beats it, so what counts is the number ``b`` of unseen cards
    more similar to the clue than the storyteller's card (its *beaters*). With ``U`` unseen
    cards dealt ``H`` to each of ``G`` opponents (hypergeometric), everyone finds the card when
    no beater was dealt, and exactly one voter finds it when the beaters dealt all went to one
    opponent. Only for one decoy per opponent and every opponent voting.

    Args:
        hand_sims: ``(h, K)`` similarities of the hand cards to the candidate clues.
        pool_sims: ``(U, K)`` similarities of the unseen cards.
        n_opponents: ``G``.
        hand_size: Cards per opponent's hand (capped as :func:`draw_deals` caps it).
        bias_similarity: The guess model's bias times its temperature (added to the card).

    Returns:
        ``(p_one, p_all)``, each ``(h, K)``: the probabilities that exactly one voter, and that
        every voter, finds the card; ``None`` when the pool is too small to deal the hands.
    """
    from math import comb

    u = len(pool_sims)
    g = max(n_opponents, 1)
    hand = max(1, min(hand_size, u // g))
    if u < g * hand:
        return None
    one = np.zeros(u + 1)
    every = np.zeros(u + 1)
    for b in range(u + 1):
        every[b] = comb(u - b, g * hand) / comb(u, g * hand)
        rest = u - hand
        total = 0.0
        for j in range(1, min(b, hand) + 1):
            if rest < b - j:  # more beaters left than cards outside this hand
                continue
            first = comb(b, j) * comb(u - b, hand - j) / comb(u, hand)
            others = comb(rest - (b - j), (g - 1) * hand) / comb(rest, (g - 1) * hand)
            total += first * others
        one[b] = g * total
    sorted_pool = np.sort(np.asarray(pool_sims, dtype=np.float32), axis=0)          # (U, K)
    card = np.asarray(hand_sims, dtype=np.float32) + np.float32(bias_similarity)
    beaters = (sorted_pool[None, :, :] > card[:, None, :]).sum(axis=1)              # (h, K)
    return one[beaters], every[beaters]
