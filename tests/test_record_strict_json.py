"""A game record is strict JSON: a NaN or an infinity in it is refused by name, never written as
a bare ``NaN`` (which browsers' ``JSON.parse`` and strict readers refuse)."""

from __future__ import annotations

import json
import math

import pytest

from dixit_ai.match import play_game
from dixit_ai.records import GameRecord, write_records

DECK = list(range(84))


def game() -> GameRecord:
    return play_game(["random"] * 4, edition="refresh-2021", deck=DECK, seed=1, max_rounds=2)


def test_a_non_finite_note_is_refused_naming_the_field(tmp_path) -> None:
    record = game()
    record.rounds[1].notes = {"2": {"vote": {"beliefs": {"0": 0.5, "3": math.nan}}}}
    with pytest.raises(ValueError, match=r"rounds\[1\]\.notes\['2'\]\['vote'\]\['beliefs'\]"
                                         r"\['3'\] is nan"):
        record.to_json()
    out = tmp_path / "games.jsonl"
    with pytest.raises(ValueError, match="not finite"):
        write_records(out, [record])
    assert not out.exists()  # written atomically: a refused record leaves no file


def test_a_non_finite_header_or_round_field_is_refused() -> None:
    record = game()
    record.rounds[0].predicted_guess_rate = math.inf
    with pytest.raises(ValueError, match=r"rounds\[0\]\.predicted_guess_rate is inf"):
        record.to_json()
    record = game()
    record.header["agents"][0]["temperature"] = -math.inf
    with pytest.raises(ValueError, match=r"header\['agents'\]\[0\]\['temperature'\] is -inf"):
        record.to_json()


def test_finite_records_are_written_as_before() -> None:
    record = game()
    text = record.to_json()
    assert text == json.dumps(record.to_dict(), sort_keys=True, separators=(",", ":"),
                              ensure_ascii=False)
    assert GameRecord.from_json(text).to_json() == text
