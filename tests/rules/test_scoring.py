"""Scoring: the rulebooks' worked examples and hand-computed cases for every edition rule."""

from __future__ import annotations

import re

import numpy as np
import pytest

from dixit_ai.rules import IllegalAction, RuleSet, new_game, score_parts, score_round


def score(edition: str, n: int, storyteller: int, owner: list[int],
          votes: dict[int, list[int]], **overrides: object) -> list[int]:
    return score_round(RuleSet.edition(edition, **overrides), n_players=n,
                       storyteller=storyteller, board_owner=owner, votes=votes)


def test_persian_worked_example() -> None:
    # 003: Dan tells; Chris's card is #1, Dan's #3, Eva's #4. Eva votes 1, Chris and Ruby
    # vote 3, Kevin votes 4. Dan 3, Chris 3+1, Ruby 3, Eva 0+1, Kevin 0.
    dan, chris, ruby, eva, kevin = range(5)
    owner = [chris, ruby, dan, eva, kevin]  # positions 0..4 are the rulebook's #1..#5
    votes = {eva: [0], chris: [2], ruby: [2], kevin: [3]}
    for edition in ("original-2008", "refresh-2021", "odyssey-2011"):
        assert score(edition, 5, dan, owner, votes) == [3, 4, 3, 1, 0]


def test_greek_and_indonesian_worked_example() -> None:
    # 002/004: green tells; yellow's card is #4; yellow finds green's card; blue votes for
    # yellow's card; white votes for blue's card. Green 3, yellow 3+1, blue 0+1, white 0.
    green, yellow, blue, white = range(4)
    owner = [blue, green, white, yellow]
    votes = {yellow: [1], blue: [3], white: [0]}
    assert score("original-2008", 4, green, owner, votes) == [3, 4, 1, 0]
    assert score("refresh-2021", 4, green, owner, votes) == [3, 4, 1, 0]


def test_all_found_and_none_found() -> None:
    owner = [0, 1, 2, 3]
    assert score("refresh-2021", 4, 0, owner, {1: [0], 2: [0], 3: [0]}) == [0, 2, 2, 2]
    # Nobody found it: 2 each, plus +1 per vote drawn (the bonus counts in every case).
    assert score("refresh-2021", 4, 0, owner, {1: [2], 2: [3], 3: [1]}) == [0, 3, 3, 3]
    assert score("refresh-2021", 4, 0, owner, {1: [2], 2: [1], 3: [1]}) == [0, 4, 3, 2]


def test_three_player_solo_finder_scores_four_in_2008_only() -> None:
    # Storyteller 0 (position 0); seat 1 owns positions 1-2, seat 2 owns 3-4.
    owner = [0, 1, 1, 2, 2]
    votes = {1: [0], 2: [1]}  # only seat 1 finds it; seat 2 votes for seat 1's card
    assert score("original-2008", 3, 0, owner, votes) == [4, 5, 0]
    assert score("refresh-2021", 3, 0, owner, votes) == [3, 4, 0]
    assert score("odyssey-2011", 3, 0, owner, votes) == [3, 4, 0]
    # Two finders: the ordinary 3 points, 2008 too.
    assert score("original-2008", 3, 0, owner, {1: [0], 2: [0]}) == [0, 2, 2]
    # The rule is a parameter: off by override.
    assert score("original-2008", 3, 0, owner, votes,
                 three_player_solo_points=None) == [3, 4, 0]


def test_three_player_bonus_on_either_card() -> None:
    owner = [0, 1, 1, 2, 2]
    # Seat 1 votes for seat 2's first card, seat 2 for seat 1's second: none found.
    assert score("refresh-2021", 3, 0, owner, {1: [3], 2: [2]}) == [0, 3, 3]
    assert score("refresh-2021", 3, 0, owner, {1: [4], 2: [1]}) == [0, 3, 3]


