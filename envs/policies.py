"""Fast embedding players: pure numpy over cached card and clue vectors.

The decisions of the clip players (:mod:`models.players`) reduced to what a few array operations
over a :class:`~envs.vectors.VectorTable` can do, so that they cost microseconds and can sit in
the opponents' seats of a training environment (no model call, no simulation):

- **guesser** (:func:`vote_positions`): votes for the legal board card most similar to the clue
  (or samples ``softmax(similarity / temperature)``); a second vote, where the edition allows
  one, when it raises the expected points under softmax beliefs (:func:`second_votes`, the rule
  of ``models.players.ClipGuesser``);
- **decoy picker** (:func:`decoy_cards`): plays the hand card(s) most similar to the clue;
- **storyteller** (:func:`tell_choices`): among the clue proposer's candidates for every hand card
  (:func:`clue_candidates`: the clues for which that card stands out most from the deck, by
  z-score of similarity), the pair whose z-score is closest to a target *specificity*: a high
  target gives obvious clues, a low one cryptic clues.

Every function takes arrays with any leading batch axes (``(..., k)``), so a batched runner can
decide for many games at once. :class:`EmbeddingAgent` wraps them as a ``dixit_ai`` agent for one
seat (what :mod:`envs` puts in opponent seats through :class:`envs.agent_player.AgentPlayer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from dixit_ai.agents import Choice, Story
from dixit_ai.batched.embedding import specificity_range
from dixit_ai.rules import View
from envs.vectors import VectorTable

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

__all__ = [
    "EmbeddingAgent",
    "clue_candidates",
    "decoy_cards",
    "second_votes",
    "similarities",
    "specificity",
    "tell_choices",
    "vote_positions",
]


def similarities(clue: npt.ArrayLike, cards: npt.ArrayLike) -> Floats:
    """Cosine similarity of each card to the clue: ``(..., d)`` and ``(..., k, d)`` -> ``(..., k)``.

    >>> similarities([1.0, 0.0], [[1.0, 0.0], [0.0, 1.0]]).tolist()
    [1.0, 0.0]
    """
    result: Floats = np.einsum("...d,...kd->...k", np.asarray(clue, dtype=np.float32),
                               np.asarray(cards, dtype=np.float32))
    return result


def _masked(values: npt.ArrayLike, legal: npt.ArrayLike) -> npt.NDArray[np.float64]:
    scores = np.asarray(values, dtype=np.float64)
    allowed = np.asarray(legal, dtype=bool)
    if not np.all(allowed.any(axis=-1)):
        raise ValueError("a row of the legal mask allows nothing: no decision is possible")
    out: npt.NDArray[np.float64] = np.where(allowed, scores, -np.inf)
    return out


def vote_positions(sims: npt.ArrayLike, legal: npt.ArrayLike, *, temperature: float = 0.0,
                   rng: np.random.Generator | None = None) -> Ints:
    """The board position each guesser votes for: ``(..., B)`` -> ``(...,)``.

    Args:
        sims: Similarity of each board position to the clue.
        legal: Where a vote is allowed (``False`` on the voter's own card(s)).
        temperature: ``0``: the most similar legal card; ``> 0``: sample
            ``softmax(sims / temperature)`` over the legal cards (``rng`` needed).
        rng: The generator for sampling.

    Raises:
        ValueError: a row allows no position, or sampling without a generator.

    >>> vote_positions([[0.1, 0.9, 0.5]], [[True, False, True]]).tolist()
    [2]
    """
    scores = _masked(sims, legal)
    if temperature <= 0:
        choice: Ints = np.argmax(scores, axis=-1).astype(np.int64)
        return choice
    if rng is None:
        raise ValueError("sampling votes (temperature > 0) needs a generator")
    logits = scores / temperature
    logits -= logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits)
    cumulative = np.cumsum(weights / weights.sum(axis=-1, keepdims=True), axis=-1)
    draws = rng.random((*cumulative.shape[:-1], 1))
    sampled: Ints = np.minimum((cumulative < draws).sum(axis=-1),
                               cumulative.shape[-1] - 1).astype(np.int64)
    return sampled


def second_votes(sims: npt.ArrayLike, legal: npt.ArrayLike, first: npt.ArrayLike, *,
                 finder_points: float, single_vote_bonus: float,
                 belief_temperature: float = 0.03) -> Ints:
    """A second vote where it raises expected points, else -1: ``(..., B)`` -> ``(...,)``.

    Beliefs are ``softmax(sims / belief_temperature)`` over the legal cards; the second vote goes
    to the most believed card other than ``first`` when ``belief(second) * finder_points``
    exceeds ``belief(first) * single_vote_bonus`` (the clip guesser's rule).
    """
    scores = _masked(sims, legal)
    logits = scores / belief_temperature
    logits -= logits.max(axis=-1, keepdims=True)
    beliefs = np.exp(logits)
    beliefs /= beliefs.sum(axis=-1, keepdims=True)
    firsts = np.asarray(first, dtype=np.int64)
    p_first = np.take_along_axis(beliefs, firsts[..., None], axis=-1)[..., 0]
    others = beliefs.copy()
    np.put_along_axis(others, firsts[..., None], -1.0, axis=-1)
    second = np.argmax(others, axis=-1)
    p_second = np.take_along_axis(others, second[..., None], axis=-1)[..., 0]
    cast = (p_second > 0) & (p_second * finder_points > p_first * single_vote_bonus)
    result: Ints = np.where(cast, second, -1).astype(np.int64)
    return result


def decoy_cards(hand_sims: npt.ArrayLike, valid: npt.ArrayLike, count: int) -> Ints:
    """The ``count`` hand indices most similar to the clue, best first.

    Shapes: ``(..., H)`` -> ``(..., count)``.

    >>> decoy_cards([[0.2, 0.7, 0.4]], [[True, True, True]], 2).tolist()
    [[1, 2]]
    """
    scores = _masked(hand_sims, valid)
    order: Ints = np.argsort(-scores, axis=-1, kind="stable")[..., :count].astype(np.int64)
    return order


def specificity(table: VectorTable) -> Floats:
    """``(n_cards, n_clues)``: how far each card stands out for each clue, in deck deviations."""
    mean, std = table.clue_statistics
    z: Floats = ((table.card_clue_similarities - mean) / std).astype(np.float32)
    return z


SPREAD_DEPTH = 256
"""How deep into each card's ranking of clues the ``"spread"`` proposer reaches."""


def clue_candidates(table: VectorTable, per_card: int,
                    spread: bool = False) -> tuple[Ints, Floats]:
    """The clue proposer: for every card, ``per_card`` vocabulary clues by specificity.

    Args:
        table: The vectors.
        per_card: Candidates per card.
        spread: ``False``: the card's ``per_card`` most specific clues; ``True``: clues at
            geometrically spaced ranks of its ranking (1st, 2nd, 4th, ... down to the
            :data:`SPREAD_DEPTH`-th), from obvious to cryptic, so that a storyteller can choose
            how hard its clue is.

    Returns:
        ``(n_cards, per_card)`` clue indices (into ``table.clues``), most specific first, and
        their specificities (z-scores).

    Raises:
        ValueError: ``per_card`` is not in ``[1, len(table.clues)]`` (with ``spread``: in
            ``[1, min(SPREAD_DEPTH, len(table.clues))]``).
    """
    n_clues = len(table.clues)
    if isinstance(per_card, bool) or not isinstance(per_card, int) or not (
            1 <= per_card <= n_clues):
        raise ValueError(f"clues per card must be an int in [1, {n_clues}], not {per_card!r}")
    depth = min(SPREAD_DEPTH, n_clues)
    if spread and per_card > depth:
        raise ValueError(f"clues per card of the spread proposer (which reaches {depth} ranks "
                         f"deep) must be an int in [1, {depth}], not {per_card!r}")
    z = specificity(table)
    if spread and per_card > 1:
        ranks = np.unique(np.round(np.geomspace(1, depth, per_card)).astype(np.int64)) - 1
        while len(ranks) < per_card:  # small vocabularies: fill with the next unused ranks
            ranks = np.union1d(ranks, np.setdiff1d(np.arange(depth), ranks)[:per_card - len(
                ranks)])
        ranked = np.argsort(-z, axis=1, kind="stable")[:, :depth]
        chosen: Ints = ranked[:, ranks].astype(np.int64)
        return chosen, np.take_along_axis(z, chosen, axis=1)
    top = np.argpartition(-z, per_card - 1, axis=1)[:, :per_card]
    order = np.argsort(-np.take_along_axis(z, top, axis=1), axis=1, kind="stable")
    indices: Ints = np.take_along_axis(top, order, axis=1).astype(np.int64)
    scores: Floats = np.take_along_axis(z, indices, axis=1)
    return indices, scores


def tell_choices(candidate_specificity: npt.ArrayLike, valid: npt.ArrayLike,
                 target: float) -> tuple[Ints, Ints]:
    """The (hand index, candidate) whose specificity is closest to ``target``.

    Args:
        candidate_specificity: ``(..., H, C)`` z-score of each hand card's candidate clues.
        valid: ``(..., H)`` which hand slots hold a card.
        target: The specificity aimed at.

    Returns:
        Hand indices ``(...,)`` and candidate indices ``(...,)``.
    """
    z = np.asarray(candidate_specificity, dtype=np.float64)
    allowed = np.broadcast_to(np.asarray(valid, dtype=bool)[..., None], z.shape)
    distance = np.where(allowed, np.abs(z - target), np.inf)
    flat = distance.reshape(*distance.shape[:-2], -1)
    if not np.all(np.isfinite(flat).any(axis=-1)):
        raise ValueError("a storyteller has no card to tell about")
    best = np.argmin(flat, axis=-1)
    n_candidates = z.shape[-1]
    return (best // n_candidates).astype(np.int64), (best % n_candidates).astype(np.int64)


class EmbeddingAgent:
    """A ``dixit_ai`` agent playing the fast embedding policies over a vector table.

    Args:
        table: The card and clue vectors (the game's deck must be in it).
        clues_per_card: Candidates of the clue proposer per hand card (at most the vocabulary).
        target_specificity: The storyteller's target z-score (higher: more obvious clues); a
            ``(low, high)`` pair draws a target per tell, uniformly, from the agent's generator
            (a population of storytellers, so that a learner cannot fit one of them).
        temperature: The guesser's vote temperature (``0``: the most similar card).
        second_vote: Whether to consider a second vote where the edition allows one.
        name: The agent's name in records.
    """

    def __init__(self, table: VectorTable, *, clues_per_card: int = 64,
                 target_specificity: float | tuple[float, float] = 1.0,
                 temperature: float = 0.0,
                 second_vote: bool = True, name: str = "embedding") -> None:
        self.table = table
        self.candidates, self.candidate_specificity = clue_candidates(
            table, min(clues_per_card, len(table.clues)))
        self.target_range = specificity_range(target_specificity)
        self.target_specificity = self.target_range[0]
        self.temperature = float(temperature)
        self.second_vote = bool(second_vote)
        self.name = name
        self.seat = 0
        self.rng = np.random.default_rng(0)

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        """Start a game in ``seat`` with the match's generator."""
        self.seat, self.rng = seat, rng

    def tell(self, view: View) -> Story:
        """The (card, clue) of the proposer's candidates closest to the target specificity."""
        rows = self.table.rows(view.hand)
        low, high = self.target_range
        target = low if low == high else float(self.rng.uniform(low, high))
        hand_index, candidate = tell_choices(self.candidate_specificity[rows],
                                             np.ones(len(rows), dtype=bool), target)
        row = rows[int(hand_index)]
        clue = self.table.clues[int(self.candidates[row, int(candidate)])]
        return Story(view.hand[int(hand_index)], clue, "word")

    def play(self, view: View) -> Choice:
        """The hand card(s) most similar to the clue (:func:`decoy_cards`, one row)."""
        table = self.table
        sims = table.card_vectors[table.rows(view.hand)] @ table.clue_vector(view.clue or "")
        picks = np.argsort(-sims, kind="stable")[: view.cards_to_play]
        return Choice(tuple(view.hand[int(i)] for i in picks))

    def vote(self, view: View) -> Choice:
        """The most similar legal board card (:func:`vote_positions`, one row), and a second vote
        where it pays (:func:`second_votes`)."""
        table = self.table
        sims = table.card_vectors[table.rows(view.board)] @ table.clue_vector(view.clue or "")
        legal = np.ones(len(view.board), dtype=bool)
        legal[list(view.team_positions)] = False
        if not legal.any():
            raise ValueError("no board position to vote for")
        if self.temperature > 0:
            first = int(vote_positions(sims, legal, temperature=self.temperature, rng=self.rng))
        else:
            first = int(np.argmax(np.where(legal, sims, -np.inf)))
        votes = [first]
        if self.second_vote and view.max_votes > 1 and legal.sum() > 1:
            rules = view.rules
            second = int(second_votes(sims, legal, first, finder_points=rules.finder_points,
                                      single_vote_bonus=rules.single_vote_bonus))
            if second >= 0:
                votes.append(second)
        return Choice(tuple(votes))

    def describe(self) -> dict[str, Any]:
        """Name, parameters and the vectors' fingerprint."""
        return {"name": self.name, "vectors": self.table.fingerprint,
                "clues_per_card": int(self.candidates.shape[1]),
                "target_specificity": list(self.target_range),
                "temperature": self.temperature, "second_vote": self.second_vote}


def legal_board(board_size: int, own_positions: Sequence[int]) -> Bools:
    """A ``(board_size,)`` mask that forbids ``own_positions``."""
    legal: Bools = np.ones(board_size, dtype=bool)
    legal[list(own_positions)] = False
    return legal
