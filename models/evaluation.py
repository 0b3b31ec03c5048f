"""Retrieval benchmarks of embedders on dream cards, and on photographs and illustrations.

Dream boards (the models issue's table): for each held-out card (the *target*), draw boards of
``board_size`` cards whose other cards share no object with the target; a clue is right on a
board when the target is the board card most similar to it. Three kinds of clue:

* ``caption``: the card's full caption;
* ``object``: one of the card's object names alone (``"whale"``);
* ``association``: a hand-written association of one of its objects that occurs in no caption
  (``models/data/associations.json``).

Accuracy is the mean over targets of the fraction of their boards won; its 95% interval is a
percentile bootstrap over targets (boards of one target are not independent). Chance is
``1 / board_size``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

QUERY_KINDS = ("caption", "object", "association")
TIE = 1e-7
"""Cosines this close are a tie: top-1 and the reciprocal rank share the point among them."""


@dataclass(frozen=True)
class TargetRank:
    """Where the target stands among the scores, ties shared as random order would share them.

    Attributes:
        rank: 1 + the cards scored above the target (beyond :data:`TIE`).
        top1: The expected top-1 point: ``1 / k`` when the target is among ``k`` cards tied
            first, else 0.
        reciprocal_rank: The expected ``1 / rank`` over random orders of the cards tied with
            the target (a model that scores every card alike gets ``H(n) / n``, not 1).
    """

    rank: int
    top1: float
    reciprocal_rank: float


def target_rank(scores: np.ndarray, target: int) -> TargetRank:
    """:class:`TargetRank` of ``scores[target]`` among ``scores``."""
    own = float(scores[target])
    above = int((scores > own + TIE).sum())
    level = int((np.abs(scores - own) <= TIE).sum())  # the target and the cards tied with it
    reciprocal = float(np.mean([1.0 / r for r in range(above + 1, above + level + 1)]))
    return TargetRank(rank=above + 1, top1=1.0 / level if above == 0 else 0.0,
                      reciprocal_rank=reciprocal)


def load_associations() -> dict[str, list[str]]:
    """The hand-written object-to-association list (object name -> associations)."""
    text = (resources.files("models") / "data" / "associations.json").read_text("utf-8")
    return dict(json.loads(text)["associations"])


@dataclass(frozen=True)
class Board:
    """One board: the target's index, the distractors' indices and the clue."""

    target: int
    distractors: tuple[int, ...]
    kind: str
    clue: str


def object_names(description: dict[str, Any]) -> list[str]:
    """The names of the objects a dream card shows."""
    return [entry["name"] for entry in description["objects"]]


def descriptions_of(deck: Any) -> list[dict[str, Any]]:
    """Each card's structured description, in deck order (the boards and object names of
    training and evaluation need dream decks, whose every card has one).

    Raises:
        ValueError: a card has none (the message names the deck and the card).
    """
    out = []
    for card in deck.card_ids:
        description = deck.description(card)
        if description is None:
            raise ValueError(f"deck {deck.name}: card {card} has no description (boards and "
                             "object names need a dream deck)")
        out.append(description)
    return out


def make_boards(
    descriptions: Sequence[dict[str, Any]],
    captions: Sequence[Sequence[str]],
    *,
    seed: int,
    boards_per_query: int = 20,
    board_size: int = 6,
    associations: dict[str, list[str]] | None = None,
) -> list[Board]:
    """Draw the boards of every target and every kind of clue (seeded).

    The same distractors serve the three kinds of clue of one target, so the rows of the table
    are paired. A target without an object in the association list has no association boards.
    """
    associations = load_associations() if associations is None else associations
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xB0A2D]))
    objects = [set(object_names(d)) for d in descriptions]
    n = len(descriptions)
    boards: list[Board] = []
    for target in range(n):
        candidates = np.array(
            [j for j in range(n) if j != target and not (objects[j] & objects[target])]
        )
        if len(candidates) < board_size - 1:
            continue
        names = object_names(descriptions[target])
        associated = [name for name in names if associations.get(name)]
        for _ in range(boards_per_query):
            chosen = rng.choice(candidates, size=board_size - 1, replace=False)
            distractors = tuple(int(j) for j in chosen)
            name = names[int(rng.integers(len(names)))]
            boards.append(Board(target, distractors, "caption", captions[target][0]))
            boards.append(Board(target, distractors, "object", name))
            if associated:
                source = associated[int(rng.integers(len(associated)))]
                options = associations[source]
                clue = options[int(rng.integers(len(options)))]
                boards.append(Board(target, distractors, "association", clue))
    return boards


def bootstrap_interval(
    per_target: np.ndarray, *, seed: int = 0, resamples: int = 2000
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of the mean of per-target accuracies."""
    rng = np.random.default_rng(seed)
    n = len(per_target)
    means = per_target[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def score_boards(
    boards: Sequence[Board],
    card_vectors: np.ndarray,
    embed_texts: Callable[[list[str]], np.ndarray],
    *,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """Accuracy per kind of clue, with 95% intervals.

    Args:
        boards: From :func:`make_boards`.
        card_vectors: ``(n, d)`` normalised vectors of the cards (images, or captions for the
            text-only oracle).
        embed_texts: Embeds clues into the same space.
        seed: Seed of the bootstrap.

    Returns:
        ``{kind: {"accuracy", "low", "high", "targets", "boards", "chance"}}`` and, under
        ``"_boards"``, one ``[kind, target, distractors..., clue, won]`` row per board (the
        record from which every figure can be recomputed).
    """
    clues = sorted({board.clue for board in boards})
    clue_vectors = embed_texts(clues)
    clue_index = {clue: i for i, clue in enumerate(clues)}
    results: dict[str, dict[str, Any]] = {}
    rows: list[list[Any]] = []
    for kind in QUERY_KINDS:
        wins: dict[int, list[float]] = {}
        for board in boards:
            if board.kind != kind:
                continue
            cards = [board.target, *board.distractors]
            similarity = card_vectors[cards] @ clue_vectors[clue_index[board.clue]]
            won = target_rank(similarity, 0).top1
            wins.setdefault(board.target, []).append(won)
            rows.append([kind, board.target, *board.distractors, board.clue, won])
        if not wins:
            continue
        per_target = np.array([np.mean(v) for v in wins.values()])
        low, high = bootstrap_interval(per_target, seed=seed)
        board_size = 1 + len(next(b for b in boards if b.kind == kind).distractors)
        results[kind] = {
            "accuracy": float(per_target.mean()),
            "low": low,
            "high": high,
            "targets": len(per_target),
            "boards": int(sum(len(v) for v in wins.values())),
            "chance": 1.0 / board_size,
        }
    results["_boards"] = {"columns": ["kind", "target", "distractors...", "clue", "won"],
                          "rows": rows}
    return results


# --------------------------------------------------------------- photographs and illustrations


def photo_set_path() -> Path:
    """Folder of the small public-domain photo and illustration set (``models/data/photos``)."""
    return Path(str(resources.files("models") / "data" / "photos"))


def load_photo_set() -> list[dict[str, Any]]:
    """The photo set's entries: ``file``, ``category``, ``kind``, ``caption``, ``source``,
    ``license``; images are opened by the caller from :func:`photo_set_path`."""
    index = json.loads((photo_set_path() / "index.json").read_text("utf-8"))
    return list(index["images"])


def caption_retrieval(
    image_vectors: np.ndarray, caption_vectors: np.ndarray, *, seed: int = 0
) -> dict[str, Any]:
    """Caption-to-image retrieval among a small set: top-1 accuracy, mean reciprocal rank.

    Caption ``i`` describes image ``i``; each caption ranks all images. Ties are shared
    (:func:`target_rank`): images a model cannot tell apart score chance, not a win.

    Returns:
        ``{"top1", "low", "high", "mrr", "n", "chance", "ranks"}`` (ranks 1-based).
    """
    similarity = caption_vectors @ image_vectors.T
    standings = [target_rank(row, i) for i, row in enumerate(similarity)]
    top1 = np.array([standing.top1 for standing in standings])
    low, high = bootstrap_interval(top1, seed=seed)
    return {
        "top1": float(top1.mean()),
        "low": low,
        "high": high,
        "mrr": float(np.mean([standing.reciprocal_rank for standing in standings])),
        "n": len(standings),
        "chance": 1.0 / len(standings),
        "ranks": [standing.rank for standing in standings],
    }
