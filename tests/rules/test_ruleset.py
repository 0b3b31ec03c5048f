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
    assert ody.teams_allowed and ody24.teams_allowed and not refresh.teams_allowed
    assert ody.party_allowed and ody24.party_allowed and not old.party_allowed
    assert ody.single_vote_bonus_when == ody24.single_vote_bonus_when == "found"
    assert RuleSet.edition("odyssey-2011", teams=True).hand_size_for(6) == 4


def test_overrides_and_parameters_round_trip() -> None:
    rules = RuleSet.edition("original-2008", score_limit=30, first_storyteller="random")
    assert rules.score_limit == 30 and rules.first_storyteller == "random"
    again = RuleSet.edition("original-2008", **rules.parameters())
    assert again == rules
    assert rules.replace(score_limit=20).score_limit == 20


@pytest.mark.parametrize("edition", ["odyssey-2011", "odyssey-2024"])
@pytest.mark.parametrize("variant", [{"teams": True}, {"mode": "party"}])
def test_turning_a_variant_off_restores_the_editions_end(edition: str,
                                                         variant: dict[str, object]) -> None:
    plain = RuleSet.edition(edition, bonus_cap=2)
    on = plain.replace(**variant)
    assert (on.score_limit, on.rounds_per_player) == (None, 1)
    off = {"teams": False} if "teams" in variant else {"mode": "standard"}
    back = on.replace(**off)
    assert back == plain and (back.score_limit, back.rounds_per_player) == (30, None)
    assert RuleSet.edition(edition, **variant).replace(**off) == RuleSet.edition(edition)
    # Overridden in the same call, the end is what the call says, as when turning it on.
    assert on.replace(**off, rounds_per_player=2).rounds_per_player == 2
    assert on.replace(**off, score_limit=20) == plain.replace(score_limit=20)
    # Changes that keep the variant keep its end, overridden or not.
    longer = on.replace(rounds_per_player=2)
    assert longer.replace(party_points_cap=4).rounds_per_player == 2
    assert on.replace(**variant) == on


