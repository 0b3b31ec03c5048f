"""Replay checks a tournament record's seat labels against its header's agents (the analysis
ranks by the labels)."""

from __future__ import annotations

import copy

import pytest

from dixit_ai import play_game
from dixit_ai.agents import make_agent
from dixit_ai.replay import MalformedRecord, ReplayMismatch, replay_record


def tournament_record():
    record = play_game([make_agent("random") for _ in range(3)], edition="refresh-2021", seed=2)
    for seat, agent in enumerate(record.header["agents"]):
        agent["name"] = "abc"[seat]
    record.header["tournament"] = {"name": "t", "game": 5, "deal": 1, "seats": ["a", "b", "c"]}
    return record


def test_tournament_seat_labels_must_name_the_header_agents():
    record = tournament_record()
    replay_record(record)
    swapped = copy.deepcopy(record)
    swapped.header["tournament"]["seats"] = ["c", "b", "a"]
    with pytest.raises(ReplayMismatch, match=r"seat 0's tournament label is 'c' but "
                                             r"header.agents\[0\] names 'a'"):
        replay_record(swapped)


@pytest.mark.parametrize(("key", "value"), [("seats", ["a", "b"]), ("seats", "abc"),
                                            ("game", -1), ("deal", "1"), ("game", True)])
def test_a_malformed_tournament_entry_is_refused(key, value):
    record = tournament_record()
    record.header["tournament"][key] = value
    with pytest.raises(MalformedRecord, match=f"tournament.{key}"):
        replay_record(record)