def test_odyssey_2011_caps_the_bonus_at_three() -> None:
    owner = list(range(6))
    votes = {1: [2], 2: [1], 3: [1], 4: [1], 5: [1]}  # four votes on seat 1's card
    assert score("odyssey-2011", 6, 0, owner, votes) == [0, 5, 3, 2, 2, 2]
    assert score("odyssey-2024", 6, 0, owner, dict(votes)) == [0, 6, 3, 2, 2, 2]
    assert score("refresh-2021", 6, 0, owner, votes) == [0, 6, 3, 2, 2, 2]
    assert score("odyssey-2011", 6, 0, owner, votes, bonus_cap=None) == [0, 6, 3, 2, 2, 2]


def test_odyssey_2011_second_vote_from_seven_players() -> None:
    owner = list(range(7))
    votes = {1: [0], 2: [0, 1], 3: [1, 2], 4: [2], 5: [3], 6: [0, 3]}
    # Finders 1 (single vote: +1), 2 and 6; bonuses: seats 1, 2, 3 draw two votes each.
    assert score("odyssey-2011", 7, 0, owner, votes) == [3, 6, 5, 2, 0, 0, 3]
    with pytest.raises(IllegalAction, match="allows 1"):
        score("odyssey-2011", 6, 0, owner[:6], {1: [0, 2], 2: [0], 3: [0], 4: [0], 5: [1]})


def test_odyssey_2024_second_vote_at_any_count() -> None:
    owner = [0, 1, 2, 3]
    assert score("odyssey-2024", 4, 0, owner, {1: [0], 2: [0, 3], 3: [1]}) == [3, 5, 3, 1]
    # None found: 2 each plus bonuses.
    assert score("odyssey-2024", 4, 0, owner, {1: [2, 3], 2: [1], 3: [1, 2]}) == [0, 4, 4, 3]


def test_single_vote_point_literal_reading() -> None:
    # Odyssey: "Players who voted for only one image score 1 extra point if they have found the
    # storyteller's image", a bullet of its own: read literally, the all-found case included.
    owner = [0, 1, 2, 3]
    all_found = {1: [0], 2: [0], 3: [0, 1]}
    assert score("odyssey-2024", 4, 0, owner, all_found) == [0, 4, 3, 2]
    # The narrower reading (no extra point when all found) is a parameter.
    assert score("odyssey-2024", 4, 0, owner, all_found,
                 single_vote_bonus_when="some_found") == [0, 3, 2, 2]
    # Some found: both readings give it.
    some = {1: [0], 2: [1], 3: [0, 2]}
    for when in ("found", "some_found"):
        assert score("odyssey-2024", 4, 0, owner, some,
                     single_vote_bonus_when=when) == [3, 5, 1, 3]
    # None found: nobody found it, so nobody gets it.
    assert score("odyssey-2024", 4, 0, owner, {1: [2], 2: [3], 3: [1]}) == [0, 3, 3, 3]


def test_team_variant_scores_each_team_as_one_player() -> None:
    # Partners sit opposite: teams {0, 3}, {1, 4}, {2, 5}. Seat 0 tells, teammate 3 gives;
    # seats 1 and 2 give for their teams, so 4 and 5 vote.
    owner = [0, 3, 1, 2]
    votes = {4: [0], 5: [2]}  # team {1,4} finds it; team {2,5} votes for team {1,4}'s card
    assert score("odyssey-2011", 6, 0, owner, votes, teams=True) == [3, 4, 0, 3, 4, 0]
    assert score("odyssey-2011", 6, 0, owner, {4: [0], 5: [0]}, teams=True) == [
        0, 2, 2, 0, 2, 2]
    with pytest.raises(IllegalAction, match="does not vote"):
        score("odyssey-2011", 6, 0, owner, {1: [0], 4: [0], 5: [0]}, teams=True)
    with pytest.raises(IllegalAction, match="partner's card"):
        score("odyssey-2011", 6, 0, owner, {4: [2], 5: [0]}, teams=True)
    with pytest.raises(IllegalAction, match="one partner gives exactly 1"):
        score("odyssey-2011", 6, 0, [0, 3, 1, 4], {5: [0]}, teams=True)


