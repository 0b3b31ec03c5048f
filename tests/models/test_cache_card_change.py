"""A card file replaced after its deck was loaded never poisons the embedding cache.

A folder deck hashes its pictures when it is loaded; the embedding is computed later, from the
file as it is then. The vector must be stored under the hash of what was embedded: a replaced
file is refused by name (load the deck again), and nothing is cached under the old hash.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from dixit_ai.decks import load_deck
from dixit_ai.decks.base import DeckError, image_content_hash
from models.cache import EmbeddingCache, embed_deck
from tests.models.fakes import CountingEmbedder

COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200)]


def _picture(colour: tuple[int, int, int], mark: int = 0) -> Image.Image:
    image = Image.new("RGB", (40, 60), colour)
    image.putpixel((mark, mark), (255, 255, 0))
    return image


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "deck"
    folder.mkdir()
    for number, colour in enumerate(COLOURS):
        _picture(colour).save(folder / f"card{number}.png")
    return folder


def test_a_card_replaced_after_loading_is_refused_and_nothing_is_cached(tmp_path):
    folder = _folder(tmp_path)
    deck = load_deck(f"folder:{folder}")
    original = deck.card_hash(1)
    _picture((250, 250, 250), mark=5).save(folder / "card1.png")  # the user edits the card

    cache = EmbeddingCache(tmp_path / "cache")
    embedder = CountingEmbedder()
    with pytest.raises(DeckError) as caught:
        embed_deck(embedder, deck, cache=cache)
    message = str(caught.value)
    assert "card1.png" in message and "changed since the deck was loaded" in message
    assert "load the deck again" in message
    assert embedder.encoded == 0
    assert not list((tmp_path / "cache").rglob("*.npz"))  # nothing stored, under any hash
    assert EmbeddingCache(tmp_path / "cache").lookup(embedder.fingerprint, "images",
                                                     [original]) == {}

    # Reloaded, the deck embeds the new picture under its own hash.
    reloaded = load_deck(f"folder:{folder}")
    vectors = embed_deck(embedder, reloaded, cache=cache)
    expected = embedder.embed_images([reloaded.image(1)])[0]
    np.testing.assert_allclose(vectors[1], expected / np.linalg.norm(expected), rtol=1e-6)
    assert reloaded.card_hash(1) == image_content_hash(Image.open(folder / "card1.png"))


def test_the_same_pixels_saved_again_are_the_same_card(tmp_path):
    folder = _folder(tmp_path)
    deck = load_deck(f"folder:{folder}")
    _picture(COLOURS[2]).save(folder / "card2.png", compress_level=0)  # other bytes, same pixels
    embedder = CountingEmbedder()
    vectors = embed_deck(embedder, deck, cache=EmbeddingCache(tmp_path / "cache"))
    assert embedder.encoded == 3 and vectors.shape == (3, embedder.dim)


def test_a_warm_cache_still_reads_no_image(tmp_path):
    folder = _folder(tmp_path)
    deck = load_deck(f"folder:{folder}")
    embedder = CountingEmbedder()
    cold = embed_deck(embedder, deck, cache=EmbeddingCache(tmp_path / "cache"))
    (folder / "card0.png").unlink()  # a lookup reads no file
    warm = embed_deck(embedder, deck, cache=EmbeddingCache(tmp_path / "cache"))
    np.testing.assert_array_equal(warm, cold)
    assert embedder.encoded == 3
