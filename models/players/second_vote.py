"""The Odyssey second vote in the storyteller's simulations
(:func:`models.players.simulation.simulate`, :func:`models.players.population.simulate_population`):
the probability that a simulated voter finds the card with either of its votes, in closed form.

Where the edition and the player count allow one
(``rules.votes_per_guesser``), a guesser found the card if either vote is on it, and the
storyteller's points follow the number of such finders (the single-vote bonus is the guessers').
A simulated voter reads the board as :mod:`models.players.simulation` describes (utilities
``u = logit + Gumbel``), votes for its top card and casts a second vote on its second card as the
clip guesser does
(:class:`models.players.guesser.ClipGuesser`, beliefs ``softmax`` of its reading at the guess
model's temperature): when ``P(second) * finder_points > P(first) * single_vote_bonus``, that is
when the top leads the second by less than ``d = log(finder_points / single_vote_bonus)``. So
voter ``g`` finds the card iff no card it may vote for beats it, or exactly one does, by less
than ``d``. Given the card's utility ``x`` (``t = e^-x``, density ``w t e^{-w t}``), a decoy of
weight ``v`` is below it with probability ``e^{-v t}``, within ``d`` above it with ``e^{-beta v t}
- e^{-v t}`` (``beta = e^-d = bonus / finder_points``), and each ``int w e^{-(w + r) t} dt =
w / (w + r)``. With ``R`` the weight of the decoys ``g`` may vote for and ``c = 1 - beta`` (the
*reach*, :func:`second_vote_reach`)::

    P_g = w / (w + R) + sum_j [w / (w + R - c v_j) - w / (w + R)]

* *independent* voters: each ``P_g`` with ``x_j = c v_j / (w + R)``:
  ``P_g = p_g (1 + sum_j x_j / (1 - x_j))``. The strongest decoy's term is exact; the others are
  taken as ``n_e`` equal decoys of weight ``v_e`` with their total and sum of squares
  (``n_e v_e = sum v``, ``n_e v_e^2 = sum v^2``), which gives ``p_g b o / (1 - b2 o)`` with
  ``o = 1 - p_g`` (exact for one or two decoys, or equal ones; otherwise the sum's third-order
  terms differ: at most 0.0008 of ``P_g`` for a reach of 2/3, 0.0035 for a reach of 1, over
  random boards).
* *shared* reading (``G >= 3`` voters, one decoy each, ``V`` the board's decoy weight): with
  ``k`` decoys above the card, ``k = 0`` or (``k = 1`` and it within ``d``): everyone finds it;
  ``k = 1`` beyond ``d``: its owner alone; ``k = 2``: the owner of the higher finds it iff the
  lower is within ``d``, the owner of the lower iff the higher is (so 0, 1 or 2 finders);
  ``k >= 3``: nobody. The integrals give ``N1 = P(k = 1, within d) = sum_j [phi(V - c v_j) -
  phi(V)]``, ``N2 = P(k = 2, both within d)`` and ``LN = P(k = 2, lower within d) + N2`` as sums
  over pairs of ``phi(r) = w / (w + r)`` (``phi(V - v_i - c v_j)``, ``phi(V - c v_i - c v_j)``);
  then ``P(all) = phi(V) + N1``, ``P(two) = N2``, ``P(none) = 1 - phi(V) - K1 - (LN - N2)``
  (``K1 = P(k = 1)`` from the first votes), ``P(one)`` the rest, and the second votes add
  ``(G - 1) N1 + LN`` finders. The pairs would cost ``G^2`` passes over the
  (deal, card, clue) array; the strongest decoy of each deal is kept exact (every decoy with
  three voters) and the others taken as the equal decoys above (pair counts ``n_e``,
  ``n_e (n_e - 1) / 2``), a constant number of passes at any ``G``. Against the exact pair sums
  over 20,000 random boards of 3 to 11 decoys, the guess rate, ``P(all)`` and ``P(none)`` are
  off by at most 0.003, 0.0007 and 0.011 (on average 0.0001, 0.00004 and 0.0006; keeping the
  two strongest exact: at most 0.0002, 0.0002 and 0.0008, for 18 ms more per search at 12
  players, :data:`_EXACT_DECOYS`); ``tests/players/test_simulation.py`` checks six voters
  against brute force. Two voters (three players, two decoys each) are summed exactly: voter
  ``g`` finds the card when at most one of the other's decoys beats it, within ``d``.

The guess rate is then the mean over voters of ``P_g`` (two voters: exact; more: from the shared
terms, which have the same marginals). ``second_vote=0`` (every edition without a second vote,
and Odyssey below its player count) runs the one-vote code unchanged.
"""

