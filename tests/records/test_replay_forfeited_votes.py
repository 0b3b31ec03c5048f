"""A forfeited vote is replayed as forfeited: the seat (its team, in the team variant) scores
nothing that round in the replay as in the game (replay made the vote as an ordinary one, and
called a team's forfeited round a points mismatch)."""

from __future__ import annotations

from typing import Any

import pytest

from dixit_ai import play_game, replay_record
from dixit_ai.agents import Choice, RandomAgent
from dixit_ai.rules import View


class FlakyVoter(RandomAgent):
    def vote(self, view: View) -> Choice:
        if view.round % 2:
            raise RuntimeError("flaky")
        return super().vote(view)


@pytest.mark.parametrize("overrides", [{}, {"teams": True}])
def test_records_with_forfeited_votes_replay(overrides: dict[str, Any]) -> None:
    forfeited = 0
    for seed in range(12):
        record = play_game([RandomAgent() for _ in range(7)] + [FlakyVoter()],
                           edition="odyssey-2011", deck=range(84), seed=seed,
                           on_failure="forfeit", **overrides)
        forfeited += sum(7 in r.forfeits for r in record.rounds)
        replay_record(record)
    assert forfeited
