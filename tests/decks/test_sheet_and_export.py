"""Contact sheets and export: the sheet's size, and a generated deck becoming a folder deck."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dixit_ai.decks import DeckError, contact_sheet, export_deck, load_deck, sheet_layout
from tests.decks.helpers import write_folder


def test_contact_sheet_has_the_expected_size(tmp_path: Path) -> None:
    write_folder(tmp_path, [f"{i}.png" for i in range(5)])
    (tmp_path / "deck.json").write_text(json.dumps({"attribution": "Drawn by Ada"}))
    deck = load_deck(f"folder:{tmp_path}")
    sheet = contact_sheet(deck, columns=3, thumb_width=40)
    layout = sheet_layout(5, columns=3, thumb_width=40,
                          attribution=f"Licence: {deck.license}\n{deck.attribution}")
    gap, thumb_height = 4, 60  # max(4, 40 // 20) and 40 * 3 / 2
    assert (layout.columns, layout.rows) == (3, 2)
    assert (layout.gap, layout.thumb_height) == (gap, thumb_height)
    assert sheet.size == layout.size
    assert sheet.width == gap + 3 * (40 + gap) == 136
    assert sheet.height == layout.header + 2 * (thumb_height + layout.label + gap) + layout.footer
    assert sheet.mode == "RGB"


def test_default_sheet_of_a_dream_deck() -> None:
    deck = load_deck("dream:size=6,seed=2")
    sheet = contact_sheet(deck, thumb_width=60)
    layout = sheet_layout(6, thumb_width=60, attribution=f"Licence: {deck.license}\n"
                          f"{deck.attribution}")
    assert sheet.size == layout.size and layout.columns == 3 and layout.rows == 2
    # The thumbnails are the cards, not an empty grid.
    first = sheet.crop((layout.gap, layout.header, layout.gap + 60, layout.header + 90))
    assert len(first.getcolors(1 << 16) or []) > 50
    assert sheet_layout(84).columns == 12 and sheet_layout(84).rows == 7


def test_sheet_of_some_cards_and_bad_arguments() -> None:
    deck = load_deck("dream:size=6,seed=2")
    assert contact_sheet(deck, card_ids=[5, 0], thumb_width=30).size == sheet_layout(
        2, thumb_width=30, attribution=f"Licence: {deck.license}\n{deck.attribution}").size
    with pytest.raises(KeyError):
        contact_sheet(deck, card_ids=[6])
    with pytest.raises(ValueError):
        contact_sheet(deck, thumb_width=4)


def test_export_makes_a_folder_deck_with_the_same_fingerprint(tmp_path: Path) -> None:
    deck = load_deck("dream:size=3,seed=9")
    written = export_deck(deck, tmp_path / "out")
    assert [path.name for path in written] == ["0000.png", "0001.png", "0002.png"]
    folder = load_deck(f"folder:{tmp_path / 'out'}")
    assert folder.card_ids == deck.card_ids
    assert folder.fingerprint == deck.fingerprint
    for card_id in deck.card_ids:
        assert folder.captions(card_id) == deck.captions(card_id)
        assert folder.description(card_id) == deck.description(card_id)
    assert folder.license == "CC BY-SA 4.0" and folder.attribution == deck.attribution
    metadata = json.loads((tmp_path / "out" / "deck.json").read_text(encoding="utf-8"))
    assert metadata["exported_from"] == deck.source
    assert metadata["source_fingerprint"] == deck.fingerprint


def test_export_at_another_size_and_into_a_used_folder(tmp_path: Path) -> None:
    deck = load_deck("dream:size=2,seed=9")
    export_deck(deck, tmp_path / "small", size=(100, 150))
    small = load_deck(f"folder:{tmp_path / 'small'}")
    assert small.image(0, None).size == (100, 150)
    with pytest.raises(DeckError, match="not empty"):
        export_deck(deck, tmp_path / "small")
    export_deck(deck, tmp_path / "small", overwrite=True)
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(DeckError, match="is a file"):
        export_deck(deck, tmp_path / "a-file")
