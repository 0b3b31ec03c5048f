"""A folder deck decodes a picture the first time its file's bytes are seen; loading the folder
again reads the cached content hash (filed under the bytes' SHA-256) and decodes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.decks import DeckError, FolderDeck, load_deck
from dixit_ai.decks import folder as folder_module
from tests.decks.helpers import picture, write_folder


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every picture :func:`load_card_image` decodes, in order."""
    seen: list[object] = []
    real = folder_module.load_card_image

    def counting(source):  # type: ignore[no-untyped-def]
        seen.append(source)
        return real(source)

    monkeypatch.setattr(folder_module, "load_card_image", counting)
    return seen


def test_a_folder_loaded_again_decodes_nothing(tmp_path: Path, fresh_cache: Path,
                                               decodes: list[object]) -> None:
    write_folder(tmp_path / "cards", ["a.png", "b.jpg", "c.webp"])
    first = load_deck(f"folder:{tmp_path / 'cards'}")
    assert len(decodes) == 3
    (entries,) = (fresh_cache / "decks").glob("pictures-*")
    assert len(list(entries.iterdir())) == 3
    again = load_deck(f"folder:{tmp_path / 'cards'}")
    assert len(decodes) == 3  # nothing decoded
    assert again.fingerprint == first.fingerprint
    assert [again.card_hash(i) for i in again.card_ids] == \
        [first.card_hash(i) for i in first.card_ids]


def test_changed_bytes_are_decoded_again(tmp_path: Path, fresh_cache: Path,
                                         decodes: list[object]) -> None:
    cards = tmp_path / "cards"
    write_folder(cards, ["a.png", "b.png"])
    before = load_deck(f"folder:{cards}")
    picture(77).save(cards / "b.png")
    after = load_deck(f"folder:{cards}")
    assert len(decodes) == 3  # a.png once, b.png twice (its new bytes)
    assert after.card_hash(0) == before.card_hash(0)
    assert after.card_hash(1) != before.card_hash(1)
    assert after.fingerprint != before.fingerprint


def test_a_broken_cache_entry_is_decoded_again_and_a_wrong_one_is_caught(
        tmp_path: Path, fresh_cache: Path, decodes: list[object]) -> None:
    cards = tmp_path / "cards"
    write_folder(cards, ["a.png", "b.png"])
    good = load_deck(f"folder:{cards}")
    entries = sorted(next((fresh_cache / "decks").glob("pictures-*")).iterdir())
    entries[0].write_text("not a hash")
    again = load_deck(f"folder:{cards}")
    assert len(decodes) == 3 and again.fingerprint == good.fingerprint
    # An entry that names another picture (a cache edited by hand): the card is refused when
    # shown, never served as another picture's.
    for digit, entry in enumerate(entries):
        entry.write_text(str(digit) * 64 + "\n")
    wrong = FolderDeck(cards)
    with pytest.raises(DeckError, match="changed since the deck was loaded"):
        wrong.image(0)


def test_the_decoding_failures_still_name_the_file(tmp_path: Path, fresh_cache: Path) -> None:
    cards = tmp_path / "cards"
    write_folder(cards, ["a.png"])
    (cards / "x.png").write_bytes(b"not a picture")
    with pytest.raises(DeckError, match=r"x\.png: cannot read this image \(Unidentified"
                                        r"ImageError: cannot identify image file '.*x\.png'\)"):
        load_deck(f"folder:{cards}")
    assert len(list((fresh_cache / "decks").glob("pictures-*/*"))) == 1  # a.png's alone
