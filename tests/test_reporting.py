"""The shared report helpers: seeded bootstrap intervals, run folders, tables and files."""

from __future__ import annotations

import csv
import datetime as dt
import json
import math
import re
import time

import numpy as np
import pytest

from dixit_ai.reporting import (
    Interval,
    bootstrap,
    check_folder_path,
    markdown_table,
    mean_interval,
    new_run_dir,
    plot_intervals,
    print_table,
    run_folder,
    write_csv,
    write_json,
)


def test_mean_interval_is_seeded_and_covers_the_mean():
    values = np.random.default_rng(1).normal(0.3, 1.0, size=400)
    a = mean_interval(values, seed=5)
    b = mean_interval(values, seed=5)
    assert a == b
    assert a.low < a.estimate < a.high
    assert a.estimate == pytest.approx(values.mean())
    # The interval's width is near 2 * 1.96 * sd / sqrt(n) for a normal sample.
    assert a.high - a.low == pytest.approx(2 * 1.96 / 20, rel=0.2)
    assert mean_interval(values, seed=6) != a


def test_mean_interval_of_nothing_is_nan_and_bad_input_is_refused():
    assert math.isnan(mean_interval([]).estimate)
    with pytest.raises(ValueError, match="confidence level"):
        mean_interval([1.0, 2.0], level=1.5)
    with pytest.raises(ValueError, match="1-d"):
        mean_interval(np.zeros((2, 2)))


def test_cluster_bootstrap_counts_a_repeated_value_once():
    """Five copies of each of ten values are ten pieces of evidence, not fifty: clustered by
    copy, the interval is exactly the plain interval of the ten values, and wider than the
    plain interval of the fifty."""
    ten = np.random.default_rng(2).random(10)
    fifty = np.repeat(ten, 5)
    labels = np.repeat(np.arange(10), 5)
    clustered = mean_interval(fifty, seed=3, clusters=labels)
    alone = mean_interval(ten, seed=3)
    assert (clustered.estimate, clustered.low, clustered.high) == pytest.approx(
        (alone.estimate, alone.low, alone.high))
    plain = mean_interval(fifty, seed=3)
    assert clustered.estimate == pytest.approx(plain.estimate)
    assert clustered.high - clustered.low > 1.8 * (plain.high - plain.low)


def test_cluster_bootstrap_with_distinct_labels_is_the_plain_bootstrap():
    values = np.random.default_rng(4).normal(size=60)
    labels = [f"card-{i}" for i in range(60)]
    a, b = mean_interval(values, seed=9, clusters=labels), mean_interval(values, seed=9)
    assert (a.estimate, a.low, a.high) == pytest.approx((b.estimate, b.low, b.high))


def test_cluster_bootstrap_weighs_clusters_by_their_size():
    """A resample's mean is over the values of the clusters drawn: the estimate is the plain
    mean, and unequal clusters keep every resample's mean within the values' range."""
    values = [0.0, 0.0, 0.0, 1.0]
    clustered = mean_interval(values, seed=0, clusters=["a", "a", "a", "b"], n_resamples=500)
    assert clustered.estimate == pytest.approx(0.25)
    assert 0.0 <= clustered.low <= 0.25 <= clustered.high <= 1.0


def test_cluster_labels_must_match_the_values():
    with pytest.raises(ValueError, match="one label per value: 2 labels for 3 values"):
        mean_interval([1.0, 2.0, 3.0], clusters=["a", "b"])


def test_cluster_bootstrap_of_any_statistic_draws_the_clusters_mean_interval_draws():
    """bootstrap(clusters=...) hands the statistic the positions of whole clusters, and for the
    mean it gives mean_interval's cluster interval exactly (the same clusters drawn)."""
    values = np.array([0.0, 0.0, 1.0, 1.0, 1.0, 0.5, 0.2])
    labels = ["x", "x", "y", "y", "y", "z", "w"]
    seen: list[np.ndarray] = []

    def mean(idx: np.ndarray) -> float:
        seen.append(idx)
        return float(values[idx].mean())

    estimate, low, high = bootstrap(mean, values.size, seed=4, n_resamples=300, clusters=labels)
    reference = mean_interval(values, seed=4, n_resamples=300, clusters=labels)
    assert (float(estimate), float(low), float(high)) == pytest.approx(
        (reference.estimate, reference.low, reference.high))
    # Every resample takes a cluster whole or not at all.
    for idx in seen[1:]:
        counts = np.bincount(idx, minlength=values.size)
        assert counts[0] == counts[1] and counts[2] == counts[3] == counts[4]
    with pytest.raises(ValueError, match="cannot be batched"):
        bootstrap(mean, values.size, clusters=labels, batched=True)
    with pytest.raises(ValueError, match="2 labels for 7 values"):
        bootstrap(mean, values.size, clusters=["a", "b"])


