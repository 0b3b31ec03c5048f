"""Team Dixit and Dixit Party, rule by rule, as the Odyssey rulebook states them.

Each test quotes the rule it checks (Dixit Odyssey rulebook, English text; a public transcription
is borisyankov/rulespal ``data/rulebooks/dixit_odyssey_rulebook.md``).
"""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.rules import (
    Announce,
    Game,
    IllegalAction,
    Phase,
    Play,
    RedToken,
    RuleSet,
    Tell,
    Vote,
    observe,
    score_parts,
    score_round,
)
from dixit_ai.rules.teams import partner_seat, seat_units, team_pairs
from tests.rules.helpers import play_out, random_action

TEAMS = RuleSet.edition("odyssey-2011", teams=True)
PARTY = RuleSet.edition("odyssey-2011", mode="party")


# ---------------------------------------------------------------------- Team Dixit


def test_team_hands_of_four() -> None:
    # "The 84 image cards are shuffled and 4 are dealt to each player."
    game = Game(TEAMS, 8, range(84), seed=0)
    assert all(len(hand) == 4 for hand in game.state.hands)


def test_team_storytellers_teammate_hands_an_image() -> None:
    # "After having listened to what the storyteller said, his or her teammate hands the
    # storyteller an image": the teammate must give, it cannot pass.
    game = Game(TEAMS, 6, range(84), seed=1)
    state = game.state
    game.apply(Tell(0, state.hands[0][0], "a clue"))
    assert 3 in game.state.pending  # seat 3 faces seat 0
    assert not observe(game.state, 3).can_pass
    with pytest.raises(IllegalAction, match="exactly 1 card"):
        game.apply(Play(3, ()))


def test_team_partners_agree_which_of_them_gives() -> None:
    # "The 2 players of each team then agree as to which of them will hand an image": the
    # team's designated seat gives, or passes the giving to its partner.
    game = Game(TEAMS, 8, range(84), seed=2)
    game.apply(Tell(0, game.state.hands[0][0], "a clue"))
    # Teams {0,4} {1,5} {2,6} {3,7}; seat 0 tells: asked are seats 1, 2, 3 and teammate 4.
    assert game.state.pending == (1, 2, 3, 4)
    assert observe(game.state, 1).can_pass and not observe(game.state, 5).can_pass
    game.apply(Play(1, ()))  # seat 1 passes: its partner, seat 5, gives instead
    assert 5 in game.state.pending and 1 not in game.state.pending
    with pytest.raises(IllegalAction):
        game.apply(Play(6, (game.state.hands[6][0],)))  # seat 2 did not pass
    for seat in (2, 3, 4, 5):
        game.apply(Play(seat, (game.state.hands[seat][0],)))
    state = game.state
    # One card per guessing team, plus the storyteller's and the teammate's.
    assert sorted(state.board_owner) == [0, 2, 3, 4, 5]
    # "Neither a player who has given the storyteller an image nor the storyteller can take
    # part in the vote": the partner who did not give votes.
    assert state.phase is Phase.VOTE and set(state.voters) == {1, 6, 7}
    for seat in (0, 2, 4, 5):
        with pytest.raises(IllegalAction, match="does not vote"):
            game.apply(Vote(seat, (0,)))


def refused(game: Game, action: object, message: str) -> None:
    """``action`` raises an :class:`IllegalAction` matching ``message`` and changes nothing."""
    state, rng = game.state, game.rng.bit_generator.state
    with pytest.raises(IllegalAction, match=message):
        game.apply(action)  # type: ignore[arg-type]
    assert game.state is state and game.rng.bit_generator.state == rng


