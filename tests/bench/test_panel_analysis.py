"""The panel figures of the tell task are computed from the records alone."""

from __future__ import annotations

import math

import pytest

from dixit_ai.reporting import mean_interval
from models.bench.panel_analysis import (
    paired_difference,
    panel_results,
    panel_tables,
    write_panel_plots,
)


def _record(model: str, item: int, predicted: float | None, found: dict[str, int],
            points: float) -> dict:
    seen = {name: 2 for name in found}
    return {"task": "tell", "model": model, "item": item, "predicted": predicted,
            "target": 0.5 if predicted is not None else None, "observed": 0.5,
            "invalid": False, "held_out": list(found),
            "panel": {"found": found, "seen": seen, "success": 1.0 if points else 0.0,
                      "points": points, "finders": [], "random_found": found,
                      "random_seen": seen, "random_success": 0.0, "random_points": 0.0}}


def test_panel_results_per_member_pooled_and_ece(tmp_path):
    header = {"panel": {"members": [{"name": "a"}, {"name": "b"}]}}
    rows = [_record("teller", 0, 0.5, {"a": 2, "b": 0}, 3.0),
            _record("teller", 1, 0.5, {"a": 1, "b": 1}, 3.0),
            _record("caption", 0, None, {"a": 2, "b": 2}, 0.0),
            _record("caption", 1, None, {"a": 2, "b": 2}, 0.0)]
    results = panel_results(header, rows, lambda v: mean_interval(v, seed=0, n_resamples=50))
    assert results is not None
    teller = results["models"]["teller"]
    assert teller["members"]["a"]["observed"].estimate == pytest.approx(0.75)
    assert teller["members"]["b"]["observed"].estimate == pytest.approx(0.25)
    assert teller["members"]["pooled"]["observed"].estimate == pytest.approx(0.5)
    assert teller["members"]["pooled"]["ece"] == pytest.approx(0.0)
    assert teller["members"]["a"]["ece"] == pytest.approx(0.25)
    assert teller["panel"]["points"].estimate == pytest.approx(3.0)
    assert results["models"]["caption"]["members"]["pooled"]["ece"] is None
    diff = paired_difference(teller["points_values"],
                             results["models"]["caption"]["points_values"], seed=0,
                             resamples=50)
    assert diff.estimate == pytest.approx(3.0) and diff.low > 0
    titles = [t for t, _, _ in panel_tables(results)]
    assert titles[0].startswith("tell against the panel (")
    plots = write_panel_plots(tmp_path, results)
    assert (tmp_path / plots["crossplay"]).is_file()
    assert any(key.startswith("reliability:") for key in plots)
    assert panel_results({"panel": None}, rows, lambda v: mean_interval(v)) is None
    assert not math.isnan(teller["against_itself"].estimate)
