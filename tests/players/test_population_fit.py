"""A population storyteller never simulates a mind with a guess model nobody fitted without
saying so: a missing fit file is an error, a member missing from the fit a warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.players import population_fit
from models.players.population_fit import PopulationFit, PopulationFitWarning, load_population_fit
from models.players.simulation import GuessModel


def test_a_missing_shipped_fit_is_an_error_not_no_fit(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """'default' with its file absent gave None, and the storyteller silently simulated every
    member with the built-in temperature: other clues, and an identical record header."""
    monkeypatch.setitem(population_fit.SHIPPED_POPULATION_FILES, "default", tmp_path / "gone.json")
    with pytest.raises(FileNotFoundError, match=r"gone\.json is missing.*reinstall"):
        load_population_fit("default")
    assert load_population_fit(None) is None


def test_a_member_missing_from_the_fit_is_named_in_a_warning() -> None:
    fit = PopulationFit({"family-abc": {"name": "lite1-minilm", "temperature": 0.1,
                                        "bias": 0.0, "votes": 10}}, {})
    assert fit.model_for("family-abc", GuessModel()).temperature == 0.1
    fallback = GuessModel(correlation=0.0)
    with pytest.warns(PopulationFitWarning, match=r"lite1-mpnet .*family-xyz.* no entry"):
        assert fit.model_for("family-xyz", fallback, "lite1-mpnet") == fallback
