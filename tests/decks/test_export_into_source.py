"""Exporting a folder deck into its own folder (even with --overwrite) is refused before anything
is written: the exported copies would land among the originals and the folder would no longer
load as a deck (every card a duplicate)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.decks import DeckError, export_deck, load_deck
from tests.decks.helpers import snapshot, write_folder


def test_export_into_the_folder_of_a_folder_deck_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "cards"
    write_folder(folder, ["a.png", "b.png"])
    before = snapshot(folder)
    deck = load_deck(f"folder:{folder}")
    with pytest.raises(DeckError, match="its own"):
        export_deck(deck, tmp_path / "." / "cards", overwrite=True)
    assert snapshot(folder) == before
    load_deck(f"folder:{folder}")  # still a deck


def test_cli_export_into_a_source_folder_of_a_composite_exits_2_writing_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cards"
    write_folder(folder, ["a.png", "b.png"])
    before = snapshot(folder)
    code = main(["deck", "export", f"dream:size=2,seed=3+folder:{folder}", str(folder),
                 "--overwrite"])
    assert code == 2
    assert "its own" in capsys.readouterr().err
    assert snapshot(folder) == before
