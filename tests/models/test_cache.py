"""The embedding cache: keyed by (fingerprint, content hash), shared across processes."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from models.cache import (
    COMPACT_AFTER,
    EmbeddingCache,
    default_cache,
    embed_deck,
    embed_images_cached,
    embed_texts_cached,
    embeddings_dir,
)
from tests.models.fakes import CountingEmbedder

REPO = Path(__file__).resolve().parents[2]


def test_cache_lives_under_the_project_cache_root(tmp_path, monkeypatch):
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "root"))
    assert embeddings_dir() == tmp_path / "root" / "embeddings"
    assert default_cache().root == tmp_path / "root" / "embeddings"


def test_texts_are_embedded_once_per_model(tmp_path):
    cache = EmbeddingCache(tmp_path)
    embedder = CountingEmbedder()
    first = embed_texts_cached(embedder, ["whale", "ocean", "whale"], cache=cache)
    assert embedder.encoded == 2  # the two "whale" are embedded once, stored once
    np.testing.assert_array_equal(first[0], first[2])
    again = embed_texts_cached(embedder, ["ocean", "whale"], cache=cache)
    assert embedder.encoded == 2
    np.testing.assert_array_equal(again, first[[1, 0]])
    np.testing.assert_allclose(np.linalg.norm(again, axis=1), 1.0, rtol=1e-6)
    other = CountingEmbedder(fingerprint="fake-other")
    embed_texts_cached(other, ["whale"], cache=cache)
    assert other.encoded == 1  # another fingerprint is another key


def test_images_are_keyed_by_content_not_identity(tmp_path):
    cache = EmbeddingCache(tmp_path)
    embedder = CountingEmbedder()
    red = Image.new("RGB", (20, 30), (255, 0, 0))
    vectors = embed_images_cached(embedder, [red], cache=cache)
    same_pixels = Image.new("RGB", (20, 30), (255, 0, 0))
    again = embed_images_cached(embedder, [same_pixels], cache=cache)
    np.testing.assert_array_equal(again, vectors)
    assert embedder.encoded == 1
    embed_images_cached(embedder, [Image.new("RGB", (20, 30), (0, 0, 255))], cache=cache)
    assert embedder.encoded == 2


def test_a_new_cache_object_reads_what_another_wrote(tmp_path):
    writer = EmbeddingCache(tmp_path)
    embedder = CountingEmbedder()
    vectors = embed_texts_cached(embedder, ["a", "b"], cache=writer)
    reader_embedder = CountingEmbedder()
    again = embed_texts_cached(reader_embedder, ["b", "a"], cache=EmbeddingCache(tmp_path))
    assert reader_embedder.encoded == 0
    np.testing.assert_array_equal(again, vectors[[1, 0]])


def test_concurrent_processes_share_the_cache(tmp_path):
    env = {"DIXIT_AI_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "tests.models.fakes"]
    workers = [
        subprocess.Popen([*command, f"p{i}", "12"], cwd=REPO, env=env, stdout=subprocess.PIPE)
        for i in range(3)
    ]
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        assert worker.returncode == 0
        assert out.strip() == b"12"
    # 36 single-text shards triggered compactions; nothing is lost or torn.
    cache = EmbeddingCache(tmp_path / "embeddings")
    embedder = CountingEmbedder()
    texts = [f"p{i}-{j}" for i in range(3) for j in range(12)]
    embed_texts_cached(embedder, texts, cache=cache)
    assert embedder.encoded == 0
    shards = list((tmp_path / "embeddings" / embedder.fingerprint / "texts").glob("*.npz"))
    assert 1 <= len(shards) <= COMPACT_AFTER + 3


def test_embed_deck_warm_reads_no_image(tmp_path, monkeypatch):
    from dixit_ai.decks import load_deck

    deck = load_deck("dream:size=6,seed=5")
    cache = EmbeddingCache(tmp_path)
    embedder = CountingEmbedder()
    cold = embed_deck(embedder, deck, cache=cache)
    assert cold.shape == (6, embedder.dim) and embedder.encoded == 6

    def no_images(*args, **kwargs):
        raise AssertionError("a warm cache must not load images")

    monkeypatch.setattr(type(deck), "image", no_images)
    warm = embed_deck(embedder, deck, [3, 1], cache=EmbeddingCache(tmp_path))
    np.testing.assert_array_equal(warm, cold[[3, 1]])
    assert embedder.encoded == 6


def test_info_and_clear(tmp_path, capsys):
    from dixit_ai.cli import cache as cache_cli

    parser = argparse.ArgumentParser(prog="dixit-ai")
    cache_cli.register(parser.add_subparsers(dest="command"))
    embedder = CountingEmbedder()
    embed_texts_cached(embedder, ["x", "y"], cache=default_cache())
    args = parser.parse_args(["cache", "info", "--json"])
    assert args.func(args) == 0
    import json

    report = json.loads(capsys.readouterr().out)
    entries = report["embeddings"]["embedders"]
    entry = next(e for e in entries if e["fingerprint"] == "fake-0123456789")
    assert entry["texts"] >= 2 and entry["name"] == "fake"
    args = parser.parse_args(["cache", "info"])
    assert args.func(args) == 0
    assert "fake" in capsys.readouterr().out
    args = parser.parse_args(["cache", "clear", "--fingerprint", "fake-0123456789"])
    assert args.func(args) == 0
    assert not (embeddings_dir() / "fake-0123456789").exists()
    args = parser.parse_args(["cache", "clear", "--only", "embeddings"])
    assert args.func(args) == 0
    assert not embeddings_dir().exists()


def test_invalid_fingerprints_are_refused(tmp_path):
    cache = EmbeddingCache(tmp_path)
    with pytest.raises(ValueError):
        cache.clear("../escape")
    with pytest.raises(ValueError):
        cache.lookup("fp", "sounds", ["k"])


def test_clear_takes_a_fingerprint_the_cache_holds_and_refuses_others(
        tmp_path, monkeypatch, capsys):
    """'cache info' cut fingerprints to 32 characters, and 'clear' took any value (an unknown
    or cut one cleared 0 B with status 0; an empty one cleared every model)."""
    from dixit_ai.cli import main

    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path))
    first, second = "f" * 40 + "-first", "f" * 40 + "-second"
    for fingerprint in (first, second):
        embed_texts_cached(CountingEmbedder(fingerprint=fingerprint), ["x"],
                           cache=EmbeddingCache(tmp_path / "embeddings"))
    assert main(["cache", "info"]) == 0
    listing = capsys.readouterr().out
    assert f"    {first}  fake:" in listing and f"    {second}  fake:" in listing

    def held() -> set[str]:
        return {p.name for p in (tmp_path / "embeddings").iterdir()}

    for given, message in (("", "--fingerprint is empty"),
                           ("nobody", "--fingerprint 'nobody': no such fingerprint"),
                           (first[:32], "starts 2 cached fingerprints")):
        assert main(["cache", "clear", "--fingerprint", given]) == 2
        err = capsys.readouterr().err
        assert message in err and first in err and second in err, err
        assert held() == {first, second}
    assert main(["cache", "clear", "--fingerprint", second[:-2]]) == 0
    assert f"cleared embeddings of {second} (matched by {second[:-2]!r})" in (
        capsys.readouterr().out)
    assert held() == {first}
    assert main(["cache", "clear", "--fingerprint", first]) == 0
    assert not (tmp_path / "embeddings" / first).exists()
