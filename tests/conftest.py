"""Shared test settings: no network, caches in temporary folders."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# Every test session gets its own cache (rendered cards, embeddings): tests never read or write
# the user's cache, and never depend on what an earlier run left there.
os.environ["DIXIT_AI_CACHE_DIR"] = tempfile.mkdtemp(prefix="dixit-ai-tests-")