from __future__ import annotations

import numpy as np

from dixit_ai.rules import RuleSet
from models.players.work_arrays import FLOOR as _FLOOR
from models.players.work_arrays import work_array as _buffer


def second_vote_reach(rules: RuleSet, n_players: int) -> float:
    """The second vote's reach in a game of ``n_players``: ``1 - single_vote_bonus /
    finder_points`` where a guesser may cast a second vote, ``0`` where it may not (one vote, the
    team variant) or never would (a bonus at least the finder's points).

    A guesser casts it when the second card's belief times the finder's points beats the first
    card's belief times the single-vote bonus (:class:`models.players.guesser.ClipGuesser`): for
    a simulated guesser that reads the board as the guess model says, when its first card leads
    the second by less than ``log(finder_points / single_vote_bonus)`` in logits, so the second
    card's weight counts ``1 - bonus / finder_points`` of itself (the module docstring).
    """
    if rules.votes_per_guesser(n_players) < 2 or rules.finder_points <= 0:
        return 0.0
    return max(0.0, 1.0 - rules.single_vote_bonus / rules.finder_points)


def check_second_vote(reach: float, n_voters: int, n_opponents: int, cards: int) -> float:
    """``reach`` as a float, checked against the table it is simulated for.

    Raises:
        ValueError: outside ``[0, 1]``; a second vote where not every opponent votes, or with
            several decoys per opponent at more than two opponents.
    """
    if isinstance(reach, bool) or not isinstance(reach, int | float) or not 0.0 <= reach <= 1.0:
        raise ValueError(f"second_vote must be a reach in [0, 1], not {reach!r}")
    if reach > 0 and n_voters != n_opponents:
        raise ValueError(f"a second vote is simulated when every opponent votes; here "
                         f"{n_voters} of {n_opponents} do (the team variant has no second vote)")
    if reach > 0 and n_opponents > 2 and cards > 1:
        raise ValueError(f"a second vote is simulated with one decoy per opponent from 3 "
                         f"opponents on (every edition deals so); here {cards} decoys each for "
                         f"{n_opponents} opponents")
    if reach > 0 and n_opponents < 2:
        raise ValueError(f"a second vote needs at least 2 voters, not {n_opponents}")
    return float(reach)


