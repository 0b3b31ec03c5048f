"""GameRecord.from_json and `dixit-ai replay` on tampered records: each is refused naming the
field (exit 2 for a record that cannot be read), or as a mismatch with the rules (exit 1)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dixit_ai import GameRecord, play_game, replay_record
from dixit_ai.agents import RandomAgent
from dixit_ai.cli import main
from dixit_ai.replay import MalformedRecord, ReplayMismatch

BASE = json.loads(play_game([RandomAgent() for _ in range(4)], edition="refresh-2021",
                            deck=range(84), seed=3).to_json())


def tampered(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    change(data)
    return data


def setter(*path: Any, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        for key in path[:-1]:
            data = data[key]
        data[path[-1]] = value
    return change


UNREADABLE = [
    (setter("status", value="weird"), "status"),
    (setter("rounds", value={}), "rounds"),
    (setter("winners", value="3"), "winners"),
    (setter("final_scores", value=5), "final_scores"),
    (setter("failures", value=5), "failures"),
    (setter("failures", value=[{"x": 1}]), "failures[0]"),
    (setter("header", value=[]), "header"),
    # an unknown top-level field (a misspelt 'status' was read as a complete game)
    (lambda d: d.update(staus="aborted"), "'staus'"),
    (setter("header", "format", value=2.0), "format"),
    (lambda d: d["rounds"][0].update(foo=1), "rounds[0]"),
    (lambda d: d["rounds"][1].pop("clue"), "rounds[1]"),
    (lambda d: d["rounds"][0]["votes"].update(x=[0]), "rounds[0].votes"),
    (setter("rounds", 0, "votes", value=[[1]]), "rounds[0].votes"),
    (setter("rounds", 0, value=[]), "rounds[0]"),
    (setter("rounds", 0, "notes", value=[]), "rounds[0].notes"),
    (setter("rounds", 0, "predicted_guess_rate", value=float("nan")),
     "rounds[0].predicted_guess_rate"),
    (setter("rounds", 2, "points", value=[float("inf"), 0, 0, 0]), "rounds[2].points"),
]


@pytest.mark.parametrize(("change", "named"), UNREADABLE)
def test_from_json_refuses_a_broken_record_naming_the_field(change: Any, named: str) -> None:
    text = json.dumps(tampered(change))
    with pytest.raises(ValueError, match=r"not a dixit-ai game record") as caught:
        GameRecord.from_json(text)
    assert named in str(caught.value)
    assert "Error(" not in str(caught.value)  # no bare exception repr


@pytest.mark.parametrize(("change", "named"), UNREADABLE)
def test_replay_cli_refuses_it_with_exit_2(change: Any, named: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(tampered(change)) + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and named in err and "Traceback" not in err


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-2E+400"])
def test_from_json_refuses_a_non_finite_number_in_any_spelling(number: str) -> None:
    text = json.dumps(BASE).replace('"predicted_guess_rate":null',
                                    f'"predicted_guess_rate":{number}', 1)
    text = text.replace('"predicted_guess_rate": null', f'"predicted_guess_rate": {number}', 1)
    assert number in text
    with pytest.raises(ValueError, match=r"rounds\[0\]\.predicted_guess_rate is (nan|-?inf)"):
        GameRecord.from_json(text)


MALFORMED = [
    (setter("header", "n_players", value=10**30), "n_players"),
    (setter("header", "n_players", value="4"), "n_players"),
    (setter("header", "n_players", value=4.0), "n_players"),
    (setter("header", "seed", value="3"), "seed"),
    (setter("header", "seed", value=3.5), "seed"),
    (setter("header", "seed", value=True), "seed"),
    (setter("rounds", 0, "round", value=False), "'round'"),
    (setter("rounds", 0, "storyteller", value=0.0), "'storyteller'"),
    (setter("rounds", 1, "scores", value=[float(s) for s in BASE["rounds"][1]["scores"]]),
     "'scores'"),
    (setter("rounds", 1, "board", value="abc"), "'board'"),
    (setter("rounds", 0, "reshuffled", value="yes"), "'reshuffled'"),
    (setter("rounds", 0, "red_token", value="1"), "'red_token'"),
    (setter("final_scores", value=[float(s) for s in BASE["final_scores"]]), "final_scores"),
    (setter("winners", value=[str(s) for s in BASE["winners"]]), "winners"),
]


@pytest.mark.parametrize(("change", "named"), MALFORMED)
def test_replay_refuses_fields_of_the_wrong_type(change: Any, named: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    record = GameRecord.from_dict(tampered(change))
    with pytest.raises(MalformedRecord, match=named.replace("[", r"\[")):
        replay_record(record)
    path = tmp_path / "game.jsonl"
    path.write_text(json.dumps(tampered(change)) + "\n")
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err


@pytest.mark.parametrize(("change", "named"), [
    (setter("rounds", 0, "red_token", value=1), "red token"),
    (setter("rounds", 3, "reshuffled", value=not BASE["rounds"][3]["reshuffled"]), "reshuffled"),
])
def test_replay_checks_the_red_token_and_the_reshuffle(change: Any, named: str) -> None:
    with pytest.raises(ReplayMismatch, match=named):
        replay_record(GameRecord.from_dict(tampered(change)))


def test_an_honest_record_still_replays_after_its_round_trip() -> None:
    replay_record(GameRecord.from_json(json.dumps(BASE)))


def test_replay_refuses_a_file_with_no_record_among_others(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps(BASE) + "\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert main(["replay", str(good), str(empty)]) == 2
    captured = capsys.readouterr()
    assert f"{empty}: no game record in it" in captured.err
    assert main(["replay", str(good)]) == 0
    assert "replayed 1 game (" in capsys.readouterr().out


def test_replay_of_a_folder_says_where_a_runs_records_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "games.jsonl").write_text(json.dumps(BASE) + "\n")
    assert main(["replay", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "a folder, not a file of game records" in err
    assert str(tmp_path / "games.jsonl") in err


def failure(**fields: Any) -> dict[str, Any]:
    entry = {"seat": 0, "round": 2, "phase": "tell", "reason": "x", "error": "E",
             "action": None, "penalty": "abort"}
    entry.update(fields)
    return entry


def stopped(*failures: dict[str, Any], status: str = "aborted",
            rounds: int = 2) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data.update(status=status, winners=[], rounds=data["rounds"][:rounds],
                    final_scores=data["rounds"][rounds - 1]["scores"], failures=list(failures))
    return change


@pytest.mark.parametrize(("change", "named", "kind"), [
    (setter("header", "agents", value=BASE["header"]["agents"][:3]), "agents", MalformedRecord),
    (setter("header", "agents", value="x"), "agents", MalformedRecord),
    (setter("header", "deck", "size", value=5), "deck", MalformedRecord),
    (stopped(failure(seat=9)), "failures[0]", MalformedRecord),
    (stopped(failure(phase="zzz")), "failures[0]", MalformedRecord),
    (stopped(failure(penalty="shrug")), "failures[0]", MalformedRecord),
    (stopped(failure(round=7)), "failures[0]", ReplayMismatch),
    (stopped(), "aborted", ReplayMismatch),
    (stopped(failure(), status="truncated"), "abort", ReplayMismatch),
    (lambda d: d.update(failures=[failure(round=11)]), "abort", ReplayMismatch),
    (stopped(failure(penalty="forfeit", round=1), status="truncated"), "forfeit",
     ReplayMismatch),
])
def test_replay_checks_the_header_and_the_failures(change: Any, named: str, kind: type) -> None:
    with pytest.raises(kind, match=named.replace("[", r"\[")):
        replay_record(GameRecord.from_dict(tampered(change)))


def test_an_honest_stopped_record_still_replays() -> None:
    replay_record(GameRecord.from_dict(tampered(stopped(failure()))))
    replay_record(GameRecord.from_dict(tampered(stopped(status="truncated"))))
