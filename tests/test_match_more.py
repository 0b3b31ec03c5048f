"""The match runner refuses what an agent returns that the record could not hold, as the agent's
failure (recorded, under the game's policy), not at the end when the record is written."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from dixit_ai import play_game, replay_record
from dixit_ai.agents import RandomAgent, Story
from dixit_ai.rules import View


class Teller(RandomAgent):
    """Tells as RandomAgent does, with a given prediction and notes."""

    def __init__(self, prediction: Any = None, info: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.prediction = prediction
        self.info = info or {}

    def tell(self, view: View) -> Story:
        story = super().tell(view)
        return Story(card=story.card, clue=story.clue, predicted_guess_rate=self.prediction,
                     info=self.info)


def teller_game(teller: Teller, on_failure: str = "abort") -> Any:
    return play_game([teller] + [RandomAgent() for _ in range(3)], edition="refresh-2021",
                     deck=range(84), seed=1, max_rounds=2, on_failure=on_failure)


@pytest.mark.parametrize(("prediction", "reason"), [
    (float("nan"), "nan"), (float("inf"), "inf"), (1.7, "1.7"), (-0.2, "-0.2"),
    ("0.5", "'0.5'"), (True, "True"),
])
def test_a_prediction_outside_0_1_is_the_agents_failure(prediction: Any, reason: str) -> None:
    record = teller_game(Teller(prediction))
    assert record.status == "aborted" and not record.rounds
    (failure,) = record.failures
    assert failure.seat == 0 and failure.phase == "tell"
    assert "predicted_guess_rate" in failure.reason and reason in failure.reason
    record.to_json()  # the record can be written
    forfeited = teller_game(Teller(prediction), on_failure="forfeit")
    assert forfeited.status == "truncated" and forfeited.rounds[0].forfeits == [0]
    assert forfeited.rounds[0].predicted_guess_rate is None
    forfeited.to_json()
    replay_record(forfeited)


def test_a_prediction_in_0_1_is_recorded_as_a_float() -> None:
    import numpy as np

    record = teller_game(Teller(np.float32(0.25)))
    assert record.status == "truncated" and not record.failures
    assert record.rounds[0].predicted_guess_rate == 0.25
    assert type(record.rounds[0].predicted_guess_rate) is float
    record.to_json()


@pytest.mark.parametrize(("info", "named"), [
    ({"beliefs": [0.5, float("nan")]}, "beliefs"),
    ({"thing": object()}, "thing"),
])
def test_notes_a_record_cannot_hold_are_the_agents_failure(info: dict[str, Any],
                                                           named: str) -> None:
    record = teller_game(Teller(info=info))
    assert record.status == "aborted"
    (failure,) = record.failures
    assert failure.seat == 0 and failure.phase == "tell" and named in failure.reason
    record.to_json()


@pytest.mark.parametrize("max_rounds", [1.5, "3", True])
def test_max_rounds_must_be_an_int(max_rounds: Any) -> None:
    with pytest.raises(ValueError, match="max_rounds"):
        play_game([RandomAgent() for _ in range(4)], edition="refresh-2021", deck=range(84),
                  seed=1, max_rounds=max_rounds)


def test_one_agent_object_in_two_seats_is_refused() -> None:
    shared = RandomAgent()
    with pytest.raises(ValueError, match=r"seats 0 and 2 .*same agent object.*one agent per seat"):
        play_game([shared, RandomAgent(), shared, RandomAgent()], edition="refresh-2021",
                  deck=range(84), seed=1)
    assert getattr(shared, "rng", None) is None  # nothing was reset: no game began


class DeckReader(RandomAgent):
    """Keeps the deck its registry entry or the game gave it."""

    made: ClassVar[list[Any]] = []

    def __init__(self, *, deck: Any, name: str = "deck-reader") -> None:
        super().__init__(name=name)
        self.deck = deck
        DeckReader.made.append(self)


def test_named_agents_get_the_games_deck_when_it_is_given_loaded() -> None:
    from dixit_ai.agents import register_agent
    from dixit_ai.decks import load_deck

    register_agent("deck-reader-more-test", "tests.test_match_more:DeckReader", overwrite=True,
                   deck="dream")
    deck = load_deck("dream:size=60,seed=2")
    DeckReader.made.clear()
    play_game(["deck-reader-more-test", "random", "random"], edition="refresh-2021", deck=deck,
              seed=1, max_rounds=1)
    (reader,) = DeckReader.made
    assert reader.deck is deck  # not its entry's default 'dream', another deck's pictures


@pytest.mark.parametrize(("deck", "named"), [
    (["a", "b"], "'a'"), ([i + 0.5 for i in range(84)], "0.5"), ([True, False], "True"),
])
def test_card_ids_must_be_integers(deck: list[Any], named: str) -> None:
    with pytest.raises(ValueError, match=rf"card ids must be integers.*{named}"):
        play_game([RandomAgent() for _ in range(4)], edition="refresh-2021", deck=deck, seed=1)


def test_numpy_card_ids_are_integers() -> None:
    import numpy as np

    record = play_game([RandomAgent() for _ in range(4)], edition="refresh-2021",
                       deck=np.arange(84), seed=1, max_rounds=1)
    assert record.header["deck"]["card_ids"] == list(range(84))
    record.to_json()
