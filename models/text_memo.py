"""A text tower that embeds each distinct text once, and keeps the family's towers' vectors in
the embedding cache (used by the default model's trainer, :mod:`models.train_default`)."""

from __future__ import annotations

from typing import Any

import numpy as np


class MemoTextTower:
    """A text tower that embeds each distinct text once (in batches of 256); the family's towers
    (:class:`models.towers.SentenceTower`) also keep their vectors in the embedding cache, under
    the tower's own fingerprint, so that later runs reuse them (class names, held-out clues)."""

    def __init__(self, tower: Any) -> None:
        from models.base import fingerprint_of

        self.tower = tower
        self.dim = int(getattr(tower, "dim", 384))
        self._memo: dict[str, np.ndarray] = {}
        spec = getattr(tower, "spec", None)
        self.fingerprint = None if spec is None else fingerprint_of(
            {"backend": "text-tower", "model": spec.model, "weights": tower.sha256,
             "max_tokens": spec.max_tokens, "pooling": "mean, l2", "dtype": str(tower.dtype)})

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalised embeddings ``(n, dim)``."""
        from models.cache import default_cache, text_key

        todo = sorted({t for t in texts if t not in self._memo}, key=len)
        if todo and self.fingerprint:
            keys = {text_key(t): t for t in todo}
            for key, vector in default_cache().lookup(self.fingerprint, "texts",
                                                      list(keys), dim=self.dim).items():
                self._memo[keys[key]] = vector
            todo = [t for t in todo if t not in self._memo]
        for start in range(0, len(todo), 256):
            part = todo[start : start + 256]
            vectors = self.tower.encode(part)
            for text, vector in zip(part, vectors, strict=True):
                self._memo[text] = vector
            if self.fingerprint:
                default_cache().store(self.fingerprint, "texts", [text_key(t) for t in part],
                                      vectors, about={"name": f"{self.tower.spec.model} texts",
                                                      "backend": "text-tower"})
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts]).astype(np.float32)
