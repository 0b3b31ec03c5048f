"""Guess-model files: the shipped calibration, loading one with overrides, and checking which
embedder it was fitted for.

The calibration file (``models/data/guess_model.json``, written by
``scripts/fit_calibration.py``) names the embedder fingerprint it was fitted for; an agent over
another embedder warns (:class:`CalibrationMismatchWarning`) and still uses it, since
similarities of another model live on another scale.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from models.players.simulation import GuessModel

DEFAULT_CALIBRATION = Path(__file__).resolve().parents[1] / "data" / "guess_model.json"
"""The guess model fitted by ``scripts/fit_calibration.py`` for the default embedder."""


def resolve_path(path: str | Path) -> Path:
    """A path as given, else relative to the repository root (where ``configs/`` lives)."""
    candidate = Path(path)
    if candidate.exists() or candidate.is_absolute():
        return candidate
    return Path(__file__).resolve().parents[2] / candidate


class CalibrationMismatchWarning(UserWarning):
    """A guess model fitted for one embedder is used with another."""


def calibration_path(calibration: str | Path | None) -> Path | None:
    """The calibration file an agent's ``calibration`` argument names (``None``: none)."""
    if calibration == "default":
        return DEFAULT_CALIBRATION if DEFAULT_CALIBRATION.exists() else None
    return None if calibration is None else resolve_path(calibration)


def load_guess_model(calibration: str | Path | None, temperature: float | None,
                     bias: float | None) -> tuple[GuessModel, str]:
    """The guess model from a calibration file and/or explicit parameters, and its source."""
    model, source = GuessModel(), "built-in"
    path = calibration_path(calibration)
    if path is not None:
        model = GuessModel.load(path)
        source = str(path.name) if calibration == "default" else str(path)
    if temperature is not None or bias is not None:
        model = GuessModel(model.temperature if temperature is None else float(temperature),
                           model.bias if bias is None else float(bias), model.correlation)
        source += " (overridden)"
    return model, source


_WARNED: set[tuple[str, str]] = set()
"""The (calibration file, embedder fingerprint) pairs already warned of."""


def _mismatch(warned: set[tuple[str, str]], path: str | Path, fingerprint: str, message: str,
              category: type[Warning]) -> bool:
    """Warn ``message`` once per file and embedder in a process (an agent is made again by
    each game and step; the warning said the same each time); ``False``: no match."""
    if (str(path), fingerprint) not in warned:
        warned.add((str(path), fingerprint))
        warnings.warn(message, category, stacklevel=4)
    return False


def check_calibration_embedder(calibration: str | Path | None, fingerprint: str) -> bool:
    """Warn (:class:`CalibrationMismatchWarning`) when the calibration file was fitted for
    another embedder than ``fingerprint``; ``True`` when it matches or says nothing."""
    path = calibration_path(calibration)
    if path is None:
        return True
    fitted = GuessModel.fitted_for(path)
    if fitted is None or fitted == fingerprint:
        return True
    return _mismatch(
        _WARNED, path, fingerprint,
        f"the guess model in {path} was fitted for embedder {fitted}, but this agent uses "
        f"{fingerprint}: its temperature and bias are on another model's similarity scale, so "
        "predicted guess rates may be miscalibrated. Refit it for this embedder: python "
        "scripts/fit_calibration.py --embedder NAME --play-games 40 --out FILE, then pass "
        "calibration=FILE (or guess_temperature=... and guess_bias=...).",
        CalibrationMismatchWarning)


_POLICIES_WARNED: set[tuple[str, str]] = set()
"""The (policy file, embedder fingerprint) pairs already warned of."""


class PolicyMismatchWarning(UserWarning):
    """A clue policy trained on another embedder's games than the agent's."""


def check_policy_embedder(policy: str | Path | None, fingerprint: str) -> bool:
    """Warn (:class:`PolicyMismatchWarning`, once per file and embedder in a process) when the
    clue policy checkpoint was trained on the votes of another embedder (its ``voter_models``)
    than ``fingerprint``; ``True`` when it matches or says nothing."""
    if not policy:
        return True
    path = resolve_path(str(policy))
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True  # the policy's own loader names what is wrong with the file
    models = data.get("voter_models") if isinstance(data, dict) else None
    trained = [m.get("fingerprint") for m in models or () if isinstance(m, dict)]
    if not trained or fingerprint in trained:
        return True
    return _mismatch(
        _POLICIES_WARNED, path, fingerprint,
        f"the clue policy in {path} was trained in games of embedder {trained[0]}, but this "
        f"agent uses {fingerprint}: its features (the card's similarity, the decoys' gap, ...) "
        "are on another model's similarity scale. Train one for this embedder: dixit-ai train "
        "storyteller --embedder NAME", PolicyMismatchWarning)