def test_team_refusals_name_the_real_reason() -> None:
    game = Game(TEAMS, 8, range(84), seed=2)
    game.apply(Tell(0, game.state.hands[0][0], "a clue"))
    # Teams {0,4} {1,5} {2,6} {3,7}; seat 0 tells; seats 1, 2 and 3 decide for their teams.
    hand = game.state.hands
    refused(game, Play(5, (hand[5][0],)),
            r"^seat 5 gives a card only if its partner, seat 1, passes the giving to it: "
            r"seat 1 decides for their team$")
    game.apply(Play(1, ()))  # seat 1 passes: seat 5 gives
    refused(game, Play(1, (hand[1][0],)),
            r"^seat 1 has already acted in the play phase: it passed the giving to its "
            r"partner, seat 5$")
    game.apply(Play(2, (hand[2][0],)))
    refused(game, Play(6, (hand[6][0],)),
            r"^seat 6 does not give a card this round: its partner, seat 2, gave their "
            r"team's card$")
    refused(game, Play(2, (hand[2][1],)), r"^seat 2 has already acted in the play phase$")
    refused(game, Play(0, (hand[0][1],)), r"^seat 0 is the storyteller and has already told$")
    for seat in (3, 4, 5):
        game.apply(Play(seat, (game.state.hands[seat][0],)))
    assert set(game.state.voters) == {1, 6, 7}
    # "Neither a player who has given the storyteller an image nor the storyteller can take
    # part in the vote": the teammate gave the storyteller a card (its partner does not vote).
    refused(game, Vote(4, (0,)),
            r"^seat 4 does not vote this round: it is the storyteller's teammate, who gives "
            r"the storyteller a card and does not vote$")
    refused(game, Vote(2, (0,)),
            r"^seat 2 does not vote this round: it gave its team's card; its partner, seat 6, "
            r"votes for the team$")
    refused(game, Vote(0, (0,)), r"^seat 0 is the storyteller, who does not vote$")
    refused(game, Vote(np.int64(2), (0,)), r"^seat 2 does not vote this round: it gave")
    owner = game.state.board_owner
    with pytest.raises(IllegalAction, match=r"^seat 4 does not vote this round: it is the "
                                            r"storyteller's teammate"):
        score_round(TEAMS, n_players=8, storyteller=0, board_owner=owner,
                    votes={1: [0], 4: [0], 6: [0], 7: [0]})


def test_team_vote_and_scoring_follow_the_basic_rules() -> None:
    # "The vote and the scoring follow the basic rules (do not use the voting and scoring
    # rules for 7 or more players)": one vote, no single-vote point, at every size.
    assert all(TEAMS.votes_per_guesser(n) == 1 for n in (6, 8, 10, 12))
    # 8 players, seat 0 tells, teammate 4 gives; seats 1, 2, 3 give; 5, 6, 7 vote.
    owner = [0, 4, 1, 2, 3]
    with pytest.raises(IllegalAction, match="allows 1"):
        score_round(TEAMS, n_players=8, storyteller=0, board_owner=owner,
                    votes={5: [0, 3], 6: [0], 7: [1]})
    # 5 finds it with its single vote: 3, no extra point; 6 votes for the teammate's card
    # (the storyteller's team +1), 7 for team {2,6}'s card (+1).
    points = score_round(TEAMS, n_players=8, storyteller=0, board_owner=owner,
                         votes={5: [0], 6: [1], 7: [3]})
    assert points == [4, 3, 1, 0, 4, 3, 1, 0]
    parts = score_parts(TEAMS, n_players=8, storyteller=0, board_owner=owner,
                        votes={5: [0], 6: [1], 7: [3]})
    assert parts[5] == {"found": 3} and "single_vote" not in parts[1]
    # Votes on the teammate's card score the storyteller's team its bonus ("each player
    # other than the storyteller scores 1 bonus point for each vote earned by their image").
    assert score_round(TEAMS, n_players=8, storyteller=0, board_owner=owner,
                       votes={5: [1], 6: [1], 7: [1]}) == [3, 2, 2, 2, 3, 2, 2, 2]


@pytest.mark.parametrize("edition", ["odyssey-2011", "odyssey-2024"])
def test_team_bonus_capped_at_three(edition: str) -> None:
    # Basic rules: "1 bonus point for each vote earned by their image (to a maximum of 3)".
    rules = RuleSet.edition(edition, teams=True)
    owner = [0, 6, 1, 2, 3, 4, 5]  # 12 players; teams s % 6; seats 7-11 vote
    votes = {7: [0], 8: [2], 9: [2], 10: [2], 11: [2]}  # four votes on team 1's card
    points = score_round(rules, n_players=12, storyteller=0, board_owner=owner, votes=votes)
    assert points[1] == points[7] == 3 + 3 and points[0] == 3
    parts = score_parts(rules, n_players=12, storyteller=0, board_owner=owner, votes=votes)
    assert parts[1] == {"found": 3, "bonus_votes": 4, "cap": -1}


