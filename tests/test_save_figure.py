"""dixit_ai.reporting.save_figure: every figure the project writes appears whole or not at all
(it was ``fig.savefig(path)`` in place: a save that failed part-way left a cut PNG)."""

from __future__ import annotations

import os
import stat

import matplotlib

matplotlib.use("Agg")
import matplotlib.figure
import matplotlib.pyplot as plt
import pytest

from dixit_ai import reporting
from dixit_ai.files import _FILE_MODE
from dixit_ai.reporting import Interval

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _fails_part_way(error: type[BaseException]):
    """A ``Figure.savefig`` that writes part of a PNG where it is told, then fails."""

    def savefig(self, fname, *args, **kwargs):
        if hasattr(fname, "write"):
            fname.write(PNG_SIGNATURE + b"half a picture")
        else:
            with open(fname, "wb") as handle:
                handle.write(PNG_SIGNATURE + b"half a picture")
        raise error("the disk is full")

    return savefig


@pytest.fixture
def figure():
    fig, ax = plt.subplots(figsize=(2, 1.5))
    ax.plot([0, 1, 2], [1, 0, 1])
    yield fig
    plt.close(fig)


def test_a_save_writes_a_whole_png_with_plain_permissions(tmp_path, figure):
    target = tmp_path / "new" / "curve.png"
    assert reporting.save_figure(figure, target, dpi=50) == target
    data = target.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and data.endswith(b"IEND\xaeB`\x82")
    assert plt.imread(target).shape[:2] == (75, 100)  # 2 x 1.5 inches at 50 dpi
    assert stat.S_IMODE(target.stat().st_mode) == _FILE_MODE
    assert os.listdir(target.parent) == ["curve.png"]


@pytest.mark.parametrize("error", [OSError, KeyboardInterrupt])
def test_a_save_that_fails_part_way_leaves_the_old_png_and_no_temporary_file(
        tmp_path, figure, monkeypatch, error):
    target = tmp_path / "curve.png"
    reporting.save_figure(figure, target, dpi=50)
    old = target.read_bytes()
    monkeypatch.setattr(type(figure), "savefig", _fails_part_way(error))
    figure.axes[0].plot([0, 2], [0, 1])
    with pytest.raises(error, match="the disk is full"):
        reporting.save_figure(figure, target, dpi=80)
    assert target.read_bytes() == old
    assert os.listdir(tmp_path) == ["curve.png"]


def test_the_format_comes_from_the_name_or_is_given(tmp_path, figure):
    reporting.save_figure(figure, tmp_path / "a.svg")
    assert b"<svg" in (tmp_path / "a.svg").read_bytes()[:400]
    reporting.save_figure(figure, tmp_path / "b", format="png", dpi=20)
    assert (tmp_path / "b").read_bytes().startswith(PNG_SIGNATURE)
    with pytest.raises(ValueError, match="no format"):
        reporting.save_figure(figure, tmp_path / "c")
    assert sorted(os.listdir(tmp_path)) == ["a.svg", "b"]


def test_plot_intervals_saves_through_save_figure(tmp_path, monkeypatch):
    """plot_intervals wrote its PNG in place: a failing save left half a picture."""
    target = tmp_path / "intervals.png"
    intervals = [Interval(0.5, 0.4, 0.6), Interval(0.3, 0.2, 0.5)]
    reporting.plot_intervals(target, ["a", "b"], intervals, title="t", xlabel="rate")
    old = target.read_bytes()
    assert old.startswith(PNG_SIGNATURE)
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", _fails_part_way(OSError))
    with pytest.raises(OSError, match="the disk is full"):
        reporting.plot_intervals(target, ["a", "b"], intervals[::-1], title="t", xlabel="rate")
    assert target.read_bytes() == old
    assert os.listdir(tmp_path) == ["intervals.png"]
