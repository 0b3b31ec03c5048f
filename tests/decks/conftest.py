"""Deck tests: every test gets the deck cache in a temporary folder, never the user's."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the whole session, so cards rendered once are reused."""
    return tmp_path_factory.mktemp("dixit-ai-cache")


@pytest.fixture(autouse=True)
def _deck_cache(monkeypatch: pytest.MonkeyPatch, session_cache: Path) -> Path:
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(session_cache))
    return session_cache


@pytest.fixture
def fresh_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty cache folder of this test's own."""
    folder = tmp_path / "fresh-cache"
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(folder))
    return folder
