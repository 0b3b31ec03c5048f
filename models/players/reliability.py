"""Measuring calibration: predicted against observed guess rates.

:func:`reliability` bins predicted against observed guess rates and gives the expected
calibration error (ECE); :func:`ece_interval` bootstraps an interval for it, over turns or over
stories; :func:`calibrated_ece` is the ECE a perfectly calibrated storyteller would show from the
noise of the votes alone, with votes on one story going together as much as
:func:`story_correlation` estimates; :func:`ece_by_voter` and :func:`plot_reliability` report
it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dixit_ai.reporting import Interval, bootstrap, cluster_numbers, save_figure

__all__ = [
    "Reliability",
    "calibrated_ece",
    "ece_by_voter",
    "ece_interval",
    "plot_reliability",
    "reliability",
    "story_correlation",
]


@dataclass(frozen=True)
class Reliability:
    """A reliability diagram's data.

    Attributes:
        edges: Bin edges over ``[0, 1]``.
        predicted: Mean predicted rate per bin (NaN where empty).
        observed: Mean observed rate per bin (NaN where empty).
        counts: Rounds per bin.
        ece: Expected calibration error: ``sum(counts * |observed - predicted|) / sum(counts)``.
    """

    edges: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    counts: np.ndarray
    ece: float


def reliability(predicted: Sequence[float] | np.ndarray, observed: Sequence[float] | np.ndarray,
                bins: int = 10) -> Reliability:
    """Bin predicted guess rates and compare with the observed ones.

    >>> r = reliability([0.1, 0.1, 0.9, 0.9], [0.0, 0.25, 1.0, 0.75])
    >>> round(r.ece, 3)
    0.025
    """
    p = np.asarray(predicted, dtype=np.float64)
    o = np.asarray(observed, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    counts = np.bincount(index, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.bincount(index, p, bins) / counts
        mean_o = np.bincount(index, o, bins) / counts
    filled = counts > 0
    ece = float(np.sum(counts[filled] * np.abs(mean_o[filled] - mean_p[filled])) / max(1, len(p)))
    return Reliability(edges, mean_p, mean_o, counts, ece)


def ece_interval(predicted: Sequence[float] | np.ndarray,
                 observed: Sequence[float] | np.ndarray, *,
                 clusters: Sequence[Any] | None = None, bins: int = 10,
                 n_resamples: int = 2000, level: float = 0.95, seed: int = 0) -> Interval:
    """The ECE of ``predicted`` against ``observed`` with a percentile-bootstrap interval over
    turns, or over ``clusters`` of turns (the card told, say: a story repeated in many hands is
    one piece of evidence). The binned ECE is biased upwards on few turns, and so is its
    interval; :func:`calibrated_ece` gives the size of that bias.

    Raises:
        ValueError: no turns, predictions and observations of different lengths, or clusters
            that are not one label per turn.
    """
    p = np.asarray(predicted, dtype=np.float64)
    o = np.asarray(observed, dtype=np.float64)
    if p.size == 0 or p.shape != o.shape:
        raise ValueError(f"ece_interval needs one observation per prediction and at least one "
                         f"turn, not {p.size} predictions and {o.size} observations")
    estimate, low, high = bootstrap(lambda idx: reliability(p[idx], o[idx], bins).ece, p.size,
                                    n_resamples=n_resamples, level=level, seed=seed,
                                    clusters=clusters)
    return Interval(float(estimate), float(low), float(high))


def _story_numbers(clusters: Sequence[Any] | np.ndarray | None, turns: int) -> np.ndarray:
    """Each turn's story, numbered (every turn its own without ``clusters``)."""
    if clusters is None:
        return np.arange(turns)
    return cluster_numbers(clusters, turns, unit="turn")


def _checked_turns(predicted: Sequence[float] | np.ndarray, votes: Sequence[int] | np.ndarray,
                   what: str) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(predicted, dtype=np.float64)
    n = np.asarray(votes, dtype=np.int64)
    if p.size == 0 or p.shape != n.shape:
        raise ValueError(f"{what} needs one vote count per prediction and at least one turn, not "
                         f"{p.size} predictions and {n.size} counts")
    if (n < 1).any() or not ((p >= 0.0) & (p <= 1.0)).all():
        raise ValueError(f"{what} needs at least 1 vote per turn and predictions in [0, 1]")
    return p, n


