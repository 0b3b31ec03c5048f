"""The round log of :mod:`dixit_ai.rules.batched`: what finished games are built from.

Each lockstep round appends one :class:`RoundArrays` (every slot's round, in small integer
types); a finished game is a :class:`FinishedGame`, the slot and rows that hold its rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Bools = npt.NDArray[np.bool_]

__all__ = ["FinishedGame", "RoundArrays", "batch_game_seeds"]


def batch_game_seeds(seed: int, count: int) -> list[int]:
    """The seeds of the first ``count`` games of a run seeded with ``seed``.

    The same as :func:`dixit_ai.match.game_seeds`: game ``k`` of a batched run is game ``k`` of
    ``dixit-ai simulate`` with the same seed.
    """
    words = np.random.SeedSequence(seed).generate_state(count, dtype=np.uint64)
    return [int(w >> np.uint64(1)) for w in words]


@dataclass(frozen=True)
class RoundArrays:
    """One lockstep round of every slot: what a record needs (deck indices, ``-1`` padding).

    Stored in small integer types (``int8`` seats, positions and votes, ``int16`` cards and
    points, ``int32`` clue ids and scores).

    Attributes:
        storyteller: ``(G,)``.
        clue: ``(G,)`` clue ids.
        played: ``(G, n, K)`` each seat's played cards (the storyteller's first, then ``-1``).
        board: ``(G, B)`` the board's cards.
        board_owner: ``(G, B)`` their owners.
        votes: ``(G, n, M)`` board positions (``-1``: none).
        points: ``(G, n)`` the round's points.
        scores: ``(G, n)`` the scores after it.
        reshuffled: ``(G,)`` whether the discard pile was reshuffled in the refill.
    """

    storyteller: npt.NDArray[np.int8]
    clue: npt.NDArray[np.int32]
    played: npt.NDArray[np.int16]
    board: npt.NDArray[np.int16]
    board_owner: npt.NDArray[np.int8]
    votes: npt.NDArray[np.int8]
    points: npt.NDArray[np.int16]
    scores: npt.NDArray[np.int32]
    reshuffled: Bools


@dataclass(frozen=True)
class FinishedGame:
    """Where a finished (or cut-off) game's rounds lie in the round log.

    Attributes:
        number: The game's number in the run (0, 1, ...).
        seed: Its seed.
        slot: The slot it was played in.
        first_row: Its first round's row in the log.
        end_row: One past its last round's row.
        complete: Whether the rules ended it (``False``: cut off by :meth:`BatchedGames.finish`).
    """

    number: int
    seed: int
    slot: int
    first_row: int
    end_row: int
    complete: bool
