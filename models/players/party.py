"""Embedding players for Dixit Party: a coordination game, a Schelling point among minds.

In Dixit Party (Odyssey rulebook) the storyteller says a clue before looking at the hand, every
player (storyteller included) plays the hand card that best fits it, everyone votes for the image
they expect the most players to choose (one's own allowed), and the storyteller's red token
wipes out one image's votes. A voter scores the number of players on its image (at most 5),
nothing on the red image or alone.

:class:`PartyAgent` plays it with card and clue embeddings (through the shared
:class:`~models.players.resources.PlayerResources`, read only):

- **announce**: a clue from the vocabulary, with no card in mind: among the clues that single out
  a few of the deck's cards most sharply (the largest gap between a clue's best-matching cards
  and its average card, a clear focal point), one drawn at random, never the same twice a game;
- **play**: the hand card most similar to the clue;
- **vote**: the board card most likely to be the popular one: each player is modelled as voting
  by a softmax over the board's similarities to the clue (``temperature``); the agent votes for
  the card of highest expected share;
- **red_token**: the card the *other* players most likely voted for (the same model, the
  storyteller's own vote left out, its own voted card never chosen: the red token would zero
  its own points).

>>> import numpy as np
>>> from models.players.resources import from_vectors
>>> cards = np.eye(4, dtype=np.float32)
>>> texts = {"sun": [1.0, 0.1, 0.0, 0.0], "sea": [0.0, 0.0, 1.0, 0.2]}
>>> agent = PartyAgent(deck=from_vectors(cards, texts), temperature=0.5)
>>> agent.popularity("sun", (0, 1, 2)).round(2).tolist()
[0.77, 0.13, 0.1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dixit_ai.agents.base import Announcement, Choice, Story
from dixit_ai.rules import View
from models.players.resources import PlayerResources, load_resources


class PartyAgent:
    """An embedding-model player for Dixit Party (see the module docstring).

    Args:
        name: The display name.
        embedder: A model name for :func:`models.load_embedder`, or an ``Embedder``.
        deck: The game's deck: a spec, a ``Deck``, or :class:`PlayerResources`.
        vocabulary: ``"default"`` (the shipped vocabulary), a file path, or a list of clues.
        vocabulary_size: Use only this many clues (``None``: all).
        device: Where a named embedder runs.
        focal_clues: The storyteller draws its clue among this many most focal clues.
        focal_cards: How many best-matching cards make a clue's focus.
        temperature: The softmax temperature of the vote model (similarity units).
        seed: When given, the agent's generator derives from ``(seed, seat)`` instead of the
            match's stream.
    """

    def __init__(self, *, name: str = "party-embedding", embedder: Any = "default",
                 deck: Any = "dream", vocabulary: Any = None, vocabulary_size: int | None = None,
                 device: str = "cpu", focal_clues: int = 64, focal_cards: int = 3,
                 temperature: float = 0.05, seed: int | None = None) -> None:
        for what, value, low in (("focal_clues", focal_clues, 1), ("focal_cards", focal_cards, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{what} must be an int >= {low}, not {value!r}")
        if not temperature > 0:
            raise ValueError(f"temperature must be > 0, not {temperature!r}")
        self.name = name
        self.embedder, self.deck, self.device = embedder, deck, device
        self.vocabulary, self.vocabulary_size = vocabulary, vocabulary_size
        self.focal_clues, self.focal_cards = focal_clues, focal_cards
        self.temperature = float(temperature)
        self.seed = seed
        self.seat = -1
        self.rng: np.random.Generator | None = None
        self._resources: PlayerResources | None = None
        self._focal: tuple[str, ...] | None = None
        self._said: set[str] = set()

    # ------------------------------------------------------------------ resources

    @property
    def resources(self) -> PlayerResources:
        """Card and clue vectors, loaded on first use (shared by the process's players)."""
        if self._resources is None:
            self._resources = load_resources(self.embedder, self.deck, self.vocabulary,
                                             self.vocabulary_size, self.device)
        return self._resources

    def focal_vocabulary(self) -> tuple[str, ...]:
        """The vocabulary's most focal clues, most focal first (computed once)."""
        if self._focal is None:
            sims = self.resources.card_vocabulary_sims  # (cards, clues)
            k = min(self.focal_cards, sims.shape[0])
            top = -np.sort(-sims, axis=0)[:k].mean(axis=0)
            gap = top - sims.mean(axis=0)
            order = np.argsort(-gap, kind="stable")[: self.focal_clues]
            texts = self.resources.vocabulary.texts
            self._focal = tuple(texts[int(i)] for i in order)
        return self._focal

    def popularity(self, clue: str, board: Sequence[int]) -> np.ndarray:
        """The expected share of votes each board card draws (softmax over similarities)."""
        sims = np.asarray(self.resources.clue_similarities(clue, list(board)), dtype=np.float64)
        logits = (sims - sims.max()) / self.temperature
        weights = np.exp(logits)
        return weights / weights.sum()

    # ------------------------------------------------------------------ protocol

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        self.seat = seat
        self.rng = rng if self.seed is None else np.random.default_rng([self.seed, seat])
        self._said = set()

    def _generator(self) -> np.random.Generator:
        if self.rng is None:
            raise RuntimeError("PartyAgent.reset(seat=..., rng=...) must be called first")
        return self.rng

    def announce(self, view: View) -> Announcement:
        fresh = [clue for clue in self.focal_vocabulary() if clue not in self._said]
        if not fresh:
            raise RuntimeError(f"{self.name}: every one of its {self.focal_clues} focal clues "
                               "was said this game; raise focal_clues")
        clue = fresh[int(self._generator().integers(len(fresh)))]
        self._said.add(clue)
        return Announcement(clue=clue, clue_kind="word", info={"focal_rank":
                                                               self.focal_vocabulary().index(clue)})

    def play(self, view: View) -> Choice:
        if view.clue is None or not view.hand:
            raise RuntimeError(f"{self.name} was asked to play without a clue or a hand")
        sims = self.resources.clue_similarities(view.clue, list(view.hand))
        return Choice((view.hand[int(np.argmax(sims))],))

    def vote(self, view: View) -> Choice:
        if view.clue is None or not view.board:
            raise RuntimeError(f"{self.name} was asked to vote without a clue or a board")
        legal = view.legal_vote_positions()
        share = self.popularity(view.clue, view.board)
        best = max(legal, key=lambda position: share[position])
        return Choice((best,), info={"expected_share": round(float(share[best]), 4)})

    def red_token(self, view: View) -> Choice:
        if view.clue is None or not view.board:
            raise RuntimeError(f"{self.name} was asked for the red token without a board")
        share = self.popularity(view.clue, view.board)
        others = view.n_players - 1
        expected = share * others  # the others' votes; this seat's own is left out
        mine = set(view.my_votes)
        allowed = [p for p in view.legal_red_positions() if p not in mine] or list(
            view.legal_red_positions())
        best = max(allowed, key=lambda position: expected[position])
        return Choice((best,), info={"expected_votes": round(float(expected[best]), 3)})

    def tell(self, view: View) -> Story:
        raise RuntimeError(f"{self.name} plays Dixit Party only: it announces clues without a "
                           "card (mode='party'); for the base game use a clip-* agent")

    def describe(self) -> dict[str, Any]:
        resources = self.resources
        return {"name": self.name, "class": "PartyAgent", "embedder": resources.fingerprint,
                "deck": resources.deck_name,
                "vocabulary": {"name": resources.vocabulary.name,
                               "size": len(resources.vocabulary)},
                "focal_clues": self.focal_clues, "focal_cards": self.focal_cards,
                "temperature": self.temperature, "seed": self.seed,
                # its popularity estimate reads others' picks in its own embedding
                "simulation_embedders": [resources.fingerprint], "simulation_fits": []}


def prepare(*, progress: Callable[[str], None] | None = None, **agent_options: Any
            ) -> PlayerResources:
    """The registry's prepare step: load the agent's card and vocabulary vectors once.

    Args:
        progress: Receives a line per one-time step.
        **agent_options: Keyword arguments of :class:`PartyAgent` (``deck``, ``embedder``, ...).
    """
    from models.base import progress_to

    with progress_to(progress):
        agent = PartyAgent(**agent_options)
        resources = agent.resources
        agent.focal_vocabulary()
    return resources
