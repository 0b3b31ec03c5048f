"""Helpers for rules tests: random legal moves straight from the rules core."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from dixit_ai.rules import (
    Action,
    Announce,
    Game,
    GameState,
    Phase,
    Play,
    RedToken,
    RoundResult,
    RuleSet,
    Tell,
    Vote,
    observe,
)


def random_action(state: GameState, rng: np.random.Generator) -> Action:
    """A uniformly random legal action for the seat that is asked next.

    In the team variant a designated seat passes the giving to its partner half the time.
    """
    seat = state.pending[0]
    view = observe(state, seat)
    if state.phase is Phase.TELL:
        if view.is_party:
            return Announce(seat, "a clue")
        return Tell(seat, view.hand[int(rng.integers(len(view.hand)))], "a clue")
    if state.phase is Phase.PLAY:
        if view.can_pass and rng.random() < 0.5:
            return Play(seat, ())
        picks = rng.choice(len(view.hand), size=view.cards_to_play, replace=False)
        return Play(seat, tuple(view.hand[int(i)] for i in picks))
    if state.phase is Phase.RED:
        legal_red = view.legal_red_positions()
        return RedToken(seat, legal_red[int(rng.integers(len(legal_red)))])
    legal = view.legal_vote_positions()
    n = int(rng.integers(1, min(view.max_votes, len(legal)) + 1))
    picks = rng.choice(len(legal), size=n, replace=False)
    return Vote(seat, tuple(legal[int(i)] for i in picks))


def play_out(game: Game, seed: int) -> None:
    """Play ``game`` to its end with :func:`random_action`, moves drawn from ``seed``."""
    for _ in scored_rounds(game, seed):
        pass


def scored_rounds(game: Game, seed: int) -> Iterator[RoundResult]:
    """Play ``game`` to its end with :func:`random_action` (moves drawn from ``seed``), giving
    each round's result as it is scored."""
    rng = np.random.default_rng(seed)
    while not game.state.is_over:
        result = game.apply(random_action(game.state, rng))
        if result is not None:
            yield result


def variant_cells() -> list[tuple[str, int, dict[str, object]]]:
    """(edition, players, overrides) for the team variant and Dixit Party at every allowed size."""
    cells: list[tuple[str, int, dict[str, object]]] = []
    for edition in ("odyssey-2011", "odyssey-2024"):
        rules = RuleSet.edition(edition)
        cells += [(edition, n, {"teams": True})
                  for n in range(rules.min_team_players, rules.max_players + 1, 2)]
        cells += [(edition, n, {"mode": "party"})
                  for n in range(rules.min_party_players, rules.max_players + 1)]
    return cells
