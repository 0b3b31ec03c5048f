"""Replay checks the winners of a game that did not end (the analysis counts them)."""

from __future__ import annotations

import copy

import pytest

from dixit_ai import play_game
from dixit_ai.agents import Agent, make_agent
from dixit_ai.replay import ReplayMismatch, replay_record


def truncated():
    return play_game(["random"] * 3, edition="refresh-2021", seed=4, max_rounds=3)


def aborted():
    failing = make_agent("random")

    def broken(view):
        raise RuntimeError("no clue")

    failing.tell = broken  # type: ignore[method-assign]
    agents: list[Agent | str] = ["random", failing, "random"]
    return play_game(agents, edition="refresh-2021", seed=4, on_failure="abort")


@pytest.mark.parametrize("make", [truncated, aborted])
def test_a_game_that_did_not_end_has_no_winners(make):
    record = make()
    assert record.status in ("truncated", "aborted") and record.winners == []
    replay_record(record)  # as written: clean
    forged = copy.deepcopy(record)
    forged.winners = [0]
    with pytest.raises(ReplayMismatch, match=rf"winners \(none: the game was {record.status}\)"):
        replay_record(forged)
