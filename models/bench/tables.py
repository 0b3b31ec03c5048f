"""Agents answer benchmark items the way they play: through a view of a real game state.

A benchmark item is laid on a table through the rules: a :class:`~dixit_ai.rules.GameState` at
the start of a round with the item's hands, then the rules' own transitions (the storyteller
tells, the guessers play, the board is shuffled by the rules from the item's seed), and
:func:`~dixit_ai.rules.observe` gives the seat's view. An answer is checked with
:func:`~dixit_ai.rules.check_action` in the same state, so what the rules refuse counts as an
invalid answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dixit_ai.agents import Agent
from dixit_ai.match import decide
from dixit_ai.rules import (
    Action,
    GameState,
    Phase,
    Play,
    RuleSet,
    Tell,
    View,
    apply_action,
    check_action,
    observe,
    voting_seats,
)

STORYTELLER = 0
"""The storyteller's seat at every bench table."""


def round_start(rules: RuleSet, hands: Sequence[Sequence[int]], deck: Sequence[int]
                ) -> GameState:
    """A game state at the start of round 0, seat 0 telling, with the given hands.

    The draw pile holds the deck's other cards (its order is hidden from every view).
    """
    n = len(hands)
    rules.check_players(n)
    held = {int(c) for hand in hands for c in hand}
    return GameState(
        rules=rules, n_players=n, deck=tuple(int(c) for c in deck),
        draw_pile=tuple(int(c) for c in deck if int(c) not in held), discard=(),
        hands=tuple(tuple(int(c) for c in hand) for hand in hands), scores=(0,) * n,
        round=0, storyteller=STORYTELLER, phase=Phase.TELL, pending=(STORYTELLER,),
        clue=None, clue_kind=None, played=((),) * n, board=(), board_owner=(),
        votes=((),) * n, forfeits=frozenset(), results=(),
        voters=voting_seats(rules, n, STORYTELLER),
    )


def told(state: GameState, card: int, clue: str) -> GameState:
    """The state after the storyteller tells ``card`` with ``clue``."""
    return apply_action(state, Tell(STORYTELLER, int(card), clue),
                        np.random.default_rng(0))


def laid(state: GameState, plays: Sequence[int], rng: np.random.Generator) -> GameState:
    """The state after every guesser plays (``plays[k]`` for seat ``k + 1``): the vote phase."""
    for seat, card in enumerate(plays, start=1):
        state = apply_action(state, Play(seat, (int(card),)), rng)
    return state


def ask(agent: Agent, state: GameState, seat: int
        ) -> tuple[Action | None, dict[str, Any], float | None, str | None]:
    """Ask ``agent`` in ``seat``'s view of ``state``; check its answer with the rules.

    Returns:
        ``(action, notes, predicted guess rate, error)``: the action is ``None`` and ``error``
        says why when the agent raised or the rules refuse its answer.
    """
    view: View = observe(state, seat)
    try:
        action, notes, predicted = decide(agent, view)
        check_action(state, action)
    except Exception as error:
        return None, {}, None, f"{type(error).__name__}: {error}"
    return action, notes, predicted, None
