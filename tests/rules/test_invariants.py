"""Invariants under random play, for every edition and every legal player count."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dixit_ai.rules import EDITIONS, GameState, Phase, RuleSet, apply_action, new_game, observe
from tests.rules.helpers import random_action

MAX_STEPS = 20_000


@st.composite
def games(draw: st.DrawFn) -> tuple[RuleSet, int, int, int]:
    edition = draw(st.sampled_from(EDITIONS))
    teams = edition == "odyssey-2011" and draw(st.booleans())
    rules = RuleSet.edition(
        edition,
        teams=teams,
        first_storyteller=draw(st.sampled_from(["seat0", "random"])),
    ) if edition == "odyssey-2011" else RuleSet.edition(
        edition, first_storyteller=draw(st.sampled_from(["seat0", "random"])))
    low = rules.min_team_players if teams else rules.min_players
    n = draw(st.integers(low, rules.max_players).filter(lambda k: not teams or k % 2 == 0))
    deck = draw(st.integers(rules.min_deck_size(n), 120))
    return rules, n, deck, draw(st.integers(0, 2**32 - 1))


def cards_in(state: GameState) -> Counter[int]:
    held = Counter(state.draw_pile) + Counter(state.discard)
    for hand in state.hands:
        held.update(hand)
    for played in state.played:
        held.update(played)
    return held


def has_legal_action(state: GameState) -> bool:
    view = observe(state, state.pending[0])
    if state.phase is Phase.TELL:
        return len(view.hand) >= 1
    if state.phase is Phase.PLAY:
        return len(view.hand) >= view.cards_to_play
    return len(view.legal_vote_positions()) >= 1


@settings(max_examples=120, deadline=None)
@given(games())
def test_random_play_invariants(game: tuple[RuleSet, int, int, int]) -> None:
    rules, n, deck_size, seed = game
    rng = np.random.default_rng(seed)
    move_rng = np.random.default_rng(seed + 1)
    state = new_game(rules, n, range(deck_size), rng)
    deck = Counter(range(deck_size))
    first = state.storyteller
    for _step in range(MAX_STEPS):
        # Cards are conserved: hands + cards in play + draw pile + discard = deck.
        assert cards_in(state) == deck
        if state.phase is Phase.VOTE:
            assert sorted(state.board) == sorted(c for p in state.played for c in p)
        if state.is_over:
            break
        assert state.pending, "a game not over always has someone to act"
        assert has_legal_action(state)
        before = state.scores
        state = apply_action(state, random_action(state, move_rng), rng)
        # Scores never decrease.
        assert all(b >= a for a, b in zip(before, state.scores, strict=True))
    else:
        raise AssertionError(f"game did not end within {MAX_STEPS} steps")
    # Exactly one storyteller per round, rotating to the left.
    assert [r.storyteller for r in state.results] == [
        (first + i) % n for i in range(len(state.results))]
    # Each round's points add up to the score track.
    totals = np.cumsum([r.points for r in state.results], axis=0)
    assert [list(t) for t in totals] == [list(r.scores) for r in state.results]
    assert state.winners and all(state.scores[w] == max(state.scores) for w in state.winners)
    if rules.teams:
        half = n // 2
        assert all(state.scores[s] == state.scores[s + half] for s in range(half))
