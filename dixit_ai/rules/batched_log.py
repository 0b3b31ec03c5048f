"""The round log of :mod:`dixit_ai.rules.batched`: what finished games are built from.

Each lockstep round appends one :class:`RoundArrays` (every slot's round, in small integer
types); a finished game is a :class:`FinishedGame`, the slot and rows that hold its rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Bools = npt.NDArray[np.bool_]

__all__ = ["FinishedGame", "RoundArrays", "batch_game_seeds", "game_seeds_at"]


_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_LOW = np.uint64(0xFFFFFFFF)


def game_seeds_at(seed: int, numbers: npt.ArrayLike) -> list[int]:
    """The seeds of games ``numbers`` of a run seeded with ``seed``, computed directly.

    Equal to ``dixit_ai.match.game_seeds(seed, count)[k]`` for each ``k`` in ``numbers``
    (``SeedSequence(seed).generate_state(count, uint64)[k] >> 1``), without the ``k`` words
    before: word ``j`` of ``generate_state`` mixes the pool's word ``j % 4`` with the hash
    constant ``INIT_B * MULT_B**j`` (mod 2**32), which is computed here by squaring. An
    unbounded run so keeps no list of every seed it has used.
    """
    pool = np.random.SeedSequence(seed).pool.astype(np.uint64)
    games = np.asarray(numbers, dtype=np.uint64).reshape(-1)
    halves = []
    for half in (0, 1):
        j = np.uint64(2) * games + np.uint64(half)
        power = np.ones(len(j), dtype=np.uint64)
        base = np.full(len(j), _MULT_B, dtype=np.uint64)
        exponent = j.copy()
        while exponent.any():
            odd = (exponent & np.uint64(1)).astype(bool)
            power = np.where(odd, (power * base) & _LOW, power)
            base = (base * base) & _LOW
            exponent >>= np.uint64(1)
        constant = (power * np.uint64(_INIT_B)) & _LOW
        value = pool[(j % np.uint64(4)).astype(np.int64)] ^ constant
        value = (value * ((constant * np.uint64(_MULT_B)) & _LOW)) & _LOW
        halves.append(value ^ (value >> np.uint64(16)))
    words = halves[0] | (halves[1] << np.uint64(32))
    seeds: list[int] = (words >> np.uint64(1)).tolist()
    return seeds


def batch_game_seeds(seed: int, count: int) -> list[int]:
    """The seeds of the first ``count`` games of a run seeded with ``seed``.

    The same as :func:`dixit_ai.match.game_seeds`: game ``k`` of a batched run is game ``k`` of
    ``dixit-ai simulate`` with the same seed.
    """
    return game_seeds_at(seed, np.arange(count))


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
