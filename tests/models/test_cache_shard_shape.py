"""A shard of the embedding cache whose vectors have another width than the embedder's (written
by another tool, an old version, or by hand) is never served: its vectors are computed again."""

from __future__ import annotations

import io

import numpy as np

from models.cache import EmbeddingCache, embed_texts_cached, text_key
from tests.models.fakes import CountingEmbedder


def _foreign_shard(cache: EmbeddingCache, fingerprint: str, texts: list[str], width: int) -> None:
    folder = cache.folder(fingerprint, "texts")
    folder.mkdir(parents=True)
    buffer = io.BytesIO()
    np.savez(buffer, keys=np.asarray([text_key(t) for t in texts], dtype="<U64"),
             vectors=np.ones((len(texts), width), dtype=np.float32) / np.sqrt(width))
    (folder / "00000000000000000001-1-foreign.npz").write_bytes(buffer.getvalue())


def test_vectors_of_another_width_are_recomputed_not_broadcast(tmp_path):
    cache = EmbeddingCache(tmp_path / "embeddings")
    embedder = CountingEmbedder(dim=8)
    _foreign_shard(cache, embedder.fingerprint, ["a", "b"], width=1)  # broadcasts to any row
    vectors = embed_texts_cached(embedder, ["a", "b"], cache=cache)
    expected = embed_texts_cached(CountingEmbedder(dim=8), ["a", "b"],
                                  cache=EmbeddingCache(tmp_path / "clean"))
    assert embedder.encoded == 2
    np.testing.assert_allclose(vectors, expected, rtol=1e-6)


def test_vectors_of_a_wider_shard_are_recomputed_not_raised(tmp_path):
    cache = EmbeddingCache(tmp_path / "embeddings")
    embedder = CountingEmbedder(dim=8)
    _foreign_shard(cache, embedder.fingerprint, ["a"], width=16)
    vectors = embed_texts_cached(embedder, ["a"], cache=cache)
    assert vectors.shape == (1, 8) and embedder.encoded == 1
    assert cache.lookup(embedder.fingerprint, "texts", [text_key("a")], dim=8)[
        text_key("a")].shape == (8,)


def test_compacting_a_folder_with_a_shard_of_another_width_keeps_both_apart(tmp_path):
    from models.cache import COMPACT_AFTER

    cache = EmbeddingCache(tmp_path / "embeddings")
    embedder = CountingEmbedder(dim=8)
    _foreign_shard(cache, embedder.fingerprint, ["foreign"], width=3)
    texts = [f"t{i}" for i in range(COMPACT_AFTER + 1)]
    for text in texts:  # one shard each: the last store merges the folder
        embed_texts_cached(embedder, [text], cache=cache)
    folder = cache.folder(embedder.fingerprint, "texts")
    assert len(list(folder.glob("*.npz"))) < COMPACT_AFTER  # merged (one shard per width)
    fresh = EmbeddingCache(tmp_path / "embeddings")
    found = fresh.lookup(embedder.fingerprint, "texts", [text_key(t) for t in texts], dim=8)
    assert len(found) == len(texts)
    assert fresh.lookup(embedder.fingerprint, "texts", [text_key("foreign")], dim=8) == {}
    assert fresh.lookup(embedder.fingerprint, "texts", [text_key("foreign")], dim=3)
