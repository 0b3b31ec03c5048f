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
             unseen_sims: np.ndarray | None = None, *,
             clue: str | None = None) -> tuple[list[int], dict[str, Any]]:
        """Indices of the ``count`` hand cards to play, best first, and notes.

        Args:
            hand_sims: Similarity of each hand card to the clue.
            count: Cards to play (1, or 2 in some 3-player games).
            unseen_sims: Similarity of the cards this seat has not seen (for ``bluff``).
            clue: The clue, named in the error when a similarity is not finite.

        Raises:
            ValueError: a similarity (of a hand card, or of an unseen card when they are used)
                is NaN or infinite: a broken embedding, from which sorting would quietly play
                the first hand card.
        """
        sims = np.asarray(hand_sims, dtype=np.float64)
        about = f" to the clue {clue!r}" if clue is not None else " to the clue"
        bad = ~np.isfinite(sims)
        if bad.any():
            indices = ", ".join(str(int(i)) for i in np.flatnonzero(bad))
            raise ValueError(f"the decoy picker's similarities{about} are not finite "
                             f"({', '.join(str(v) for v in sims[bad][:3])}) for hand card(s) "
                             f"{indices} (hand order): no card can be chosen from them")
        scores = sims.copy()
        info: dict[str, Any] = {}
        if self.bluff > 0 and unseen_sims is not None and len(unseen_sims):
            unseen = np.asarray(unseen_sims, dtype=np.float64)
            if not np.isfinite(unseen).all():
                raise ValueError(f"the decoy picker's similarities of the unseen cards{about} "
                                 f"are not finite ({int((~np.isfinite(unseen)).sum())} of "
                                 f"{len(unseen)}): no bluff threshold can be set from them")
            threshold = float(np.quantile(unseen_sims, 0.9))
            scores = sims - 2.0 * self.bluff * np.maximum(0.0, sims - threshold)
            info["bluff_threshold"] = round(threshold, 4)
        order = np.argsort(-scores, kind="stable")[:count]
        info["similarities"] = [round(float(sims[i]), 4) for i in order]
        return [int(i) for i in order], info
