"""Itemised scoring: each seat's points as named parts from the rules, summing to the points."""

from __future__ import annotations

import numpy as np

from dixit_ai.rules import POINT_PARTS, Game, RuleSet, Tell, score_parts, score_round
from tests.rules.helpers import random_action


def parts(edition: str, n: int, storyteller: int, owner: list[int],
          votes: dict[int, list[int]], **overrides: object) -> list[dict[str, int]]:
    rules = RuleSet.edition(edition, **overrides)
    named = score_parts(rules, n_players=n, storyteller=storyteller, board_owner=owner,
                        votes=votes)
    points = score_round(rules, n_players=n, storyteller=storyteller, board_owner=owner,
                         votes=votes)
    assert [sum(p.values()) for p in named] == points
    assert all(set(p) <= set(POINT_PARTS) for p in named)
    return named


def test_persian_example_itemised() -> None:
    dan, chris, ruby, eva, kevin = range(5)
    named = parts("original-2008", 5, dan, [chris, ruby, dan, eva, kevin],
                  {eva: [0], chris: [2], ruby: [2], kevin: [3]})
    assert named == [{"storyteller": 3}, {"found": 3, "bonus_votes": 1}, {"found": 3},
                     {"bonus_votes": 1}, {}]


def test_all_or_none_solo_cap_and_single_vote_parts() -> None:
    assert parts("refresh-2021", 4, 0, [0, 1, 2, 3], {1: [2], 2: [1], 3: [1]})[1] == {
        "all_or_none": 2, "bonus_votes": 2}
    solo = parts("original-2008", 3, 0, [0, 1, 1, 2, 2], {1: [0], 2: [1]})
    assert solo[0] == {"storyteller": 3, "solo_3p": 1}
    assert solo[1] == {"found": 3, "solo_3p": 1, "bonus_votes": 1}
    capped = parts("odyssey-2011", 6, 0, list(range(6)), {1: [2], 2: [1], 3: [1], 4: [1],
                                                          5: [1]})
    assert capped[1] == {"all_or_none": 2, "bonus_votes": 4, "cap": -1}
    second = parts("odyssey-2011", 7, 0, list(range(7)),
                   {1: [0], 2: [0, 1], 3: [1, 2], 4: [2], 5: [3], 6: [0, 3]})
    assert second[1] == {"found": 3, "single_vote": 1, "bonus_votes": 2}


def test_the_2008_three_player_point_is_worded_for_each_side() -> None:
    from dixit_ai.rules.explain import explain

    # rules.md: "storyteller and finder get 4 instead of 3": the storyteller scores it because
    # exactly one player found its card, not as a finder.
    solo = parts("original-2008", 3, 0, [0, 1, 1, 2, 2], {1: [0], 2: [1]})
    assert explain(solo[0], storyteller=True) == [
        (3, "some but not all found your card"),
        (1, "only one player found your card (3 players): 4 instead of 3")]
    assert explain(solo[1], voted=True)[:2] == [
        (3, "found the storyteller's card"),
        (1, "the only finder in a 3-player game: 4 instead of 3")]
    # The words follow the parts when the rule is overridden.
    five = parts("original-2008", 3, 0, [0, 1, 1, 2, 2], {1: [0], 2: [1]},
                 three_player_solo_points=5)
    assert explain(five[0], storyteller=True)[1] == (
        2, "only one player found your card (3 players): 5 instead of 3")


def test_forfeit_part_brings_the_round_to_zero() -> None:
    game = Game(RuleSet.edition("refresh-2021"), 4, range(84), seed=0)
    rng = np.random.default_rng(0)
    game.apply(Tell(0, game.state.hands[0][0], "forfeited", forfeit=True))
    result = None
    while result is None:
        result = game.apply(random_action(game.state, rng))
    assert result.points[0] == 0
    named = result.point_parts(0)
    assert sum(named.values()) == 0 and (not named or named["forfeit"] <= 0)
    for seat in range(4):
        assert sum(result.point_parts(seat).values()) == result.points[seat]


def test_explained_points_sum_to_the_rules_points_in_every_mode() -> None:
    """The web's reasons and the terminal's lines are the rules' parts, worded."""
    from dixit_ai.rules.explain import explain_round
    from dixit_ai.web.messages import explain_points
    from tests.rules.helpers import scored_rounds, variant_cells

    cells = [("refresh-2021", 3, {}), ("original-2008", 3, {}), ("odyssey-2011", 7, {}),
             ("odyssey-2024", 4, {}), *variant_cells()[::3]]
    for edition, n, overrides in cells:
        rules = RuleSet.edition(edition, **overrides)
        for result in scored_rounds(Game(rules, n, range(84), seed=n), n):
            reasons = explain_points(rules, n, result)
            for seat in range(n):
                assert sum(p["points"] for p in reasons[seat]) == result.points[seat]
                lines = explain_round(result, seat, party=rules.is_party, teams=rules.teams)
                assert [p for p, _ in lines] == [p["points"] for p in reasons[seat]]
                assert all(reason for _, reason in lines)
