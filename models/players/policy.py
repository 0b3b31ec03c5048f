"""A learned clue-choice policy: a softmax over candidate clues, linear in their features.

The storyteller scores every (hand card, clue) by simulation; the policy looks at a shortlist
(the ``shortlist`` candidates with the highest expected points) and picks one with probability
``softmax(features @ weights)``. :mod:`scripts.train_storyteller` learns the weights with
REINFORCE; :meth:`LinearCluePolicy.save` writes the checkpoint that agents load
(``policy: PATH`` in an agent's configuration).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from models.players.simulation import SimulationResult

FEATURES: tuple[str, ...] = (
    "guess_rate", "guess_rate_spread", "expected_points", "success_rate", "decoy_gap",
    "card_similarity", "clue_words", "pair_clue", "bias",
)
"""Feature names, in the order of :func:`candidate_features`' columns."""


def candidate_features(result: SimulationResult, hand_sims: np.ndarray, cards: np.ndarray,
                       clues: np.ndarray, clue_words: np.ndarray, is_pair: np.ndarray
                       ) -> np.ndarray:
    """``(n, len(FEATURES))`` features of the candidates ``(cards[i], clues[i])``.

    Args:
        result: The simulation over every hand card and clue.
        hand_sims: ``(h, K)`` similarities.
        cards: Hand indices of the candidates.
        clues: Clue indices of the candidates.
        clue_words: Words per clue, ``(K,)``.
        is_pair: Whether each clue is a composed pair, ``(K,)``.
    """
    rate = result.guess_rate[cards, clues]
    return np.stack([
        rate,
        rate * (1.0 - rate) * 4.0,
        result.expected_points[cards, clues] / 3.0,
        result.success_rate[cards, clues],
        result.decoy_gap[cards, clues] * 10.0,
        hand_sims[cards, clues] * 10.0,
        clue_words[clues] / 3.0,
        is_pair[clues].astype(np.float64),
        np.ones(len(cards)),
    ], axis=1).astype(np.float64)


@dataclass
class LinearCluePolicy:
    """``softmax(features @ weights)`` over a shortlist of candidates.

    Attributes:
        weights: One weight per feature of :data:`FEATURES`.
        shortlist: How many candidates (best expected points first) the policy chooses among.
        greedy: Pick the most probable candidate instead of sampling (evaluation).
    """

    weights: np.ndarray = field(default_factory=lambda: np.zeros(len(FEATURES)))
    shortlist: int = 32
    greedy: bool = True

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """The policy's probabilities over the rows of ``features``."""
        logits = features @ self.weights
        logits = logits - logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()

    def choose(self, features: np.ndarray, rng: np.random.Generator) -> int:
        """The index of the chosen row.

        Raises:
            ValueError: a probability is not finite (NaN or infinite features or weights):
                ``argmax`` would quietly pick row 0, the shortlist's best expected points.
        """
        with np.errstate(invalid="ignore", over="ignore"):  # refused just below, by name
            probabilities = self.probabilities(features)
        bad = ~np.isfinite(probabilities)
        if bad.any():
            rows = ", ".join(str(int(i)) for i in np.flatnonzero(bad)[:10])
            raise ValueError(f"the clue policy's probabilities are not finite for "
                             f"{int(bad.sum())} of {len(probabilities)} candidates (rows "
                             f"{rows}): no candidate can be chosen from them")
        if self.greedy:
            return int(np.argmax(probabilities))
        return int(rng.choice(len(probabilities), p=probabilities))

    def save(self, path: str | Path, **extra: object) -> None:
        """Write the checkpoint (JSON: features, weights, shortlist, notes), atomically (a
        temporary file in the same folder, then a rename: a failed write leaves the old file,
        never half of one)."""
        from dixit_ai.reporting import write_text

        write_text(path, json.dumps({
            "features": list(FEATURES), "weights": [float(w) for w in self.weights],
            "shortlist": self.shortlist, **extra}, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path, greedy: bool = True) -> LinearCluePolicy:
        """Read a checkpoint written by :meth:`save`.

        Raises:
            ValueError: the checkpoint's features are not :data:`FEATURES`, or a weight is NaN
                or infinite (a diverged training run); the message names the file.
        """
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if tuple(data["features"]) != FEATURES:
            raise ValueError(f"{path}: features {data['features']} are not {list(FEATURES)}")
        weights = np.asarray(data["weights"], dtype=np.float64)
        bad = ~np.isfinite(weights)
        if bad.any():
            names = ", ".join(f"{FEATURES[i]}={weights[i]}" for i in np.flatnonzero(bad)
                              if i < len(FEATURES))
            raise ValueError(f"{path}: the policy's weights are not finite ({names}); the "
                             "checkpoint cannot be used (a diverged training run?)")
        return cls(weights, int(data["shortlist"]), greedy)
