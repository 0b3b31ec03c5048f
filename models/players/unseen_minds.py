"""What a population storyteller's predictions mean at a table of minds it did not simulate.

A population storyteller in target mode chooses, among thousands of candidate clues, the one its
simulated minds find nearest the target rate. Two things then make the rate a mind it did *not*
simulate finds lower (or higher) than the one it predicted: minds disagree beyond the population's
own spread, and choosing the nearest of many noisy, mind-specific estimates favours clues whose
link to the card the simulated minds overrate (a clue chosen at 0.75 is often one they happen to
share a quirk on). Neither is visible from inside the population.

An :class:`UnseenMindMap` is that correction, measured from outside: a monotone map ``h`` from the
storyteller's prediction (its confirmed guess rate) to the rate an unsimulated mind finds. It is
fitted by **leave-one-mind-out** telling (``scripts/fit_unseen_minds.py``): the storyteller
simulates the population without one member ``m`` (with a population fit made without ``m``'s
votes), tells at a grid of targets, and ``m`` votes on real boards; ``h`` is the isotonic
regression of ``m``'s rate on the prediction, pooled over the members left out. No panel member's
votes are used, and the file records whose votes it is fitted on (``voter_models``) so that the
panel bench can check it (:func:`models.bench.panel.check_held_out`).

A storyteller with a map (``unseen_minds: FILE``) aims its simulated minds at ``h^-1(target)``
instead of the target, and records ``h(prediction)`` as its prediction (the simulated rate stays
in the decision's notes). Where no prediction reaches the target (``target > h(1)``), it aims as
high as it can and says so. The map is fitted for one storyteller configuration (population,
population fit, temperature scale, aim, tolerance, robustness) and refuses another.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from models.players.guess_model import VOTERS_KEY, voter_models

FORMAT = "dixit-ai unseen-minds map v1"
SETTINGS = ("population", "population_calibration_sha256", "population_temperature_scale",
            "aim", "tolerance", "robustness", "table_mix")
"""The storyteller settings a map is fitted under, and checked against when it is loaded."""
MIN_SLOPE = 1e-3
"""The map rises at least this much per unit of prediction, so that it can be inverted: flat
stretches of the isotonic fit (the data cannot tell those predictions apart) are tilted by it."""


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (a population fit, for the settings check)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def isotonic(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weighted isotonic (non-decreasing) regression of ``y`` on ``x`` by pooling adjacent
    violators: ``(knots, values)``, one knot per block at its weighted mean ``x``."""
    order = np.argsort(x, kind="stable")
    x, y, w = x[order], y[order], w[order]
    blocks: list[list[float]] = []  # [sum w, sum w*x, sum w*y]
    for xi, yi, wi in zip(x, y, w, strict=True):
        blocks.append([float(wi), float(wi * xi), float(wi * yi)])
        while len(blocks) > 1 and (blocks[-2][2] / blocks[-2][0]
                                   >= blocks[-1][2] / blocks[-1][0]):
            last = blocks.pop()
            blocks[-1] = [a + b for a, b in zip(blocks[-1], last, strict=True)]
    knots = np.asarray([b[1] / b[0] for b in blocks])
    values = np.asarray([b[2] / b[0] for b in blocks])
    return knots, values


