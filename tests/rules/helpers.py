"""Helpers for rules tests: random legal moves straight from the rules core."""

from __future__ import annotations

import numpy as np

from dixit_ai.rules import Action, GameState, Phase, Play, Tell, Vote, observe


def random_action(state: GameState, rng: np.random.Generator) -> Action:
    """A uniformly random legal action for the seat that is asked next."""
    seat = state.pending[0]
    view = observe(state, seat)
    if state.phase is Phase.TELL:
        return Tell(seat, view.hand[int(rng.integers(len(view.hand)))], "a clue")
    if state.phase is Phase.PLAY:
        picks = rng.choice(len(view.hand), size=view.cards_to_play, replace=False)
        return Play(seat, tuple(view.hand[int(i)] for i in picks))
    legal = view.legal_vote_positions()
    n = int(rng.integers(1, min(view.max_votes, len(legal)) + 1))
    picks = rng.choice(len(legal), size=n, replace=False)
    return Vote(seat, tuple(legal[int(i)] for i in picks))
