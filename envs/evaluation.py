"""How a learner is evaluated: a seat's guessing and storytelling in a game record, and the
difference and ratio of two deciders' pooled rates over the same games.

- :func:`role_metrics`: a seat's votes, finds, tells and storyteller points in one record.
- :func:`pooled_difference_interval` and :func:`ratio_interval`: the difference and the ratio of
  two pooled rates (found / votes, points / tells, summed over the games), each with a 95% paired
  bootstrap interval ``[low, high]`` (games resampled together; the same resamples for both).
- :func:`paired_interval`: the former estimator of differences (the mean of per-game differences
  with a normal half-width), kept for the figures measured with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def role_metrics(record: Any, seat: int) -> dict[str, float]:
    """A seat's guessing and storytelling in one game record.

    Returns:
        ``found`` and ``votes`` (its votes on the storyteller's card, its votes), ``told`` and
        ``teller_points`` (rounds it told, the points it scored in them), ``score`` (final).
    """
    found = votes = told = teller_points = 0
    for round_ in record.rounds:
        storyteller = round_.storyteller
        if storyteller == seat:
            told += 1
            teller_points += round_.points[seat]
            continue
        all_votes: Any = round_.votes
        ballot: Sequence[int] = tuple((all_votes.get(seat, all_votes.get(str(seat))) or ())
                                      if isinstance(all_votes, dict) else all_votes[seat])
        for position in ballot:
            votes += 1
            found += int(round_.board_owner[position] == storyteller)
    return {"found": float(found), "votes": float(votes), "told": float(told),
            "teller_points": float(teller_points), "score": float(record.final_scores[seat])}


BOOTSTRAP_RESAMPLES = 2000
"""The resamples of :func:`pooled_difference_interval` and :func:`ratio_interval`."""


def paired_interval(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean of ``a - b`` (paired by game) and the half-width of its 95% interval (normal).

    The estimator ``scripts/train_rl.py`` used for its differences before they became
    :func:`pooled_difference_interval` (a mean of per-game rates weighs a game of few votes as
    much as one of many, so it was not the difference of the pooled rates shown beside it)."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if len(diff) < 2:
        return float(diff.mean()) if len(diff) else math.nan, math.nan
    return float(diff.mean()), float(1.96 * diff.std(ddof=1) / math.sqrt(len(diff)))


def _resamples(n: int, resamples: int, seed: int) -> list[np.ndarray]:
    """The bootstrap's resamples of ``n`` games (the same for every statistic of one seed)."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, n, n) for _ in range(resamples)]


def pooled_difference_interval(found_a: Sequence[float], votes_a: Sequence[float],
                               found_b: Sequence[float], votes_b: Sequence[float], *,
                               resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
                               ) -> tuple[float, float, float]:
    """Pooled rate difference ``sum found_a / sum votes_a - sum found_b / sum votes_b`` over
    games (the difference of the rates shown, e.g. accuracies or points per tell), with a 95%
    paired bootstrap interval ``(difference, low, high)`` (games resampled together). A rate
    whose votes sum to 0 counts as 0. With fewer than two games the interval is undefined
    (``nan``, ``null`` in the run's JSON)."""
    fa, va, fb, vb = (np.asarray(x, dtype=np.float64) for x in (found_a, votes_a, found_b,
                                                                 votes_b))

    def difference(index: np.ndarray) -> float:
        return float(fa[index].sum() / max(va[index].sum(), 1.0)
                     - fb[index].sum() / max(vb[index].sum(), 1.0))

    estimate = difference(np.arange(len(fa)))
    if len(fa) < 2:
        return estimate, math.nan, math.nan
    draws = np.array([difference(index) for index in _resamples(len(fa), resamples, seed)])
    low, high = np.quantile(draws, [0.025, 0.975])
    return estimate, float(low), float(high)


def ratio_interval(found_a: Sequence[float], votes_a: Sequence[float],
                   found_b: Sequence[float], votes_b: Sequence[float], *,
                   resamples: int = BOOTSTRAP_RESAMPLES, seed: int = 0
                   ) -> tuple[float, float, float]:
    """Accuracy ratio ``(sum found_a / sum votes_a) / (sum found_b / sum votes_b)`` over games,
    with a 95% paired bootstrap interval (games resampled together).

    Where ``b`` found nothing the ratio is undefined: ``inf`` (``a`` found something) or ``nan``
    (neither did), never a division by a small number. An interval whose resamples include such
    ratios is open above (``inf``; ``nan`` if a resample found nothing for either); both are
    ``null`` in the run's JSON.
    """
    fa, va, fb, vb = (np.asarray(x, dtype=np.float64) for x in (found_a, votes_a, found_b,
                                                                 votes_b))

    def ratio(index: np.ndarray) -> float:
        accuracy_a = fa[index].sum() / max(va[index].sum(), 1.0)
        accuracy_b = fb[index].sum() / max(vb[index].sum(), 1.0)
        if accuracy_b == 0:
            return math.inf if accuracy_a > 0 else math.nan
        return float(accuracy_a / accuracy_b)

    everything = np.arange(len(fa))
    if len(fa) < 2:  # every resample of one game is that game: no interval, not a certain one
        return ratio(everything), math.nan, math.nan
    draws = np.array([ratio(index) for index in _resamples(len(fa), resamples, seed)],
                     dtype=np.float64)
    if np.isnan(draws).any():
        return ratio(everything), math.nan, math.nan
    # Infinite draws sort last: read the quantiles without interpolating across them.
    if np.isfinite(draws).all():
        low, high = np.quantile(draws, [0.025, 0.975])
    else:
        low, high = np.quantile(draws, [0.025, 0.975], method="inverted_cdf")
    return ratio(everything), float(low), float(high)


INTERVALS = ("pooled rates (found / votes, points / tells, summed over the games); ppo_minus_*: "
             "their difference, accuracy_ratio_to_*: their ratio, each with a 95% paired "
             f"bootstrap interval [low, high] over games ({BOOTSTRAP_RESAMPLES} resamples, seed "
             "0; null where fewer than two games cannot give one)")
"""How :func:`evaluation_cell`'s figures are computed (each cell says so)."""


def evaluation_cell(role: str, metrics: dict[str, list[dict[str, float]]], baseline: str
                    ) -> dict[str, Any]:
    """One row of ``scripts/train_rl.py``'s evaluation: per decider (``"ppo"`` and the others)
    its pooled rate (``accuracy`` of a guesser, ``points_per_tell`` of a storyteller), then
    ``ppo_minus_<decider>`` (the difference of the pooled rates, one estimator for the whole
    row) and, for a guesser, ``accuracy_ratio_to_<baseline>``, each ``ci95`` a ``[low, high]``
    paired bootstrap interval (:data:`INTERVALS`). ``metrics`` holds every decider's
    :func:`role_metrics` per game, in the same game order."""
    found, votes = ("found", "votes") if role == "guesser" else ("teller_points", "told")
    cell: dict[str, Any] = {"intervals": INTERVALS}
    for name, rows in metrics.items():
        total_found = sum(r[found] for r in rows)
        total_votes = sum(r[votes] for r in rows)
        cell[name] = ({"accuracy": total_found / max(total_votes, 1), "votes": total_votes}
                      if role == "guesser" else
                      {"points_per_tell": total_found / max(total_votes, 1),
                       "tells": total_votes})

    def columns(name: str) -> tuple[list[float], ...]:
        return ([r[found] for r in metrics["ppo"]], [r[votes] for r in metrics["ppo"]],
                [r[found] for r in metrics[name]], [r[votes] for r in metrics[name]])

    for name in metrics:
        if name == "ppo":
            continue
        difference, low, high = pooled_difference_interval(*columns(name))
        cell[f"ppo_minus_{name}"] = {"difference": difference,
                                     "ci95": None if math.isnan(low) else [low, high]}
    if role == "guesser":
        ratio, low, high = ratio_interval(*columns(baseline))
        cell[f"accuracy_ratio_to_{baseline}"] = {
            "ratio": ratio, "ci95": None if math.isnan(low) else [low, high]}
    return cell