def test_batched_bootstrap_gives_the_same_figures_as_one_call_per_resample():
    rng = np.random.default_rng(4)
    wins, seats = rng.integers(0, 3, (30, 4)).astype(float), np.full((30, 4), 3.0)

    def ratio(idx: np.ndarray) -> np.ndarray:  # 1-d or (resamples, items) indices
        return wins[idx].sum(axis=-2) / seats[idx].sum(axis=-2)

    one = bootstrap(ratio, 30, n_resamples=500, seed=9)
    batched = bootstrap(ratio, 30, n_resamples=500, seed=9, batched=True)
    for a, b in zip(one, batched, strict=True):
        np.testing.assert_allclose(a, b)
    assert one[0].shape == (4,)


def test_bootstrap_of_a_vector_statistic():
    data = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]])
    est, low, high = bootstrap(lambda idx: data[idx].mean(axis=0), len(data), seed=0,
                               n_resamples=500)
    assert est.tolist() == [0.75, 0.5]
    assert np.all(low <= est) and np.all(est <= high)
    with pytest.raises(ValueError, match="at least 1 item"):
        bootstrap(lambda idx: 0.0, 0)


def test_run_folder_never_reuses_a_folder(tmp_path):
    first = run_folder("bench", "my model/x", 3, root=tmp_path)
    second = run_folder("bench", "my model/x", 3, root=tmp_path)
    assert first != second and first.is_dir() and second.is_dir()
    assert first.name.startswith("bench__my-model-x__3__")


SECOND = 1_700_000_000


def test_runs_started_in_the_same_second_get_folders_of_their_own(tmp_path, monkeypatch):
    """``new_run_dir`` names a script's run ``{out}/{exp_name}__{seed}__{time}`` and takes the
    next free ``-2``, ``-3``, ... past anything in the way (a folder of another run, a file)."""
    monkeypatch.setattr(time, "time", lambda: SECOND + 0.75)
    first = new_run_dir(tmp_path / "runs", "study", 3)
    (first / "games.jsonl").write_text("the first run's")
    second = new_run_dir(tmp_path / "runs", "study", 3)
    (tmp_path / "runs" / f"study__3__{SECOND}-3").write_text("a file")
    fourth = new_run_dir(tmp_path / "runs", "study", 3)
    assert [first.name, second.name, fourth.name] == [
        f"study__3__{SECOND}", f"study__3__{SECOND}-2", f"study__3__{SECOND}-4"]
    assert second.is_dir() and not list(second.iterdir()) and fourth.is_dir()
    assert (first / "games.jsonl").read_text() == "the first run's"
    assert new_run_dir(tmp_path, "x", 0, now=SECOND - 1.5).name == f"x__0__{SECOND - 2}"


def test_run_folder_takes_the_next_free_name_in_the_same_second(tmp_path):
    when = dt.datetime(2026, 12, 5, 16, 20, 0, tzinfo=dt.UTC)
    made = [run_folder("bench", "m", 1, root=tmp_path, when=when) for _ in range(3)]
    assert [p.name for p in made] == ["bench__m__1__20261205T162000Z",
                                      "bench__m__1__20261205T162000Z-2",
                                      "bench__m__1__20261205T162000Z-3"]


A_FILE = re.escape("is a file, not a folder: give the path of a folder (an existing one, or "
                   "one to make)")
"""The one message of a folder path that names a file (:func:`check_folder_path`)."""


