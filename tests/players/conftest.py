"""Fixtures of the players' tests: a torch-free fake embedder and small vector decks."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest
from PIL import Image

from models.base import Embedder
from models.players.resources import PlayerResources, from_vectors


class HashEmbedder(Embedder):
    """Texts and images to seeded random vectors (deterministic, no model)."""

    def __init__(self, dim: int = 16) -> None:
        self.name = "hash"
        self.dim = dim
        self.fingerprint = f"hash-{dim}"
        self.device = "cpu"
        self.batch_size = 64
        self.info: dict[str, Any] = {"backend": "hash"}

    def _vector(self, data: bytes) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(data).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)

    def _encode_image_batch(self, images: list[Image.Image]) -> np.ndarray:
        return np.stack([self._vector(im.convert("RGB").tobytes()) for im in images])

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t.encode()) for t in texts])


def storyteller_opening(resources: PlayerResources, rules: Any, n_players: int,
                        seed: int) -> tuple[Any, Any, list[int]]:
    """A new game on ``resources``' cards dealt by ``default_rng(seed)``: its state, the first
    storyteller's view and the cards that storyteller has not seen."""
    from dixit_ai.rules import new_game, observe
    from models.players.hand_inference import unseen_cards

    state = new_game(rules, n_players, list(resources.card_ids), np.random.default_rng(seed))
    view = observe(state, state.storyteller)
    return state, view, unseen_cards(view, resources.card_ids)


def vector_resources(n_cards: int = 120, n_clues: int = 80, dim: int = 16,
                     seed: int = 0) -> PlayerResources:
    """Resources over random card vectors and a small vocabulary of hashed words."""
    embedder = HashEmbedder(dim)
    rng = np.random.default_rng(seed)
    words = [f"word{i}" for i in range(n_clues)]
    texts = dict(zip(words, embedder.embed_texts(words), strict=True))
    # Cards near some clues, so that similarities carry signal.
    anchors = np.stack(list(texts.values()))[rng.integers(0, n_clues, n_cards)]
    cards = anchors + 0.8 * rng.standard_normal((n_cards, dim)).astype(np.float32)
    return from_vectors(cards, texts, embedder=embedder, fingerprint=embedder.fingerprint)


@pytest.fixture(scope="session")
def resources() -> PlayerResources:
    return vector_resources()
