"""Deck specs and composite decks: parsing, errors, distinct ids, parts, fingerprints."""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.decks import (
    CompositeDeck,
    Deck,
    DeckError,
    DreamDeck,
    combine_card_hashes,
    load_deck,
    split_spec,
)
from tests.decks.helpers import write_folder


@pytest.mark.parametrize("spec", ["bogus", "", "Dream", "folder", "dreams:size=3", "dream+nope"])
def test_unknown_specs_name_the_spec_and_list_valid_forms(spec: str) -> None:
    with pytest.raises(ValueError, match="unknown deck spec") as caught:
        load_deck(spec)
    message = str(caught.value)
    assert "'dream'" in message and "'folder:PATH'" in message and "'+'" in message


def test_other_types_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown deck spec 3"):
        load_deck(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty list"):
        load_deck([])


def test_a_deck_is_returned_as_is() -> None:
    deck = DreamDeck(size=3, seed=1)
    assert load_deck(deck) is deck
    assert load_deck([deck]) is deck


def test_split_spec() -> None:
    assert split_spec("dream") == ["dream"]
    assert split_spec("dream+dream:seed=2") == ["dream", "dream:seed=2"]
    assert split_spec("folder:/a/b+c+dream") == ["folder:/a/b+c", "dream"]
    assert split_spec("dream:size=3+folder:/x+y/z") == ["dream:size=3", "folder:/x+y/z"]


def test_composite_keeps_ids_distinct_and_exposes_parts(tmp_path: Path) -> None:
    write_folder(tmp_path, ["a.png", "b.png"])
    (tmp_path / "captions.json").write_text('{"b.png": "a blue card"}')
    deck = load_deck(f"dream:size=3,seed=1+folder:{tmp_path}")
    assert isinstance(deck, CompositeDeck)
    assert deck.card_ids == (0, 1, 2, 3, 4)
    assert [deck.part_of(card_id) for card_id in deck.card_ids] == [
        (0, 0), (0, 1), (0, 2), (1, 0), (1, 1)
    ]
    assert deck.part(4) is deck.parts[1] and deck.offsets == (0, 3)
    assert deck.captions(4) == ["a blue card"]
    assert deck.captions(0) == deck.parts[0].captions(0)
    assert deck.description(3) is None and deck.description(1) is not None
    assert deck.card_name(3) == "a.png" and deck.card_name(0) == "dream (size 3, seed 1)#0"
    assert deck.image(4, (40, 60)).tobytes() == deck.parts[1].image(1, (40, 60)).tobytes()
    hashes = [part.card_hash(i) for part in deck.parts for i in part.card_ids]
    assert deck.fingerprint == combine_card_hashes(hashes)
    assert deck.license == f"dream (size 3, seed 1): CC BY-SA 4.0; {tmp_path.name}: unknown"
    assert "OpenMoji" in deck.attribution
    with pytest.raises(KeyError):
        deck.part_of(5)


def test_a_list_of_specs_is_the_same_composite(tmp_path: Path) -> None:
    write_folder(tmp_path, ["a.png"])
    joined = load_deck(f"dream:size=2,seed=4+folder:{tmp_path}")
    listed = load_deck(["dream:size=2,seed=4", f"folder:{tmp_path}"])
    assert listed.source == joined.source
    assert listed.fingerprint == joined.fingerprint
    assert load_deck(listed.source).fingerprint == listed.fingerprint


def test_two_dream_decks_make_an_expansion() -> None:
    deck = load_deck("dream:size=2,seed=1+dream:size=2,seed=2")
    assert len(deck) == 4 and len({deck.card_hash(i) for i in deck.card_ids}) == 4


def test_the_same_deck_twice_is_refused() -> None:
    with pytest.raises(DeckError, match="given twice"):
        load_deck("dream:size=2,seed=1+dream:seed=1,size=2")


def test_the_same_picture_in_two_parts_is_refused(tmp_path: Path) -> None:
    write_folder(tmp_path / "base", ["a.png", "b.png"])
    write_folder(tmp_path / "expansion", ["z.png"], start=1)  # the same picture as b.png
    with pytest.raises(DeckError, match=r"z\.png.*same picture as card 1 \(b\.png\)"):
        load_deck([f"folder:{tmp_path / 'base'}", f"folder:{tmp_path / 'expansion'}"])


def test_every_deck_kind_is_a_deck() -> None:
    assert isinstance(load_deck("dream:size=1"), Deck)


def test_spaces_around_a_folder_path_are_the_specs(tmp_path: Path) -> None:
    """'folder: PATH' (a space after the colon, as in 'dream: size=30') loads PATH."""
    write_folder(tmp_path / "cards", ["a.png", "b.png"])
    deck = load_deck(f"folder:  {tmp_path / 'cards'}  ")
    assert len(deck) == 2
    assert len(load_deck(f"dream + folder: {tmp_path / 'cards'}")) == len(DreamDeck()) + 2
    with pytest.raises(DeckError, match="needs a path"):
        load_deck("folder:   ")
