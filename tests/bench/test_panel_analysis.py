"""The panel figures of the tell task are computed from the records alone."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dixit_ai.reporting import mean_interval
from dixit_ai.rules import RuleSet, score_round
from models.bench.panel import EDITION
from models.bench.panel_analysis import (
    ece_over_turns,
    equal_chance_ceiling,
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


def test_intervals_over_told_cards_count_a_repeated_story_once():
    """Six items, but the storyteller told only two cards (each with one clue, three times):
    the figures say so, and the interval over told cards is wider than the one over items."""
    header = {"panel": {"members": [{"name": "a"}, {"name": "b"}]}}
    rows = []
    for item, (card, found_a) in enumerate([(7, 2), (7, 2), (7, 2), (9, 0), (9, 0), (9, 0)]):
        row = _record("teller", item, 0.5, {"a": found_a, "b": 1}, 3.0 if found_a else 0.0)
        rows.append({**row, "card": card, "clue": f"clue {card}"})
    results = panel_results(header, rows, lambda v, clusters=None: mean_interval(
        v, seed=0, n_resamples=400, clusters=clusters))
    teller = results["models"]["teller"]
    assert teller["stories"] == {"cards": 2, "card_clues": 1 + 1}
    assert teller["told_cards"] == [7, 7, 7, 9, 9, 9]
    items, cards = teller["members"]["a"]["observed"], teller["members"]["a"]["observed_by_card"]
    assert items.estimate == cards.estimate == pytest.approx(0.5)
    assert cards.high - cards.low > items.high - items.low
    diff = paired_difference(teller["points_values"], [0.0] * 6, seed=0, resamples=400,
                             clusters=teller["told_cards"])
    assert diff.estimate == pytest.approx(1.5) and diff.low == pytest.approx(0.0)


def test_panel_results_per_member_pooled_and_ece(tmp_path):
    header = {"panel": {"members": [{"name": "a"}, {"name": "b"}]}}
    rows = [_record("teller", 0, 0.5, {"a": 2, "b": 0}, 3.0),
            _record("teller", 1, 0.5, {"a": 1, "b": 1}, 3.0),
            _record("caption", 0, None, {"a": 2, "b": 2}, 0.0),
            _record("caption", 1, None, {"a": 2, "b": 2}, 0.0)]
    results = panel_results(header, rows, lambda v, clusters=None: mean_interval(
        v, seed=0, n_resamples=50, clusters=clusters))
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


def test_ece_over_turns_gives_intervals_over_cards_and_a_calibrated_floor():
    """Per member: the ECE over every turn of the storytellers named, its interval over the
    cards told, and what a calibrated storyteller would show on the same votes."""
    header_names = ["a", "b"]
    rows = []
    for item in range(12):
        card = item % 3
        # Predicted 0.5 every time; member a finds every card, b finds half its votes.
        row = _record("teller@0.5", item, 0.5, {"a": 2, "b": 1}, 3.0)
        rows.append({**row, "card": card})
    rows.append(_record("other", 0, 0.9, {"a": 0, "b": 0}, 0.0))   # not a storyteller named
    over = ece_over_turns(rows, header_names, ["teller@0.5"], seed=0, resamples=200)
    assert over["a"]["ece"] == pytest.approx(0.5) and over["b"]["ece"] == pytest.approx(0.0)
    assert over["pooled"]["ece"] == pytest.approx(0.25)
    assert (over["a"]["turns"], over["a"]["cards"]) == (12, 3)
    assert over["a"]["by_card"].low == over["a"]["by_card"].high == pytest.approx(0.5)
    # Two votes per turn at 0.5: a calibrated teller's 12 turns are some way off.
    independent = over["a"]["calibrated_independent"]
    assert 0.0 < independent.estimate < 0.3
    assert over["pooled"]["calibrated_independent"].estimate < independent.estimate
    # a finds every story every time: its residuals (+0.5 each) go together fully, and a
    # calibrated teller whose member found three stories all or nothing is far noisier.
    assert over["a"]["story_correlation"] == pytest.approx(1.0)
    assert over["a"]["calibrated"].estimate > independent.estimate
    assert over["a"]["stories"] == 3
    assert over["a"]["correlation_used"] == 1.0
    nobody = ece_over_turns(rows, header_names, ["absent"], seed=0, resamples=50)
    assert nobody == {"a": None, "b": None, "pooled": None}
    # Predicted 0.2 and found every time: the moment estimate (0.8 ** 2 / 0.2 / 0.8 = 4) is no
    # correlation; the calibrated teller is drawn at 1, and the figures say both.
    off = [{**_record("teller@0.5", i, 0.2, {"a": 2, "b": 2}, 0.0), "card": i % 3}
           for i in range(12)]
    under = ece_over_turns(off, header_names, ["teller@0.5"], seed=0, resamples=200)
    assert under["a"]["story_correlation"] == pytest.approx(4.0)
    assert under["a"]["correlation_used"] == 1.0


def _success_by_the_rules(p: float, random_chance: float, random_seat: bool) -> float:
    """A storyteller's chance of scoring at the bench's five-seat table (four voters; the last
    one random where ``random_seat``), summed over which voters find its card, each pattern
    scored by the rules."""
    rules = RuleSet.edition(EDITION)
    owner = [0, 1, 2, 3, 4]                       # board position k is seat k's card
    total = 0.0
    for found in itertools.product((False, True), repeat=4):
        chance = 1.0
        for seat, hit in enumerate(found, start=1):
            q = random_chance if random_seat and seat == 4 else p
            chance *= q if hit else 1.0 - q
        # A voter who misses votes the next seat's card (never its own).
        votes = {seat: [0 if hit else seat % 4 + 1] for seat, hit in enumerate(found, start=1)}
        gained = score_round(rules, n_players=5, storyteller=0, board_owner=owner, votes=votes)
        total += chance * (gained[0] > 0)
    return total


def test_equal_chance_ceiling_is_the_rules_best_for_guessers_alike():
    success, p = equal_chance_ceiling(4)
    assert (success, p) == (pytest.approx(0.875), pytest.approx(0.5))
    success, p = equal_chance_ceiling(3, 1, 0.25)
    best = math.sqrt(3) / (1 + math.sqrt(3))      # d/dp of 1 - p^3/4 - 3(1-p)^3/4 is 0
    assert p == pytest.approx(best, abs=1e-4)
    assert success == pytest.approx(1 - best**3 / 4 - 3 * (1 - best) ** 3 / 4, abs=1e-8)
    assert success == pytest.approx(0.8995, abs=1e-4)
    # It is the rules' own success, maximised: no chance p does better at either table.
    for q in np.linspace(0.0, 1.0, 41):
        assert _success_by_the_rules(q, 0.25, random_seat=False) <= equal_chance_ceiling(4)[0]
        assert _success_by_the_rules(q, 0.25, random_seat=True) <= success + 1e-12
    assert _success_by_the_rules(p, 0.25, random_seat=True) == pytest.approx(success)


@pytest.mark.parametrize(("args", "message"), [
    ((0, 0), "need at least one guesser"), ((-1, 2), "no negative counts"),
    ((3, 1, 1.5), r"random_chance must be in \[0, 1\], not 1.5")])
def test_equal_chance_ceiling_refuses_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        equal_chance_ceiling(*args)
