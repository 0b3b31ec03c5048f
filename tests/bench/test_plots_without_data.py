"""A benchmark task whose records hold no figure (a run stopped before it) gets no plot and a
note, not a strip of a title and a legend (before: a ~100 px PNG and matplotlib's "Tight layout
not applied" warning)."""

from __future__ import annotations

import warnings

import pytest

from dixit_ai.reporting import Interval, plot_intervals
from models.bench.plots import write_plots


def test_a_task_without_figures_is_not_plotted(tmp_path, capsys):
    results = {"chance": {"guess_top1": 1 / 6},
               "guess": {"kinds": [], "models": {"random": {"kinds": {}}}},
               "tell": {"models": {}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plots = write_plots(tmp_path, results)
    assert plots == {} and not any(tmp_path.iterdir())
    err = capsys.readouterr().err
    assert "note: guess_accuracy.png not drawn: the records hold no guess figures" in err
    assert "note: tell_success.png not drawn" in err


def test_no_labels_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no intervals to plot"):
        plot_intervals(tmp_path / "p.png", [], {"a": []}, title="t", xlabel="x")
    plot_intervals(tmp_path / "q.png", ["a"], [Interval(0.5, 0.4, 0.6)], title="t", xlabel="x")
