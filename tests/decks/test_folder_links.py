"""A folder deck whose image name is a broken link is refused, naming it: the card is not
dropped in silence (a deck one card short, with the other cards' ids shifted)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dixit_ai.decks import DeckError, load_deck
from tests.decks.helpers import write_folder


def test_a_broken_link_named_as_an_image_is_refused_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "cards"
    write_folder(folder, ["a.png", "c.png"])
    os.symlink(tmp_path / "moved-away.png", folder / "b.png")
    with pytest.raises(DeckError, match=r"broken link.*b\.png"):
        load_deck(f"folder:{folder}")


def test_a_link_to_an_image_elsewhere_is_a_card(tmp_path: Path) -> None:
    folder = tmp_path / "cards"
    write_folder(folder, ["a.png"])
    (other,) = write_folder(tmp_path / "elsewhere", ["b.png"], start=5)
    os.symlink(other, folder / "b.png")
    deck = load_deck(f"folder:{folder}")
    assert [deck.card_name(card_id) for card_id in deck.card_ids] == ["a.png", "b.png"]
