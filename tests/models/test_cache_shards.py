"""A damaged shard of the embedding cache is skipped (and recomputed), never raised; shards and
heads are written through a temporary file that is synced before it is moved into place."""

from __future__ import annotations

import argparse
import json
import os

import numpy as np

from dixit_ai.decks import cache as decks_cache
from models.cache import EmbeddingCache, embed_texts_cached
from tests.models.fakes import CountingEmbedder


def _damaged_shard(tmp_path, how: str):
    cache = EmbeddingCache(tmp_path / "embeddings")
    embedder = CountingEmbedder()
    embed_texts_cached(embedder, ["a", "b"], cache=cache)
    shard = next((tmp_path / "embeddings" / embedder.fingerprint / "texts").glob("*.npz"))
    data = bytearray(shard.read_bytes())
    if how == "truncated":
        data = data[:200]
    else:  # one byte of the first array flipped: the zip's CRC check fails on reading it
        data[300] ^= 0xFF
    shard.write_bytes(bytes(data))
    return embedder, shard


def test_a_truncated_or_flipped_shard_is_recomputed_not_raised(tmp_path):
    for how in ("truncated", "flipped"):
        embedder, _ = _damaged_shard(tmp_path / how, how)
        fresh = EmbeddingCache(tmp_path / how / "embeddings")
        assert fresh.lookup(embedder.fingerprint, "texts", ["k"]) == {}
        again = CountingEmbedder()
        vectors = embed_texts_cached(again, ["a", "b"], cache=fresh)
        assert vectors.shape == (2, again.dim) and again.encoded == 2  # recomputed
        entry = next(e for e in fresh.summary() if e["fingerprint"] == embedder.fingerprint)
        assert entry["texts"] == 2  # the new shard counted, the damaged one skipped


def test_cache_info_and_clear_fingerprint_survive_a_damaged_shard(tmp_path, monkeypatch, capsys):
    from dixit_ai.cli import cache as cache_cli

    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path))
    embedder, _ = _damaged_shard(tmp_path, "truncated")
    parser = argparse.ArgumentParser(prog="dixit-ai")
    cache_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["cache", "info", "--json"])
    assert args.func(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["embeddings"]["embedders"][0]["texts"] == 0
    args = parser.parse_args(["cache", "clear", "--fingerprint", embedder.fingerprint])
    assert args.func(args) == 0
    assert not (tmp_path / "embeddings" / embedder.fingerprint).exists()


def test_atomic_writes_sync_the_file_before_moving_it(tmp_path, monkeypatch):
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    target = tmp_path / "f.bin"
    assert decks_cache.atomic_write_bytes(target, b"data")
    assert target.read_bytes() == b"data" and synced
    assert [p.name for p in tmp_path.iterdir()] == ["f.bin"]
    np.testing.assert_array_equal(np.frombuffer(target.read_bytes(), np.uint8),
                                  np.frombuffer(b"data", np.uint8))


def test_a_non_finite_embedding_is_raised_never_cached_nor_served(tmp_path):
    """A broken model's NaN vector was written to the disk cache, so later processes with a
    healthy model read NaN for that text (and every clip guesser voted its first position)."""
    import pytest

    from models.base import EmbedderError

    class Broken(CountingEmbedder):
        def _encode_text_batch(self, texts):
            out = super()._encode_text_batch(texts)
            out[0] = np.nan
            return out

    cache = EmbeddingCache(tmp_path / "embeddings")
    with pytest.raises(EmbedderError, match="not finite"):
        embed_texts_cached(Broken(), ["a", "b"], cache=cache)
    fresh = EmbeddingCache(tmp_path / "embeddings")
    assert fresh.lookup("fake-0123456789", "texts", ["a", "b"]) == {}   # nothing stored
    # A shard holding a non-finite vector (written by an older version) is never served.
    healthy = CountingEmbedder()
    embed_texts_cached(healthy, ["c"], cache=cache)
    shard = next((tmp_path / "embeddings" / healthy.fingerprint / "texts").glob("*.npz"))
    with np.load(shard) as data:
        keys, vectors = data["keys"], data["vectors"].copy()
    vectors[:] = np.nan
    np.savez(shard, keys=keys, vectors=vectors)
    again = CountingEmbedder()
    assert np.isfinite(embed_texts_cached(again, ["c"], cache=EmbeddingCache(
        tmp_path / "embeddings"))).all() and again.encoded == 1
