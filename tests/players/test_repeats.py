"""A storyteller never tells a clue twice while an untold one remains, and says so when every
candidate clue was told (``avoid_repeats``)."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from dixit_ai import play_game
from dixit_ai.agents import make_agent

DECK = "dream:size=40"


def test_no_clue_is_told_twice_while_an_untold_one_remains() -> None:
    """The refine step re-ordered its shortlist as if every candidate were allowed: with fewer
    allowed candidates than the shortlist (a small vocabulary), told clues were in it and won on
    the fresh estimate ('moon', 'moon' while 'sun' was untold)."""
    bots = [make_agent("clip-greedy", deck=DECK, vocabulary=["sun", "moon"], pair_clues=0)
            for _ in range(3)]
    record = play_game(bots, edition="refresh-2021", deck=DECK, seed=3, max_rounds=9)
    assert not record.failures
    told: dict[int, list[str]] = {}
    for game_round in record.rounds:
        clues = told.setdefault(game_round.storyteller, [])
        note = game_round.notes[str(game_round.storyteller)]["tell"]
        if len(clues) < 2:
            assert game_round.clue not in clues, (game_round.round, clues)
            assert "repeated" not in note
        else:  # both told: a repeat, and the notes say so
            assert note["repeated"] == "every candidate clue was already told"
        clues.append(game_round.clue)
    assert all(len(set(clues[:2])) == 2 for clues in told.values())
