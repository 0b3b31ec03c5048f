"""The voters of a population simulation: each one's chance to find the card, and how the
chances of a deal's voters combine into the number of finders.

In :func:`models.players.population.simulate_population` a voter weighs every board card by
its own member's similarities and guess model (:func:`finds`). Voters of different members read
the board differently, so their errors are taken as independent given the deal (:func:`combine`
folds each into the products, or into the distribution of the number of finders); the voters of
one member who read the board as one (``correlation > 0``: copies of one bot) share their
reading within a deal (:class:`SharedReading`).

**Second vote (Odyssey).** Where the edition has one (``second_vote``, the reach of
:func:`~models.players.second_vote.second_vote_reach`), a finder is anyone with either vote on
the card, and every voter casts it as :func:`~models.players.simulation.simulate`'s voters do
(:mod:`models.players.second_vote`, whose maths this module reuses): an independent voter's
chance by either vote from its board in its own member's space (:func:`either_vote_of`:
``reach_coefficients``, ``either_vote``); the voters of a member who read the board as one,
where they are the whole table, by simulate's shared terms;
where they are part of it, all of them find the card when no decoy beats it or one does within
the margin, and the pairs of them who both find it are summed exactly
(:meth:`SharedReading.fold_either`). One thing differs: the
margin. A guesser casts the second vote when its first card leads the second by less than
``belief_temperature * log(finder_points / single_vote_bonus)`` in similarity (its beliefs, at
the clip guesser's temperature, its calibration's); a member's reading is noisy at the member's
own temperature ``T``, so in its logits the margin is that over ``T``: reach ``1 - beta **
(belief_temperature / T)`` (:func:`member_reach`). A member fitted to how *other* minds vote
(``T`` well above a clip guesser's own) rarely casts a second vote it would not cast with
sharper beliefs.
"""

from __future__ import annotations

import math

import numpy as np

from models.players.population_deals import contiguous
from models.players.second_vote import (
    Board,
    add_beats,
    either_vote,
    many_voters_shared,
    reach_coefficients,
)
from models.players.simulation import MIN_TEMPERATURE
from models.players.work_arrays import FLOOR as _FLOOR


def finds(logits: np.ndarray, log_card: np.ndarray) -> np.ndarray:
    """``(n, h, K)``: the probability that the card beats every board card whose logit is in
    ``logits`` (``(n, G, K)``, in place; ``-inf`` for a card the voter may not vote for).
    ``logits`` is left holding the cards' weights, ``exp(logit - max)`` (0 for ``-inf``)."""
    shift = logits.max(axis=1)
    np.subtract(logits, shift[:, None], out=logits)
    np.exp(logits, out=logits)
    log_rest = np.log(logits.sum(axis=1)) + shift              # (n, K)
    found = log_rest[:, None, :] - log_card[None, :, :]        # (n, h, K)
    np.clip(found, -60.0, 60.0, out=found)
    np.exp(found, out=found)
    found += 1.0
    np.reciprocal(found, out=found)
    return found


MIN_MISS = 1e-14
"""The smallest ``1 - reach`` :func:`member_reach` gives: the reach is a float64 near 1, so
below this its complement, the ``beta`` that bounds the second vote's margin, keeps less than two
significant digits (at ``1e-16`` it is 0, and the margin infinite)."""


def member_reach(reach: float, temperature: float, belief_temperature: float | None) -> float:
    """The second vote's reach for a member whose guess model has ``temperature``, at a table
    whose guessers cast it by beliefs at ``belief_temperature`` (``None``: ``temperature``, then
    ``reach`` itself): ``1 - (1 - reach) ** (belief_temperature / temperature)`` (both at least
    :data:`~models.players.simulation.MIN_TEMPERATURE`; this module's docstring, "Second vote").
    A reach of 1 (no single-vote bonus: the second vote is always worth casting) stays 1.

    Raises:
        ValueError: the beliefs are so much broader than the reading that ``1 - reach`` would
            fall below :data:`MIN_MISS` (for Odyssey's points, ``belief_temperature`` more than
            29 times ``temperature``); the message names both and the way out (sharp voters).
    """
    if reach <= 0 or reach >= 1 or belief_temperature is None:
        return reach
    believed, reading = max(belief_temperature, MIN_TEMPERATURE), max(temperature, MIN_TEMPERATURE)
    exponent = believed / reading
    miss = (1.0 - reach) ** exponent
    if miss < MIN_MISS:
        limit = math.log(MIN_MISS) / math.log(1.0 - reach)
        raise ValueError(f"beliefs at temperature {believed:g} are {exponent:.1f} times "
                         f"broader than a reading at {reading:g}: the second vote's margin "
                         f"({exponent * -math.log(1.0 - reach):.1f} logits) is past what the "
                         f"noisy simulation represents (at most {limit:.1f} times here); "
                         "simulate such voters as sharp voters (sharp_voters: true)")
    return 1.0 - miss


