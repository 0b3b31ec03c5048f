"""The storyteller's simulation of *sharp* voters: copies of itself that vote for their most
similar card, with no noise at all (``ClipStoryteller(sharp_voters=True)``).

:func:`models.players.simulation.simulate` reads each simulated board with Gumbel noise at the
guess model's temperature. For the default agents that temperature is the fit's floor (0.001):
their guessers vote deterministically (``vote_temperature=0``), and the fit cannot go lower. At
most tables the deal dominates the uncertainty and the floor's noise does no harm. Where the
deal is nearly known (an 84-card deck at 12 players: 66 of the 78 cards a storyteller has not
seen are in the opponents' hands, and all of them from the second round) the only clues whose
simulated guess rate lies between "one finder" and "everyone" are those where the card and the
best decoy are within about 0.001 in similarity. The noise, not the table, makes their rate
intermediate; a storyteller aiming at 0.5 chooses them, and the real guessers, which have no
such noise, settle each one the same way (odyssey-2024, 12 ``clip-greedy`` players: predicted
0.49, observed 0.72).

Here every simulated voter reads the board exactly: it votes for the most similar card it may
vote for, and casts the Odyssey second vote on its second card when the first leads it by less
than ``margin`` in similarity (the clip guesser's rule at its belief temperature ``T_b``:
``margin = T_b log(finder_points / single_vote_bonus)``). So in each simulated deal the number
of finders is exact, and the guess rate, success and points are averages over the deals only.

With one decoy per opponent only the three best decoys of a deal matter: the owner of the best
reads the board without it (its first two are the second and third), the owner of the second
without the second, and every other voter sees the best two. With several decoys per opponent
(three players) each voter's two best are taken from the other opponents' decoys.
"""

from __future__ import annotations

import numpy as np

from models.players.simulation import SimulationResult, opponent_decoys


def _found(card: np.ndarray, first: np.ndarray, second: np.ndarray,
           margin: float) -> np.ndarray:
    """``(S, h, K)``: whether a voter whose two best legal decoys are ``first >= second``
    (``(S, 1, K)``) finds a card of similarity ``card`` (``(1, h, K)``) with either vote."""
    found = card > first
    if margin > 0:
        found |= (card > second) & (first - card < margin)
    return found


def simulate_sharp(
    hand_sims: np.ndarray,
    pool_sims: np.ndarray,
    deals: np.ndarray,
    *,
    n_voters: int,
    cards_per_guesser: int,
    points_by_finders: np.ndarray,
    margin: float = 0.0,
) -> SimulationResult:
    """Predict guess rates and storyteller points for every (hand card, clue) with sharp voters.

    Args:
        hand_sims: ``(h, K)`` similarity of each hand card to each candidate clue.
        pool_sims: ``(u, K)`` similarity of each unseen card to each candidate clue.
        deals: ``(S, G, hand)`` opponents' hands as indices into the pool
            (:func:`~models.players.simulation.draw_deals`).
        n_voters: How many of the ``G`` opponents vote (the first ``n_voters``; all but the
            storyteller's partner in the team variant).
        cards_per_guesser: Decoys each opponent plays (its most similar cards).
        points_by_finders: The storyteller's points by number of finders, ``n_voters + 1``.
        margin: The second vote's margin in similarity (``0``: one vote each; infinite: a
            second vote always, as where no single-vote bonus is at risk).

    Returns:
        A :class:`~models.players.simulation.SimulationResult`.

    Raises:
        ValueError: no voter, more voters than opponents, ``points_by_finders`` of the wrong
            length, or a negative or NaN margin.
    """
    n_sims, n_opponents, hand = deals.shape
    if not 1 <= n_voters <= n_opponents:
        raise ValueError(f"n_voters must be between 1 and the {n_opponents} opponents, "
                         f"not {n_voters}")
    points_by_finders = np.asarray(points_by_finders, dtype=np.float64)
    if points_by_finders.shape != (n_voters + 1,):
        raise ValueError(f"points_by_finders needs {n_voters + 1} entries (0 to {n_voters} "
                         f"finders), not {points_by_finders.shape}")
    if not margin >= 0:  # NaN too; infinity: a second vote whatever the gap (no bonus at risk)
        raise ValueError(f"the second vote's margin must be a number >= 0, not {margin}")
    m = max(1, min(cards_per_guesser, hand))
    pool = np.asarray(pool_sims, dtype=np.float32)
    card = np.asarray(hand_sims, dtype=np.float32)[None]
    decoys = opponent_decoys(pool, deals, m)                               # (S, G, m, K)
    if m == 1:
        count, best_decoy = _count_one_decoy(decoys[:, :, 0], card, n_voters, margin)
    else:
        best_decoy = decoys.max(axis=(1, 2))
        count = np.zeros((n_sims, *card.shape[1:]), dtype=np.int16)
        for g in range(n_voters):
            others = np.delete(decoys, g, axis=1).reshape(n_sims, -1, decoys.shape[-1])
            top = _top_two(others)
            count += _found(card, top[0][:, None], top[1][:, None], margin)
    guess_rate = count.mean(axis=0, dtype=np.float64) / n_voters
    success_rate = ((count > 0) & (count < n_voters)).mean(axis=0, dtype=np.float64)
    expected_points = points_by_finders[count].mean(axis=0)
    return SimulationResult(
        guess_rate=guess_rate,
        expected_points=expected_points,
        success_rate=success_rate,
        decoy_gap=np.asarray(hand_sims, dtype=np.float64)
        - best_decoy.mean(axis=0, dtype=np.float64)[None, :],
    )


def _top_two(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best and second-best of ``(S, n, K)`` along its middle axis (``-inf`` where
    ``n < 2``)."""
    if values.shape[1] < 2:
        return values[:, 0], np.full_like(values[:, 0], -np.inf)
    top = -np.partition(-values, 1, axis=1)[:, :2]
    return top[:, 0], top[:, 1]


def _count_one_decoy(decoys: np.ndarray, card: np.ndarray, n_voters: int,
                     margin: float) -> tuple[np.ndarray, np.ndarray]:
    """``(S, h, K)`` finders per deal when each opponent plays one decoy (``decoys``:
    ``(S, G, K)``): every voter who holds none of the two best decoys sees the best two; the owner
    of the best sees the second and third, the owner of the second the first and third. With
    it, ``(S, K)``: each deal's best decoy."""
    n_sims, n_opponents, _ = decoys.shape
    work = decoys.copy()
    rows = np.arange(n_sims)[:, None]
    columns = np.arange(work.shape[2])[None, :]
    ranked, owners = [], []
    for _ in range(min(3, n_opponents)):
        owner = work.argmax(axis=1)                                            # (S, K)
        ranked.append(work[rows, owner, columns])
        owners.append(owner)
        work[rows, owner, columns] = -np.inf
    while len(ranked) < 3:
        ranked.append(np.full_like(ranked[0], -np.inf))
        owners.append(np.full_like(owners[0], n_opponents))
    v1, v2, v3 = (v[:, None] for v in ranked)                                  # (S, 1, K)
    common = _found(card, v1, v2, margin).astype(np.int16)
    count = common * n_voters
    first_votes = (owners[0] < n_voters)[:, None]
    second_votes = (owners[1] < n_voters)[:, None]
    count -= first_votes * (common - _found(card, v2, v3, margin))
    count -= second_votes * (common - _found(card, v1, v3, margin))
    return count, ranked[0]
