"""Seeds for the environments' games, and the integer check their arguments share."""

from __future__ import annotations

import numpy as np


def int_like(value: object) -> int | None:
    """``value`` as an int when it is an integer (Python, NumPy, 0-d array), else ``None``."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    return None


class SeedSource:
    """Per-game seeds for ``reset``: ``reset(seed=s)`` plays the game that ``play_game(seed=s)``
    plays; a later ``reset()`` without a seed plays the next game of a sequence derived from ``s``
    (fresh entropy if no seed was ever given).
    """

    def __init__(self) -> None:
        self.base: int | None = None
        self.count = 0

    def next(self, seed: int | None) -> int:
        """The seed of the next game.

        Raises:
            ValueError: ``seed`` is not ``None`` or a non-negative int.
        """
        if seed is not None:
            value = int_like(seed)
            if value is None or value < 0:
                raise ValueError(f"seed must be None or a non-negative int, not {seed!r}")
            self.base, self.count = value, 0
            return value
        if self.base is None:
            self.base, self.count = _draw_seed(np.random.SeedSequence()), 0
            return self.base
        self.count += 1
        return _draw_seed(np.random.SeedSequence([self.base, self.count]))


def _draw_seed(sequence: np.random.SeedSequence) -> int:
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
