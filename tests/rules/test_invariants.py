"""Invariants under random play, for every edition and every legal player count."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dixit_ai.rules import EDITIONS, GameState, Phase, RuleSet, apply_action, new_game, observe
from tests.rules.helpers import random_action, variant_cells

MAX_STEPS = 20_000


@st.composite
def variant_games(draw: st.DrawFn) -> tuple[RuleSet, int, int, int]:
    """Team Dixit and Dixit Party, every allowed player count, both Odyssey editions."""
    edition, n, overrides = draw(st.sampled_from(variant_cells()))
    rules = RuleSet.edition(edition, **overrides,  # type: ignore[arg-type]
                            rounds_per_player=draw(st.integers(1, 2)),
                            first_storyteller=draw(st.sampled_from(["seat0", "random"])))
    deck = draw(st.integers(rules.min_deck_size(n), 120))
    return rules, n, deck, draw(st.integers(0, 2**32 - 1))


@st.composite
def games(draw: st.DrawFn) -> tuple[RuleSet, int, int, int]:
    if draw(st.booleans()):
        return draw(variant_games())
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
        return view.is_party or len(view.hand) >= 1
    if state.phase is Phase.PLAY:
        return len(view.hand) >= view.cards_to_play
    if state.phase is Phase.RED:
        return len(view.legal_red_positions()) >= 1
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
    size = rules.hand_size_for(n)
    for _step in range(MAX_STEPS):
        # Cards are conserved: hands + cards in play + draw pile + discard = deck.
        assert cards_in(state) == deck
        if state.phase is Phase.TELL:
            # Every hand is full at the start of a round (a short pile ends the game).
            assert all(len(hand) == size for hand in state.hands)
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
    if rules.rounds_per_player is not None:
        # The variants end when each player has told rounds_per_player times (or the deck,
        # under an "end" policy, runs short first).
        told = Counter(r.storyteller for r in state.results)
        assert len(state.results) <= n * rules.rounds_per_player
        if rules.on_deck_exhausted == "reshuffle" and rules.score_limit is None:
            assert all(told[s] == rules.rounds_per_player for s in range(n))
    for result in state.results:
        # The named parts of each seat's points sum to its points.
        assert [sum(v for _, v in p) for p in result.parts] == list(result.points)
