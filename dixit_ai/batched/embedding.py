"""Batched embedding agents: guesser, decoy picker and storyteller over cached vectors.

The decisions of the fast embedding players of :mod:`envs.policies` (themselves the clip players
of :mod:`models.players` reduced to array operations), for every seat of every game at once. The
logic is the same, function for function (``tests/batched/test_embedding.py`` checks it against
:mod:`envs.policies`); it is written again here because :mod:`dixit_ai` sits below :mod:`envs`
in the layers and may not import it. Everything is numpy over the caller's vectors: no model.

- **storyteller**: for every hand card, the clue proposer's candidates (the vocabulary clues for
  which the card stands out most from the deck, by z-score of similarity); it tells the
  (card, clue) whose z-score is closest to ``target_specificity``;
- **decoy picker**: plays the hand card(s) most similar to the clue;
- **guesser**: votes for the legal board card most similar to the clue (or samples
  ``softmax(similarity / temperature)``), and casts a second vote, where allowed, when the second
  most believed card's belief times the finder's points exceeds the first's times the
  single-vote bonus (beliefs: ``softmax(similarity / 0.03)`` over the legal cards).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dixit_ai.rules.batched import BatchedGames

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float32]

__all__ = ["BatchedEmbeddingAgent"]

BELIEF_TEMPERATURE = 0.03
"""The guesser's belief temperature for the second-vote rule (as :mod:`envs.policies`)."""


def specificity_range(target_specificity: float | tuple[float, float]) -> tuple[float, float]:
    """``(low, high)`` of a target specificity: one value, or a range drawn from per tell.

    Raises:
        ValueError: a range whose low end is above its high end.
    """
    if isinstance(target_specificity, int | float):
        return float(target_specificity), float(target_specificity)
    low, high = (float(x) for x in target_specificity)
    if not low <= high:
        raise ValueError(f"target_specificity range must be (low, high) with low <= high, "
                         f"not {target_specificity!r}")
    return low, high