def test_switching_from_one_variant_to_the_other_keeps_the_variants_end() -> None:
    teams = RuleSet.edition("odyssey-2011", teams=True)
    party = teams.replace(teams=False, mode="party")
    assert party == RuleSet.edition("odyssey-2011", mode="party")


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
        ("refresh-2021", {"on_deck_exhausted": "panic"}, "'end', 'reshuffle'"),
        ("refresh-2021", {"first_storyteller": "oldest"}, "'seat0', 'random'"),
        ("odyssey-2011", {"single_vote_bonus_when": "always"}, "'found', 'some_found'"),
        ("odyssey-2011", {"mode": "solo"}, "'standard', 'party'"),
        ("refresh-2021", {"score_limit": None}, "never end"),
        # nobody can score: a score limit is never reached (a web table played 6,205 rounds)
        ("refresh-2021", {"score_limit": 1, "storyteller_points": 0, "finder_points": 0,
                          "all_or_none_points": 0, "bonus_cap": 0},
         r"^these rules never end the game: no round can award a point"),
        ("odyssey-2024", {"storyteller_points": 0, "finder_points": 0, "all_or_none_points": 0,
                          "single_vote_bonus": 0, "bonus_cap": 0},
         r"no round can award a point"),
        ("refresh-2021", {"score_limit": 0}, r"score_limit must be None or an int >= 1, not 0"),
        ("refresh-2021", {"score_limit": 1001},
         r"^score_limit must be at most 1,000, not 1001: a game to more points than that never "
         r"ends in practice"),
        ("odyssey-2011", {"rounds_per_player": 101}, r"^rounds_per_player must be at most 100"),
        ("refresh-2021", {"hand_size": 0}, r"hand_size must be an int >= 1, not 0"),
        ("refresh-2021", {"hand_size": 6.0}, r"hand_size must be an int >= 1, not 6.0"),
        ("refresh-2021", {"storyteller_points": -1}, r"storyteller_points must be an int >= 0"),
        ("refresh-2021", {"finder_points": -3}, r"finder_points must be an int >= 0"),
        ("refresh-2021", {"all_or_none_points": -2}, r"all_or_none_points must be an int >= 0"),
        ("odyssey-2011", {"single_vote_bonus": -1}, r"single_vote_bonus must be an int >= 0"),
        ("odyssey-2011", {"bonus_cap": -1}, r"bonus_cap must be None or an int >= 0"),
        ("odyssey-2011", {"team_bonus_cap": -1}, r"team_bonus_cap must be None or an int >= 0"),
        ("original-2008", {"three_player_solo_points": -4}, "three_player_solo_points must"),
        ("odyssey-2011", {"party_points_cap": 0}, r"party_points_cap must be an int >= 1"),
        ("odyssey-2011", {"rounds_per_player": 0}, r"rounds_per_player must be None or an int"),
        ("odyssey-2011", {"hand_size_teams": 0}, r"hand_size_teams must be an int >= 1"),
        ("odyssey-2011", {"hand_size_party": -5}, r"hand_size_party must be an int >= 1"),
        ("odyssey-2011", {"teams": "yes"}, r"teams must be True or False, not 'yes'"),
        ("odyssey-2011", {"teams": 1}, r"teams must be True or False, not 1"),
        ("original-2008", {"end_on_last_card": 0}, "end_on_last_card must be True or False"),
        ("refresh-2021", {"score_limit": True}, r"score_limit must be None or an int >= 1"),
        ("refresh-2021", {"max_players": 13}, "at most 12"),
        ("refresh-2021", {"cards_per_guesser": 7}, "exceeds hand_size"),
        ("odyssey-2011", {"teams": True, "min_team_players": 14},
         r"^min_team_players \(14\) exceeds max_players \(12\): no player count can play "
         r"the team variant$"),
        ("odyssey-2011", {"teams": True, "max_players": 7, "min_team_players": 8},
         r"^min_team_players \(8\) exceeds max_players \(7\)"),
        ("odyssey-2011", {"teams": True, "min_players": 11, "max_players": 11},
         r"^the team variant needs an even number of players from 11 \(min_players 11, "
         r"min_team_players 6\) to max_players \(11\): there is none$"),
        ("odyssey-2011", {"mode": "party", "min_party_players": 13},
         r"^min_party_players \(13\) exceeds max_players \(12\): no player count can play "
         r"Dixit Party$"),
        ("odyssey-2024", {"mode": "party", "max_players": 5},
         r"^min_party_players \(6\) exceeds max_players \(5\)"),
        ("refresh-2021", {"colour": "red"}, "unknown rule parameter"),
        ("dixit-3000", {}, "unknown edition"),
    ],
)
def test_bad_rules_refused(edition: str, overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RuleSet.edition(edition, **overrides)


def test_variant_limits_matter_only_when_the_variant_is_played() -> None:
    # A small table without the variant is fine; the variant's own limits wait for it.
    rules = RuleSet.edition("odyssey-2011", max_players=5, min_party_players=8)
    rules.check_players(5)
    with pytest.raises(ValueError, match="min_party_players"):
        rules.replace(mode="party")
    for n in (6, 8, 10, 12):
        RuleSet.edition("odyssey-2011", teams=True, min_team_players=n).check_players(n)


def test_deck_too_small_names_the_missing_cards() -> None:
    rules = RuleSet.edition("refresh-2021")
    rules.check_deck(8, 48)
    with pytest.raises(ValueError, match=r"48 cards \(8 missing\)"):
        rules.check_deck(8, 40)
    with pytest.raises(ValueError, match=r"\(1 missing\)"):
        rules.check_deck(3, 20)  # 3 hands of 7


def test_every_int_field_is_range_checked() -> None:
    import dataclasses

    from dixit_ai.rules import ruleset

    checked = {name for name, _low, _opt in ruleset._INT_FIELDS} | set(ruleset._BOOL_FIELDS)
    fields = {f.name for f in dataclasses.fields(RuleSet)
              if "int" in str(f.type) or "bool" in str(f.type)}
    assert fields == checked


def test_a_refused_override_changes_nothing() -> None:
    rules = RuleSet.edition("odyssey-2011")
    with pytest.raises(ValueError, match="storyteller_points"):
        rules.replace(storyteller_points=-1)
    assert rules.storyteller_points == 3


def test_rules_that_can_still_score_a_point_are_kept() -> None:
    """Only rules under which no round awards any point are refused as never ending: a bonus
    vote, a single-vote bonus or Dixit Party's images still score."""
    zero = {"storyteller_points": 0, "finder_points": 0, "all_or_none_points": 0}
    assert RuleSet.edition("refresh-2021", **zero).can_score()  # votes on one's own card
    assert RuleSet.edition("odyssey-2024", **zero, bonus_cap=0).can_score()  # single vote
    assert RuleSet.edition("odyssey-2024", **zero, bonus_cap=0, single_vote_bonus=0,
                           mode="party").can_score()
    ended = RuleSet.edition("refresh-2021", **zero, bonus_cap=0, on_deck_exhausted="end")
    assert not ended.can_score()  # kept: the deck running out ends it


def test_shared_rules_changed_in_place_are_caught_at_the_next_game() -> None:
    """``RuleSet`` is frozen, but ``object.__setattr__`` reaches through: code that changes the
    shared rules of an edition (an in-process agent made outside a game, say) made every later
    game of the process score by other rules, unseen. The next ``edition`` call puts them back
    and refuses (a ``ValueError``: the CLI says it without a traceback)."""
    from dixit_ai.rules.ruleset import SharedRulesChanged

    rules = RuleSet.edition("refresh-2021")
    before = rules.storyteller_points
    object.__setattr__(rules, "storyteller_points", 30)
    try:
        with pytest.raises(SharedRulesChanged, match=r"the shared rules of refresh-2021 were "
                                                     rf"changed in place .*storyteller_points "
                                                     rf"{before} -> 30\); they are put back"):
            RuleSet.edition("refresh-2021")
    finally:
        assert rules.storyteller_points == before  # put back by the refusal
        object.__setattr__(rules, "storyteller_points", before)
    assert issubclass(SharedRulesChanged, ValueError)
    assert RuleSet.edition("refresh-2021") is rules
