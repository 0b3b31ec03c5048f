"""The guess model: how a simulated guesser votes, and its fitted parameters read from a file.

**Guess model.** A simulated guesser who sees a board votes for board card ``j`` with
probability ``softmax_j(sim(clue, j) / temperature + bias * [j is the storyteller's card])``
over the cards it may vote for. ``temperature`` says how sharply guessers follow similarity;
``bias`` (a logit) says how much more (``> 0``) or less (``< 0``) often real guessers find the
storyteller's card than similarity alone predicts. Both are fitted to recorded games by
:func:`models.players.calibration.fit_guess_model`.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GuessModel:
    """A calibrated softmax over similarities (see the module docstring).

    Attributes:
        temperature: Softmax temperature over cosine similarities (``> 0``).
        bias: Logit added to the storyteller's card.
        correlation: How much of the voters' noise is shared within a round, in ``[0, 1]``
            (``1``: one reading of the board for every voter; ``0``: independent voters).
    """

    temperature: float = 0.03
    bias: float = 0.0
    correlation: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.temperature < math.inf:
            raise ValueError(f"temperature must be a positive finite number, not "
                             f"{self.temperature}")
        if not math.isfinite(self.bias):
            raise ValueError(f"bias must be a finite number, not {self.bias}")
        if not 0.0 <= self.correlation <= 1.0:
            raise ValueError(f"correlation must be in [0, 1], not {self.correlation}")

    def scaled(self, factor: float) -> GuessModel:
        """This model with its temperature times ``factor`` (below 1: sharper votes).

        Raises:
            ValueError: ``factor`` is not a positive finite number (:func:`temperature_scale`).
        """
        return replace(self, temperature=self.temperature * temperature_scale(factor))

    def save(self, path: str | Path, **extra: object) -> None:
        """Write the parameters (and ``extra`` notes) as JSON, atomically (a temporary file in
        the same folder, then a rename: a failed write leaves the old file, never half of one).
        """
        from dixit_ai.reporting import write_json

        write_json(path, {**asdict(self), **extra})

    @classmethod
    def load(cls, path: str | Path) -> GuessModel:
        """Read parameters written by :meth:`save` (other keys are ignored; a file without a
        ``correlation`` gets the default, shared votes).

        Raises:
            OSError: the file cannot be read.
            ValueError: it is not a guess-model file (not JSON, no ``temperature``, another
                kind of file such as a population fit) or a parameter is out of range (a
                temperature not positive and finite, a bias not finite, a correlation outside
                [0, 1]); the message names the file.
        """
        data = _read_guess_file(path)
        if "temperature" not in data:
            kind = (f"a {data['format']!r} file, " if isinstance(data.get("format"), str)
                    else "")
            raise ValueError(f"{path} is not a guess-model file: {kind}it has no 'temperature' "
                             "key (a guess-model file holds temperature, bias and correlation)")
        values = []
        for key, default in (("temperature", None), ("bias", 0.0), ("correlation", 1.0)):
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{path}: {key} must be a number, not {value!r}")
            values.append(float(value))
        try:
            return cls(*values)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    @staticmethod
    def fitted_for(path: str | Path) -> str | None:
        """The embedder fingerprint a calibration file was fitted for (``None``: not said).

        Raises:
            ValueError: the file does not hold a JSON object; the message names it.
        """
        value = _read_guess_file(path).get("embedder")
        return None if value is None else str(value)

    def vote_probabilities(self, sims: np.ndarray, storyteller_index: int | None = None
                           ) -> np.ndarray:
        """Probabilities over the cards a guesser may vote for, given their similarities."""
        logits = np.asarray(sims, dtype=np.float64) / self.temperature
        if storyteller_index is not None:
            logits[storyteller_index] += self.bias
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()


VOTERS_KEY = "voter_models"
"""The key of a fitted file (a guess model, a population fit, a policy checkpoint) that names the
voters whose votes it was fitted on: a list of ``{"fingerprint": embedder fingerprint or null (a
person, an agent on no embedder), "name": the voter's agent name}``. A storyteller whose
simulation uses a file fitted on a panel member's votes is not held out from that member
(:func:`models.bench.panel.check_held_out`)."""


def voter_models(data: dict[str, Any], path: str | Path) -> list[dict[str, Any]] | None:
    """The voters a fitted file's JSON object (``data``, read from ``path``) records under
    :data:`VOTERS_KEY` (``None``: the file does not say).

    Raises:
        ValueError: the record is not a list of objects with a ``fingerprint`` (text or null)
            and a ``name`` (text); the message names the file and the entry.
    """
    if VOTERS_KEY not in data:
        return None
    entries = data[VOTERS_KEY]
    if not isinstance(entries, list):
        raise ValueError(f"{path}: {VOTERS_KEY} must be a list of voters "
                         f'({{"fingerprint", "name"}}), not {entries!r}')
    for entry in entries:
        fingerprint = entry.get("fingerprint", 0) if isinstance(entry, dict) else 0
        if (not isinstance(entry, dict) or not isinstance(entry.get("name"), str)
                or not (fingerprint is None or isinstance(fingerprint, str))):
            raise ValueError(f"{path}: {VOTERS_KEY} entry {entry!r} is not a voter: it needs a "
                             '"fingerprint" (the embedder fingerprint, or null) and a "name"')
    return [{"fingerprint": e["fingerprint"], "name": e["name"]} for e in entries]


def fitted_file_voters(path: str | Path) -> list[dict[str, Any]] | None:
    """The voters any fitted JSON file (a guess model, a population fit, a policy checkpoint)
    records it was fitted on (:func:`voter_models`; ``None``: it does not say).

    Raises:
        OSError: the file cannot be read.
        ValueError: not a JSON object, or a malformed record; the message names the file.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a fitted file: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a fitted file: it holds a JSON "
                         f"{type(data).__name__}, not an object")
    return voter_models(data, path)


def _read_guess_file(path: str | Path) -> dict[str, Any]:
    """The JSON object in a guess-model file.

    Raises:
        ValueError: the file is not JSON or not an object; the message names it.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not a guess-model file: not valid JSON ({error})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a guess-model file: not UTF-8 text") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a guess-model file: it holds a JSON "
                         f"{type(data).__name__}, not an object")
    return data


def temperature_scale(value: object, what: str = "a temperature scale") -> float:
    """``value`` as a factor on guess-model temperatures.

    Raises:
        ValueError: ``value`` is not a positive finite number; the message names ``what``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            0 < value < math.inf):
        raise ValueError(f"{what} must be a positive finite number, not {value!r}")
    return float(value)
