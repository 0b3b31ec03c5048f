"""The observer: permuting what a seat may not know leaves its view unchanged."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dixit_ai.rules import EDITIONS, GameState, Phase, RuleSet, apply_action, new_game, observe
from tests.rules.helpers import random_action, variant_cells


def scramble_hidden(state: GameState, seat: int, rng: np.random.Generator) -> GameState:
    """Permute everything ``seat`` may not know, keeping what it may know."""
    n = state.n_players
    others = [s for s in range(n) if s != seat]
    # Dixit Party: the storyteller announces before looking, so its own hand is hidden too.
    blind = (state.rules.mode == "party" and state.phase is Phase.TELL
             and seat == state.storyteller)
    hidden_hands = [*others, seat] if blind else others
    # Other hands (a partner's too) and the draw pile: deal the same pool of unseen cards anew.
    played_hidden = state.phase is Phase.PLAY
    pool = list(state.draw_pile)
    for s in hidden_hands:
        pool.extend(state.hands[s])
    for s in others:
        if played_hidden:
            pool.extend(state.played[s])
    pool = [pool[i] for i in rng.permutation(len(pool))]
    hands = list(state.hands)
    played = list(state.played)
    for s in hidden_hands:
        hands[s], pool = tuple(pool[: len(state.hands[s])]), pool[len(state.hands[s]):]
    for s in others:
        if played_hidden:
            played[s], pool = tuple(pool[: len(state.played[s])]), pool[len(state.played[s]):]
    changes: dict[str, object] = {"hands": tuple(hands), "played": tuple(played),
                                  "draw_pile": tuple(pool)}
    if state.phase in (Phase.VOTE, Phase.RED):
        # Who owns which board card (other than one's own, or one's team's) and the others'
        # votes (and the red token, for all but the storyteller) are hidden.
        rules = state.rules
        mine = [i for i, o in enumerate(state.board_owner)
                if rules.team_of(o, n) == rules.team_of(seat, n)]
        rest = [i for i in range(len(state.board)) if i not in mine]
        shuffled = [rest[i] for i in rng.permutation(len(rest))]
        owner = list(state.board_owner)
        for src, dst in zip(rest, shuffled, strict=True):
            owner[dst] = state.board_owner[src]
        votes = list(state.votes)
        other_votes = [votes[s] for s in others]
        for s, i in zip(others, rng.permutation(len(others)), strict=True):
            votes[s] = other_votes[int(i)]
        changes["board_owner"] = tuple(owner)
        changes["votes"] = tuple(votes)
        if state.red_token is not None and seat != state.storyteller:
            changes["red_token"] = int(rng.integers(len(state.board)))
    return dataclasses.replace(state, **changes)  # type: ignore[arg-type]


def check_views_ignore_hidden(rules: RuleSet, n: int, seed: int, steps: int,
                              scrambles: int) -> None:
    """Play ``steps`` random moves, then check that every seat's view is the same in
    ``scrambles`` states that differ only in what that seat may not see."""
    rng = np.random.default_rng(seed)
    state = new_game(rules, n, range(84), rng)
    for _ in range(steps):
        if state.is_over:
            break
        state = apply_action(state, random_action(state, rng), rng)
    for seat in range(n):
        view = observe(state, seat)
        for k in range(scrambles):
            scrambled = scramble_hidden(state, seat, np.random.default_rng(seed + k))
            assert observe(scrambled, seat) == view


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(EDITIONS), st.integers(3, 6), st.integers(0, 2**31), st.integers(0, 60))
def test_views_ignore_hidden_information(edition: str, n: int, seed: int, steps: int) -> None:
    check_views_ignore_hidden(RuleSet.edition(edition), n, seed, steps, scrambles=3)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(variant_cells()), st.integers(0, 2**31), st.integers(0, 80))
def test_views_ignore_hidden_information_in_teams_and_party(
        cell: tuple[str, int, dict[str, object]], seed: int, steps: int) -> None:
    edition, n, overrides = cell
    check_views_ignore_hidden(RuleSet.edition(edition, **overrides),
                              n, seed, steps, scrambles=2)


def test_party_storyteller_does_not_see_its_hand_before_the_clue() -> None:
    rng = np.random.default_rng(0)
    state = new_game(RuleSet.edition("odyssey-2011", mode="party"), 6, range(84), rng)
    scrambled = scramble_hidden(state, 0, np.random.default_rng(1))
    assert scrambled.hands[0] != state.hands[0]
    assert observe(scrambled, 0) == observe(state, 0)
    assert observe(scrambled, 1) != observe(state, 1)


def test_scramble_does_change_the_state() -> None:
    """Guard: the property above is not vacuous."""
    rng = np.random.default_rng(0)
    state = new_game(RuleSet.edition("refresh-2021"), 5, range(84), rng)
    for _ in range(4):
        state = apply_action(state, random_action(state, rng), rng)
    assert state.phase is Phase.PLAY
    scrambled = scramble_hidden(state, 0, np.random.default_rng(1))
    assert scrambled.hands != state.hands and scrambled.played != state.played
    assert observe(scrambled, 1) != observe(state, 1)


def test_view_holds_no_hidden_field() -> None:
    rng = np.random.default_rng(0)
    state = new_game(RuleSet.edition("refresh-2021"), 4, range(84), rng)
    while state.phase is not Phase.VOTE:
        state = apply_action(state, random_action(state, rng), rng)
    view = observe(state, 2)
    fields = {f.name for f in dataclasses.fields(view)}
    assert not fields & {"hands", "draw_pile", "board_owner", "votes", "played"}
    assert view.board == state.board and view.clue == state.clue
    assert view.my_positions == tuple(i for i, o in enumerate(state.board_owner) if o == 2)
