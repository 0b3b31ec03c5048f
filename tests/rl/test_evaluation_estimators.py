"""One estimator per evaluation table: ``ppo_minus_*`` is the difference of the pooled rates
shown beside it (before: the mean of per-game differences, so 0.522 - 0.353 was printed as
+0.174), and every ``ci95`` is ``[low, high]`` (before: a half-width for differences, a range for
the ratio)."""

from __future__ import annotations

import math

import pytest

from envs.evaluation import evaluation_cell, pooled_difference_interval, ratio_interval


def games(rows: list[tuple[float, float]], role: str) -> list[dict[str, float]]:
    found, votes = ("found", "votes") if role == "guesser" else ("teller_points", "told")
    return [{found: f, votes: v} for f, v in rows]


@pytest.mark.parametrize(("role", "rate", "base"), [("guesser", "accuracy", "clip-greedy"),
                                                     ("storyteller", "points_per_tell",
                                                      "clip-expected-self")])
def test_the_difference_is_that_of_the_pooled_rates(role, rate, base):
    # games of unequal size: the mean of per-game rates is not the pooled rate
    ppo = [(1, 1), (2, 10), (3, 4), (0, 2), (5, 9)]
    other = [(0, 3), (5, 10), (1, 2), (1, 1), (2, 8)]
    cell = evaluation_cell(role, {"ppo": games(ppo, role), base: games(other, role),
                                  "random": games(other[::-1], role)}, base)
    for name in (base, "random"):
        entry = cell[f"ppo_minus_{name}"]
        assert math.isclose(entry["difference"], cell["ppo"][rate] - cell[name][rate])
        low, high = entry["ci95"]
        assert low <= entry["difference"] <= high
    per_game = sum(f / v for f, v in ppo) / 5 - sum(f / v for f, v in other) / 5
    assert not math.isclose(cell[f"ppo_minus_{base}"]["difference"], per_game)
    if role == "guesser":
        ratio = cell[f"accuracy_ratio_to_{base}"]
        low, high = ratio["ci95"]
        assert low <= ratio["ratio"] <= high
    assert "bootstrap" in cell["intervals"]


def test_one_game_gives_no_interval():
    difference, low, high = pooled_difference_interval([1], [2], [0], [2])
    assert difference == 0.5 and math.isnan(low) and math.isnan(high)
    cell = evaluation_cell("guesser", {"ppo": games([(1, 2)], "guesser"),
                                       "random": games([(0, 2)], "guesser")}, "random")
    assert cell["ppo_minus_random"] == {"difference": 0.5, "ci95": None}
    # The ratio too: one game is every resample, which gave a zero-width "interval" [2, 2].
    ratio, low, high = ratio_interval([1], [2], [1], [4])
    assert ratio == 2.0 and math.isnan(low) and math.isnan(high)
    cell = evaluation_cell("guesser", {"ppo": games([(1, 2)], "guesser"),
                                       "random": games([(1, 4)], "guesser")}, "random")
    assert cell["accuracy_ratio_to_random"] == {"ratio": 2.0, "ci95": None}