def test_a_folder_path_that_names_a_file_is_refused_with_one_message(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(ValueError, match=f"^--out {re.escape(str(a_file))} {A_FILE}$"):
        check_folder_path(a_file, "--out")
    with pytest.raises(ValueError, match=f"^{re.escape(str(a_file))} {A_FILE}$"):
        check_folder_path(a_file)
    check_folder_path(tmp_path)  # a folder, or a path not made yet, is fine
    check_folder_path(tmp_path / "new" / "folder")
    under = a_file / "runs"
    with pytest.raises(ValueError, match=f"^--out {re.escape(f'{under}: {a_file}')} {A_FILE}$"):
        check_folder_path(under, "--out")
    assert [p.name for p in tmp_path.iterdir()] == ["a-file"]


@pytest.mark.parametrize("make", [
    lambda root: new_run_dir(root, "study", 3),
    lambda root: run_folder("bench", "m", 1, root=root)])
def test_a_root_that_is_a_file_is_refused_and_left_alone(make, tmp_path):
    root = tmp_path / "runs"
    root.write_text("not a folder")
    with pytest.raises(ValueError, match=f"^{re.escape(str(root))} {A_FILE}$"):
        make(root)
    below = re.escape(f"{root / 'below'}: {root}")
    with pytest.raises(ValueError, match=f"^{below} {A_FILE}$"):  # a path under a file
        make(root / "below")
    assert root.read_text() == "not a folder" and [p.name for p in tmp_path.iterdir()] == ["runs"]

def test_files_and_tables(tmp_path, capsys):
    rows = [{"agent": "a|b", "rate": 0.5, "ci": Interval(0.5, 0.4, 0.6)},
            {"agent": "c", "rate": float("nan"), "ci": Interval(0.1, 0.0, 0.2)}]
    write_csv(tmp_path / "r.csv", rows)
    with open(tmp_path / "r.csv", encoding="utf-8", newline="") as handle:
        read = list(csv.DictReader(handle))
    assert read[0]["ci"] == "0.500 [0.400, 0.600]" and read[1]["rate"] == ""
    write_json(tmp_path / "r.json", {"x": float("nan"), "ci": rows[0]["ci"], "a": np.int64(3)})
    assert json.loads((tmp_path / "r.json").read_text()) == {
        "x": None, "ci": {"estimate": 0.5, "low": 0.4, "high": 0.6}, "a": 3}
    table = markdown_table(["agent", "rate"], [["a|b", 0.5]])
    assert "a\\|b" in table and "0.500" in table
    print_table("Leaderboard", ["agent", "rate"], [["a", Interval(0.5, 0.4, 0.6)]])
    assert "0.500 [0.400, 0.600]" in capsys.readouterr().out
    png = plot_intervals(tmp_path / "p.png", ["a", "b"], [rows[0]["ci"], rows[1]["ci"]],
                         title="t", xlabel="x", reference=0.2)
    assert png.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="1 intervals for 2 labels"):
        plot_intervals(tmp_path / "q.png", ["a", "b"], {"s": [rows[0]["ci"]]}, title="t",
                       xlabel="x")


def test_a_rate_matrix_writes_each_value_and_leaves_nan_blank():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dixit_ai.reporting import draw_rate_matrix

    fig, ax = plt.subplots()
    image = draw_rate_matrix(ax, np.array([[0.25, np.nan], [0.75, 1.0]]), ["a", "b"],
                             ["x", "y"])
    assert image.get_clim() == (0, 1)
    assert [t.get_text() for t in ax.texts] == ["0.25", "0.75", "1.00"]
    assert [t.get_color() for t in ax.texts] == ["white", "black", "black"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    plt.close(fig)


def test_an_interval_that_does_not_hold_its_estimate_is_drawn(tmp_path) -> None:
    """With one or two bootstrap resamples (which the commands accept) a percentile interval
    may lie beside its estimate; drawing it raised matplotlib's "'xerr' must not contain
    negative values" and the tournament's report was never written."""
    import matplotlib.image

    beside = [Interval(5.0, 6.0, 7.0), Interval(2.0, 1.0, 3.0)]
    target = plot_intervals(tmp_path / "i.png", ["a", "b"], {"x": beside, "y": beside[::-1]},
                            title="t", xlabel="points", reference=3.0)
    assert matplotlib.image.imread(target).shape[0] > 50


def test_a_matrix_colour_bar_is_as_tall_as_its_plot_and_says_what_it_measures() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dixit_ai.reporting import draw_rate_matrix, side_colorbar

    fig, ax = plt.subplots(figsize=(9, 9))
    image = draw_rate_matrix(ax, np.full((15, 6), 0.5), [str(i) for i in range(15)],
                             [str(j) for j in range(6)])
    bar = side_colorbar(fig, ax, image, "observed guess rate")
    fig.tight_layout()
    fig.canvas.draw()
    plot, scale = ax.get_position(), bar.ax.get_position()
    assert abs(plot.height - scale.height) < 1e-6 and scale.x0 > plot.x1
    assert bar.ax.get_ylabel() == "observed guess rate"
    plt.close(fig)
