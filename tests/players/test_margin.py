"""The storyteller's margin objective: its lead over the other players, as the rules score it."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.rules import EDITIONS, RuleSet
from models.players import ClipAgent
from models.players.simulation import (
    points_by_finders,
    storyteller_margin_by_finders,
    storyteller_points_by_finders,
)
from models.players.storyteller import ClipStoryteller

SMALL = {"n_simulations": 8, "pair_clues": 2, "calibration": None}


@pytest.mark.parametrize(("edition", "players", "margin"), [
    # refresh-2021, 4 voters. None find: the teller 0, each voter 2 and one vote on its card,
    # 3 a head: -3. One finds: 3 against (3 + 3 votes on decoys) / 4 = 1.5. All find: 0
    # against 2: -2.
    ("refresh-2021", 5, [-3, 1.5, 1, 0.5, -2]),
    # odyssey-2024, 3 voters: a finder with one vote scores 3 + 1, so all finding is -3 too.
    ("odyssey-2024", 4, [-3, 1, 0, -3]),
    # original-2008 at 3 players: two cards a guesser; the lone finder and the teller score 4.
    ("original-2008", 3, [-3, 1.5, -2]),
])
def test_the_margin_follows_the_rulebooks(edition, players, margin):
    rules = RuleSet.edition(edition)
    assert storyteller_margin_by_finders(rules, players).tolist() == pytest.approx(margin)
    own = storyteller_points_by_finders(rules, players, players - 1)
    # Its own points are the same for one finder and for all but one; its lead is not.
    if players > 3:
        assert own[1] == own[-2] and margin[1] > margin[-2]


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_storytellers_own_points_are_those_the_rules_score(edition):
    """The own-points table the simulation uses (written from the rulebook) is the storyteller's
    column of the rounds the rules score, at every player count of the edition."""
    rules = RuleSet.edition(edition)
    for players in range(rules.min_players, rules.max_players + 1):
        scored = points_by_finders(rules, players)
        own = storyteller_points_by_finders(rules, players, len(scored) - 1)
        assert own.tolist() == [points[0] for points in scored], players


@pytest.mark.parametrize("overrides", [{"teams": True}, {"mode": "party"}])
def test_the_margin_is_refused_where_finders_alone_do_not_score(overrides):
    with pytest.raises(ValueError, match="standard game, not the team variant or Dixit Party"):
        storyteller_margin_by_finders(RuleSet.edition("odyssey-2024", **overrides), 6)
    with pytest.raises(ValueError, match="objective must be 'points' or 'margin', not 'lead'"):
        ClipStoryteller(objective="lead")  # type: ignore[arg-type]


def test_a_margin_storyteller_aims_at_its_lead_and_says_so(resources):
    """Its recorded value is the expected lead, never above the best lead a round can give
    (1.0 at odyssey-2024 with 4 players: one finder), where its own points reach 3."""
    best = float(storyteller_margin_by_finders(RuleSet.edition("odyssey-2024"), 4).max())
    agents = [ClipAgent(name=f"c{seat}", deck=resources, mode="expected_points",
                        objective="margin" if seat % 2 == 0 else "points", **SMALL)
              for seat in range(4)]
    record = play_game(agents, edition="odyssey-2024", deck=list(resources.card_ids), seed=3,
                       max_rounds=8)
    assert record.failures == []
    # the record says which objective each seat's storyteller had (its numbers depend on it)
    assert [agent["objective"] for agent in record.header["agents"]] == [
        "margin", "points", "margin", "points"]
    values = {"margin": [], "points": []}
    for game_round in record.rounds:
        info = game_round.notes[str(game_round.storyteller)]["tell"]
        values[info.get("objective", "points")].append(info["expected_points"])
    assert values["margin"] and values["points"]
    assert max(values["margin"]) <= best + 1e-9 < max(values["points"])
    assert min(values["margin"]) >= -3.0


def test_a_margin_storyteller_in_a_team_game_fails_its_story_in_the_record(resources):
    agents = [ClipAgent(name=f"c{seat}", deck=resources, objective="margin" if seat == 0
                        else "points", **SMALL) for seat in range(6)]
    record = play_game(agents, edition="odyssey-2024", deck=list(resources.card_ids), seed=0,
                       max_rounds=6, teams=True, on_failure="forfeit")
    told = [f for f in record.failures if f.seat == 0 and f.phase == "tell"]
    assert told and "not the team variant" in told[0].reason
    assert np.all([f.seat == 0 for f in record.failures])
