"""A checkpoint whose vectors are not finite is refused before the run folder is made.

The clues of the guess and decoy items are known before any record is written; a model that
cannot embed them (NaN or infinity out of its text tower) is bad input, named, with no partial
run folder left behind and nothing cached.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.bench.conftest import bench_config


def _broken(tiny_clip: str, folder: Path, projection: str) -> str:
    torch = pytest.importorskip("torch")
    from transformers import CLIPModel

    shutil.copytree(tiny_clip.removeprefix("hf:"), folder)
    model = CLIPModel.from_pretrained(folder)
    with torch.no_grad():
        getattr(model, projection).weight[0, 0] = float("nan")
    model.save_pretrained(folder)
    return f"hf:{folder}"


@pytest.mark.parametrize("projection", ["text_projection", "visual_projection"])
def test_a_model_giving_nan_vectors_is_refused_before_the_run_folder(
        tiny_clip: str, tmp_path: Path, projection: str) -> None:
    from models.base import EmbedderError
    from models.bench import run_bench

    broken = _broken(tiny_clip, tmp_path / "model", projection)
    out = tmp_path / "runs"
    for tasks in (["guess"], ["decoy"]):
        made: list[Path] = []
        with pytest.raises(EmbedderError, match="not finite") as raised:
            run_bench(bench_config(out, [broken], tasks=tasks), progress=False, show=False,
                      log=None, announce=made.append)
        assert broken in str(raised.value)  # the model is named, not only its fingerprint
        assert made == []
        assert not out.exists() or not any(out.iterdir())


def test_a_model_giving_vectors_of_another_dimension_is_refused_without_a_traceback(
        tiny_clip: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np

    from dixit_ai.cli import main
    from models import hf_backend

    monkeypatch.setattr(hf_backend.HFClipEmbedder, "_encode_image_batch",
                        lambda self, images: np.ones((len(images), self.dim + 1), np.float32))
    # A copy: the session's tiny CLIP stays loaded (and cached) as it was.
    folder = tmp_path / "model"
    shutil.copytree(tiny_clip.removeprefix("hf:"), folder)
    # A copy is the same model: a cache of its own, so that it embeds here.
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "runs"
    try:
        status = main(["bench", "--models", f"hf:{folder}", "--tasks", "guess", "--items", "2",
                       "--deck", "dream:size=30,seed=5", "--out", str(out), "--no-progress"])
    except SystemExit as exit_:
        status = exit_.code
    error = capsys.readouterr().err
    assert status == 2
    assert "Traceback" not in error
    assert f"hf:{folder}: a batch of" in error and "expected" in error
    assert not out.exists() or not any(out.iterdir())


def test_a_model_failing_mid_run_is_a_named_failure_not_a_traceback(
        tiny_clip: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model that raises (a torch error, out of GPU memory) on the clues told during the run
    stops the benchmark with an error naming it: a ValueError, which the CLI reports as a
    failed run (exit 1) in one line, not a traceback."""
    import json

    from models import hf_backend
    from models.bench import run_bench

    folder = tmp_path / "model"
    shutil.copytree(tiny_clip.removeprefix("hf:"), folder)
    # A copy is the same model: a cache of its own, so that it embeds here.
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))
    name = f"hf:{folder}"
    started: list[Path] = []
    encode = hf_backend.HFClipEmbedder._encode_text_batch

    def failing(self: object, texts: list[str]) -> object:
        if started and getattr(self, "name", "") == name:
            raise RuntimeError("CUDA out of memory")
        return encode(self, texts)  # type: ignore[arg-type]

    monkeypatch.setattr(hf_backend.HFClipEmbedder, "_encode_text_batch", failing)
    with pytest.raises(ValueError, match=rf"{name}.*RuntimeError: CUDA out of memory"):
        run_bench(bench_config(tmp_path / "runs", [name, "random"], tasks=["guess"], items=3),
                  progress=False, show=False, log=None, announce=started.append)
    assert started
    header = json.loads((started[0] / "bench.json").read_text())
    assert header["finished"] is False
