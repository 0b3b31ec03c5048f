"""Folder decks: ordering, captions, metadata, and clear errors that name the bad file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from dixit_ai.decks import DeckError, FolderDeck, load_deck
from tests.decks.helpers import picture, snapshot, write_folder


def test_images_sorted_by_name_with_stable_ids(tmp_path: Path) -> None:
    write_folder(tmp_path, ["card10.png", "card2.jpg", "card1.webp", "Card3.PNG"])
    (tmp_path / "notes.txt").write_text("not a card")
    (tmp_path / ".hidden.png").write_bytes(b"macOS metadata, not an image")
    (tmp_path / "sub").mkdir()
    picture(99).save(tmp_path / "sub" / "inside.png")
    deck = load_deck(f"folder:{tmp_path}")
    assert isinstance(deck, FolderDeck)
    assert deck.card_ids == (0, 1, 2, 3)
    names = [deck.card_name(card_id) for card_id in deck.card_ids]
    assert names == ["card1.webp", "card2.jpg", "Card3.PNG", "card10.png"]
    again = load_deck(f"folder:{tmp_path}")
    assert again.fingerprint == deck.fingerprint
    assert [again.card_name(i) for i in again.card_ids] == names
    assert deck.source == f"folder:{tmp_path.resolve()}"
    assert deck.name == tmp_path.name and deck.license == "unknown" and deck.attribution == ""


def test_captions_descriptions_and_metadata(tmp_path: Path) -> None:
    write_folder(tmp_path, ["a.png", "b.png", "c.png"])
    captions = {"a.png": "a lighthouse in the fog", "c.png": ["a key", "an old brass key"]}
    (tmp_path / "captions.json").write_text(json.dumps(captions))
    (tmp_path / "descriptions.json").write_text(json.dumps({"b.png": {"objects": ["owl"]}}))
    metadata = {"name": "my cards", "licence": "CC0 1.0", "attribution": "Drawn by Ada"}
    (tmp_path / "deck.json").write_text(json.dumps(metadata))
    deck = load_deck(f"folder:{tmp_path}")
    assert deck.captions(0) == ["a lighthouse in the fog"]
    assert deck.captions(1) == []
    assert deck.captions(2) == ["a key", "an old brass key"]
    assert deck.description(0) is None and deck.description(1) == {"objects": ["owl"]}
    assert (deck.name, deck.license, deck.attribution) == ("my cards", "CC0 1.0", "Drawn by Ada")


def test_images_are_fitted_to_the_requested_size(tmp_path: Path) -> None:
    picture(1, size=(300, 200)).save(tmp_path / "landscape.png")
    deck = load_deck(f"folder:{tmp_path}")
    assert deck.image(0, None).size == (300, 200)
    assert deck.image(0).size == (400, 600)
    assert deck.image(0, (64, 64)).size == (64, 64)


def test_exif_orientation_and_transparency(tmp_path: Path) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # rotated 90 degrees: a 90x60 file shows as 60x90
    picture(2, size=(90, 60)).save(tmp_path / "a.jpg", exif=exif)
    transparent = Image.new("RGBA", (20, 30), (255, 0, 0, 0))
    transparent.save(tmp_path / "b.png")
    deck = load_deck(f"folder:{tmp_path}")
    assert deck.image(0, None).size == (60, 90)
    assert deck.image(1, None).getpixel((5, 5)) == (255, 255, 255)


def test_nothing_is_written_into_the_folder(tmp_path: Path) -> None:
    write_folder(tmp_path, ["a.png", "b.jpg"])
    (tmp_path / "captions.json").write_text(json.dumps({"a.png": "x"}))
    before = snapshot(tmp_path)
    deck = load_deck(f"folder:{tmp_path}")
    _ = deck.fingerprint, deck.image(0), deck.image(1, (10, 10)), deck.captions(0)
    assert snapshot(tmp_path) == before


def test_corrupt_and_unreadable_images_are_named(tmp_path: Path) -> None:
    write_folder(tmp_path, ["good.png"])
    (tmp_path / "garbage.png").write_bytes(b"this is not a picture at all")
    whole = (tmp_path / "good.png").read_bytes()
    (tmp_path / "truncated.png").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(DeckError) as caught:
        load_deck(f"folder:{tmp_path}")
    message = str(caught.value)
    assert "garbage.png" in message and "truncated.png" in message
    assert "good.png" not in message.replace(str(tmp_path), "")


def test_duplicate_images_are_refused(tmp_path: Path) -> None:
    write_folder(tmp_path, ["a.png", "b.png"])
    picture(0).save(tmp_path / "copy.webp", lossless=True)  # the same picture as a.png
    with pytest.raises(DeckError, match=r"copy\.webp: duplicate image, the same picture as a\.png"):
        load_deck(f"folder:{tmp_path}")


def test_empty_missing_and_non_folders(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="no image files"):
        load_deck(f"folder:{tmp_path}")
    (tmp_path / "captions.json").write_text("{}")
    with pytest.raises(DeckError, match="no image files"):
        load_deck(f"folder:{tmp_path}")
    with pytest.raises(DeckError, match="does not exist"):
        load_deck(f"folder:{tmp_path / 'nope'}")
    (tmp_path / "file.png").write_bytes(b"x")
    with pytest.raises(DeckError, match="is not a folder"):
        load_deck(f"folder:{tmp_path / 'file.png'}")
    with pytest.raises(DeckError, match="needs a path"):
        load_deck("folder:")


@pytest.mark.parametrize(
    "file_name, content, message",
    [
        ("captions.json", "{not json", "captions.json: invalid JSON"),
        ("captions.json", '["a list"]', "captions.json: must be a JSON object"),
        ("captions.json", '{"missing.png": "x"}', "not images of this deck: 'missing.png'"),
        ("captions.json", '{"a.png": 3}', "entry 'a.png': a caption must be a string"),
        ("descriptions.json", '{"a.png": "text"}', "a description must be a JSON object"),
        ("deck.json", '{"nmae": "typo"}', "unknown keys 'nmae'"),
        ("deck.json", '{"license": "a", "licence": "b"}', "not both"),
        ("deck.json", '{"name": 3}', "'name' must be a string"),
    ],
)
def test_bad_side_files_are_named(
    tmp_path: Path, file_name: str, content: str, message: str
) -> None:
    write_folder(tmp_path, ["a.png"])
    (tmp_path / file_name).write_text(content)
    with pytest.raises(DeckError, match=message):
        load_deck(f"folder:{tmp_path}")


def test_paths_and_home_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cards+extra"
    write_folder(folder, ["a.png"])
    assert len(load_deck(f"folder:{folder}")) == 1  # '+' inside a path is fine
    assert len(load_deck(folder)) == 1  # a Path is a folder deck
    monkeypatch.setenv("HOME", str(tmp_path))
    assert len(load_deck("folder:~/cards+extra")) == 1
    monkeypatch.chdir(tmp_path)
    relative = load_deck("folder:cards+extra")
    assert relative.source == f"folder:{folder.resolve()}"
