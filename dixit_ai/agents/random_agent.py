"""A seeded agent that plays uniformly random legal moves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

from dixit_ai.agents.base import Announcement, Choice, Story
from dixit_ai.rules import View

T = TypeVar("T")

CLUE_WORDS: tuple[str, ...] = (
    "dream", "journey", "silence", "echo", "longing", "lighthouse", "labyrinth", "lullaby",
    "mirror", "storm", "secret", "dawn", "midnight", "wonder", "memory", "balance", "escape",
    "home", "curiosity", "solitude", "harvest", "tide", "whisper", "carnival", "ember",
    "childhood", "treasure", "shadow", "bloom", "frost", "gravity", "voyage",
)
"""The small word list a random storyteller draws its clue from."""


class RandomAgent:
    """Plays legal moves uniformly at random from its own seeded generator.

    Plays every mode: in the team variant a designated seat passes the giving to its partner
    with probability ``pass_rate``; in Dixit Party it announces a random word and places the
    red token at random.

    Args:
        second_vote_rate: Where a second vote is allowed, the probability of casting one.
        pass_rate: Team variant: the probability that a team's designated seat passes.
        name: The agent's display name.
    """

    def __init__(self, *, second_vote_rate: float = 0.5, pass_rate: float = 0.5,
                 name: str = "random") -> None:
        if not 0.0 <= second_vote_rate <= 1.0:
            raise ValueError(f"second_vote_rate must be in [0, 1], not {second_vote_rate}")
        if not 0.0 <= pass_rate <= 1.0:
            raise ValueError(f"pass_rate must be in [0, 1], not {pass_rate}")
        self.name = name
        self.second_vote_rate = second_vote_rate
        self.pass_rate = pass_rate
        self.seat = -1
        self.rng: np.random.Generator | None = None

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        self.seat = seat
        self.rng = rng

    def _generator(self) -> np.random.Generator:
        if self.rng is None:
            raise RuntimeError("RandomAgent.reset(seat=..., rng=...) must be called first")
        return self.rng

    def tell(self, view: View) -> Story:
        card = self._pick(view.hand)
        return Story(card=card, clue=self._pick(CLUE_WORDS), clue_kind="word")

    def announce(self, view: View) -> Announcement:
        return Announcement(clue=self._pick(CLUE_WORDS), clue_kind="word")

    def play(self, view: View) -> Choice:
        if view.can_pass and self._generator().random() < self.pass_rate:
            return Choice(())
        return Choice(self._sample(view.hand, view.cards_to_play))

    def red_token(self, view: View) -> Choice:
        return Choice(self._sample(view.legal_red_positions(), 1))

    def vote(self, view: View) -> Choice:
        legal = view.legal_vote_positions()
        n = 1
        if (view.max_votes > 1 and len(legal) > 1
                and self._generator().random() < self.second_vote_rate):
            n = 2
        return Choice(self._sample(legal, n))

    def _pick(self, items: Sequence[T]) -> T:
        """One item, uniformly (``integers`` would do the same, three times slower)."""
        return items[int(self._generator().random() * len(items))]

    def _sample(self, items: Sequence[int], k: int) -> tuple[int, ...]:
        """``k`` distinct items, uniformly, in random order."""
        rng, pool = self._generator(), list(items)
        return tuple(pool.pop(int(rng.random() * len(pool))) for _ in range(k))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "class": "RandomAgent",
                "second_vote_rate": self.second_vote_rate, "pass_rate": self.pass_rate,
                # it simulates nobody and was fitted on nothing (the panel's held-out check)
                "simulation_embedders": [], "simulation_fits": []}