@pytest.mark.parametrize(
    ("votes", "message"),
    [
        ({0: [1], 1: [0], 2: [0], 3: [0]}, "storyteller"),
        ({1: [1], 2: [0], 3: [0]}, "own card"),
        ({1: [0, 2], 2: [0], 3: [0]}, "allows 1"),
        ({1: [0], 2: [0]}, "no vote from seat"),
        ({1: [0], 2: [0], 3: [9]}, "positions 0-3"),
        ({1: [], 2: [0], 3: [0]}, "cast 0 votes"),
        ({1: [[0]], 2: [0], 3: [0]}, r"^seat 1 voted for \[0\], not a board position$"),
        ({1: [0], 2: [{"p": 0}], 3: [0]}, r"^seat 2 voted for \{'p': 0\}, not a board position$"),
        ({1: [0], 2: [0], 3: 0}, r"^seat 3's vote 0 is not a list of positions$"),
        ({1: [0], 2: "0", 3: [0]}, r"^seat 2's vote '0' is not a list of positions$"),
        ({1: [0], 2: None, 3: [0]}, r"^seat 2's vote None is not a list of positions$"),
        (None, r"^votes must map each voting seat to its positions, not None$"),
        ([[0], [0], [0]], r"^votes must map each voting seat to its positions, not "),
    ],
)
def test_illegal_votes_raise(votes: dict[int, list[int]], message: str) -> None:
    with pytest.raises(IllegalAction, match=message):
        score("refresh-2021", 4, 0, [0, 1, 2, 3], votes)


def test_unhashable_second_vote_is_illegal() -> None:
    with pytest.raises(IllegalAction, match=r"^seat 1 voted for \[2\], not a board position$"):
        score("odyssey-2024", 4, 0, [0, 1, 2, 3], {1: [0, [2]], 2: [0], 3: [0]})


def test_same_card_twice_is_illegal_even_with_two_votes() -> None:
    with pytest.raises(IllegalAction, match="twice"):
        score("odyssey-2024", 4, 0, [0, 1, 2, 3], {1: [0, 0], 2: [0], 3: [0]})


def test_illegal_action_is_a_value_error() -> None:
    assert issubclass(IllegalAction, ValueError)


@pytest.mark.parametrize(
    ("edition", "n", "owner", "votes", "overrides", "message"),
    [
        ("original-2008", 8, list(range(8)), {s: [0] for s in range(1, 8)}, {},
         "original-2008 is for 3-6 players, not 8"),
        ("refresh-2021", 1, [0], {}, {}, "refresh-2021 is for 3-8 players, not 1"),
        # Two teams: the only voting team finds the card or not, the storyteller never scores.
        ("odyssey-2011", 4, [0, 2, 1], {3: [0]}, {"teams": True},
         "the team variant needs at least 6 players"),
        ("odyssey-2011", 3, [0, 1, 2], {0: [1], 1: [1], 2: [2]}, {"mode": "party"},
         "Dixit Party is for 6-12 players, not 3"),
    ],
)
def test_player_counts_the_rules_forbid_are_not_scored(
        edition: str, n: int, owner: list[int], votes: dict[int, list[int]],
        overrides: dict[str, object], message: str) -> None:
    rules = RuleSet.edition(edition, **overrides)
    with pytest.raises(ValueError, match=message) as refused:
        new_game(rules, n, range(200), np.random.default_rng(0))
    red = 0 if rules.is_party else None
    for scorer in (score_round, score_parts):
        # The message new_game gives for the same count.
        with pytest.raises(IllegalAction, match=f"^{re.escape(str(refused.value))}$"):
            scorer(rules, n_players=n, storyteller=0, board_owner=owner, votes=votes,
                   red_token=red)
