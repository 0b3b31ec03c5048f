"""The population fit file: each simulated mind's guess model, fitted from cross-play records.

A population storyteller (:mod:`models.players.population`) simulates each opponent as a member
of a population of embedders, each with its own guess model (temperature and bias) fitted by
:func:`models.players.calibration.fit_population` and written by ``scripts/fit_calibration.py``.
Here are that file (:class:`PopulationFit`, format :data:`POPULATION_FORMAT`), the fits that
ship (:data:`SHIPPED_POPULATION_FILES`), and loading one by name or path
(:func:`load_population_fit`); a simulated mind with no entry in its fit warns
(:class:`PopulationFitWarning`).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.players.guess_model import VOTERS_KEY, GuessModel, voter_models

POPULATION_FORMAT = "dixit-ai population v1"
DEFAULT_POPULATION_FILE = Path(__file__).resolve().parents[1] / "data" / "population.json"
"""Per-member guess models fitted from cross-play records (``scripts/fit_calibration.py``)."""

SHIPPED_POPULATION_FILES = {
    "default": DEFAULT_POPULATION_FILE,
    "wide": DEFAULT_POPULATION_FILE.with_name("population_wide.json"),
}
"""Population fits that ship, by name: ``default`` (self, lite1-minilm, lite1-mpnet: the
registry's ``clip-expected`` and the other-minds storytellers) and ``wide`` (the same and
lite1-zeroshot, fitted together: ``clip-expected-wide``); each made by leave-one-out cross-play,
16 games per member and iteration, 3 iterations, game seeds from 0."""


class PopulationFitWarning(UserWarning):
    """A simulated mind has no fitted guess model in the population fit it was given."""


@dataclass(frozen=True)
class PopulationFit:
    """Per-member guess models, keyed by embedder fingerprint (and name, for people).

    Attributes:
        members: ``{fingerprint: {"name", "temperature", "bias", "votes"}}``.
        notes: What they were fitted on; ``voter_models``
            (:data:`~models.players.simulation.VOTERS_KEY`): the voters whose votes fitted
            them.
    """

    members: dict[str, dict[str, Any]]
    notes: dict[str, Any]

    @property
    def voters(self) -> list[dict[str, Any]] | None:
        """The voters whose votes the members were fitted on (``None``: the fit does not
        say)."""
        return voter_models(self.notes, "population fit")

    def model_for(self, fingerprint: str, fallback: GuessModel, name: str = "") -> GuessModel:
        """The fitted guess model of a member (``fallback`` when it was not fitted, with a
        :class:`PopulationFitWarning` naming the member: its simulated votes then follow a
        model nobody fitted)."""
        entry = self.members.get(fingerprint)
        if entry is None:
            warnings.warn(f"population member {name or fingerprint} ({fingerprint}) has no "
                          f"entry in its population fit: it simulates with "
                          f"{fallback}", PopulationFitWarning, stacklevel=2)
            return fallback
        return GuessModel(float(entry["temperature"]), float(entry["bias"]), 0.0)

    def save(self, path: str | Path) -> None:
        """Write the fit as JSON (the notes beside the members), atomically (a temporary file
        in the same folder, then a rename: a failed write leaves the old file, never half of
        one).

        Raises:
            ValueError: a note is named ``format`` or ``members``.
        """
        from dixit_ai.reporting import write_json

        clash = {"format", "members"} & set(self.notes)
        if clash:
            raise ValueError(f"a population file's notes may not be named {sorted(clash)}")
        write_json(path, {"format": POPULATION_FORMAT, "members": self.members, **self.notes})

    @classmethod
    def load(cls, path: str | Path) -> PopulationFit:
        """Read a file written by :meth:`save`.

        Raises:
            ValueError: not a population file (not JSON, another format, no ``members``
                object), a member whose temperature is not a positive finite number or whose
                bias is not finite, or a record of voters (``voter_models``) that is not a list
                of ``{"fingerprint", "name"}``; the message names the file (and the member).
        """
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ValueError(f"{path} is not a {POPULATION_FORMAT!r} file: not valid JSON "
                             f"({error})") from None
        if not isinstance(data, dict) or data.get("format") != POPULATION_FORMAT:
            raise ValueError(f"{path} is not a {POPULATION_FORMAT!r} file")
        members = data.pop("members", None)
        if not isinstance(members, dict):
            raise ValueError(f"{path}: a {POPULATION_FORMAT!r} file needs a 'members' object, "
                             f"not {members!r}")
        for key, entry in members.items():
            _check_member(path, key, entry)
        if VOTERS_KEY in data:
            data[VOTERS_KEY] = voter_models(data, path)
        data.pop("format")
        return cls(dict(members), data)


def _check_member(path: str | Path, key: str, entry: Any) -> None:
    """Refuse a population file's member entry that no guess model can be made of.

    Raises:
        ValueError: the entry is not an object, or its temperature is not a positive finite
            number or its bias not a finite number; the message names the file, the member,
            the field and its value.
    """
    if not isinstance(entry, dict):
        raise ValueError(f"{path}: member {key} is not an object: {entry!r}")
    name = f"member {entry.get('name', key)} ({key})"
    for field_name in ("temperature", "bias"):
        value = entry.get(field_name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{path}: {name} has no numeric {field_name}: {value!r}")
    try:
        GuessModel(float(entry["temperature"]), float(entry["bias"]), 0.0)
    except ValueError as error:
        raise ValueError(f"{path}: {name}: {error}") from None


def population_fit_path(spec: str | Path | None) -> Path | None:
    """The file a population fit spec names: a name of :data:`SHIPPED_POPULATION_FILES`, a
    path, or ``None``: none."""
    if spec is None:
        return None
    return Path(SHIPPED_POPULATION_FILES.get(spec, spec) if isinstance(spec, str) else spec)


def load_population_fit(spec: str | Path | None) -> PopulationFit | None:
    """A name of :data:`SHIPPED_POPULATION_FILES`, a path, or ``None``: none.

    Raises:
        FileNotFoundError: the file is missing (a shipped one too: the install is broken; it
            was taken for no fit, and the storyteller silently simulated other minds).
    """
    path = population_fit_path(spec)
    if path is None:
        return None
    if not Path(path).is_file():
        raise FileNotFoundError(f"population fit {spec!r}: {path} is missing"
                                + (" (it ships with dixit-ai: reinstall the package)"
                                   if spec in SHIPPED_POPULATION_FILES else ""))
    return PopulationFit.load(path)
