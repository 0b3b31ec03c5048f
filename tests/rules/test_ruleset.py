"""Editions as data: parameters, overrides and the combinations the rules refuse."""

from __future__ import annotations

import pytest

from dixit_ai.rules import EDITIONS, RuleSet


def test_every_edition_builds() -> None:
    for name in EDITIONS:
        rules = RuleSet.edition(name)
        assert rules.name == name
        assert rules.hand_size_for(3) == 7 and rules.hand_size_for(5) == 6
        assert rules.cards_per_guesser_for(3) == 2 and rules.cards_per_guesser_for(4) == 1
        assert rules.board_size(3) == 5 and rules.board_size(6) == 6


def test_edition_table() -> None:
    old, refresh, ody, ody24 = (RuleSet.edition(n) for n in EDITIONS)
    assert (old.min_players, old.max_players) == (3, 6)
    assert (refresh.min_players, refresh.max_players) == (3, 8)
    assert (ody.max_players, ody24.max_players) == (12, 12)
    assert old.score_limit is None and old.end_on_last_card and old.on_deck_exhausted == "end"
    assert refresh.score_limit == 30 and refresh.on_deck_exhausted == "reshuffle"
    assert ody.score_limit == ody24.score_limit == 30
    assert [r.votes_per_guesser(6) for r in (old, refresh, ody, ody24)] == [1, 1, 1, 2]
    assert [r.votes_per_guesser(7) for r in (refresh, ody, ody24)] == [1, 2, 2]
    assert ody24.votes_per_guesser(3) == 2
    assert ody.bonus_cap == 3 and ody24.bonus_cap is None and refresh.bonus_cap is None
    assert old.three_player_solo_points == 4 and refresh.three_player_solo_points is None
    assert ody.teams_allowed and not ody24.teams_allowed
    assert RuleSet.edition("odyssey-2011", teams=True).hand_size_for(6) == 4


def test_overrides_and_parameters_round_trip() -> None:
    rules = RuleSet.edition("original-2008", score_limit=30, first_storyteller="random")
    assert rules.score_limit == 30 and rules.first_storyteller == "random"
    again = RuleSet.edition("original-2008", **rules.parameters())
    assert again == rules
    assert rules.replace(score_limit=20).score_limit == 20


@pytest.mark.parametrize(
    ("edition", "n_players", "overrides", "message"),
    [
        ("original-2008", 7, {}, "3-6 players, not 7"),
        ("refresh-2021", 9, {}, "3-8 players, not 9"),
        ("odyssey-2011", 13, {}, "3-12 players, not 13"),
        ("refresh-2021", 2, {}, "not 2"),
        ("odyssey-2011", 7, {"teams": True}, "even number of players"),
        ("odyssey-2011", 4, {"teams": True}, "at least 6 players"),
    ],
)
def test_player_counts_refused(edition: str, n_players: int, overrides: dict[str, object],
                               message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RuleSet.edition(edition, **overrides).check_players(n_players)


@pytest.mark.parametrize(
    ("edition", "overrides", "message"),
    [
        ("refresh-2021", {"teams": True}, "only in odyssey-2011"),
        ("original-2008", {"teams": True}, "only in odyssey-2011"),
        ("refresh-2021", {"on_deck_exhausted": "panic"}, "'end' or 'reshuffle'"),
        ("refresh-2021", {"first_storyteller": "oldest"}, "'seat0' or 'random'"),
        ("refresh-2021", {"score_limit": None}, "never end"),
        ("refresh-2021", {"score_limit": 0}, "at least 1"),
        ("refresh-2021", {"hand_size": 0}, "at least 1"),
        ("refresh-2021", {"cards_per_guesser": 7}, "exceeds hand_size"),
        ("refresh-2021", {"colour": "red"}, "unknown rule parameter"),
        ("dixit-3000", {}, "unknown edition"),
    ],
)
def test_bad_rules_refused(edition: str, overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RuleSet.edition(edition, **overrides)


def test_deck_too_small_names_the_missing_cards() -> None:
    rules = RuleSet.edition("refresh-2021")
    rules.check_deck(8, 48)
    with pytest.raises(ValueError, match=r"48 cards \(8 missing\)"):
        rules.check_deck(8, 40)
    with pytest.raises(ValueError, match=r"\(1 missing\)"):
        rules.check_deck(3, 20)  # 3 hands of 7
