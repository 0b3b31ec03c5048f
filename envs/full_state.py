"""The whole game state as one vector, for centralised training (a critic that sees everything).

It holds what no single seat may see (every hand, the board's owners, every vote and partial
choice), so it is for training only: the environments' ``state()`` returns it, and
``state_space`` is the ``Box`` it lies in. The per-seat observations are :mod:`envs.core`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from gymnasium import spaces

from envs.fields import BIG, MAX_CODEPOINT, PHASE_INDEX, PHASES

if TYPE_CHECKING:
    from envs.core import DixitCore


def state_layout(core: DixitCore) -> list[tuple[str, int, int, int]]:
    """The fields of :func:`state_vector`: ``(name, size, low, high)`` in order."""
    n, hand, board, played = core.n_players, core.hand_size, core.board_size, core.played_size
    votes, card = core.max_votes, core.max_card_id
    partial = max(core.cards_to_play, votes)
    clue: tuple[str, int, int, int]
    if core.vocab is None:
        clue = ("clue", core.rules.max_clue_length, -1, MAX_CODEPOINT)
    else:
        clue = ("clue", 1, -1, len(core.vocab) - 1)
    return [
        ("phase", 1, 0, len(PHASES) - 1),
        ("round", 1, 0, BIG),
        ("storyteller", 1, 0, n - 1),
        ("draw_pile_size", 1, 0, len(core.card_ids)),
        ("scores", n, 0, BIG),
        ("hands", n * hand, -1, card),
        ("played", n * played, -1, card),
        ("board", board, -1, card),
        ("board_owner", board, -1, n - 1),
        ("votes", n * votes, -1, board - 1),
        ("partial", n * partial, -1, max(card, board - 1)),
        clue,
    ]

def state_space(core: DixitCore) -> spaces.Box:
    """The ``Box`` that :func:`state_vector` lies in."""
    layout = state_layout(core)
    low = np.concatenate([np.full(size, lo, dtype=np.int64) for _, size, lo, _ in layout])
    high = np.concatenate([np.full(size, hi, dtype=np.int64) for _, size, _, hi in layout])
    return spaces.Box(low=low, high=high, dtype=np.int64)

def state_vector(core: DixitCore) -> np.ndarray:
    """The whole game state (every hand, owners, votes, partial choices) as one vector.

    For centralised training only: it holds everything no single seat may see. The fields
    and their sizes are :func:`state_layout`.
    """
    state = core.state
    n = core.n_players
    partial_size = max(core.cards_to_play, core.max_votes)

    def padded(items: Sequence[int], size: int) -> list[int]:
        return [*items, *([-1] * (size - len(items)))]

    values: list[int] = [PHASE_INDEX[state.phase], state.round, state.storyteller,
                         len(state.draw_pile), *state.scores]
    for seat in range(n):
        values += padded(state.hands[seat], core.hand_size)
    for seat in range(n):
        values += padded(state.played[seat], core.played_size)
    values += padded(state.board, core.board_size)
    values += padded(state.board_owner, core.board_size)
    for seat in range(n):
        values += padded(state.votes[seat], core.max_votes)
    for seat in range(n):
        values += padded(core.partial[seat], partial_size)
    if core.vocab is None:
        values += padded([ord(c) for c in (state.clue or "")], core.rules.max_clue_length)
    else:
        values.append(core.vocab_index.get(state.clue, -1) if state.clue else -1)
    return np.array(values, dtype=np.int64)
