"""Small helpers for the rules' hot path (every step of every game goes through them)."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def is_int(value: object) -> bool:
    """Whether ``value`` is an integer id or position: a Python or numpy int, never a bool."""
    if type(value) is int:
        return True
    return not isinstance(value, bool) and isinstance(value, int | np.integer)


def build_frozen(cls: type[T], fields: dict[str, Any]) -> T:
    """An instance of the frozen dataclass ``cls`` holding ``fields``, without its ``__init__``.

    ``dataclasses.replace`` and the generated ``__init__`` set each field through
    ``object.__setattr__``; on the per-step path that costs more than the rest of the step.
    ``fields`` must name every field of ``cls``.
    """
    instance = object.__new__(cls)
    object.__setattr__(instance, "__dict__", fields)
    return instance