def story_correlation(predicted: Sequence[float] | np.ndarray,
                      observed: Sequence[float] | np.ndarray,
                      votes: Sequence[int] | np.ndarray,
                      clusters: Sequence[Any] | np.ndarray) -> float:
    """How far one guesser's votes on one story (a card told with a clue, in any hand or deal)
    go together: the correlation ``rho`` of any two of them, as :func:`calibrated_ece` draws
    them, estimated by moments from the residuals of the votes against the predictions (every
    pair of votes in a story; a turn gives its found count ``observed * votes``). If the
    predictions are off story by story, the residuals share that too, so on a miscalibrated
    storyteller the estimate is high: it makes the calibrated storyteller's noise larger, never
    smaller. NaN where no story has two votes.

    Raises:
        ValueError: as :func:`calibrated_ece`, or observations of another length.
    """
    p, n = _checked_turns(predicted, votes, "story_correlation")
    o = np.asarray(observed, dtype=np.float64)
    if o.shape != p.shape:
        raise ValueError(f"story_correlation needs one observation per prediction, not {o.size} "
                         f"for {p.size}")
    story = _story_numbers(clusters, p.size)
    found = np.rint(o * n)
    residual = found - n * p                                   # sum of the turn's votes' (y - p)
    squares = found * (1.0 - p) ** 2 + (n - found) * p ** 2    # sum of their (y - p)^2
    spread = np.sqrt(p * (1.0 - p))
    k = int(story.max()) + 1
    pairs = (np.bincount(story, residual, k) ** 2 - np.bincount(story, squares, k)).sum()
    expected = (np.bincount(story, n * spread, k) ** 2
                - np.bincount(story, n * spread ** 2, k)).sum()
    return float(pairs / expected) if expected > 0 else math.nan


def calibrated_ece(predicted: Sequence[float] | np.ndarray,
                   votes: Sequence[int] | np.ndarray, *,
                   clusters: Sequence[Any] | np.ndarray | None = None, correlation: float = 0.0,
                   bins: int = 10, draws: int = 1000, level: float = 0.95,
                   seed: int = 0) -> Interval:
    """The ECE a perfectly calibrated storyteller would show on these turns from the noise of
    the votes alone (the binned ECE of a few votes per turn is not 0): every vote finds the
    card with the turn's predicted chance. Votes on one story (``clusters``: the card and clue
    told, in every hand and deal) go together with ``correlation``, the correlation of any two
    of them: each vote reads the story's one shared draw with chance ``sqrt(correlation)`` and
    a draw of its own otherwise, so ``0`` is independent votes and ``1`` a story that a guesser
    finds every time or never. Returns the mean over ``draws`` with the central ``level``
    range of the draws. An ECE above that range is miscalibration; within it, the turns cannot
    tell.

    Raises:
        ValueError: no turns, lengths that differ, a turn without votes, a prediction outside
            [0, 1], a correlation outside [0, 1], or fewer than 2 draws.
    """
    p, n = _checked_turns(predicted, votes, "calibrated_ece")
    if not 0.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be in [0, 1], not {correlation}")
    if draws < 2:
        raise ValueError(f"calibrated_ece needs at least 2 draws, not {draws}")
    story = _story_numbers(clusters, p.size)
    rng = np.random.default_rng(seed)
    eces = np.empty(draws)
    for d in range(draws):
        shared = rng.binomial(n, math.sqrt(correlation))       # votes that read the story's draw
        story_draw = rng.random(int(story.max()) + 1)[story]
        found = shared * (story_draw < p) + rng.binomial(n - shared, p)
        eces[d] = reliability(p, found / n, bins).ece
    alpha = (1.0 - level) / 2.0
    return Interval(float(eces.mean()), float(np.quantile(eces, alpha)),
                    float(np.quantile(eces, 1.0 - alpha)))


def plot_reliability(result: Reliability, path: Any, title: str) -> bool:
    """Draw the reliability diagram as a PNG; ``False`` if matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    centres = (result.edges[:-1] + result.edges[1:]) / 2
    filled = result.counts > 0
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    ax.bar(centres[filled], result.observed[filled], width=1 / len(centres), alpha=0.35,
           edgecolor="black", label="observed (bin mean)")
    ax.plot(result.predicted[filled], result.observed[filled], "o-", label="observed vs predicted")
    for x, y, n in zip(result.predicted[filled], result.observed[filled],
                       result.counts[filled], strict=True):
        ax.annotate(str(int(n)), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted guess rate")
    ax.set_ylabel("observed guess rate")
    ax.set_title(f"{title}\nECE = {result.ece:.3f} ({int(result.counts.sum())} rounds)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return True


def ece_by_voter(predictions: Sequence[tuple[float, float, str]], bins: int = 10
                 ) -> dict[str, dict[str, float]]:
    """ECE of per-vote predictions, per voter name and pooled (``{"ece", "votes"}``)."""
    groups: dict[str, list[tuple[float, float, str]]] = {}
    for row in predictions:
        groups.setdefault(row[2], []).append(row)
    groups["pooled"] = list(predictions)
    out = {}
    for name, rows in groups.items():
        if rows:
            curve = reliability([r[0] for r in rows], [r[1] for r in rows], bins)
            out[name] = {"ece": curve.ece, "votes": float(len(rows)),
                         "predicted": float(np.mean([r[0] for r in rows])),
                         "observed": float(np.mean([r[1] for r in rows]))}
    return out
