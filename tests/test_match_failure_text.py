"""A failure's text in a record is cut at match.FAILURE_CHARACTERS, saying how long it was; an
agent's notes longer than match.NOTES_CHARACTERS are its failure."""

from __future__ import annotations

from typing import Any

from dixit_ai import play_game, replay_record
from dixit_ai.agents import RandomAgent, Story
from dixit_ai.match import FAILURE_CHARACTERS, NOTES_CHARACTERS
from dixit_ai.rules import View


class LongTeller(RandomAgent):
    """Tells a clue of a million characters (the rules refuse it), or attaches long notes."""

    def __init__(self, clue: str = "x" * 1_000_000, info: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.clue, self.info = clue, info or {}

    def tell(self, view: View) -> Story:
        story = super().tell(view)
        return Story(card=story.card, clue=self.clue, info=self.info)


def game(teller: RandomAgent, on_failure: str) -> Any:
    return play_game([teller] + [RandomAgent() for _ in range(3)], edition="refresh-2021",
                     deck=range(84), seed=1, max_rounds=1, on_failure=on_failure)


def test_a_huge_refused_move_is_cut_in_the_record() -> None:
    for policy in ("abort", "forfeit"):
        record = game(LongTeller(), policy)
        (failure,) = record.failures
        assert failure.action is not None
        assert len(failure.action) < FAILURE_CHARACTERS + 100
        assert "[cut: 1,000," in failure.action and f"first {FAILURE_CHARACTERS:,} kept" \
            in failure.action
        assert len(failure.reason) < FAILURE_CHARACTERS + 100
        assert len(record.to_json()) < 20_000
        if policy == "forfeit":
            note = record.rounds[0].notes["0"]["tell"]["failure"]
            assert len(note) < FAILURE_CHARACTERS + 100
            replay_record(record)


def test_short_failure_text_is_kept_whole() -> None:
    record = game(LongTeller(clue=""), "abort")
    (failure,) = record.failures
    assert failure.action is not None and "cut" not in failure.action


def test_notes_past_the_limit_are_the_agents_failure() -> None:
    record = game(LongTeller(clue="a clue", info={"dump": "y" * NOTES_CHARACTERS}), "abort")
    (failure,) = record.failures
    assert failure.phase == "tell" and "NOTES_CHARACTERS" in failure.reason
    assert f"{NOTES_CHARACTERS:,}" in failure.reason
    fine = game(LongTeller(clue="a clue", info={"dump": "y" * 1000}), "abort")
    assert not fine.failures
