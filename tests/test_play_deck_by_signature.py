"""An agent named by string is given the game's deck when its entry point takes a ``deck``
parameter, not only when its entry's kwargs name one: an entry without kwargs whose class
defaults to ``deck="dream"`` read the dream deck's captions under another deck's card ids."""

from __future__ import annotations

import pytest

from dixit_ai import play_game
from dixit_ai.agents import make_agent_for_deck, registry
from dixit_ai.tournament.player import GamePlayer
from tests.tournament.helpers import random_config


class _DefaultDeckReader:
    """An agent whose class defaults to the dream deck (its entry gives no kwargs)."""

    def __new__(cls, *, deck: str = "dream", name: str = "reader"):  # type: ignore[no-untyped-def]
        from tests.test_play import _DeckReader

        return _DeckReader(deck=deck, name=name)


@pytest.fixture
def reader(monkeypatch):
    registry._ensure_configs()
    monkeypatch.setitem(registry._REGISTRY, "nodeck-reader", registry.AgentSpec(
        "nodeck-reader", "tests.test_play_deck_by_signature:_DefaultDeckReader"))
    return "nodeck-reader"


def test_play_game_gives_the_games_deck_to_an_entry_without_kwargs(reader):
    record = play_game([reader, "random", "random"], edition="refresh-2021",
                       deck="dream:size=60,seed=2", seed=1, max_rounds=1)
    assert record.header["agents"][0]["deck"] == "dream:size=60,seed=2"


def test_the_tournament_and_a_given_deck_too(reader):
    assert make_agent_for_deck(reader, "dream:size=50,seed=1").deck == "dream:size=50,seed=1"
    assert make_agent_for_deck(reader, "dream:size=50,seed=1", deck="x").deck == "x"
    player = GamePlayer(random_config(agents=("random", reader, "b=random"),
                                      deck="dream:size=60,seed=2"))
    assert player._agent(reader, 0).deck == "dream:size=60,seed=2"


def test_an_agent_that_takes_no_deck_is_given_none() -> None:
    assert make_agent_for_deck("random", "dream:size=50,seed=1").name == "random"
