"""Work arrays of the storyteller's simulations (:mod:`models.players.simulation`,
:mod:`models.players.second_vote`, :mod:`models.players.population`): float32 buffers reused
across the decisions of a thread, and the floor that keeps their probabilities off 0."""

from __future__ import annotations

import threading

import numpy as np

FLOOR = np.float32(1e-15)
"""Products of probabilities are kept above this (normal float32 numbers, error 1e-15)."""

_arrays: dict[tuple[str, tuple[int, ...]], np.ndarray] = {}
_arrays_lock = threading.Lock()


def work_array(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """A float32 work array reused across calls of this thread (fresh large arrays cost page
    faults on every decision)."""
    key = (f"{name}-{threading.get_ident()}", shape)
    with _arrays_lock:
        if key not in _arrays:
            if len(_arrays) > 64:
                _arrays.clear()
            _arrays[key] = np.empty(shape, dtype=np.float32)
        return _arrays[key]
