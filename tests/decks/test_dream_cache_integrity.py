"""A rendered dream card in the deck cache whose picture is not the one recorded for it (a disk
error, a file copied over it) is drawn again, never served: the card would otherwise show
another picture, and embedding it would fail with 'changed since the deck was loaded; load the
deck again', which no reload cures."""

from __future__ import annotations

import shutil
from pathlib import Path

from dixit_ai.decks import load_deck
from dixit_ai.decks.base import image_content_hash


def _card_file(cache: Path, size: str, card_id: int) -> Path:
    (path,) = cache.glob(f"decks/dream-seed5-*/{size}/{card_id:05d}.png")
    return path


def test_a_cached_card_with_another_picture_is_drawn_again(fresh_cache: Path) -> None:
    deck = load_deck("dream:size=3,seed=5")
    expected = deck.fingerprint
    first = image_content_hash(deck.image(0))
    deck.image(1)
    shutil.copyfile(_card_file(fresh_cache, "400x600", 1), _card_file(fresh_cache, "400x600", 0))
    again = load_deck("dream:size=3,seed=5")
    assert again.fingerprint == expected
    assert image_content_hash(again.image(0)) == first == again.card_hash(0)
    # and the cache file is right again
    assert image_content_hash(load_deck("dream:size=3,seed=5").image(0)) == first


def test_a_cached_card_of_another_size_with_another_picture_is_drawn_again(
    fresh_cache: Path,
) -> None:
    deck = load_deck("dream:size=3,seed=5")
    first = deck.image(0, (200, 300)).tobytes()
    deck.image(1, (200, 300))
    shutil.copyfile(_card_file(fresh_cache, "200x300", 1), _card_file(fresh_cache, "200x300", 0))
    assert load_deck("dream:size=3,seed=5").image(0, (200, 300)).tobytes() == first


def test_a_cached_card_with_a_broken_png_chunk_is_drawn_again(fresh_cache: Path) -> None:
    from tests.decks.test_folder_broken_png import _png_with_a_broken_chunk

    deck = load_deck("dream:size=3,seed=5")
    first = image_content_hash(deck.image(0))
    _card_file(fresh_cache, "400x600", 0).write_bytes(_png_with_a_broken_chunk())
    assert image_content_hash(load_deck("dream:size=3,seed=5").image(0)) == first