@dataclass(frozen=True)
class UnseenMindMap:
    """A monotone map from a storyteller's prediction to an unsimulated mind's rate.

    Attributes:
        knots: Increasing predictions in [0, 1], the first 0 and the last 1.
        values: The rate an unsimulated mind finds at each knot, strictly increasing, in [0, 1].
        settings: The storyteller settings it was fitted under (:data:`SETTINGS`).
        meta: What it was fitted on (members left out, turns, items, voters, command).
    """

    knots: np.ndarray
    values: np.ndarray
    settings: dict[str, Any] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        knots = np.asarray(self.knots, dtype=np.float64)
        values = np.asarray(self.values, dtype=np.float64)
        if knots.ndim != 1 or knots.shape != values.shape or len(knots) < 2:
            raise ValueError(f"an unseen-minds map needs at least two knots and one value per "
                             f"knot, not {knots.shape} knots and {values.shape} values")
        if not (np.isfinite(knots).all() and np.isfinite(values).all()):
            raise ValueError("an unseen-minds map's knots and values must be finite numbers")
        if knots[0] != 0.0 or knots[-1] != 1.0 or (np.diff(knots) <= 0).any():
            raise ValueError(f"an unseen-minds map's knots must rise strictly from 0 to 1, not "
                             f"{knots.tolist()}")
        if (np.diff(values) <= 0).any() or values[0] < 0.0 or values[-1] > 1.0:
            raise ValueError(f"an unseen-minds map's values must rise strictly within [0, 1], "
                             f"not {values.tolist()}")
        object.__setattr__(self, "knots", knots)
        object.__setattr__(self, "values", values)

    def __call__(self, prediction: Any) -> Any:
        """The rate an unsimulated mind finds where the storyteller predicts ``prediction``."""
        return np.interp(prediction, self.knots, self.values)

    def aim(self, target: float) -> tuple[float, bool]:
        """The prediction to aim the simulated minds at for ``target`` among unsimulated ones,
        and whether the target is within reach (else the nearest end: 0 or 1)."""
        reachable = bool(self.values[0] <= target <= self.values[-1])
        return float(np.interp(target, self.values, self.knots)), reachable

    @classmethod
    def fit(cls, predicted: Sequence[float], observed: Sequence[float],
            weights: Sequence[float] | None = None, *, settings: dict[str, Any] | None = None,
            meta: dict[str, Any] | None = None) -> UnseenMindMap:
        """The isotonic fit of ``observed`` (an unsimulated mind's rate on each turn) on
        ``predicted`` (the storyteller's prediction there), weighted (e.g. by the votes of
        the turn), tilted by :data:`MIN_SLOPE` and extended to 0 and 1 flat.

        Raises:
            ValueError: fewer than two turns, values outside [0, 1], non-finite values or
                weights, or lengths that differ.
        """
        x = np.asarray(predicted, dtype=np.float64)
        y = np.asarray(observed, dtype=np.float64)
        w = np.ones_like(x) if weights is None else np.asarray(weights, dtype=np.float64)
        if not (x.shape == y.shape == w.shape) or x.ndim != 1:
            raise ValueError(f"predicted, observed and weights must be lists of one length, not "
                             f"{x.shape}, {y.shape}, {w.shape}")
        if len(x) < 2:
            raise ValueError(f"an unseen-minds map needs at least two turns, not {len(x)}")
        for name, v in (("predicted", x), ("observed", y)):
            if not np.isfinite(v).all() or (v < 0).any() or (v > 1).any():
                raise ValueError(f"{name} rates must be finite and within [0, 1]")
        if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
            raise ValueError("weights must be finite, at least 0 and not all 0")
        keep = w > 0
        knots, values = isotonic(x[keep], y[keep], w[keep])
        inner = (knots > 0) & (knots < 1)
        knots = np.concatenate([[0.0], knots[inner], [1.0]])
        values = np.concatenate([[values[0]], values[inner], [values[-1]]])
        values = np.maximum.accumulate(values) + MIN_SLOPE * knots
        values = np.clip(values, 0.0, 1.0)
        if (np.diff(values) <= 0).any():  # clipped at 1 (or 0): tilt the end down instead
            values = np.minimum(values, 1.0 - MIN_SLOPE * (1.0 - knots))
        return cls(knots, values, dict(settings or {}), dict(meta or {}))

    def check_settings(self, settings: dict[str, Any], where: str) -> None:
        """Refuse a storyteller whose settings differ from those the map was fitted under.

        Raises:
            ValueError: a setting differs or is missing; the message names it and both values.
        """
        for key in SETTINGS:
            mine, theirs = self.settings.get(key), settings.get(key)
            if mine != theirs:
                raise ValueError(
                    f"{where}: the unseen-minds map was fitted for {key} = {mine!r}, and this "
                    f"storyteller has {theirs!r}: a map holds only for the storyteller it was "
                    "fitted with (scripts/fit_unseen_minds.py fits one for yours)")

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "knots": [round(float(k), 6) for k in self.knots],
                "values": [round(float(v), 6) for v in self.values],
                "settings": self.settings, **self.meta}

    def save(self, path: str | Path) -> None:
        """Write it as JSON, atomically (the voters it was fitted on go in ``meta``)."""
        from dixit_ai.files import atomic_writer

        if VOTERS_KEY not in self.meta:
            raise ValueError(f"an unseen-minds map must record the voters it was fitted on "
                             f"({VOTERS_KEY!r} in meta)")
        with atomic_writer(path) as out:
            out.write(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> UnseenMindMap:
        """Read a map written by :meth:`save`.

        Raises:
            OSError: the file cannot be read.
            ValueError: not such a map (wrong format, missing or bad knots, values, settings
                or voters); the message names the file.
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"{path} is not an unseen-minds map: not valid JSON ({error})"
                             ) from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{path} is not an unseen-minds map (format {found!r}, expected "
                             f"{FORMAT!r})")
        if voter_models(data, path) is None:
            raise ValueError(f"{path}: an unseen-minds map must record the voters it was "
                             f"fitted on ({VOTERS_KEY!r})")
        if not isinstance(data.get("settings"), dict):
            raise ValueError(f"{path}: an unseen-minds map records the settings it was fitted "
                             "under ('settings': an object)")
        meta = {k: v for k, v in data.items()
                if k not in ("format", "knots", "values", "settings")}
        try:
            return cls(np.asarray(data.get("knots"), dtype=np.float64),
                       np.asarray(data.get("values"), dtype=np.float64), data["settings"], meta)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{path}: {error}") from None