def either_vote_of(found: np.ndarray, weights: np.ndarray, reach: float) -> None:
    """``found`` (``(n, h, K)``, one voter's chance by its first vote) becomes its chance by
    either vote, in place, as :func:`~models.players.simulation.simulate` counts an independent
    voter's (``reach_coefficients``, ``either_vote``): ``weights`` (``(n, G, K)``) are the
    board's decoys in the voter's own space, 0 for its own card (:func:`finds` leaves them)."""
    a_bar, b, b2 = reach_coefficients(weights.sum(axis=1), weights.max(axis=1),
                                      np.einsum("ngk,ngk->nk", weights, weights), reach)
    odds = np.subtract(np.float32(1.0), found)
    np.maximum(odds, _FLOOR, out=odds)
    either_vote(found, odds, a_bar, b, b2)


class SharedReading:
    """The voters of one member in the deals where it has two or more, reading the board as
    one with probability ``correlation`` (as :func:`~models.players.simulation.simulate` reads a
    table of copies).

    With one reading, a member's voters all find the card when it beats every decoy on the
    board (``beats_all``); exactly voter ``a`` finds it when only ``a``'s decoy beats it
    (``p_a - beats_all``); else none does. With independent readings, the products of their
    own chances.

    Args:
        deals: The deals it keeps (where it has two voters or more).
        n_simulations: All deals.
        shape: ``(h, K)``.
        correlation: The member's guess model's.
        second_vote: Whether its voters cast a second vote (then it also keeps the sum of
            their first-vote chances, for :meth:`fold_either`).
    """

    def __init__(self, deals: np.ndarray, n_simulations: int, shape: tuple[int, ...],
                 correlation: float, second_vote: bool = False) -> None:
        self.deals = deals
        self.rows = contiguous(deals)                          # a slice where it can be
        self.position = np.full(n_simulations, -1, dtype=np.intp)
        self.position[deals] = np.arange(len(deals))
        self.rho = float(correlation)
        size = (len(deals), *shape)
        self.sum = np.zeros(size, dtype=np.float32)             # sum of p_a over its voters
        self.count = np.zeros(len(deals), dtype=np.float32)     # its voters per deal
        self.bias = np.zeros(len(deals), dtype=np.float32)      # sum of its voters' biases
        self.all = np.ones(size, dtype=np.float32) if self.rho < 1 else None
        self.none = np.ones(size, dtype=np.float32) if self.rho < 1 else None
        self.first = np.zeros(size, dtype=np.float32) if second_vote else None

    def add(self, at: np.ndarray | slice, found: np.ndarray, bias: float = 0.0,
            first: np.ndarray | None = None) -> None:
        """One voter's chances in the kept deals ``at`` (positions, each once); ``first``: by
        its first vote, where ``found`` counts either vote."""
        self.sum[at] += found
        if self.first is not None and first is not None:
            self.first[at] += first
        self.count[at] += 1
        self.bias[at] += bias
        if self.all is not None and self.none is not None:
            self.all[at] *= found
            self.none[at] *= 1.0 - found

    def mean_bias(self) -> np.ndarray:
        """The mean bias of its voters in each kept deal."""
        return np.asarray(self.bias / np.maximum(self.count, 1.0))

    def fold(self, p_all: np.ndarray, p_none: np.ndarray, beats_all: np.ndarray) -> None:
        """Multiply the table's products, in the kept deals, by this member's chances that all
        and none of its voters find the card (once: its sums are used up)."""
        n = self.count[:, None, None]
        every = beats_all
        nobody = self.sum                   # 1 - sum of p_a + (n - 1) beats_all, in place
        np.subtract(1.0, nobody, out=nobody)
        nobody += beats_all * (n - 1.0)
        np.clip(nobody, 0.0, 1.0, out=nobody)
        if self.all is not None and self.none is not None:
            every = self.rho * every + (1.0 - self.rho) * self.all
            nobody = self.rho * nobody + (1.0 - self.rho) * self.none
        p_all[self.rows] *= every
        p_none[self.rows] *= nobody

    def fold_either(self, p_all: np.ndarray, p_none: np.ndarray, beats_all: np.ndarray,
                    weights: np.ndarray, shift: np.ndarray, log_card: np.ndarray,
                    in_group: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`fold`, its voters casting a second vote (this module's docstring,
        "Second vote"). Deals where its voters are the whole table (every opponent, from three) are
        taken out of the products (set to 0 there) and returned instead: the sums over those
        deals of the chances that all and that none find the card.

        Args:
            beats_all: ``(m, h, K)`` the card beats every decoy, in the member's space.
            weights: ``(m, G, K)`` the decoys' weights (shifted per deal by ``shift``, in
                logits, ``(m, K)``).
            log_card: ``(h, K)`` the card's logit.
            in_group: ``(m, G)`` which opponents are its voters.
            reach: The second vote's reach.
        """
        n_opponents = weights.shape[1]
        shape = beats_all.shape[1:]
        weights = weights.astype(np.float64)
        total = weights.sum(axis=1)                                          # V, (m, K)
        whole = (self.count == n_opponents) & (n_opponents >= 3)
        sum_all, sum_none = np.zeros(shape), np.zeros(shape)
        if whole.any():
            here = np.flatnonzero(whole)
            odds_all = np.maximum(np.float32(1.0) - beats_all[here], _FLOOR)
            assert self.first is not None
            mean_found = self.first[here].sum(axis=0, dtype=np.float64) / len(here)
            nobody, _, _, every, _ = many_voters_shared(
                np.ascontiguousarray(weights[here]), total[here], shift[here], 1.0, log_card,
                np.ascontiguousarray(beats_all[here]), odds_all, reach, mean_found)
            sum_all, sum_none = self.rho * every * len(here), self.rho * nobody * len(here)
            if self.all is not None and self.none is not None:
                sum_all += (1.0 - self.rho) * self.all[here].sum(axis=0, dtype=np.float64)
                sum_none += (1.0 - self.rho) * self.none[here].sum(axis=0, dtype=np.float64)
            p_all[self.deals[here]] = 0.0
            p_none[self.deals[here]] = 0.0
        part = np.flatnonzero(~whole)
        if not len(part):
            return sum_all, sum_none
        # Some of the table: all of its voters find the card when no decoy beats it, or one
        # does within the margin (N1, exact over every decoy); none, as in fold, from the sum
        # of their chances, with the pairs of its own voters who both find it (N2 of its pairs).
        beta = 1.0 - reach
        weights, total, found = weights[part], total[part], beats_all[part]
        board = Board(shift[part], 1.0, total)
        others = np.zeros_like(weights)          # V - v_j as sums, never a difference
        for g in range(1, n_opponents):
            np.add(others[:, g - 1], weights[:, g - 1], out=others[:, g])
        suffix = np.zeros_like(total)
        for g in range(n_opponents - 1, -1, -1):
            others[:, g] += suffix
            suffix += weights[:, g]
        out = np.empty(found.shape, dtype=np.float32)
        near = np.zeros(found.shape, dtype=np.float32)                       # sum phi(V - c v_j)
        for g in range(n_opponents):
            add_beats(near, board.log_rate(others[:, g] + beta * weights[:, g]), 1.0, None,
                       log_card, out)
        everyone = found + (near - np.float32(n_opponents) * found)          # phi(V) + N1
        members = in_group[part]
        order = np.argsort(~members, axis=1, kind="stable")[:, : int(members.sum(axis=1).max())]
        held = np.take_along_axis(members, order, axis=1)
        mine = np.take_along_axis(weights, order[:, :, None], axis=1) * held[:, :, None]
        mine_others = np.take_along_axis(others, order[:, :, None], axis=1)
        singles = np.zeros(found.shape, dtype=np.float32)
        pairs = np.zeros(found.shape, dtype=np.float32)
        flags = held.astype(np.float32)[:, :, None, None]                    # (m, n, 1, 1)
        for a in range(held.shape[1]):
            add_beats(singles, board.log_rate(mine_others[:, a] + beta * mine[:, a]),
                       flags[:, a], None, log_card, out)
            for b in range(a + 1, held.shape[1]):
                rate = (np.maximum(total - mine[:, a] - mine[:, b], 0.0)
                        + beta * (mine[:, a] + mine[:, b]))
                add_beats(pairs, board.log_rate(rate), flags[:, a] * flags[:, b], None,
                           log_card, out)
        count = self.count[part][:, None, None]
        two = pairs - (count - 1.0) * singles + count * (count - 1.0) / 2.0 * found   # N2
        every = np.clip(everyone + (count == 2) * two, 0.0, 1.0)
        nobody = np.clip(1.0 - self.sum[part] + (count - 1.0) * everyone + two, 0.0, 1.0)
        if self.all is not None and self.none is not None:
            every = self.rho * every + (1.0 - self.rho) * self.all[part]
            nobody = self.rho * nobody + (1.0 - self.rho) * self.none[part]
        p_all[self.deals[part]] *= every
        p_none[self.deals[part]] *= nobody
        return sum_all, sum_none


def combine(p_all: np.ndarray, p_none: np.ndarray, dist: np.ndarray | None,
             rows: slice | np.ndarray, found: np.ndarray | np.float32) -> None:
    """Fold one voter's ``found`` probabilities of the deals ``rows`` into the products (or
    the distribution of the number of finders), in place."""
    if dist is None:
        p_all[rows] *= found
        p_none[rows] *= 1.0 - found
        return
    part = dist[:, rows]                          # a view for a slice, a copy for an index
    part[1:] = part[1:] * (1.0 - found) + part[:-1] * found
    part[0] *= 1.0 - found
    if not isinstance(rows, slice):
        dist[:, rows] = part
