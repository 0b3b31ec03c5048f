"""A deterministic embedder without torch, for cache tests (also run in subprocesses)."""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import numpy as np
from PIL import Image

from models.base import Embedder


class CountingEmbedder(Embedder):
    """Hashes pixels/text into vectors; counts how many items it was asked to encode."""

    def __init__(self, dim: int = 8, fingerprint: str = "fake-0123456789") -> None:
        self.name = "fake"
        self.dim = dim
        self.fingerprint = fingerprint
        self.device = "cpu"
        self.batch_size = 16
        self.info: dict[str, Any] = {"backend": "fake"}
        self.encoded = 0

    def _vector(self, data: bytes) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(data).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def _encode_image_batch(self, images: list[Image.Image]) -> np.ndarray:
        self.encoded += len(images)
        return np.stack([self._vector(im.convert("RGB").tobytes()) for im in images])

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return np.stack([self._vector(t.encode()) for t in texts])


def _worker(prefix: str, count: int) -> None:
    """Store ``count`` text embeddings whose texts start with ``prefix`` (subprocess entry)."""
    from models.cache import embed_texts_cached

    embedder = CountingEmbedder()
    for i in range(count):
        embed_texts_cached(embedder, [f"{prefix}-{i}"])
    print(embedder.encoded)


if __name__ == "__main__":
    _worker(sys.argv[1], int(sys.argv[2]))
