"""A table whose folder deck changed while the server was down is not restored onto other
pictures: it is marked broken, naming the change, until the deck is put back. Before, a card
added to the folder shifted every picture of the table's hands (nothing said so), and a card
removed made every picture of the table a 500."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from dixit_ai.decks import DeckError, load_deck
from dixit_ai.web.config import ServerConfig
from tests.web.conftest import create, manager_of


def card_folder(path: Path, count: int) -> Path:
    path.mkdir()
    for i in range(count):
        Image.new("RGB", (40, 60), (i * 8, 255 - i * 8, (i * 37) % 256)).save(
            path / f"card{i:02d}.png")
    return path


def test_a_table_is_not_restored_onto_a_changed_folder_deck(
        app_factory: Callable[..., TestClient], tmp_path: Path) -> None:
    folder = card_folder(tmp_path / "mine", 30)
    server = ServerConfig(decks={"mine": f"folder:{folder}"}, bots=("random",))
    client = app_factory("deck.sqlite3", server=server)
    made, ann = create(client, seats=3, bots=["random", "random"], deck="mine")
    assert ann.send({"type": "start"}).status_code == 200
    ann.wait(lambda s: s["game"] is not None)
    client.__exit__(None, None, None)

    Image.new("RGB", (40, 60), (1, 2, 3)).save(folder / "a-first.png")   # sorts first
    again = app_factory("deck.sqlite3", server=server)
    broken = manager_of(again).tables[made["table_id"]].broken
    assert broken == ("this table could not be restored: its deck 'mine' is not the deck it "
                      "was dealt from (30 cards then, 31 now), so its cards would show other "
                      "pictures; put the deck back as it was to play on")
    response = again.post("/api/action", json={"type": "leave"},
                          headers={"X-Seat-Token": made["token"]})
    assert response.status_code == 503 and "not the deck it was dealt from" in response.text
    again.__exit__(None, None, None)

    (folder / "a-first.png").unlink()   # put back: the table plays on where it stood
    restored = app_factory("deck.sqlite3", server=server)
    assert manager_of(restored).tables[made["table_id"]].broken is None
    state = restored.get("/api/state", headers={"X-Seat-Token": made["token"]}).json()
    assert state["game"] is not None and state["table"]["broken"] is None


def test_a_picture_changed_on_disk_is_not_served_for_the_one_dealt(
        app_factory: Callable[..., TestClient], tmp_path: Path) -> None:
    """Before, a card file replaced after the server started was served as it now is, while
    the table's record and the bots' vectors were of the old picture."""
    folder = card_folder(tmp_path / "mine", 30)
    server = ServerConfig(decks={"mine": f"folder:{folder}"}, bots=("random",))
    client = app_factory("edit.sqlite3", server=server)
    made, _ann = create(client, seats=3, bots=["random", "random"], deck="mine")
    Image.new("RGB", (40, 60), "white").save(folder / "card05.png")
    response = client.get(f"/api/tables/{made['table_id']}/cards/0")
    assert response.status_code == 503, response.text
    assert "its files changed or cannot be read since the server loaded it" in response.text
    assert str(folder) not in response.text   # the host's paths stay in the log


def test_a_folder_deck_refuses_a_picture_changed_since_it_was_loaded(tmp_path: Path) -> None:
    folder = card_folder(tmp_path / "mine", 3)
    deck = load_deck(f"folder:{folder}")
    deck.image(1)
    Image.new("RGB", (40, 60), "white").save(folder / "card01.png")
    with pytest.raises(DeckError, match=r"card01\.png: its picture changed since the deck was "
                                        "loaded"):
        deck.image(1)
    assert deck.image(0) is not None   # the others are as they were