def test_team_game_ends_when_each_player_has_told_once() -> None:
    # "The game ends when each player has been storyteller once." (A 6-player game with seed
    # 3 used to run 14 rounds, to 30 points.)
    for n in (6, 8, 10, 12):
        game = Game(TEAMS, n, range(84), seed=3)
        play_out(game, 3)
        assert len(game.state.results) == n
        assert [r.storyteller for r in game.state.results] == list(range(n))
    # "For longer games, you can increase the number of times a player must be storyteller."
    game = Game(TEAMS.replace(rounds_per_player=2), 6, range(84), seed=3)
    play_out(game, 3)
    assert len(game.state.results) == 12


def test_team_variant_on_both_odyssey_editions_only() -> None:
    assert RuleSet.edition("odyssey-2011", teams=True).score_limit is None
    assert RuleSet.edition("odyssey-2024", teams=True).rounds_per_player == 1
    assert RuleSet.edition("odyssey-2011").replace(teams=True).rounds_per_player == 1
    with pytest.raises(ValueError, match="only in odyssey-2011 and odyssey-2024"):
        RuleSet.edition("refresh-2021", teams=True)


# ---------------------------------------------------------------------- Dixit Party


def test_party_hands_of_five_and_six_to_twelve_players() -> None:
    # "Dixit Party - for 6 to 12 players"; "5 are dealt to each player".
    assert all(len(h) == 5 for h in Game(PARTY, 6, range(84), seed=0).state.hands)
    with pytest.raises(ValueError, match="6-12 players, not 5"):
        PARTY.check_players(5)


def test_party_storyteller_speaks_before_looking() -> None:
    # "Before even looking at the image cards in his or her hand, the storyteller says
    # something out loud ... what the storyteller says has no meaning in regards to one of
    # his or her image cards."
    game = Game(PARTY, 6, range(84), seed=4)
    view = observe(game.state, 0)
    assert view.is_storyteller and view.hand == ()
    with pytest.raises(IllegalAction, match="Announce"):
        game.apply(Tell(0, game.state.hands[0][0], "a clue"))
    game.apply(Announce(0, "a clue"))
    # "Each player, including the storyteller, chooses an image from their hand."
    assert set(game.state.pending) == set(range(6))
    assert observe(game.state, 0).hand == game.state.hands[0]


def test_party_everyone_votes_own_card_allowed_and_red_token() -> None:
    # "Each player (including the storyteller) will have to vote secretly ... Players are
    # allowed to vote for their own image cards." "The storyteller will also secretly vote ...
    # with his or her red vote token."
    game = Game(PARTY, 6, range(84), seed=5)
    game.apply(Announce(0, "a clue"))
    while game.state.phase is Phase.PLAY:
        seat = game.state.pending[0]
        game.apply(Play(seat, (game.state.hands[seat][0],)))
    state = game.state
    assert len(state.board) == 6 and set(state.voters) == set(range(6))
    for seat in range(6):
        own = state.board_owner.index(seat)
        game.apply(Vote(seat, (own,)))
    assert game.state.phase is Phase.RED and game.state.pending == (0,)
    assert observe(game.state, 0).legal_red_positions() == tuple(range(6))
    refused(game, RedToken(1, 0),
            r"^seat 1: only the storyteller \(seat 0\) places the red token$")
    result = game.apply(RedToken(0, 2))
    assert result is not None and result.red_token == 2
    # Everyone voted alone: "A player who is the only one to vote for an image will score no
    # points."
    assert result.points == (0,) * 6


def test_party_refusals_name_the_real_reason() -> None:
    game = Game(PARTY, 6, range(84), seed=5)
    refused(game, RedToken(0, 0), r"^seat 0 tried to place the red token in the tell phase "
                                  r"of round 0$")
    game.apply(Announce(0, "a clue"))
    game.apply(Play(0, (game.state.hands[0][0],)))  # the storyteller plays too
    refused(game, Play(0, (game.state.hands[0][0],)),
            r"^seat 0 has already acted in the play phase$")


