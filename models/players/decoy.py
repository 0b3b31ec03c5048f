"""The decoy picker: plays the hand card(s) most likely to draw votes for the clue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class DecoyPicker:
    """Plays the hand cards most similar to the clue, with a ``bluff`` knob.

    With ``bluff = 0`` the picker plays its most similar card(s). With ``bluff > 0`` a card that
    is *too* obvious is held back: similarity above ``threshold`` (the 90th percentile of the
    similarity of the cards this seat has not seen, a stand-in for the storyteller's card) is
    penalised, ``score = sim - 2 * bluff * max(0, sim - threshold)``, so at ``bluff = 1`` a
    card far above what the storyteller's card probably scores ranks below a plausible one.

    Attributes:
        bluff: In ``[0, 1]``: how much a too-obvious card is held back.
    """

    bluff: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.bluff <= 1.0:
            raise ValueError(f"bluff must be in [0, 1], not {self.bluff}")

    def pick(self, hand_sims: np.ndarray, count: int,
             unseen_sims: np.ndarray | None = None) -> tuple[list[int], dict[str, Any]]:
        """Indices of the ``count`` hand cards to play, best first, and notes.

        Args:
            hand_sims: Similarity of each hand card to the clue.
            count: Cards to play (1, or 2 in some 3-player games).
            unseen_sims: Similarity of the cards this seat has not seen (for ``bluff``).
        """
        sims = np.asarray(hand_sims, dtype=np.float64)
        scores = sims.copy()
        info: dict[str, Any] = {}
        if self.bluff > 0 and unseen_sims is not None and len(unseen_sims):
            threshold = float(np.quantile(unseen_sims, 0.9))
            scores = sims - 2.0 * self.bluff * np.maximum(0.0, sims - threshold)
            info["bluff_threshold"] = round(threshold, 4)
        order = np.argsort(-scores, kind="stable")[:count]
        info["similarities"] = [round(float(sims[i]), 4) for i in order]
        return [int(i) for i in order], info
