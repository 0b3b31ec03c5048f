"""A record header's fields of the wrong type or value, or missing, are refused, naming the field
(``dixit-ai replay`` exits 2, naming the file and the line), never replayed as "every record
matches the rules"; records of older formats, and headers with fewer fields read for analysis,
are still read; and a pretty-printed record is told to be JSON Lines."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dixit_ai import GameRecord, play_game, replay_record
from dixit_ai.agents import RandomAgent
from dixit_ai.cli import main
from dixit_ai.jsonl import RecordFileError, read_jsonl
from dixit_ai.record_header import HEADER_FIELDS, RULE_PARAMETERS, check_header
from dixit_ai.replay import MalformedRecord
from dixit_ai.rules import RuleSet

BASE: dict[str, Any] = json.loads(play_game(
    [RandomAgent() for _ in range(4)], edition="refresh-2021", deck=range(84), seed=3,
    max_rounds=4).to_json())


def tampered(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    change(data)
    return data


def header(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["header"].update(values)


def deck(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["header"]["deck"].update(values)


def rules(**values: Any) -> Callable[[dict[str, Any]], None]:
    return lambda data: data["header"]["rules"].update(values)


def without(*path: str) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for key in path[:-1]:
            data = data[key]
        del data[path[-1]]
    return change


# Refused as the record is read (GameRecord.from_json): the message names the field.
UNREADABLE = [
    (header(max_rounds="x"), "header.max_rounds"),
    (header(max_rounds=0), "header.max_rounds"),
    (header(max_rounds=2.5), "header.max_rounds"),
    (header(max_rounds=True), "header.max_rounds"),
    (header(on_failure="explode"), "header.on_failure"),
    (header(on_failure=None), "header.on_failure"),
    (header(versions=[]), "header.versions"),
    (header(versions={"numpy": 2}), "header.versions"),
    (header(edition="monopoly"), "header.edition"),
    (header(edition=["refresh-2021"]), "header.edition"),
    (header(deck=[]), "header.deck"),
    (deck(card_ids=["a", *range(1, 84)]), "header.deck.card_ids[0]"),
    (deck(card_ids=[*range(83), "83"]), "header.deck.card_ids[83]"),
    (deck(card_ids=[*range(83), 83.0]), "header.deck.card_ids[83]"),
    (deck(card_ids=[True, *range(1, 84)]), "header.deck.card_ids[0]"),
    (deck(card_ids="0123"), "header.deck.card_ids"),
    (deck(size="84"), "header.deck.size"),
    (deck(spec=5), "header.deck.spec"),
    (deck(fingerprint=None), "header.deck.fingerprint"),
    (rules(hand_size="x"), "hand_size"),
    (rules(teams="yes"), "teams"),
    (rules(hand_sise=6), "'hand_sise'"),
]


@pytest.mark.parametrize(("change", "named"), UNREADABLE)
def test_from_json_refuses_a_header_field_of_the_wrong_type_or_value(
        change: Any, named: str) -> None:
    with pytest.raises(ValueError, match="not a dixit-ai game record") as caught:
        GameRecord.from_json(json.dumps(tampered(change)))
    assert named in str(caught.value) and "header." in str(caught.value)
    assert "Error:" not in str(caught.value)  # no bare exception name


# Read (a record read for analysis may lack them), but refused by the replay.
UNREPLAYABLE = [
    (header(rules=[]), "header.rules must be an object"),
    (header(rules=3), "header.rules must be an object"),
    (without("header", "rules", "hand_size"), "header.rules lacks rule parameter(s) 'hand_size'"),
    (without("header", "rules", "mode"), "header.rules lacks rule parameter(s) 'mode'"),
    (without("header", "deck", "card_ids"), "header.deck lacks field 'card_ids'"),
    *[(without("header", name), f"header lacks field(s) '{name}'")
      for name in HEADER_FIELDS if name != "format"],
]


@pytest.mark.parametrize(("change", "named"), UNREPLAYABLE)
def test_replay_refuses_a_header_that_lacks_a_field_or_whose_rules_are_no_object(
        change: Any, named: str) -> None:
    record = GameRecord.from_json(json.dumps(tampered(change)))
    with pytest.raises(MalformedRecord) as caught:
        replay_record(record)
    assert named in str(caught.value)


def run_replay(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["replay", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.out + captured.err


# What the tester found (each was "every record matches the rules", exit 0).
REPORTED = [
    (header(rules=[]), "header.rules"),
    (without("header", "rules", "hand_size"), "'hand_size'"),
    (header(max_rounds="x"), "header.max_rounds"),
    (header(on_failure="explode"), "header.on_failure"),
    (header(versions=[]), "header.versions"),
    (deck(card_ids=["a", *range(1, 84)]), "header.deck.card_ids[0]"),
]


@pytest.mark.parametrize(("change", "named"), REPORTED + UNREADABLE + UNREPLAYABLE)
def test_the_replay_cli_exits_2_naming_the_file_the_line_and_the_field(
        change: Any, named: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(BASE) + "\n" + json.dumps(tampered(change)) + "\n")
    status, said = run_replay(path, capsys)
    assert status == 2, said
    assert "every record matches" not in said
    assert said.startswith(f"dixit-ai replay: error: {path}, ")
    assert "line 2" in said and named in said and len(said.splitlines()) == 1


def test_an_honest_record_and_every_allowed_value_still_replay(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    changes: list[Callable[[dict[str, Any]], Any]] = [
        lambda data: None, header(max_rounds=None), header(max_rounds=10**6),
        header(on_failure="forfeit"), deck(spec=None), header(versions={}),
        # a header may hold more than the fields every writer writes
        header(web={"players": ["a", "b", "c", "d"]}, engine="batched")]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(tampered(change)) + "\n" for change in changes))
    for line in path.read_text().splitlines():
        replay_record(GameRecord.from_json(line))
    status, said = run_replay(path, capsys)
    assert status == 0 and f"replayed {len(changes)} games" in said


def test_a_format_1_record_may_lack_the_rules_format_2_added(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = play_game([RandomAgent() for _ in range(5)], edition="odyssey-2011",
                       deck=range(84), seed=4, single_vote_bonus_when="some_found",
                       max_rounds=5)
    data = json.loads(record.to_json())
    data["header"]["format"] = 1
    added = RULE_PARAMETERS[2] - RULE_PARAMETERS[1]
    assert {"mode", "rounds_per_player", "single_vote_bonus_when"} <= added
    for name in added:
        del data["header"]["rules"][name]
    old = GameRecord.from_json(json.dumps(data))
    assert replay_record(old).scores == tuple(record.final_scores)
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(data) + "\n")
    assert run_replay(path, capsys)[0] == 0
    # but not one of the rules format 1 wrote
    del data["header"]["rules"]["hand_size"]
    path.write_text(json.dumps(data) + "\n")
    status, said = run_replay(path, capsys)
    assert status == 2 and "'hand_size'" in said and "format-1 record" in said


def test_records_hold_every_rule_parameter_of_their_format() -> None:
    names = set(RuleSet.edition("refresh-2021").parameters())
    assert RULE_PARAMETERS[1] < RULE_PARAMETERS[2] <= names
    for options in ({}, {"teams": True}, {"mode": "party"}):
        record = play_game([RandomAgent() for _ in range(6)], edition="odyssey-2024",
                           deck=range(84), seed=1, max_rounds=1, **options)
        assert RULE_PARAMETERS[2] <= set(record.header["rules"])
        check_header(record.header, complete=True)


def test_a_header_with_fewer_fields_is_still_read_for_analysis() -> None:
    # As the tournament tests' hand-made records are: read, though not replayable.
    lean = tampered(header(rules={}, deck={"name": "test", "size": 84}))
    for name in ("on_failure", "max_rounds", "versions"):
        del lean["header"][name]
    record = GameRecord.from_json(json.dumps(lean))
    assert record.header["rules"] == {}
    with pytest.raises(MalformedRecord, match="header lacks field"):
        replay_record(record)


def test_check_header_refuses_a_header_that_is_not_an_object() -> None:
    with pytest.raises(ValueError, match="'header' must be an object, not list"):
        check_header([], complete=True)
    with pytest.raises(ValueError, match=r"header\.format must be one of 1, 2, not 7"):
        check_header({**BASE["header"], "format": 7})


# ------------------------------------------------------------------ pretty-printed records

def test_a_pretty_printed_record_is_told_to_be_json_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pretty.json"
    path.write_text(json.dumps(BASE, indent=4) + "\n")  # as python -m json.tool writes it
    status, said = run_replay(path, capsys)
    assert status == 2 and said.startswith(f"dixit-ai replay: error: {path}, line 1: ")
    assert "not valid JSON" in said
    assert "JSON Lines: one JSON object per line" in said
    assert f"python -m json.tool --compact {path}" in said
    # ... and the command it names makes a record file of it
    fixed = tmp_path / "game.jsonl"
    with fixed.open("w") as out:
        subprocess.run([sys.executable, "-m", "json.tool", "--compact", str(path)], stdout=out,
                       check=True)
    assert run_replay(fixed, capsys)[0] == 0


def test_other_json_over_several_lines_is_told_so_too(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    array = tmp_path / "array.json"
    array.write_text(json.dumps([BASE, BASE], indent=1) + "\n")
    status, said = run_replay(array, capsys)
    assert status == 2 and "one JSON object per line" in said and "a JSON array" in said
    # two pretty-printed records: not one document, but the first line is just "{"
    two = tmp_path / "two.json"
    two.write_text(2 * (json.dumps(BASE, indent=2) + "\n"))
    status, said = run_replay(two, capsys)
    assert status == 2 and "one JSON object per line" in said and "just '{'" in said


@pytest.mark.parametrize("text", [
    '{"header": \n',  # cut off, on one line
    json.dumps(BASE)[:-1] + "\n",  # a broken line that is not JSON
    json.dumps(tampered(header(versions=[]))) + "\n",  # JSON, but no record
    json.dumps(BASE) + "\n{\n",  # a good record first: the layout is not the trouble
])
def test_no_such_hint_for_a_file_that_is_not_pretty_printed(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(text)
    status, said = run_replay(path, capsys)
    assert status == 2 and "JSON Lines" not in said


def test_the_analyses_reader_gives_the_hint_too(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(BASE, indent=4) + "\n")
    with pytest.raises(RecordFileError, match=r"line 1: not valid JSON .*one JSON object per "
                                              r"line"):
        read_jsonl(path, GameRecord.from_json, what="game record")
