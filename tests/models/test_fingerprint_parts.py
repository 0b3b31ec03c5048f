"""A checkpoint's tokenizer and config are part of its fingerprint, beside its weights: the
embedding cache never serves the vectors of the same weights read through another tokenizer
(a cased copy of an uncased CLIP, another cleaning) or another config (an activation fixed in
place).
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


def _openclip_folder(folder: Path, tokenizer_kwargs: dict[str, str] | None = None) -> Path:
    """A tiny random open_clip CLIP (seed 0) as a ``local-dir`` folder."""
    torch = pytest.importorskip("torch")
    open_clip = pytest.importorskip("open_clip")
    text_cfg: dict[str, object] = {"context_length": 16, "vocab_size": 49408, "width": 32,
                                   "heads": 2, "layers": 1}
    model_cfg = {"embed_dim": 16, "text_cfg": text_cfg,
                 "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 16,
                                "patch_size": 8}}
    torch.manual_seed(0)
    model = open_clip.CLIP(**model_cfg)
    if tokenizer_kwargs:
        text_cfg["tokenizer_kwargs"] = tokenizer_kwargs
    folder.mkdir()
    (folder / "open_clip_config.json").write_text(json.dumps(
        {"model_cfg": model_cfg, "preprocess_cfg": open_clip.get_model_preprocess_cfg(model)}))
    torch.save(model.state_dict(), folder / "open_clip_pytorch_model.bin")
    return folder


def test_an_openclip_folder_with_another_tokenizer_is_another_fingerprint(
        tmp_path: Path) -> None:
    from models.cache import EmbeddingCache, embed_texts_cached
    from models.registry import load_embedder

    plain = load_embedder(f"openclip:local-dir:{_openclip_folder(tmp_path / 'plain')}",
                          device="cpu")
    same = load_embedder(f"openclip:local-dir:{_openclip_folder(tmp_path / 'same')}",
                         device="cpu")
    assert same.fingerprint == plain.fingerprint  # a copy is the same model
    other = load_embedder(
        "openclip:local-dir:"
        f"{_openclip_folder(tmp_path / 'other', {'clean': 'canonicalize'})}", device="cpu")
    text = ["Whale, the lighthouse!"]
    raw = other.embed_texts(text)
    assert not np.allclose(raw, plain.embed_texts(text), atol=1e-4)
    assert other.fingerprint != plain.fingerprint

    cache = EmbeddingCache(tmp_path / "cache")
    embed_texts_cached(plain, text, cache=cache)
    np.testing.assert_allclose(embed_texts_cached(other, text, cache=cache), raw, atol=1e-6)


def test_a_config_edited_in_place_is_another_fingerprint(tiny_hf_clip: Path,
                                                         tmp_path: Path) -> None:
    """The weights alone do not make the model: config.json's activation (OpenAI's CLIPs use
    quick_gelu) changes every vector, so a folder whose config is fixed in place must not be
    served the vectors cached under the old one."""
    from models.cache import EmbeddingCache, embed_texts_cached
    from models.registry import forget_loaded, load_embedder

    folder = tmp_path / "clip"
    shutil.copytree(tiny_hf_clip, folder)
    cache = EmbeddingCache(tmp_path / "cache")
    before = load_embedder(f"hf:{folder}", device="cpu")
    embed_texts_cached(before, ["a whale"], cache=cache)
    config = json.loads((folder / "config.json").read_text())
    for tower in ("text_config", "vision_config"):
        config[tower]["hidden_act"] = (
            "gelu" if config[tower].get("hidden_act") == "quick_gelu" else "quick_gelu")
    (folder / "config.json").write_text(json.dumps(config))
    forget_loaded()
    after = load_embedder(f"hf:{folder}", device="cpu")
    raw = after.embed_texts(["a whale"])
    assert not np.allclose(raw, before.embed_texts(["a whale"]), atol=1e-5)
    assert after.fingerprint != before.fingerprint
    np.testing.assert_allclose(embed_texts_cached(after, ["a whale"], cache=cache), raw,
                               atol=1e-6)


def test_an_openclip_folder_whose_config_is_edited_is_another_fingerprint(
        tmp_path: Path) -> None:
    from models.registry import load_embedder

    folder = _openclip_folder(tmp_path / "plain")
    before = load_embedder(f"openclip:local-dir:{folder}", device="cpu")
    config = json.loads((folder / "open_clip_config.json").read_text())
    config["model_cfg"]["quick_gelu"] = True
    edited = tmp_path / "edited"
    shutil.copytree(folder, edited)
    (edited / "open_clip_config.json").write_text(json.dumps(config))
    after = load_embedder(f"openclip:local-dir:{edited}", device="cpu")
    assert not np.allclose(after.embed_texts(["a whale"]), before.embed_texts(["a whale"]),
                           atol=1e-5)
    assert after.fingerprint != before.fingerprint


def test_a_folder_given_by_a_relative_path_is_recorded_absolute(
        tiny_hf_clip: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The records (bench.json's model info) say which folder was loaded, wherever the
    command ran from."""
    from models.registry import load_embedder

    monkeypatch.chdir(tiny_hf_clip.parent)
    embedder = load_embedder(f"hf:{tiny_hf_clip.name}", device="cpu")
    assert embedder.info["source"] == str(tiny_hf_clip.resolve())


class _SlowTokenizer:
    """A tokenizer without a fast backend: a vocabulary, and the files it was made from."""

    def __init__(self, folder: Path, text: str) -> None:
        folder.mkdir()
        (folder / "spiece.model").write_text(text)
        self.init_kwargs = {"vocab_file": str(folder / "spiece.model"),
                            "name_or_path": str(folder), "do_lower_case": True}

    def get_vocab(self) -> dict[str, int]:
        return {"a": 0, "whale": 1}


def test_a_slow_tokenizer_is_known_by_its_files_contents_not_their_paths(
        tmp_path: Path) -> None:
    from models.hf_backend import tokenizer_digest

    one = tokenizer_digest(_SlowTokenizer(tmp_path / "one", "rules"))
    assert tokenizer_digest(_SlowTokenizer(tmp_path / "copy", "rules")) == one
    assert tokenizer_digest(_SlowTokenizer(tmp_path / "other", "other rules")) != one
