"""Plots that reports share: intervals as dots and whiskers, a matrix of rates, a colour bar as
tall as its plot. They import matplotlib when called, so the core imports without it.
"""

from __future__ import annotations

import math
import os
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dixit_ai.reporting import Interval


def plot_intervals(path: str | os.PathLike[str], labels: Sequence[str],
                   intervals: Sequence[Interval] | Mapping[str, Sequence[Interval]], *,
                   title: str, xlabel: str, reference: float | None = None,
                   reference_label: str = "chance") -> Path:
    """A horizontal dot-and-whisker plot of intervals (one series, or several side by side).

    ``intervals`` is one interval per label, or a mapping series name -> one per label. A
    vertical dashed line marks ``reference`` (chance, say) where given. Each whisker spans its
    interval, whether or not the interval holds its estimate (the dot). Writes a PNG.

    Raises:
        ValueError: no labels (nothing to plot), or a series without one interval per label.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not labels:  # a strip with a title and nothing else: the caller skips it and says so
        raise ValueError(f"{Path(path).name}: no intervals to plot (no labels)")
    series = intervals if isinstance(intervals, Mapping) else {"": intervals}
    for name, values in series.items():
        if len(values) != len(labels):
            raise ValueError(
                f"series {name!r} has {len(values)} intervals for {len(labels)} labels")
    n, k = len(labels), len(series)
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.45 * n * max(1, k) ** 0.5))
    offsets = np.linspace(-0.2, 0.2, k) if k > 1 else np.zeros(1)
    for index, (offset, (name, values)) in enumerate(zip(offsets, series.items(), strict=True)):
        y = np.arange(n)[::-1] + offset
        est = np.array([v.estimate for v in values])
        low, high = np.array([v.low for v in values]), np.array([v.high for v in values])
        # The whisker spans the interval and the dot is the estimate, drawn apart: a percentile
        # interval need not hold its estimate (a skewed statistic, a few resamples).
        ax.errorbar((low + high) / 2, y, xerr=(high - low) / 2, fmt="none", capsize=3,
                    color=f"C{index}", label=name or None)
        ax.plot(est, y, "o", color=f"C{index}")
    if reference is not None:
        ax.axvline(reference, color="grey", linestyle="--", linewidth=1, label=reference_label)
    ax.set_yticks(np.arange(n)[::-1], labels)
    ax.set_xlabel(xlabel)
    ax.set_title(textwrap.fill(title, 72), fontsize="medium")
    ax.grid(axis="x", alpha=0.3)
    if k > 1 or reference is not None:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")  # off the data
    fig.tight_layout()
    from dixit_ai.reporting import save_figure

    target = save_figure(fig, path, dpi=120)
    plt.close(fig)
    return target


def draw_rate_matrix(ax: Any, values: np.ndarray, rows: Sequence[str],
                     columns: Sequence[str]) -> Any:
    """Draw a matrix of rates in [0, 1] on a matplotlib ``ax``: a heat map with each cell's
    value written in it (NaN cells left blank) and the row and column labels. Returns the
    image (for a colour bar)."""
    values = np.asarray(values, dtype=np.float64)
    image = ax.imshow(values, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(columns)), list(columns), rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), list(rows))
    for i in range(len(rows)):
        for j in range(len(columns)):
            value = values[i, j]
            if not math.isnan(value):
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if value < 0.5 else "black")
    return image


def side_colorbar(figure: Any, ax: Any, image: Any, label: str) -> Any:
    """A colour bar for ``image`` beside ``ax``, as tall as it (``fig.colorbar(fraction=...)``
    made one shorter than a tall matrix), with ``label`` saying what its colours measure."""
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    axis = make_axes_locatable(ax).append_axes("right", size=0.2, pad=0.15)
    return figure.colorbar(image, cax=axis, label=label)
