"""A model entry's options (``kwargs``) in a bench config: bad ones are refused, naming the model,
before anything is loaded or made; ``device`` may be given per model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.bench.conftest import bench_config


@pytest.mark.parametrize(("kwargs", "message"), [
    ([1, 2], r"kwargs of the model 'hf:.*' must be a mapping of options .*not \[1, 2\]"),
    ("fast", r"kwargs of the model 'hf:.*' must be a mapping of options .*not 'fast'"),
    ({"batch_size": 0}, r"hf:.*: batch_size must be an integer of at least 1, not 0"),
    ({"batch_size": "banana"}, r"hf:.*: batch_size must be an integer of at least 1, not "
                               r"'banana'"),
])
def test_bad_options_are_refused_before_anything_loads(
        tiny_clip: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kwargs: Any,
        message: str) -> None:
    from models import hf_backend
    from models.bench import run_bench

    def no_load(*args: Any, **kw: Any) -> None:
        raise AssertionError("the model was loaded")

    monkeypatch.setattr(hf_backend, "HFClipEmbedder", no_load)
    made: list[Path] = []
    with pytest.raises(ValueError, match=message):
        run_bench(bench_config(tmp_path / "runs", [{"name": tiny_clip, "kwargs": kwargs}],
                               tasks=["guess"]),
                  progress=False, show=False, log=None, announce=made.append)
    assert made == [] and not (tmp_path / "runs").exists()


def test_a_model_may_name_its_own_device(tiny_clip: str, tmp_path: Path) -> None:
    from models.bench import run_bench

    run = run_bench(bench_config(tmp_path, [{"name": tiny_clip, "label": "tiny",
                                             "kwargs": {"device": "cpu", "batch_size": 3}}],
                                 tasks=["guess"], items=2),
                    progress=False, show=False, log=None)
    assert run.results["guess"]["models"]["tiny"]["kinds"]["caption"]["n"] == 2


def test_the_model_familys_members_are_embedders_at_the_bench() -> None:
    """``bench --models lite1-minilm`` was 'unknown model' though ``load_embedder`` takes it."""
    from models.bench.config import resolve_model

    for name in ("lite1-minilm", "lite2-mpnet", "lite2-mpnet:/some/head.npz", "default"):
        assert resolve_model(name).kind == "embedder", name
    assert resolve_model("clip-greedy").kind == "agent"
    with pytest.raises(ValueError, match="a model family member such as 'lite1-minilm'"):
        resolve_model("lite9-nothing")
