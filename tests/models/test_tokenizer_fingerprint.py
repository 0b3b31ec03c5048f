"""A checkpoint's tokenizer is part of its fingerprint: the embedding cache never serves the
text vectors of the same weights read through another tokenizer.

A folder copied from a CLIP and given a cased tokenizer (``lowercase`` off) embeds ``"Whale"``
differently; with the tokenizer left out of the fingerprint, the cache returned the lowercasing
model's vectors for it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("transformers")


def _cased_copy(source: Path, folder: Path) -> Path:
    shutil.copytree(source, folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["do_lower_case"] = False
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    tokenizer["normalizer"]["lowercase"] = False
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))
    return folder


def test_another_tokenizer_is_another_fingerprint(tiny_hf_clip: Path, tmp_path: Path) -> None:
    from models.cache import EmbeddingCache, embed_texts_cached
    from models.registry import load_embedder

    lower = load_embedder(f"hf:{tiny_hf_clip}", device="cpu")
    cased = load_embedder(f"hf:{_cased_copy(tiny_hf_clip, tmp_path / 'cased')}", device="cpu")
    raw = cased.embed_texts(["Whale"])
    assert not np.allclose(raw, lower.embed_texts(["Whale"]), atol=1e-4)
    assert cased.fingerprint != lower.fingerprint

    cache = EmbeddingCache(tmp_path / "cache")
    embed_texts_cached(lower, ["Whale"], cache=cache)
    np.testing.assert_allclose(embed_texts_cached(cased, ["Whale"], cache=cache), raw,
                               atol=1e-6)


def test_the_same_folder_keeps_its_fingerprint(tiny_hf_clip: Path, tmp_path: Path) -> None:
    from models.registry import forget_loaded, load_embedder

    first = load_embedder(f"hf:{tiny_hf_clip}", device="cpu").fingerprint
    copy = tmp_path / "copy"
    shutil.copytree(tiny_hf_clip, copy)
    forget_loaded()
    assert load_embedder(f"hf:{copy}", device="cpu").fingerprint == first
