"""Batched agents: one object decides for every seat of every game at once.

A batched agent answers the three calls of :class:`~dixit_ai.rules.batched.BatchedGames` with
arrays: ``tell(games) -> (slots (G,), clue ids (G,))``, ``play(games) -> (G, n, K)``,
``vote(games) -> (G, n, M)``. It reads only what its seat may know: its own hand, the clue, the
board, the scores (never another seat's hand or who owns which board card, except through
:meth:`~dixit_ai.rules.batched.BatchedGames.legal_vote`, its own cards). Rows of seats an agent
does not play are ignored by :func:`dixit_ai.batched.play_batch`.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from dixit_ai.agents.random_agent import CLUE_WORDS
from dixit_ai.rules.batched import BatchedGames

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

__all__ = ["BatchedAgent", "BatchedRandomAgent", "nth_legal"]


class BatchedAgent(Protocol):
    """What :func:`dixit_ai.batched.play_batch` asks of an agent."""

    name: str

    def tell(self, games: BatchedGames) -> tuple[Ints, Ints]:
        """Each storyteller's hand slot and clue id (vocabulary index)."""
        ...

    def play(self, games: BatchedGames) -> Ints:
        """``(G, n, K)`` hand slots for every seat (the storyteller's row is ignored)."""
        ...

    def vote(self, games: BatchedGames) -> Ints:
        """``(G, n, M)`` board positions for every seat (``-1``: no second vote)."""
        ...

    def describe(self) -> dict[str, Any]:
        """The agent's name and parameters, for record headers."""
        ...


def nth_legal(legal: Bools, rank: Ints) -> Ints:
    """The index of the ``rank``-th ``True`` along the last axis (0 where there is none)."""
    counts = np.cumsum(legal, axis=-1)
    found: Ints = np.argmax(counts > rank[..., None], axis=-1).astype(np.int64)
    return found


class BatchedRandomAgent:
    """Uniformly random legal moves, as :class:`dixit_ai.agents.RandomAgent` plays them.

    Args:
        seed: Seeds the agent's own generator.
        second_vote_rate: Where a second vote is allowed, the probability of casting one.
        n_clues: Clue ids are drawn from ``range(n_clues)`` (default: the random agent's
            words, :data:`dixit_ai.agents.random_agent.CLUE_WORDS`).
        name: The agent's name in records.
    """

    def __init__(self, seed: int = 0, *, second_vote_rate: float = 0.5,
                 n_clues: int = len(CLUE_WORDS), name: str = "batched-random") -> None:
        if not 0.0 <= second_vote_rate <= 1.0:
            raise ValueError(f"second_vote_rate must be in [0, 1], not {second_vote_rate}")
        if n_clues < 1:
            raise ValueError(f"n_clues must be at least 1, not {n_clues}")
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.second_vote_rate = second_vote_rate
        self.n_clues = n_clues
        self.name = name

    def tell(self, games: BatchedGames) -> tuple[Ints, Ints]:
        """A uniform hand slot and a uniform clue id."""
        u = self.rng.random((2, games.n_slots))
        slots = (u[0] * games.hand_size).astype(np.int64)
        return slots, (u[1] * self.n_clues).astype(np.int64)

    def play(self, games: BatchedGames) -> Ints:
        """Uniform distinct hand slots."""
        shape = (games.n_slots, games.n_players)
        k, size = games.cards_per_guesser, games.hand_size
        u = self.rng.random((k, *shape))
        first: Ints = (u[0] * size).astype(np.int64)
        if k == 1:
            one: Ints = first[..., None]
            return one
        picks = [first]
        free = np.ones((*shape, size), dtype=bool)
        for c in range(1, k):
            np.put_along_axis(free, picks[-1][..., None], False, axis=-1)
            picks.append(nth_legal(free, (u[c] * (size - c)).astype(np.int64)))
        return np.stack(picks, axis=-1)

    def vote(self, games: BatchedGames) -> Ints:
        """A uniform legal position, and a second one with probability ``second_vote_rate``.

        The position with the highest uniform draw among the legal ones (uniform over them),
        then the next highest (uniform over the rest).
        """
        legal = games.legal_vote()
        scores = np.where(legal, self.rng.random(legal.shape, dtype=np.float32), -1.0)
        first: Ints = np.argmax(scores, axis=-1).astype(np.int64)
        if games.max_votes == 1:
            one: Ints = first[..., None]
            return one
        count = legal.sum(axis=-1)
        np.put_along_axis(scores, first[..., None], -1.0, axis=-1)
        second = np.argmax(scores, axis=-1)
        cast = (self.rng.random(first.shape) < self.second_vote_rate) & (count > 1)
        both: Ints = np.stack([first, np.where(cast, second, -1)], axis=-1)
        return both

    def describe(self) -> dict[str, Any]:
        """Name, class and parameters."""
        return {"name": self.name, "class": "BatchedRandomAgent", "seed": self.seed,
                "second_vote_rate": self.second_vote_rate}