class VoterReach:
    """Per voter ``g``, the coefficients ``(a_bar, b, b2)``, each ``(S, K)`` float32, of ``P_g =
    p_g * (1 / (1 - a * o) + b * o / (1 - b2 * o))`` (``o = 1 - p_g``, ``a_bar = 1 - a``,
    :func:`reach_coefficients`): ``a`` for the strongest decoy
    ``g`` may vote for, ``b`` and ``b2`` for the others as equal decoys of the same total and sum
    of squares (the module docstring).

    Args:
        card_weight: ``(S, G, m, K)`` every decoy card's weight (shifted per deal).
        others: ``(S, G, K)`` the total weight of the decoys voter ``g`` may vote for.
        reach: :func:`second_vote_reach`.
    """

    def __init__(self, card_weight: np.ndarray, others: np.ndarray, reach: float) -> None:
        n_opponents, m = card_weight.shape[1:3]
        strongest = card_weight[:, :, 0] if m == 1 else card_weight.max(axis=2)  # (S, G, K)
        self.squares = (strongest * strongest if m == 1
                        else (card_weight * card_weight).sum(axis=2))
        self.square_total = self.squares.sum(axis=1)
        # The strongest decoy card of each deal, its owner, and the strongest of the others.
        self.first = strongest[:, 0].copy()
        self.second = np.zeros_like(self.first)
        self.owner = np.zeros(self.first.shape, dtype=np.int64)
        for g in range(1, n_opponents):
            weight = strongest[:, g]
            np.maximum(self.second, np.minimum(self.first, weight), out=self.second)
            above = weight > self.first
            self.owner[above] = g
            np.maximum(self.first, weight, out=self.first)
        self.others, self.reach = others, reach

    def __call__(self, g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        top = np.where(self.owner == g, self.second, self.first)
        return reach_coefficients(self.others[:, g], top,
                                  self.square_total - self.squares[:, g], self.reach)


def reach_coefficients(others: np.ndarray, top: np.ndarray, squares: np.ndarray, reach: float
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One voter's second-vote coefficients ``(a_bar, b, b2)`` for :func:`either_vote`, each
    float32 of ``others``' shape (the module docstring, "Second vote": independent voters).

    ``a_bar`` is ``1 - a`` for the strongest decoy (``a = c v / R``), computed as ``(R - v + beta
    v) / R``, a sum, never a difference: where the reach is within float32's precision of 1
    (voters whose beliefs are many times broader than their reading, :func:`member_reach
    <models.players.population_voters.member_reach>`: ``beta`` as small as ``1e-13``), ``1 - a
    o`` would cancel to 0 where the decoy is far above the card; as ``p + a_bar o`` it keeps the
    ``beta v`` that decides there.

    Args:
        others: The total weight ``R`` of the decoys the voter may vote for.
        top: The weight of the strongest of them.
        squares: The sum of their squared weights.
        reach: :func:`second_vote_reach`.
    """
    scale = np.divide(reach, others, out=np.zeros_like(others), where=others > 0)
    rest = np.maximum(others - top, 0.0)
    rest_squares = np.maximum(squares - top * top, 0.0)
    equal = np.divide(rest_squares, rest, out=np.zeros_like(rest), where=rest > 0)  # v_e
    # v_e is at most their total and at most the top: rounding in rest and rest_squares (a
    # rest many times lighter than the top) must not make it heavier, where 1 - b2 o, with a
    # reach near 1, would fall to 0.
    np.minimum(equal, np.minimum(rest, top), out=equal)
    share = np.divide(top, others, out=np.zeros_like(others), where=others > 0)  # v / R
    a_bar = (np.divide(rest, others, out=np.ones_like(others), where=others > 0)
             + (1.0 - reach) * share).astype(np.float32)
    b = (rest * scale).astype(np.float32)
    b2 = (equal * scale).astype(np.float32)
    return a_bar, b, b2


_CHUNK_ELEMENTS = 1 << 16
"""The second vote's terms are computed on this many (deal, hand card, clue) elements at a
time: a dozen passes over arrays that stay in the cache instead of over the whole search."""


def either_vote(found: np.ndarray, odds: np.ndarray, a_bar: np.ndarray, b: np.ndarray,
                 b2: np.ndarray) -> None:
    """``found`` (a voter's chance ``p`` by its first vote, ``(S, h, K)``) becomes its chance by
    either vote and ``odds`` (``o``, its complement) its complement, in place; ``a_bar``,
    ``b``, ``b2``: ``(S, K)`` (:func:`reach_coefficients`). The strongest decoy's term ``p / (1
    - a o)`` is taken as ``p / (p + a_bar o)``. A few deals at a time (:data:`_CHUNK_ELEMENTS`)."""
    step = max(1, _CHUNK_ELEMENTS // max(1, found[0].size))
    for start in range(0, len(found), step):
        part = slice(start, start + step)
        p, o = found[part], odds[part]
        first, second = _buffer("either-1", p.shape), _buffer("either-2", p.shape)
        np.multiply(a_bar[part, None, :], o, out=first)
        np.add(p, first, out=first)
        np.divide(p, first, out=first)                   # p / (p + a_bar o): the strongest decoy
        np.multiply(b2[part, None, :], o, out=second)
        np.subtract(1.0, second, out=second)
        np.multiply(b[part, None, :], o, out=o)
        np.multiply(o, p, out=o)
        np.divide(o, second, out=second)                 # p b o / (1 - b2 o): the others
        np.add(first, second, out=p)
        np.subtract(1.0, p, out=o)
        np.maximum(o, _FLOOR, out=o)


class Board:
    """The rates ``r`` (decoy weights, one per deal) of the probabilities ``w / (w + r)`` that
    the card (weight ``w``) beats them, prepared for :func:`add_beats` as ``(s, K)`` float32:
    :meth:`log_rate` (log space: any ``r``, one exponential per element), or :meth:`share` of
    the whole board's weight ``V`` (no exponential: ``w / (w + r) = 1 / (1 + share * V / w)``,
    as exact as long as the share is not vanishing: it keeps the strongest decoy, or ``beta`` of
    it). ``r`` comes in the deals' shifted weights (float64)."""

    def __init__(self, shift: np.ndarray, inverse: float, total: np.ndarray) -> None:
        self.shift, self.inverse, self.total = shift, inverse, total

    def log_rate(self, rest: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return (np.log(rest) + self.shift * self.inverse).astype(np.float32)

    def share(self, rest: np.ndarray) -> np.ndarray:
        return (rest / self.total).astype(np.float32)


def add_beats(target: np.ndarray, rate: np.ndarray, weight: np.ndarray | float,
               ratio: np.ndarray | None, log_card: np.ndarray, out: np.ndarray) -> None:
    """``target += weight * w / (w + r)``, ``(s, h, K)``: ``rate`` a :meth:`Board.share` (then
    ``ratio`` is ``V / w``, ``(s, h, K)``) or a :meth:`Board.log_rate` (``ratio`` ``None``;
    ``log_card``, ``(h, K)``: ``log w``), for the same deals as ``target``; ``weight`` a number
    or ``(s, 1, K)``; ``out`` a work array of ``target``'s shape."""
    if ratio is not None:
        np.multiply(rate[:, None, :], ratio, out=out)
    else:
        np.subtract(rate[:, None, :], log_card[None, :, :], out=out)
        np.clip(out, -60.0, 60.0, out=out)  # normal float32 numbers, as in simulate
        with np.errstate(over="ignore"):
            np.exp(out, out=out)
    np.add(out, 1.0, out=out)
    np.divide(np.float32(weight) if isinstance(weight, float) else weight, out, out=out)
    target += out


def two_voters_shared(card_weight: np.ndarray, total: np.ndarray, shift: np.ndarray,
                       inverse: float, log_card: np.ndarray, beats_all: np.ndarray,
                       reach: float, mean_either: np.ndarray) -> list[np.ndarray]:
    """Two voters reading one board, either vote: ``[P(none), P(one), P(both)]``, ``(h, K)``,
    averaged over the deals (exact; the module docstring).

    Voter ``g`` finds the card when at most one card of the other opponent's ``m`` beats it,
    that one by less than the margin: given the card's utility, with probability ``B_g =
    (1 - m) e_all + sum_j e_(all but j, j shrunk by beta)`` over those cards, so that both find
    it with ``int B_0 B_1``: ``(m + 1) ** 2`` terms ``w / (w + r)``.
    """
    n_sims, _, m, _ = card_weight.shape
    beta = 1.0 - reach
    cards = [card_weight[:, g, i] for g in range(2) for i in range(m)]
    board = Board(shift, inverse, total)
    terms = _buffer("both", beats_all.shape)
    out = _buffer("board", beats_all.shape)
    np.multiply(beats_all, np.float32((1.0 - m) ** 2), out=terms)
    for j, card in enumerate(cards):
        rest = sum(c for i, c in enumerate(cards) if i != j) + beta * card
        add_beats(terms, board.log_rate(rest), 1.0 - m, None, log_card, out)
    for j in range(m):
        for k in range(m, 2 * m):
            rest = (sum(c for i, c in enumerate(cards) if i not in (j, k))
                    + beta * (cards[j] + cards[k]))
            add_beats(terms, board.log_rate(rest), 1.0, None, log_card, out)
    both = terms.sum(axis=0, dtype=np.float64)
    both = np.clip(both / n_sims, 0.0, 1.0)
    none = np.clip(1.0 - mean_either + both, 0.0, 1.0)
    one = np.maximum(1.0 - both - none, 0.0)
    return [none, one, both]


_EXACT_DECOYS = 1
"""In the shared reading of four voters or more, the strongest decoys of each deal kept exact;
the others are taken as equal decoys of the same total weight and sum of squares (module
docstring). With three voters every decoy is exact. Two cost 18 ms more than one per search at
12 players (6 cards x 3,600 clues x 64 deals) for a tenth of the error."""


def many_voters_shared(decoy_weight: np.ndarray, total: np.ndarray, shift: np.ndarray,
                        inverse: float, log_card: np.ndarray, beats_all: np.ndarray,
                        odds_all: np.ndarray, reach: float, mean_found: np.ndarray
                        ) -> list[np.ndarray]:
    """``G >= 3`` voters, one decoy each, reading one board, either vote: ``[P(none), P(one),
    P(two), P(all), E(finders by a second vote)]``, each ``(h, K)``, averaged over the deals
    (the module docstring: the :data:`_EXACT_DECOYS` strongest decoys of each deal exactly, the
    others as equal decoys of the same total weight and sum of squares; three voters: exact).

    Args:
        decoy_weight: ``(S, G, K)`` each opponent's decoy weight, shifted per deal.
        total: ``(S, K)`` their sum ``V``.
        beats_all: ``(S, h, K)`` ``P(the card beats every decoy)`` (``w / (w + V)``).
        odds_all: ``(S, h, K)`` its complement.
        mean_found: ``(h, K)`` the mean over deals of the first votes' finders.
    """
    n_sims, n_voters, _ = decoy_weight.shape
    exact = n_voters - 1 if n_voters <= 3 else min(_EXACT_DECOYS, n_voters - 1)
    # The strongest decoys of each deal, strongest first, and the others' sum and sum of
    # squares, without a subtraction (each decoy passes down the sorted few; what falls off the
    # end goes to the rest).
    tops = [np.zeros_like(total) for _ in range(exact)]
    rest = np.zeros_like(total)
    rest_squares = np.zeros_like(total)
    for g in range(n_voters):
        carry = decoy_weight[:, g]
        for top in tops:
            low = np.minimum(top, carry)
            np.maximum(top, carry, out=top)
            carry = low
        rest += carry
        rest_squares += carry * carry
    with np.errstate(divide="ignore", invalid="ignore"):
        count = np.where(rest_squares > 0, rest * rest / rest_squares, (rest > 0) * 1.0)
    count = np.where(rest > 0, np.clip(count, 1.0, n_voters - exact), 0.0)   # n_e
    with np.errstate(divide="ignore", invalid="ignore"):
        equal = np.where(count > 0, rest / count, 0.0)                        # v_e
    sums = [np.zeros(beats_all.shape[1:]) for _ in range(3)]
    step = max(1, _CHUNK_ELEMENTS // max(1, beats_all[0].size))
    for a in range(0, n_sims, step):   # a few deals at a time: small arrays stay in the cache
        part = slice(a, a + step)
        terms = _shared_terms([top[part] for top in tops], count[part], equal[part],
                              Board(shift[part], inverse, total[part]), reach)
        for total_sum, chunk_sum in zip(sums, _sum_terms(
                terms, log_card, count[part], len(tops), beats_all[part], odds_all[part]),
                strict=True):
            total_sum += chunk_sum
    n1, n2, ln = (x / n_sims for x in sums)
    all_first = beats_all.sum(axis=0, dtype=np.float64) / n_sims
    one_first = mean_found - n_voters * all_first           # P(exactly one decoy above)
    lower_near = ln - n2                                    # two above, the lower within reach
    every = np.clip(all_first + n1, 0.0, 1.0)
    two = np.clip(n2, 0.0, 1.0)
    one = np.maximum(one_first - n1 + lower_near - n2, 0.0)
    none = np.maximum(1.0 - all_first - one_first - lower_near, 0.0)
    second_votes = (n_voters - 1) * n1 + ln
    return [none, one, two, every, second_votes]


_Term = tuple[int, np.ndarray, "np.ndarray | float", bool]
"""A term of the shared second vote's sums: (0: N1, 1: N2, 2: LN; its rate, as a share of
``V`` or a log rate (:class:`Board`), ``(S, K)``; its weight, a number or ``(S, 1, K)``;
whether the rate is a share)."""


def _shared_terms(tops: list[np.ndarray], count: np.ndarray, equal: np.ndarray, board: Board,
                  reach: float) -> list[_Term]:
    """The terms ``weight * w / (w + r)`` of ``N1``, ``N2`` and ``LN`` (module docstring) for
    the items: the strongest decoys (``tops``, strongest first, each ``(S, K)``), then ``count``
    equal decoys of weight ``equal``, for some deals.

    Every weight ``V - ...`` is a sum of what stays, never a difference. A rate that keeps the
    strongest decoy, or ``beta`` of it, keeps a fair share of ``V`` and is taken as a share (no
    exponential); the others in log space.
    """
    beta = 1.0 - reach
    safe = beta >= 1e-9
    exact = len(tops)
    equal_item = exact                                      # the index of the equal decoys
    values = [*tops, equal]
    weights: list[np.ndarray | float] = [*([1.0] * exact),
                                         count[:, None, :].astype(np.float32)]
    terms: list[_Term] = []

    def term(target: int, shrunk: tuple[int, ...], removed: tuple[int, ...],
             weight: np.ndarray | float) -> None:
        """Every decoy but ``removed`` below the card, ``shrunk`` of them within the margin
        above it (their weight times ``beta`` stays)."""
        kept = sum((top for i, top in enumerate(tops) if i not in removed),
                   np.zeros_like(count))
        rate = np.maximum(kept + (count - removed.count(equal_item)) * equal, 0.0)
        rate = rate + beta * sum((values[i] for i in shrunk), np.zeros_like(count))
        share = 0 not in removed or (0 in shrunk and safe)
        terms.append((target, board.share(rate) if share else board.log_rate(rate), weight,
                      share))

    # Every decoy but item i below the card (item i's multiplicity m_i): -(M - 1) m_i in LN
    # (applied in _sum_terms); item i within the margin above it instead: m_i in N1, and
    # -(M - 1) m_i in LN and N2 (likewise).
    for i in range(exact + 1):
        term(2, (), (i,), weights[i])
        term(0, (i,), (i,), weights[i])
    # Pairs of items (counted m_i m_j, or m (m - 1) / 2 for the equal decoys): every other decoy
    # below the card, one of the two within the margin above it (LN), or both (N2).
    for i in range(exact + 1):
        for j in range(i, exact + 1):
            if i == j != equal_item:
                continue
            if i == j:
                weight: np.ndarray | float = (count * (count - 1.0) / 2)[:, None, :].astype(
                    np.float32)
                term(3, (i,), (i, j), 2.0 * weight)
            else:
                weight = weights[j] if j == equal_item else weights[i]
                term(3, (i,), (i, j), weight)
                term(3, (j,), (i, j), weight)
            term(1, (i, j), (i, j), weight)
    return terms


def _sum_terms(terms: list[_Term], log_card: np.ndarray, count: np.ndarray, exact: int,
               beats_all: np.ndarray, odds_all: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sums over the deals of ``N1``, ``N2`` and ``LN``, ``(h, K)`` each, from the terms of
    :func:`_shared_terms` for the same deals (target 3: added to LN after its ``-(M - 1)``
    terms)."""
    shape = beats_all.shape
    n1, n2, ln, late, out, ratio = (_buffer(name, shape)
                                    for name in ("n1", "n2", "ln", "late", "board", "ratio"))
    np.divide(odds_all, beats_all, out=ratio)               # V / w (w / (w + V) >= e^-60)
    for buffer in (n1, n2, ln, late):
        buffer.fill(0.0)
    targets = [n1, n2, ln, late]
    for target, rate, weight, share in terms:
        add_beats(targets[target], rate, weight, ratio if share else None, log_card, out)
    less = (exact - 1.0 + count)[:, None, :].astype(np.float32)   # M - 1, M = exact + count
    # The singles' -(M - 1) m_i in LN and N2, then the pairs of LN and N2's own pairs.
    np.add(ln, n1, out=ln)
    np.multiply(ln, less, out=ln)
    np.subtract(late, ln, out=ln)
    np.multiply(n1, less, out=out)
    n2 -= out
    # The card above every decoy: -M in N1, M (M - 1) in LN, M (M - 1) / 2 in N2.
    np.multiply(beats_all, less + 1.0, out=out)
    n1 -= out
    out *= less
    ln += out
    out *= 0.5
    n2 += out
    return (n1.sum(axis=0, dtype=np.float64), n2.sum(axis=0, dtype=np.float64),
            ln.sum(axis=0, dtype=np.float64))