def test_party_scoring() -> None:
    # "Each player scores as many points as the number of players (themselves included) who
    # have voted for the same image as he or she did, with a limit of 5 points maximum."
    # "Players who have voted for the image that the storyteller has selected with his or her
    # red token will score no points." "A player who is the only one to vote for an image will
    # score no points."
    owner = list(range(8))

    def party(votes: dict[int, list[int]], red: int) -> list[int]:
        return score_round(PARTY, n_players=8, storyteller=0, board_owner=owner, votes=votes,
                           red_token=red)

    six = {seat: [0] for seat in range(6)} | {6: [1], 7: [2]}
    assert party(six, red=3) == [5, 5, 5, 5, 5, 5, 0, 0]
    assert party(six, red=0) == [0] * 8
    groups = {0: [0], 1: [0], 2: [0], 3: [1], 4: [1], 5: [2], 6: [2], 7: [2]}
    assert party(groups, red=1) == [3, 3, 3, 0, 0, 3, 3, 3]
    assert party(groups, red=4) == [3, 3, 3, 2, 2, 3, 3, 3]
    parts = score_parts(PARTY, n_players=8, storyteller=0, board_owner=owner, votes=six,
                        red_token=0)
    assert parts[1] == {"same_image": 6, "cap": -1, "red_token": -5}
    assert parts[6] == {"same_image": 1, "lone_vote": -1}
    with pytest.raises(IllegalAction, match="red token"):
        score_round(PARTY, n_players=8, storyteller=0, board_owner=owner, votes=six)


def test_party_hands_pass_to_the_left_after_refilling() -> None:
    # "Each player refills their hand back up to 5 image cards, then passes their hand
    # face-down to their left neighbor."
    game = Game(PARTY, 7, range(84), seed=6)
    rng = np.random.default_rng(6)
    while game.state.phase is not Phase.RED:
        game.apply(random_action(game.state, rng))
    kept = [set(hand) for hand in game.state.hands]  # after playing, before the refill
    game.apply(random_action(game.state, rng))
    for seat in range(7):
        left = (seat + 1) % 7
        assert kept[seat] <= set(game.state.hands[left])
        assert len(game.state.hands[left]) == 5


def test_party_game_ends_when_each_player_has_told_once() -> None:
    # "The game ends when each player has been storyteller 1 time."
    for n in range(6, 13):
        game = Game(PARTY, n, range(84), seed=n)
        play_out(game, n)
        assert [r.storyteller for r in game.state.results] == list(range(n))
    game = Game(PARTY.replace(rounds_per_player=2), 6, range(84), seed=1)
    play_out(game, 1)
    assert len(game.state.results) == 12


def test_party_refuses_the_base_moves_and_combinations() -> None:
    with pytest.raises(ValueError, match="cannot be combined"):
        RuleSet.edition("odyssey-2011", mode="party", teams=True)
    with pytest.raises(ValueError, match="only in odyssey-2011 and odyssey-2024"):
        RuleSet.edition("refresh-2021", mode="party")
    with pytest.raises(IllegalAction, match="Tell"):
        Game(RuleSet.edition("odyssey-2011"), 6, range(84), seed=0).apply(Announce(0, "x"))


@pytest.mark.parametrize("n_players", [4, 6, 8, 10, 12])
def test_partners_sit_opposite_in_one_place(n_players: int) -> None:
    """Every reader of teams (rules, records, schedule, web) asks ``rules.teams``: partners are
    seats ``s`` and ``s + n/2``, each team's pair once, the relation symmetric."""
    rules = TEAMS
    pairs = team_pairs(n_players)
    assert sorted(seat for pair in pairs for seat in pair) == list(range(n_players))
    for team, (a, b) in enumerate(pairs):
        assert b - a == n_players // 2
        assert partner_seat(a, n_players) == b and partner_seat(b, n_players) == a
        assert rules.partner_of(a, n_players) == b
        assert rules.team_of(a, n_players) == rules.team_of(b, n_players) == team
    assert seat_units(n_players, True) == [rules.team_of(s, n_players) for s in range(n_players)]
    assert seat_units(n_players, False) == list(range(n_players))


@pytest.mark.parametrize("n_players", [0, 3, 7])
def test_partners_of_an_odd_table_are_refused(n_players: int) -> None:
    with pytest.raises(ValueError, match=f"even number of players .*not {n_players}"):
        team_pairs(n_players)
    with pytest.raises(ValueError, match="even number"):
        partner_seat(0, n_players)
