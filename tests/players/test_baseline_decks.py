"""The ground-truth baselines on a deck without what they read: refused before any game, naming
the deck and the cards, rather than failing at every one of their tells (a 4-game tournament on
a captionless folder deck recorded 28 such failures; a web table forfeited every tell)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from dixit_ai.agents import make_agent_for_deck, prepare_agents


@pytest.fixture(scope="module")
def plain_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plain")
    for i in range(30):
        Image.new("RGB", (40, 60), (i * 8, 255 - i * 8, (i * 37) % 256)).save(
            folder / f"card{i:02d}.png")
    return folder


@pytest.mark.parametrize(("name", "needs"), [("caption-teller", "the caption"),
                                             ("object-teller", "the main object's name")])
def test_a_baseline_refuses_a_deck_without_what_it_reads(plain_folder: Path, name: str,
                                                         needs: str) -> None:
    deck = f"folder:{plain_folder}"
    message = (f"{name} tells {needs} of its card, and deck '{plain_folder.name}' has none for "
               "30 of its 30 cards (card 0 first)")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        prepare_agents([name], deck=deck)   # the step tournaments, simulate and the web run
    with pytest.raises(ValueError, match="has none for 30 of its 30 cards"):
        make_agent_for_deck(name, deck).check_deck()


@pytest.mark.parametrize("name", ["caption-teller", "object-teller", "random-teller"])
def test_the_dream_deck_has_what_every_baseline_reads(name: str) -> None:
    make_agent_for_deck(name, "dream").check_deck()
