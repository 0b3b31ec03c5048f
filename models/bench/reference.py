"""The reference population that the decoy and tell tasks measure against.

Reference players are the project's embedding-model players on one embedder (``default`` unless
the run says otherwise), with the guess model fitted by ``scripts/fit_calibration.py``
(``models/data/guess_model.json``):

* a reference player with a hand plays as decoy its hand card most similar to the clue (the decoy
  picker with ``bluff = 0``);
* a reference guesser votes by the calibrated softmax over the similarities of the board cards
  it may vote for (never its own card), ``softmax(sim / temperature + bias * [storyteller's
  card])``. Votes are not sampled: each guesser's vote probabilities are used as they are, and
  each item averages over ``reference_deals`` seeded deals of the reference players' hands.

So a decoy's *vote share* is the expected fraction of reference guessers that vote for it, and a
story's *observed guess rate* the expected fraction that find the storyteller's card; its
*success* the probability that some but not all of them do (guessers vote independently given
the deal). A storyteller built on the reference embedder plays on home ground here: say so when
comparing it with others.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from models.players.simulation import GuessModel


def embed_clues(embedder: Any, clues: Sequence[str], who: str) -> np.ndarray:
    """Embed ``clues`` through the cache, a model's failure named.

    A model that raises while embedding (a torch error, a GPU out of memory) is an
    :class:`~models.base.EmbedderError` naming ``who`` and the error, which the CLI reports in
    one line (a failed run once the records began, exit 1; bad input before), not a traceback.
    """
    from models.base import EmbedderError
    from models.cache import embed_texts_cached

    try:
        return embed_texts_cached(embedder, list(clues), progress=False)
    except (EmbedderError, MemoryError):
        raise
    except Exception as error:
        raise EmbedderError(f"{who} failed to embed {len(clues)} clue(s): "
                            f"{type(error).__name__}: {error}") from error


class ReferencePopulation:
    """Card vectors of the deck, clue vectors, and the calibrated guess model.

    Args:
        embedder: The reference embedder.
        deck: The benchmark's deck.
        model: The guess model (default: the fitted one shipped with the players).
    """

    def __init__(self, embedder: Any, deck: Any, model: GuessModel | None = None) -> None:
        from models.cache import embed_deck
        from models.players.guess_files import load_guess_model

        self.embedder = embedder
        self.model = model or load_guess_model("default", None, None)[0]
        self.fitted_for: str | None = None
        """The embedder fingerprint the shipped guess model was fitted for (``None``: a guess
        model given by the caller, which says nothing about its fit)."""
        if model is None:
            from models.players.guess_files import calibration_path

            path = calibration_path("default")
            self.fitted_for = GuessModel.fitted_for(path) if path is not None else None
        ids = [int(c) for c in deck.card_ids]
        self._row = {card: i for i, card in enumerate(ids)}
        self.card_vectors = embed_deck(embedder, deck, ids, progress=False)
        self._clues: dict[str, np.ndarray] = {}

    @property
    def calibrated(self) -> bool | None:
        """Whether the guess model was fitted for this embedder (``None``: not known). On
        another embedder its temperature and bias are on another similarity scale."""
        if self.fitted_for is None:
            return None
        return bool(self.fitted_for == self.embedder.fingerprint)

    def describe(self) -> dict[str, Any]:
        return {"embedder": self.embedder.name, "fingerprint": self.embedder.fingerprint,
                "guess_model": {"temperature": self.model.temperature, "bias": self.model.bias,
                                "fitted_for": self.fitted_for,
                                "calibrated": self.calibrated}}

    def prepare(self, clues: Sequence[str]) -> None:
        """Embed clues (through the cache) before items ask for them, in one batch."""
        missing = [c for c in dict.fromkeys(clues) if c not in self._clues]
        if missing:
            vectors = embed_clues(self.embedder, missing,
                                  f"the reference population ({self.embedder.name})")
            self._clues.update(zip(missing, vectors, strict=True))

    def similarities(self, clue: str, cards: Sequence[int]) -> np.ndarray:
        """Cosine similarity of ``cards`` to ``clue``."""
        self.prepare([clue])
        rows = [self._row[int(c)] for c in cards]
        return np.asarray(self.card_vectors[rows] @ self._clues[clue], dtype=np.float64)

    def best_decoy(self, clue: str, hand: Sequence[int]) -> int:
        """The card a reference player plays as decoy."""
        return int(hand[int(np.argmax(self.similarities(clue, hand)))])

    def vote_probabilities(self, clue: str, board: Sequence[int], storyteller_card: int,
                           own: int) -> dict[int, float]:
        """A reference guesser's vote probabilities over the board cards other than ``own``."""
        cards = [c for c in board if c != own]
        sims = self.similarities(clue, cards)
        index = cards.index(storyteller_card) if storyteller_card in cards else None
        probabilities = self.model.vote_probabilities(sims, index)
        return {card: float(p) for card, p in zip(cards, probabilities, strict=True)}

    def decoy_outcome(self, clue: str, storyteller_card: int, candidate: int,
                      deals: Sequence[Sequence[Sequence[int]]]) -> tuple[float, float]:
        """``(vote share, probability of drawing at least one vote)`` of a decoy ``candidate``.

        The model's decoy lies on a board with the storyteller's card and the reference
        players' decoys; the reference players are the guessers.
        """
        shares, any_vote = [], []
        for hands in deals:
            decoys = [self.best_decoy(clue, hand) for hand in hands]
            board = [storyteller_card, candidate, *decoys]
            p = np.array([self.vote_probabilities(clue, board, storyteller_card, own)[candidate]
                          for own in decoys])
            shares.append(p.mean())
            any_vote.append(1.0 - np.prod(1.0 - p))
        return float(np.mean(shares)), float(np.mean(any_vote))

    def story_outcome(self, clue: str, card: int, deals: Sequence[Sequence[Sequence[int]]]
                      ) -> tuple[float, float]:
        """``(observed guess rate, success probability)`` of telling ``card`` with ``clue``."""
        rates, successes = [], []
        for hands in deals:
            decoys = [self.best_decoy(clue, hand) for hand in hands]
            board = [card, *decoys]
            p = np.array([self.vote_probabilities(clue, board, card, own)[card]
                          for own in decoys])
            rates.append(p.mean())
            successes.append(1.0 - np.prod(p) - np.prod(1.0 - p))
        return float(np.mean(rates)), float(np.mean(successes))
