"""Shared test settings: no network, caches in temporary folders."""

from __future__ import annotations

import os
import shutil
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Every test session gets its own cache (rendered cards, embeddings): tests never read or write
# the user's cache, and never depend on what an earlier run left there. It is removed when the
# session ends.
SESSION_CACHE = tempfile.mkdtemp(prefix="dixit-ai-tests-")
os.environ["DIXIT_AI_CACHE_DIR"] = SESSION_CACHE


def pytest_unconfigure(config: object) -> None:
    """Remove the session's cache folder (no test leaves files outside its tmp folder)."""
    shutil.rmtree(SESSION_CACHE, ignore_errors=True)
