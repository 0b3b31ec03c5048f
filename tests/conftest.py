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
# Everything else the session or its child processes put in the temporary folder goes into one
# folder of its own, removed with the cache: Chromium's profiles, stable-baselines3's logger
# folders (it makes one under the temporary folder even when it logs nothing), Ray's session
# files, the load test's database, Hypothesis's example database.
SESSION_TMP = tempfile.mkdtemp(prefix="dixit-ai-tmp-")
os.environ["TMPDIR"] = SESSION_TMP
os.environ.setdefault("RAY_TMPDIR", os.path.join(SESSION_TMP, "ray"))
# Hypothesis keeps its example database and constants cache in ./.hypothesis (the checkout)
# unless told otherwise; read when first written, so setting it here is in time.
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(SESSION_TMP, "hypothesis")
tempfile.tempdir = SESSION_TMP


def pytest_unconfigure(config: object) -> None:
    """Remove the session's folders (no test leaves files outside its tmp folder)."""
    shutil.rmtree(SESSION_CACHE, ignore_errors=True)
    shutil.rmtree(SESSION_TMP, ignore_errors=True)
