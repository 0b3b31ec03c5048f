"""An ``hf:`` folder whose weights lack some of the model's tensors is refused, naming them:
transformers would otherwise initialise them at random (a log table, no error) and the embedder
would serve vectors of a model nobody trained."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("transformers")
safetensors_torch = pytest.importorskip("safetensors.torch")

from models import load_embedder  # noqa: E402
from models.base import EmbedderLoadError  # noqa: E402


def test_a_folder_missing_a_tensor_is_refused_naming_it(tiny_hf_clip: Path,
                                                        tmp_path: Path) -> None:
    folder = tmp_path / "clip"
    shutil.copytree(tiny_hf_clip, folder)
    weights = folder / "model.safetensors"
    tensors = safetensors_torch.load_file(str(weights))
    del tensors["text_projection.weight"]
    safetensors_torch.save_file(tensors, str(weights), metadata={"format": "pt"})
    with pytest.raises(EmbedderLoadError, match=r"text_projection\.weight") as caught:
        load_embedder(f"hf:{folder}", device="cpu")
    message = str(caught.value)
    assert "lack 1 of its model's tensors" in message and "random" in message


def test_the_whole_folder_still_loads(tiny_hf_clip: Path) -> None:
    embedder = load_embedder(f"hf:{tiny_hf_clip}", device="cpu")
    assert embedder.embed_texts(["a fox"]).shape == (1, embedder.dim)
