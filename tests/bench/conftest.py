"""Fixtures of the benchmark's tests: one tiny benchmark run per session, a tiny random CLIP.

The session's cache is a fresh temporary folder (``tests/conftest.py``): the first run embeds the
small test deck, the clues and a small vocabulary; later runs in the session are warm.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.bench.helpers import BENCH_DECK

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

SMALL_CLIP = {"name": "clip-greedy", "label": "clip-small",
              "kwargs": {"vocabulary_size": 150, "n_simulations": 16, "pair_clues": 2}}
"""A clip-greedy player with a small vocabulary (fast to embed cold)."""


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tiny randomly initialised transformers CLIP, saved to a folder: ``hf:<folder>``."""
    pytest.importorskip("torch")
    from tests.checkpoints import write_tiny_hf_clip

    folder = write_tiny_hf_clip(tmp_path_factory.mktemp("tiny_clip"), layers=1, projection_dim=16)
    return f"hf:{folder}"


def bench_config(out: Path, models: list[Any], **settings: Any) -> Any:
    from models.bench import BenchConfig

    base: dict[str, Any] = {"items": 4, "deck": BENCH_DECK, "bootstrap": 200,
                            "reference_deals": 2, "out": str(out), "name": "test"}
    base.update(settings)
    return BenchConfig(models=models, **base)


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory: pytest.TempPathFactory, tiny_clip: str) -> Any:
    """One benchmark of every task: the default model, a tiny CLIP, the text-only oracle,
    random, a clip player."""
    from models.bench import run_bench

    out = tmp_path_factory.mktemp("bench_runs")
    config = bench_config(out, ["default", tiny_clip, "oracle:default", "random", SMALL_CLIP])
    return run_bench(config, progress=False, show=False, log=None)