class BatchedEmbeddingAgent:
    """Embedding play for every seat of every game, over given card and clue vectors.

    Args:
        card_vectors: ``(deck, d)`` unit vectors, row ``i`` for the engine's deck index ``i``
            (``games.card_ids[i]``).
        clue_vectors: ``(V, d)`` unit vectors of the clue vocabulary; clue id ``j`` is row ``j``.
        clues_per_card: Candidates of the clue proposer per card (default: 64, or the whole
            vocabulary if smaller).
        target_specificity: The storyteller's target z-score (higher: more obvious clues); a
            ``(low, high)`` pair draws a target per game and tell, uniformly (a population of
            storytellers, as ``envs.policies.EmbeddingAgent`` takes it).
        temperature: The guesser's vote temperature (``0``: the most similar card).
        second_vote: Whether to consider a second vote where the edition allows one.
        seed: Seeds the generator used for sampled votes.
        name: The agent's name in records.

    Raises:
        ValueError: vectors of mismatched or non-2-d shapes, a bad candidate count; when
            playing, vectors for another deck size or a game's clue id outside the vocabulary.
    """

    def __init__(self, card_vectors: npt.ArrayLike, clue_vectors: npt.ArrayLike, *,
                 clues_per_card: int | None = None,
                 target_specificity: float | tuple[float, float] = 1.0,
                 temperature: float = 0.0, second_vote: bool = True, seed: int = 0,
                 name: str = "batched-embedding") -> None:
        cards = np.asarray(card_vectors, dtype=np.float32)
        clues = np.asarray(clue_vectors, dtype=np.float32)
        if cards.ndim != 2 or clues.ndim != 2 or cards.shape[1] != clues.shape[1]:
            raise ValueError(f"card vectors {cards.shape} and clue vectors {clues.shape} must be "
                             f"2-d with the same dimension")
        if clues_per_card is None:
            clues_per_card = min(64, len(clues))
        if not 1 <= clues_per_card <= len(clues):
            raise ValueError(f"clues_per_card must be in [1, {len(clues)}], not {clues_per_card}")
        self.similarity: Floats = np.einsum("cd,vd->cv", cards, clues)  # (deck, V)
        mean = self.similarity.mean(axis=0)
        std = np.maximum(self.similarity.std(axis=0), 1e-6)
        z = ((self.similarity - mean) / std).astype(np.float32)
        top = np.argpartition(-z, clues_per_card - 1, axis=1)[:, :clues_per_card]
        order = np.argsort(-np.take_along_axis(z, top, axis=1), axis=1, kind="stable")
        self.candidates: Ints = np.take_along_axis(top, order, axis=1).astype(np.int64)
        self.candidate_specificity: Floats = np.take_along_axis(z, self.candidates, axis=1)
        self.n_clues = len(clues)
        self.clues_per_card = clues_per_card
        self.target_range = specificity_range(target_specificity)
        self.target_specificity = self.target_range[0]
        self.temperature = float(temperature)
        self.second_vote = bool(second_vote)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.name = name

    @classmethod
    def from_table(cls, table: Any, card_ids: Any, **options: Any) -> BatchedEmbeddingAgent:
        """From a vector table (``envs.vectors.VectorTable`` or anything with ``rows(ids)``,
        ``card_vectors`` and ``clue_vectors``), for an engine whose deck is ``card_ids``.

        Clue id ``j`` is then ``table.clues[j]``.
        """
        rows = table.rows([int(c) for c in card_ids])
        return cls(np.asarray(table.card_vectors)[rows], table.clue_vectors, **options)

    def _check_deck(self, games: BatchedGames) -> None:
        if len(games.card_ids) != len(self.similarity):
            raise ValueError(f"{self.name} has vectors for {len(self.similarity)} cards; the "
                             f"games' deck has {len(games.card_ids)} (one row per deck index: "
                             f"build it with from_table(table, games.card_ids))")

    def _clues(self, games: BatchedGames) -> Ints:
        """The games' clue ids, checked against the vocabulary (0 in slots without a game)."""
        self._check_deck(games)
        clue: Ints = np.where(games.active, games.clue, 0)
        outside = (clue < 0) | (clue >= self.n_clues)
        if outside.any():
            slot = int(np.flatnonzero(outside)[0])
            raise ValueError(f"game {int(games.game_number[slot])} (slot {slot}) has clue id "
                             f"{int(clue[slot])}; this agent's vocabulary has {self.n_clues} "
                             f"clues (every agent of a game needs the same clue vocabulary)")
        return clue

    def tell(self, games: BatchedGames) -> tuple[Ints, Ints]:
        """The (hand slot, clue id) of the candidates closest to the target specificity."""
        self._check_deck(games)
        hand = games.hands[games._rows, games.storyteller]  # (G, H) deck indices
        low, high = self.target_range
        target: Any = low if low == high else self.rng.uniform(low, high, (len(hand), 1, 1))
        distance = np.abs(self.candidate_specificity[hand] - target)
        flat = distance.reshape(len(hand), -1)
        best = np.argmin(flat, axis=1)
        slot = best // self.clues_per_card
        clue = self.candidates[hand[games._rows, slot], best % self.clues_per_card]
        return slot.astype(np.int64), clue

    def play(self, games: BatchedGames) -> Ints:
        """Every seat's hand slot(s) most similar to the clue, best first: ``(G, n, K)``."""
        sims = self.similarity[games.hands, self._clues(games)[:, None, None]]  # (G, n, H)
        k = games.cards_per_guesser
        if k == 1:
            best: Ints = np.argmax(sims, axis=2)[..., None].astype(np.int64)
            return best
        order: Ints = np.argsort(-sims, axis=2, kind="stable")[..., :k].astype(np.int64)
        return order

    def vote(self, games: BatchedGames) -> Ints:
        """Every seat's vote(s): ``(G, n, M)``, ``-1`` where no second vote is cast."""
        legal = games.legal_vote()  # (G, n, B)
        sims = self.similarity[games.board, self._clues(games)[:, None]]  # (G, B)
        scores = np.where(legal, sims[:, None, :].astype(np.float64), -np.inf)
        if self.temperature <= 0:
            first = np.argmax(scores, axis=2)
        else:
            logits = scores / self.temperature
            logits -= np.max(logits, axis=2, keepdims=True, initial=-1e300,
                             where=np.isfinite(logits))
            weights = np.where(legal, np.exp(np.where(legal, logits, 0.0)), 0.0)
            cumulative = np.cumsum(weights, axis=2)
            total = np.maximum(cumulative[..., -1:], 1e-300)
            draws = self.rng.random((*cumulative.shape[:2], 1))
            first = np.minimum((cumulative / total < draws).sum(axis=2), legal.shape[2] - 1)
        first = first.astype(np.int64)
        if games.max_votes == 1:
            one: Ints = first[..., None]
            return one
        second = np.full_like(first, -1)
        if self.second_vote:
            with np.errstate(invalid="ignore", over="ignore"):
                second = self._second_votes(games, legal, scores, first)
        both: Ints = np.stack([first, second], axis=-1)
        return both

    def _second_votes(self, games: BatchedGames, legal: npt.NDArray[np.bool_],
                      scores: npt.NDArray[np.float64], first: Ints) -> Ints:
        rules = games.rules
        logits = np.where(legal, scores, 0.0) / BELIEF_TEMPERATURE
        logits -= np.where(legal, logits, -np.inf).max(axis=2, keepdims=True,
                                                       initial=-np.inf)
        beliefs = np.where(legal, np.exp(logits), 0.0)
        beliefs /= np.maximum(beliefs.sum(axis=2, keepdims=True), 1e-300)
        p_first = np.take_along_axis(beliefs, first[..., None], axis=2)[..., 0]
        others = beliefs.copy()
        np.put_along_axis(others, first[..., None], -1.0, axis=2)
        others = np.where(legal, others, -1.0)
        best = np.argmax(others, axis=2)
        p_second = np.take_along_axis(others, best[..., None], axis=2)[..., 0]
        cast = (p_second > 0) & (
            p_second * rules.finder_points > p_first * rules.single_vote_bonus)
        second: Ints = np.where(cast, best, -1).astype(np.int64)
        return second

    def describe(self) -> dict[str, Any]:
        """Name, class and parameters."""
        return {"name": self.name, "class": "BatchedEmbeddingAgent",
                "clues_per_card": self.clues_per_card,
                "target_specificity": list(self.target_range),
                "temperature": self.temperature, "second_vote": self.second_vote,
                "seed": self.seed}
