"""A printed failure names its round as people count it and as its record holds it (before:
``dixit-ai play`` printed "round 2" for a record's ``"round": 1``, and nothing said why)."""

from __future__ import annotations

from dixit_ai.cli.common import failure_lines
from dixit_ai.records import Failure, GameRecord


def test_the_round_is_named_both_ways():
    failure = Failure(seat=2, round=1, phase="vote", reason="no", error="ValueError",
                      action=None, penalty="forfeit")
    record = GameRecord({"seed": 5, "agents": [{"name": "a"}, {"name": "b"}, {"name": "c"}]},
                        [], [0, 0, 0], [], failures=[failure])
    (_, line) = failure_lines([record])
    assert "seat 2 (c), round 2 (record: round 1), vote: ValueError: no [forfeit]" in line
