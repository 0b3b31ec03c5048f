"""The state machine: phases, turn order, end conditions, and illegal input."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from dixit_ai.rules import (
    Game,
    GameState,
    IllegalAction,
    Phase,
    Play,
    RedToken,
    RuleSet,
    Tell,
    Vote,
    apply_action,
    check_vote,
    new_game,
    observe,
    score_round,
)
from tests.rules.helpers import play_out, random_action


def start(edition: str = "refresh-2021", n: int = 4, deck: int = 84, seed: int = 0,
          **overrides: object) -> tuple[GameState, np.random.Generator]:
    rng = np.random.default_rng(seed)
    return new_game(RuleSet.edition(edition, **overrides), n, range(deck), rng), rng


def to_vote_phase(state: GameState, rng: np.random.Generator) -> GameState:
    while state.phase is not Phase.VOTE:
        state = apply_action(state, random_action(state, rng), rng)
    return state


def test_deal_and_first_round_flow() -> None:
    state, rng = start(n=4)
    assert [len(h) for h in state.hands] == [6, 6, 6, 6]
    assert len(state.draw_pile) == 84 - 24
    assert state.phase is Phase.TELL and state.pending == (0,)
    card = state.hands[0][2]
    state = apply_action(state, Tell(0, card, "moonlight", "word"), rng)
    assert state.phase is Phase.PLAY and state.pending == (1, 2, 3)
    assert card not in state.hands[0] and state.clue == "moonlight"
    # Guessers may give their cards in any order; to_act proposes clockwise order.
    state = apply_action(state, Play(2, (state.hands[2][0],)), rng)
    assert state.pending == (1, 3) and state.to_act == 1
    state = apply_action(state, Play(1, (state.hands[1][0],)), rng)
    state = apply_action(state, Play(3, (state.hands[3][0],)), rng)
    assert state.phase is Phase.VOTE and len(state.board) == 4
    assert sorted(state.board_owner) == [0, 1, 2, 3]
    assert state.board[state.board_owner.index(0)] == card
    for seat in (3, 1, 2):
        legal = observe(state, seat).legal_vote_positions()
        state = apply_action(state, Vote(seat, (legal[0],)), rng)
    assert state.phase is Phase.TELL and state.storyteller == 1 and state.round == 1
    assert [len(h) for h in state.hands] == [6, 6, 6, 6]
    assert len(state.discard) == 4 and len(state.results) == 1


def test_three_players_play_two_cards_and_board_has_five() -> None:
    state, rng = start(n=3)
    assert [len(h) for h in state.hands] == [7, 7, 7]
    state = to_vote_phase(state, rng)
    assert len(state.board) == 5
    assert sorted(state.board_owner) == [0, 1, 1, 2, 2]


def test_storyteller_rotates_to_the_left() -> None:
    game = Game(RuleSet.edition("refresh-2021"), 5, range(84), seed=3)
    play_out(game, 1)
    assert [r.storyteller for r in game.state.results] == [
        i % 5 for i in range(len(game.state.results))]


def test_random_first_storyteller_comes_from_the_seed() -> None:
    rules = RuleSet.edition("refresh-2021", first_storyteller="random")
    firsts = {new_game(rules, 6, range(84), np.random.default_rng(s)).storyteller
              for s in range(40)}
    assert len(firsts) > 1
    assert all(new_game(rules, 6, range(84), np.random.default_rng(7)).storyteller
               == new_game(rules, 6, range(84), np.random.default_rng(7)).storyteller
               for _ in range(3))


def test_score_limit_ends_the_game_at_the_end_of_the_round() -> None:
    game = Game(RuleSet.edition("refresh-2021", score_limit=10), 4, range(84), seed=0)
    play_out(game, 0)
    scores = [r.scores for r in game.state.results]
    assert max(scores[-1]) >= 10
    assert all(max(s) < 10 for s in scores[:-1])


def test_2008_ends_when_the_last_card_is_drawn() -> None:
    # 4 players, 34 cards: 24 dealt, 10 left; each round draws 4 cards.
    game = Game(RuleSet.edition("original-2008"), 4, range(34), seed=0)
    play_out(game, 0)
    # Rounds 1 and 2 draw 8 cards; round 3 finds only 2 for 4 seats: the game ends after it.
    assert len(game.state.results) == 3
    assert not game.state.draw_pile


def test_2008_ends_exactly_when_the_pile_empties() -> None:
    game = Game(RuleSet.edition("original-2008"), 4, range(32), seed=0)
    play_out(game, 0)
    assert len(game.state.results) == 2  # 8 cards in the pile: two refills of 4
    assert all(len(hand) == 6 for hand in game.state.hands)


def test_2008_with_a_track_end() -> None:
    game = Game(RuleSet.edition("original-2008", score_limit=12), 4, range(84), seed=0)
    play_out(game, 0)
    assert max(game.state.scores) >= 12 and game.state.draw_pile


def test_refresh_reshuffles_the_discard_pile() -> None:
    game = Game(RuleSet.edition("refresh-2021"), 4, range(26), seed=0)
    play_out(game, 0)
    assert any(r.reshuffled for r in game.state.results)
    assert max(game.state.scores) >= 30


def test_deck_end_override_ends_refresh_games() -> None:
    game = Game(RuleSet.edition("refresh-2021", on_deck_exhausted="end", score_limit=None),
                4, range(30), seed=0)
    play_out(game, 0)
    assert len(game.state.results) == 2  # 6 in the pile: one refill, then short


def test_team_variant_game() -> None:
    game = Game(RuleSet.edition("odyssey-2011", teams=True), 8, range(84), seed=2)
    rng = np.random.default_rng(2)
    assert all(len(hand) == 4 for hand in game.state.hands)
    while not game.state.is_over:
        if game.state.phase is Phase.VOTE:
            assert len(game.state.voters) == 3  # four teams, the storyteller's does not vote
        game.apply(random_action(game.state, rng))
    scores = game.state.scores
    assert all(scores[s] == scores[s + 4] for s in range(4))
    assert set(game.state.winners) == {s for s in range(8) if scores[s] == max(scores)}


def test_winners_share_ties() -> None:
    state, _ = start()
    tied = dataclasses.replace(state, scores=(30, 12, 30, 4))
    assert tied.winners == (0, 2)


def test_game_copy_is_independent() -> None:
    game = Game(RuleSet.edition("refresh-2021"), 4, range(84), seed=5)
    rng = np.random.default_rng(5)
    for _ in range(6):
        game.apply(random_action(game.state, rng))
    twin = game.copy()
    action_rng = np.random.default_rng(9)
    a = random_action(game.state, action_rng)
    while game.state.phase is not Phase.TELL or a.seat != game.state.pending[0]:
        game.apply(a)
        twin.apply(a)
        a = random_action(game.state, action_rng)
    assert twin.state == game.state
    game.apply(a)
    assert twin.state != game.state


# --------------------------------------------------------------------- illegal input


def illegal_cases() -> list[tuple[str, str, object]]:
    """(phase to reach, what it tests, a function making the action from the state)."""
    return [
        ("tell", "out of turn", lambda s: Tell(1, s.hands[1][0], "x")),
        ("tell", "card not in the hand", lambda s: Tell(0, s.hands[1][0], "x")),
        ("tell", "empty clue", lambda s: Tell(0, s.hands[0][0], "   ")),
        ("tell", "over-long clue", lambda s: Tell(0, s.hands[0][0], "x" * 201)),
        ("tell", "clue not text", lambda s: Tell(0, s.hands[0][0], 42)),
        ("tell", "invisible clue", lambda s: Tell(0, s.hands[0][0], "\u200b\u2060 ")),
        ("tell", "clue of two lines", lambda s: Tell(0, s.hands[0][0], "moon\nlight")),
        ("tell", "clue with a lone surrogate", lambda s: Tell(0, s.hands[0][0], "moon\ud800")),
        ("tell", "clue reordered on screen", lambda s: Tell(0, s.hands[0][0], "moon\u202e")),
        ("tell", "clue drawn over the page", lambda s: Tell(0, s.hands[0][0], "x" + "\u0301" * 7)),
        ("tell", "bad clue kind", lambda s: Tell(0, s.hands[0][0], "x", "dance")),
        ("tell", "wrong phase", lambda s: Play(1, (s.hands[1][0],))),
        ("tell", "not a seat", lambda s: Tell(9, s.hands[0][0], "x")),
        ("tell", "not a card id", lambda s: Tell(0, "card", "x")),
        ("tell", "not an action", lambda s: ("tell", 0)),
        ("play", "storyteller plays", lambda s: Play(0, (s.hands[0][0],))),
        ("play", "card not in the hand", lambda s: Play(1, (s.hands[2][0],))),
        ("play", "too many cards", lambda s: Play(1, s.hands[1][:2])),
        ("play", "wrong phase", lambda s: Vote(1, (0,))),
        ("vote", "own card", lambda s: Vote(1, (s.board_owner.index(1),))),
        ("vote", "storyteller votes", lambda s: Vote(0, (s.board_owner.index(1),))),
        ("vote", "second vote not allowed", lambda s: Vote(1, (s.board_owner.index(0),
                                                                 s.board_owner.index(2)))),
        ("vote", "position off the board", lambda s: Vote(1, (4,))),
        ("vote", "no position", lambda s: Vote(1, ())),
        ("vote", "positions not a list", lambda s: Vote(1, 2)),
        ("vote", "a list as a position", lambda s: Vote(1, ([0],))),
        ("vote", "a dict as a position", lambda s: Vote(1, ({"p": 0},))),
    ]


@pytest.mark.parametrize(("phase", "what", "make"), illegal_cases(),
                         ids=[f"{p}-{w}" for p, w, _ in illegal_cases()])
def test_illegal_actions_raise_and_change_nothing(phase: str, what: str, make: object) -> None:
    state, rng = start(n=4, seed=11)
    move_rng = np.random.default_rng(3)
    while state.phase.value != phase:
        state = apply_action(state, random_action(state, move_rng), rng)
    before_state, before_rng = state, rng.bit_generator.state
    snapshot = dataclasses.astuple(state)
    with pytest.raises(IllegalAction):
        apply_action(state, make(state), rng)  # type: ignore[operator]
    assert state is before_state and dataclasses.astuple(state) == snapshot
    assert rng.bit_generator.state == before_rng


def test_same_card_twice_and_repeat_actions_are_refused() -> None:
    state, rng = start(n=3, seed=1)
    state = apply_action(state, Tell(0, state.hands[0][0], "x"), rng)
    with pytest.raises(IllegalAction, match="same card twice"):
        apply_action(state, Play(1, (state.hands[1][0], state.hands[1][0])), rng)
    state = apply_action(state, Play(1, state.hands[1][:2]), rng)
    with pytest.raises(IllegalAction, match="already acted"):
        apply_action(state, Play(1, state.hands[1][:2]), rng)


def test_same_board_card_twice_with_two_votes_is_refused() -> None:
    state, rng = start("odyssey-2024", n=4, seed=1)
    state = to_vote_phase(state, rng)
    target = state.board_owner.index(0)
    with pytest.raises(IllegalAction, match="twice"):
        apply_action(state, Vote(1, (target, target)), rng)
    state = apply_action(state, Vote(1, (target, state.board_owner.index(2))), rng)
    with pytest.raises(IllegalAction, match="already acted"):
        apply_action(state, Vote(1, (target,)), rng)


@pytest.mark.parametrize("edition", ["refresh-2021", "odyssey-2024"])
def test_unhashable_vote_positions_are_illegal_actions(edition: str) -> None:
    state, rng = start(edition, n=4, seed=1)
    state = to_vote_phase(state, rng)
    for positions, shown in ((([0],), r"\[0\]"), (({"p": 0},), r"\{'p': 0\}"),
                             ((1, [0]), r"\[0\]")):
        if len(positions) > state.rules.votes_per_guesser(4):
            continue
        with pytest.raises(IllegalAction, match=f"^seat 1 voted for {shown}, not a board "
                                                "position$"):
            apply_action(state, Vote(1, positions), rng)  # type: ignore[arg-type]


def test_refusals_outside_the_variants_name_the_real_reason() -> None:
    state, rng = start("refresh-2021", n=4, seed=1)
    with pytest.raises(IllegalAction, match=r"^seat 0: only Dixit Party has a red token$"):
        apply_action(state, RedToken(0, 0), rng)
    with pytest.raises(IllegalAction, match=r"^seat 1 tried to vote in the tell phase of "
                                            r"round 0$"):
        apply_action(state, Vote(1, (0,)), rng)
    with pytest.raises(IllegalAction, match=r"^seat 1 tried to play a card in the tell phase"):
        apply_action(state, Play(1, (state.hands[1][0],)), rng)
    rules = state.rules
    # Outside the team variant every guesser votes: a seat that does not is no seat at all.
    with pytest.raises(IllegalAction, match=r"^7 is not a seat of this 4-player game$"):
        check_vote(rules, n_players=4, storyteller=0, board_owner=[0, 1, 2, 3], seat=7,
                   positions=[0])
    with pytest.raises(IllegalAction, match=r"^7 is not a seat of this 4-player game$"):
        score_round(rules, n_players=4, storyteller=0, board_owner=[0, 1, 2, 3],
                    votes={1: [0], 2: [0], 3: [0], 7: [0]})
    with pytest.raises(IllegalAction, match=r"^seat 0 is the storyteller, who does not vote$"):
        check_vote(rules, n_players=4, storyteller=0, board_owner=[0, 1, 2, 3], seat=0,
                   positions=[1])


def test_acting_after_the_game_ended_is_refused() -> None:
    game = Game(RuleSet.edition("refresh-2021", score_limit=3), 3, range(84), seed=0)
    play_out(game, 0)
    with pytest.raises(IllegalAction, match="after the game ended"):
        game.apply(Tell(game.state.storyteller, game.state.hands[0][0], "x"))


def test_bad_decks_are_refused() -> None:
    rules = RuleSet.edition("refresh-2021")
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="repeats card ids"):
        new_game(rules, 4, [1, 1, *range(2, 40)], rng)
    with pytest.raises(ValueError, match="non-negative"):
        new_game(rules, 4, [-1, *range(40)], rng)
    with pytest.raises(ValueError, match=r"\(4 missing\)"):
        new_game(rules, 4, range(20), rng)
    with pytest.raises(ValueError, match="3-6 players, not 7"):
        new_game(RuleSet.edition("original-2008"), 7, range(84), rng)


@pytest.mark.parametrize(("bad", "shown"), [(0.5, "0.5"), (3.0, "3.0"), ("3", "'3'"),
                                            (True, "True"), (None, "None"),
                                            (np.float64(2), r"np.float64\(2.0\)|2.0")])
def test_card_ids_that_are_not_integers_are_refused(bad: object, shown: str) -> None:
    rng = np.random.default_rng(0)
    before = rng.bit_generator.state
    with pytest.raises(ValueError, match=f"^card id ({shown}) is not an integer$"):
        new_game(RuleSet.edition("refresh-2021"), 4, [*range(100, 140), bad], rng)
    assert rng.bit_generator.state == before
    # numpy integers are ids (a deck may come as an array).
    state = new_game(RuleSet.edition("refresh-2021"), 4, np.arange(40), rng)
    assert sorted(state.deck) == list(range(40)) and type(state.deck[0]) is int


@pytest.mark.parametrize("seat", [True, False, "1", 1.0, None, -1, 4])
def test_observe_refuses_what_is_not_a_seat(seat: object) -> None:
    state, _ = start(n=4)
    with pytest.raises(ValueError, match=f"^seat {re.escape(repr(seat))} is not a seat of this "
                                         "4-player game$"):
        observe(state, seat)  # type: ignore[arg-type]
    assert observe(state, np.int64(1)).hand == state.hands[1]


def test_numpy_integers_are_ids_and_bools_are_not() -> None:
    state, rng = start("refresh-2021", n=4, seed=2)
    state = apply_action(state, Tell(np.int64(0), np.int64(state.hands[0][0]), "x"), rng)
    state = to_vote_phase(state, rng)
    target = np.int64(state.board_owner.index(0))
    with pytest.raises(IllegalAction, match="not a board position"):
        apply_action(state, Vote(1, (True,)), rng)
    after = apply_action(state, Vote(1, (target,)), rng)
    assert after.votes[1] == (int(target),) and type(after.votes[1][0]) is int


@pytest.mark.parametrize("clue", ["\U0001f468\u200d\U0001f469\u200d\U0001f467",
                                  "\u05e9\u05dc\u05d5\u05dd", "caf\u00e9 au lait", "\u6708\u5149"])
def test_clues_in_any_script_and_emoji_sequences_are_told(clue: str) -> None:
    """What the text check refuses (invisible, multi-line, reordered or invalid text) is not
    what other scripts or emoji need: a family emoji joined by zero-width joiners, Hebrew,
    accents and Chinese are all clues."""
    state, rng = start()
    told = apply_action(state, Tell(0, state.hands[0][0], clue), rng)
    assert told.clue == clue


@pytest.mark.parametrize("text", ["Tiếng Việt", "नमस्ते", "བསྒྲུབས", "1\ufe0f\u20e3", "👩🏽\u200d🚀",
                                  "e" + "\u0301" * 6])
def test_accents_vowel_signs_and_keycaps_are_text(text: str) -> None:
    """Scripts stack two or three marks on a letter, keycaps two; six in a row still pass."""
    from dixit_ai.rules.text import text_problem

    assert text_problem(text) is None


def test_a_tower_of_combining_marks_is_refused_where_it_passes_six() -> None:
    from dixit_ai.rules.text import MAX_COMBINING_MARKS, text_problem

    assert MAX_COMBINING_MARKS == 6
    assert text_problem("ab" + "\u0301" * 7) == (
        "stacks more than 6 combining marks on one character (at position 8), which draws over "
        "the text around it")
    assert text_problem(("e" + "\u0301" * 6) * 3) is None  # a run ends at each letter
