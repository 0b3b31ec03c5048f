"""What `dixit-ai bench` advises after a failed run should fit the failure.

A model that fails part-way (here: its text tower raises once the run folder is made) is not
a full disk: the CLI's partial-folder advice said "free the space (or fix the folder)" for
every failure; it now says to fix what failed (the error above names it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def test_a_model_failure_is_not_advised_as_a_full_disk(
        tiny_clip: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from dixit_ai.cli import main
    from models import hf_backend
    from models.bench import run as bench_run

    folder = tmp_path / "model"
    shutil.copytree(tiny_clip.removeprefix("hf:"), folder)
    # A copy is the same model: a cache of its own, so that it embeds here.
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))
    name = f"hf:{folder}"
    made: list[Path] = []
    make_folder = bench_run.run_folder
    encode = hf_backend.HFClipEmbedder._encode_text_batch

    def run_folder(*args: object, **kwargs: object) -> Path:
        made.append(make_folder(*args, **kwargs))  # type: ignore[arg-type]
        return made[-1]

    def failing(self: object, texts: list[str]) -> object:
        if made and getattr(self, "name", "") == name:
            raise RuntimeError("CUDA out of memory")
        return encode(self, texts)  # type: ignore[arg-type]

    monkeypatch.setattr(bench_run, "run_folder", run_folder)
    monkeypatch.setattr(hf_backend.HFClipEmbedder, "_encode_text_batch", failing)
    try:
        status = main(["bench", "--models", f"{name},random", "--tasks", "guess", "--items", "2",
                       "--deck", "dream:size=30,seed=5", "--out", str(tmp_path / "runs"),
                       "--no-progress"])
    except SystemExit as exit_:
        status = exit_.code
    error = capsys.readouterr().err
    assert status == 1 and made
    assert "CUDA out of memory" in error and "Traceback" not in error
    assert "free the space" not in error
