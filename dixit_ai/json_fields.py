"""Where a value strict JSON cannot write is: the field named, for a message that says what to
mend (``describe()['temp'] is a numpy float32 (0.5); ... convert it with float(x)``)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np


def json_problem(value: Any, path: str) -> str | None:
    """Why strict JSON (``allow_nan=False``) cannot write ``value`` as it is, naming the field
    below ``path`` (``describe()['model']['temp']``), or ``None``."""
    if value is None or isinstance(value, str | int):  # bool is an int
        return None
    if isinstance(value, float):  # numpy's float64 too: json writes it as a float
        return None if math.isfinite(value) else f"{path} is {value!r}, which JSON cannot hold"
    if isinstance(value, np.generic):
        hint = "float(x)" if isinstance(value, np.floating) else "x.item()"
        return (f"{path} is a numpy {type(value).__name__} ({value!r}); JSON takes plain "
                f"Python values: convert it with {hint}")
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            problem = json_problem(item, f"{path}[{index}]")
            if problem is not None:
                return problem
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # a record is written through dataclasses.asdict, which turns one into its fields
        return json_problem(dataclasses.asdict(value), path)
    if isinstance(value, dict):
        for key in value:  # json writes these keys as text; anything else it refuses
            if not (key is None or isinstance(key, str | int | float)):
                return (f"{path} has the key {shown(key)} ({type(key).__name__}): JSON keys "
                        "are text, numbers, booleans or None")
        kinds = {type(key) for key in value}
        if len(kinds) > 1 and not kinds <= {int, float, bool}:
            return (f"{path} mixes keys of the types {', '.join(sorted(k.__name__ for k in kinds))}"
                    ": a record sorts its keys, and these cannot be compared")
        for key, item in value.items():
            problem = json_problem(item, f"{path}[{key!r}]")
            if problem is not None:
                return problem
        return None
    return (f"{path} is a {type(value).__name__} ({shown(value)}), which JSON cannot hold: "
            "give numbers, text, booleans, None, lists or dicts")


def shown(value: Any, limit: int = 80) -> str:
    """``repr(value)`` as a message shows it: at most ``limit`` characters, a long one cut
    (ending ``...``)."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
