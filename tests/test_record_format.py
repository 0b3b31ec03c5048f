"""Record format 2: written by every game, older formats read, and replayed or refused by the
rules of their time (a format-1 team record names both formats)."""

from __future__ import annotations

import json

import pytest

from dixit_ai.match import play_game
from dixit_ai.records import READABLE_FORMATS, RECORD_FORMAT, GameRecord
from dixit_ai.replay import ReplayMismatch, _rules_of, replay_record

DECK = list(range(84))


def relabelled(record: GameRecord, version: object, *, drop: tuple[str, ...] = ()
               ) -> GameRecord:
    data = json.loads(record.to_json())
    data["header"]["format"] = version
    for key in drop:
        data["header"]["rules"].pop(key)
    return GameRecord.from_dict(data)


def test_new_records_are_of_format_2_and_round_trip() -> None:
    record = play_game(["random"] * 6, edition="odyssey-2011", mode="party", deck=DECK, seed=1)
    assert RECORD_FORMAT == 2 and record.header["format"] == 2
    again = GameRecord.from_json(record.to_json())
    assert again.to_json() == record.to_json() and again.rounds[0].red_token is not None
    replay_record(again)


def test_a_format_1_team_record_is_refused_naming_both_formats() -> None:
    record = play_game(["random"] * 6, edition="odyssey-2011", teams=True, deck=DECK, seed=2)
    replay_record(record)
    old = relabelled(record, 1)
    with pytest.raises(ReplayMismatch) as error:
        replay_record(old)
    message = str(error.value)
    assert "team record of format 1" in message and "record format 2" in message
    assert "Team Dixit as the Odyssey rulebook states it" in message


def test_a_format_1_record_is_read_under_the_former_single_vote_reading() -> None:
    # Format 1 had no single_vote_bonus_when: its records were scored "some_found".
    assert _rules_of({"format": 1, "rules": {}})["single_vote_bonus_when"] == "some_found"
    for version in (1, 2):  # a record that says its reading keeps it
        header = {"format": version, "rules": {"single_vote_bonus_when": "found"}}
        assert _rules_of(header)["single_vote_bonus_when"] == "found"
    assert "single_vote_bonus_when" not in _rules_of({"format": 2, "rules": {}})
    record = play_game(["random"] * 7, edition="odyssey-2011", deck=DECK, seed=4,
                       single_vote_bonus_when="some_found", max_rounds=6)
    old = relabelled(record, 1, drop=("single_vote_bonus_when",))
    assert replay_record(old).scores == tuple(record.final_scores)


@pytest.mark.parametrize("version", [0, 3, None, "2", True])
def test_unknown_formats_are_refused_naming_the_readable_ones(version: object) -> None:
    record = play_game(["random"] * 3, edition="refresh-2021", deck=DECK, seed=3, max_rounds=1)
    data = json.loads(record.to_json())
    data["header"]["format"] = version
    with pytest.raises(ValueError, match=r"is not one this version reads \(1, 2\)"):
        GameRecord.from_dict(data)
    assert READABLE_FORMATS == (1, 2)
