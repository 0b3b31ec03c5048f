"""Fixtures of the model tests: no network, a temporary cache, checkpoints written to tmp folders.

The open_clip ``ViT-B-32`` checkpoint (random weights, about 600 MB) and the tiny transformers
CLIP and SigLIP folders are written once per session and loaded through the same backends a
user's real checkpoint would take.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.checkpoints import write_tiny_hf_clip, write_tokenizer

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _cache_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test's cache root is a session temporary folder (shared, so decks render once)."""
    root = tmp_path_factory.getbasetemp() / "dixit-ai-cache"
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(root))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(scope="session")
def openclip_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """A randomly initialised open_clip ViT-B-32: a checkpoint file and a ``local-dir`` folder."""
    import open_clip

    folder = tmp_path_factory.mktemp("openclip")
    torch.manual_seed(0)
    model = open_clip.create_model("ViT-B-32", pretrained=None)
    checkpoint = folder / "vit_b_32_random.bin"
    torch.save(model.state_dict(), checkpoint)
    local_dir = folder / "local_dir"
    local_dir.mkdir()
    config = {
        "model_cfg": open_clip.get_model_config("ViT-B-32"),
        "preprocess_cfg": open_clip.get_model_preprocess_cfg(model),
    }
    (local_dir / "open_clip_config.json").write_text(json.dumps(config))
    os.link(checkpoint, local_dir / "open_clip_pytorch_model.bin")
    del model
    yield {"file": checkpoint, "local_dir": local_dir}
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def tiny_hf_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random transformers ``CLIPModel`` saved with ``save_pretrained``."""
    return write_tiny_hf_clip(tmp_path_factory.mktemp("hf_clip"))


@pytest.fixture(scope="session")
def tiny_hf_siglip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random transformers ``SiglipModel`` saved with ``save_pretrained``."""
    from transformers import SiglipConfig, SiglipImageProcessor, SiglipModel

    folder = tmp_path_factory.mktemp("hf_siglip")
    torch.manual_seed(0)
    config = SiglipConfig(
        text_config={"vocab_size": 30522, "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": 2, "num_attention_heads": 2,
                     "max_position_embeddings": 16},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
                       "num_attention_heads": 2, "image_size": 32, "patch_size": 8},
    )
    SiglipModel(config).save_pretrained(folder)
    SiglipImageProcessor(size={"height": 32, "width": 32}).save_pretrained(folder)
    write_tokenizer(folder)
    return folder


@pytest.fixture(scope="session")
def some_images() -> list:
    """A few small images of different sizes and modes."""
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(0)
    return [
        Image.fromarray(rng.integers(0, 255, (60, 40, 3), dtype=np.uint8)),
        Image.fromarray(rng.integers(0, 255, (50, 90, 3), dtype=np.uint8)),
        Image.new("L", (64, 64), 128),
        Image.new("RGBA", (30, 30), (255, 0, 0, 128)),
    ]
