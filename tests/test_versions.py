"""Records and run folders name the versions of the packages their numbers depend on: dixit-ai
and numpy always, and each model, environment and RL library that is installed (one that is
not is left out, never an error)."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

from dixit_ai import __version__, play_game
from dixit_ai.cli import main
from dixit_ai.versions import RECORDED_PACKAGES, _found_versions, package_versions


@pytest.fixture
def fresh_versions():
    _found_versions.cache_clear()
    yield
    _found_versions.cache_clear()


def test_every_installed_package_is_named(fresh_versions):
    versions = package_versions()
    assert versions["dixit-ai"] == __version__ and "numpy" in versions
    for name in RECORDED_PACKAGES:
        try:
            assert versions[name] == metadata.version(name)
        except metadata.PackageNotFoundError:
            assert name not in versions


def test_a_package_not_installed_is_left_out(fresh_versions, monkeypatch):
    real = metadata.version

    def without_torch(name: str) -> str:
        if name == "torch":
            raise metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(metadata, "version", without_torch)
    versions = package_versions()
    assert "torch" not in versions and versions["dixit-ai"] == __version__


def test_records_and_a_tournament_config_name_them(tmp_path: Path):
    pytest.importorskip("torch")
    record = play_game(["random"] * 3, edition="refresh-2021", seed=0)
    assert record.header["versions"] == package_versions()
    assert "torch" in record.header["versions"]
    assert main(["tournament", "--agents", "a=random,b=random,c=random", "--players", "3",
                 "--games", "3", "--seed", "1", "--workers", "1", "--no-progress",
                 "--resamples", "20", "--rating-resamples", "2", "--out", str(tmp_path)]) == 0
    (run,) = tmp_path.iterdir()
    config = json.loads((run / "config.json").read_text())
    assert config["versions"] == package_versions() and "torch" in config["versions"]


def test_each_caller_gets_a_dict_of_its_own():
    """One record's header changing its versions changes no other's."""
    first = package_versions()
    first["numpy"] = "edited"
    assert package_versions()["numpy"] != "edited"
