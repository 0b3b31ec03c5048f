"""Who reads whom (models/bench/reading.py): tellers' stories on boards, guessers' top-1."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.decks import load_deck
from models.bench.items import DeckFacts, ItemSets
from models.bench.reading import CHANCE, plot_reading_matrix, reading_matrix, tell_stories
from tests.bench.helpers import BENCH_DECK, CrashingTeller


class Sighted:
    """A guesser that sees which card the clue names (``"card <id>"``), or points elsewhere."""

    def __init__(self, contrary: bool = False) -> None:
        self.contrary = contrary

    def clue_similarities(self, clue: str, cards: list[int]) -> np.ndarray:
        named = int(clue.split()[1])
        sims = np.array([1.0 if c == named else 0.0 for c in cards])
        return 1.0 - sims if self.contrary else sims


class Blind:
    """A guesser to whom every card looks alike but the last."""

    def clue_similarities(self, clue: str, cards: list[int]) -> np.ndarray:
        return np.arange(len(cards), dtype=float)


@pytest.fixture(scope="module")
def sets() -> ItemSets:
    return ItemSets(DeckFacts.of(load_deck(BENCH_DECK)), seed=3, items=12, board_size=6,
                    reference_deals=1)


def test_the_matrix_counts_each_guesser_s_top_1_on_the_same_boards(sets):
    told = [(item.index, item.hand[0], f"card {item.hand[0]}") for item in sets.tell_items()]
    stories = {"namer": told, "silent": [None] * len(told)}
    matrix = reading_matrix(sets, stories, {"sighted": Sighted(), "contrary": Sighted(True),
                                            "blind": Blind()}, resamples=200)
    boards = sets.story_items("story:namer", told)
    assert len(boards) > 0 and all(b.cards[0] == int(b.clue.split()[1]) for b in boards)
    assert matrix["namer"]["sighted"].estimate == 1.0
    assert matrix["namer"]["contrary"].estimate == 0.0   # never the named card
    assert matrix["namer"]["blind"].estimate == 0.0      # the last card, never the target
    assert np.isnan(matrix["silent"]["sighted"].estimate)  # no story, no figure
    assert 0 < CHANCE < 0.2


def test_a_teller_that_cannot_decide_is_not_skipped(sets, monkeypatch):
    import dixit_ai.agents

    with pytest.raises(ValueError, match="no agent named 'no-such-agent'"):
        tell_stories("no-such-agent", sets, seed=0)
    monkeypatch.setattr(dixit_ai.agents, "make_agent_for_deck",
                        lambda name, deck, **kw: CrashingTeller())
    with pytest.raises(RuntimeError, match="no idea"):
        tell_stories("crashing", sets, seed=0)


def test_real_tellers_tell_every_item_and_the_plot_is_written(sets, tmp_path):
    stories = tell_stories("caption-teller", sets, seed=0, deck=BENCH_DECK)
    assert len(stories) == sets.items and all(s is not None for s in stories)
    hands = {item.index: item.hand for item in sets.tell_items()}
    assert all(story[1] in hands[story[0]] for story in stories if story is not None)
    # The teller reads the items' deck: its captions, not the default deck's of the same ids.
    deck = load_deck(BENCH_DECK)
    assert all(story[2] == deck.captions(story[1])[0] for story in stories if story is not None)
    matrix = reading_matrix(sets, {"caption-teller": stories}, {"blind": Blind()},
                            resamples=200)
    plot_reading_matrix(tmp_path / "m.png", matrix, "test")
    assert (tmp_path / "m.png").stat().st_size > 1000
