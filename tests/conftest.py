"""Shared test settings: no network, caches in temporary folders."""

from __future__ import annotations

import json
import os
import shutil
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# A session run by pytest-xdist's workers (``-n 2``) is one session: each worker process is a
# child of the controlling pytest process, which records here the folders below and the terminal
# settings the workers would otherwise not share (the workers' COLUMNS and LINES are set to
# 80 x 24, which the tables' layout follows).
_SHARED = "DIXIT_AI_TEST_SESSION"
_TERMINAL = ("COLUMNS", "LINES")
_shared = json.loads(os.environ.get(_SHARED, "{}"))
OWNER = not (os.environ.get("PYTEST_XDIST_WORKER") and _shared.get("pid") == os.getppid())
if OWNER:
    # Every test session gets its own cache (rendered cards, embeddings): tests never read or
    # write the user's cache, and never depend on what an earlier run left there. It is removed
    # when the session ends.
    SESSION_CACHE = tempfile.mkdtemp(prefix="dixit-ai-tests-")
    # Everything else the session or its child processes put in the temporary folder goes into
    # one folder of its own, removed with the cache: Chromium's profiles, stable-baselines3's
    # logger folders (it makes one under the temporary folder even when it logs nothing), Ray's
    # session files, the load test's database, Hypothesis's example database.
    SESSION_TMP = tempfile.mkdtemp(prefix="dixit-ai-tmp-")
    os.environ[_SHARED] = json.dumps({
        "pid": os.getpid(), "cache": SESSION_CACHE, "tmp": SESSION_TMP,
        "terminal": {key: os.environ.get(key) for key in _TERMINAL}})
else:  # a worker: the controller's folders (it removes them) and terminal settings
    SESSION_CACHE, SESSION_TMP = _shared["cache"], _shared["tmp"]
    for key, value in _shared["terminal"].items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
os.environ["DIXIT_AI_CACHE_DIR"] = SESSION_CACHE
os.environ["TMPDIR"] = SESSION_TMP
os.environ.setdefault("RAY_TMPDIR", os.path.join(SESSION_TMP, "ray"))
# Hypothesis keeps its example database and constants cache in ./.hypothesis (the checkout)
# unless told otherwise; read when first written, so setting it here is in time.
os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = os.path.join(SESSION_TMP, "hypothesis")
tempfile.tempdir = SESSION_TMP


def pytest_unconfigure(config: object) -> None:
    """Remove the session's folders (no test leaves files outside its tmp folder); under
    pytest-xdist, the controlling process does, after its workers have ended."""
    if not OWNER:
        return
    shutil.rmtree(SESSION_CACHE, ignore_errors=True)
    shutil.rmtree(SESSION_TMP, ignore_errors=True)
