"""The accuracy ratio of train_rl's evaluation is undefined, not huge, when the baseline found
nothing (before: a baseline accuracy of 0 was divided as 1e-9, and evaluation.json showed ratios
such as 222222222.2 with intervals [0.0, 499999999.99])."""

from __future__ import annotations

import json
import math

from dixit_ai.reporting import write_json
from envs.learned import ratio_interval


def test_a_baseline_that_found_nothing_gives_no_ratio(tmp_path) -> None:
    ratio, low, high = ratio_interval([1, 2, 0], [3, 3, 3], [0, 0, 0], [3, 3, 3])
    assert not math.isfinite(ratio) and not math.isfinite(high)
    write_json(tmp_path / "e.json", {"ratio": ratio, "ci95": [low, high]})
    written = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert written["ratio"] is None and written["ci95"][1] is None


def test_nothing_found_by_either_is_undefined() -> None:
    ratio, low, high = ratio_interval([0, 0], [3, 3], [0, 0], [3, 3])
    assert math.isnan(ratio) and math.isnan(low) and math.isnan(high)


def test_resamples_where_the_baseline_found_nothing_leave_the_upper_bound_open() -> None:
    # one game in three where the baseline found anything: many resamples have no such game
    ratio, low, high = ratio_interval([1, 1, 1], [2, 2, 2], [2, 0, 0], [2, 2, 2], resamples=500)
    assert math.isclose(ratio, 1.5)
    assert math.isfinite(low) and low <= ratio and not math.isfinite(high)


def test_an_ordinary_ratio_and_interval_are_unchanged() -> None:
    found_a, votes = [3, 2, 4, 3, 2, 3], [5] * 6
    found_b = [2, 3, 3, 2, 3, 2]
    ratio, low, high = ratio_interval(found_a, votes, found_b, votes)
    assert math.isclose(ratio, 17 / 15)
    assert 0 < low <= ratio <= high < 10
