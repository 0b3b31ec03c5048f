"""People at the terminal can be named (``--seats human:Ann,human:Bo,random``): the names are
checked, shown in prompts, handoffs and reveals, and recorded as the agents' names, so that
analyses of people's votes (``fit_calibration --voters human``) can tell them apart. In hot seat
the reveal's per-seat reasons name the seat, where "your card" was read by several people.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from dixit_ai.replay import replay_record
from dixit_ai.rules.explain import explain
from tests.test_play import Script
from tests.test_play_hotseat import HANDOFF, _hot_seat_game, refused_before_the_game

#: Reasons worded for the one reader of the terminal.
SECOND_PERSON = re.compile(r"\byour card\b|\byou included\b|\byou voted\b|\byou were\b")


class Answers(Script):
    """test_play's careless person, pressing Enter at every handoff."""

    def __call__(self, prompt: str) -> str:
        if "press Enter" in prompt:
            self.prompts.append(prompt)
            return ""
        return super().__call__(prompt)


def _named_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                capsys: pytest.CaptureFixture[str],
                seats: str = "human:Ann,human:Bo,random") -> tuple[GameRecord, str, Answers]:
    script = Answers()
    monkeypatch.setattr("builtins.input", script)
    out = tmp_path / "game.json"
    assert main(["play", "--seats", seats, "--seed", "5", "--rule", "score_limit=10",
                 "--images", str(tmp_path / "cards"), "--out", str(out)]) == 0
    return GameRecord.from_json(out.read_text()), capsys.readouterr().out, script


def test_named_people_are_shown_by_name_and_recorded_as_their_agents_names(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    record, printed, script = _named_game(tmp_path, monkeypatch, capsys)
    assert record.status == "complete"
    replay_record(record)
    agents = record.header["agents"]
    assert [a["name"] for a in agents] == ["human:Ann", "human:Bo", "random"]
    assert agents[0]["class"] == "HumanAgent" and agents[0]["player"] == "Ann"
    handoffs = [p for p in script.prompts if "press Enter" in p]
    assert any(p.startswith("Ann (seat 0): press Enter") for p in handoffs)
    assert any(p.startswith("Bo (seat 1): press Enter") for p in handoffs)
    assert f"{HANDOFF}Ann (seat 0) ==" in printed and f"{HANDOFF}Bo (seat 1) ==" in printed
    assert "Ann (seat 0), you are the storyteller" in printed or \
        "Bo (seat 1), you are the storyteller" in printed
    assert "points: Ann (seat 0) +" in printed and "Bo (seat 1) +" in printed
    assert "Ann (seat 0) and Bo (seat 1) share this terminal" in printed
    assert re.search(r"Final scores: Ann \(seat 0\) \d+, Bo \(seat 1\) \d+, random", printed)
    assert "human (seat" not in printed and "human:Ann (seat" not in printed


def test_fit_calibrations_human_voters_tell_named_people_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Every person was one voter 'human' to the fit; named people are each their own."""
    from models.players.vote_observations import human_voters, observations_and_voters

    record, _, _ = _named_game(tmp_path, monkeypatch, capsys)
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(200, 8))

    def card_vectors(cards: list[int]) -> Any:
        return vectors[list(cards)]

    def text_vectors(texts: list[str]) -> Any:
        return vectors[:len(texts)]

    observations, voters = observations_and_voters([record], card_vectors, text_vectors,
                                                   human_voters)
    assert observations
    assert voters == [{"fingerprint": None, "name": "human:Ann"},
                      {"fingerprint": None, "name": "human:Bo"}]


def test_one_named_person_is_still_addressed_as_you(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    record, printed, script = _named_game(tmp_path, monkeypatch, capsys,
                                          "human:Ann,random,random")
    assert record.header["agents"][0]["name"] == "human:Ann"
    assert not any("press Enter" in p for p in script.prompts)
    assert "points: you +" in printed and "Final scores: Ann (seat 0)" in printed


@pytest.mark.parametrize("seats, message", [
    ("human:,random,random", "seat 0's name is empty"),
    ("human:  ,random,random", "seat 0's name is empty"),
    ("human:Ann,human:\x1b[2JBo,random", "seat 1's name holds a control character (U+001B"),
    ("human:Ann\u202e,random,random", "seat 0's name holds a bidirectional control"),
    ("human:" + "x" * 41 + ",random,random", "seat 0's name has 41 characters; the limit is 40"),
    ("human:Ann,human:ann,random", "seats 0 and 1 are both named 'Ann'"),
    ("human:random,random,random", "seat 0's name 'random' is also seat 1's"),
    ("human:human,human,random", "seat 0's name 'human' is also seat 1's"),
    ("Human:Ann,random,random", "seat 0 is 'Human:Ann'; a person's seat is spelled 'human'"),
])
def test_bad_names_are_refused_before_the_game(
        seats: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    err = refused_before_the_game(seats, tmp_path, monkeypatch, capsys)
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_names_are_stripped_and_may_hold_spaces_and_letters_of_any_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    record, printed, _ = _named_game(tmp_path, monkeypatch, capsys,
                                     "human: Anna Lee ,human:Zoë,random")
    assert [a["name"] for a in record.header["agents"][:2]] == ["human:Anna Lee", "human:Zoë"]
    assert "Anna Lee (seat 0)" in printed and "Zoë (seat 1)" in printed


def test_the_reasons_name_the_seat_when_asked_and_say_your_otherwise() -> None:
    assert explain({"storyteller": 3}) == [(3, "some but not all found your card")]
    assert explain({"storyteller": 3}, name="Ann") == [(3, "some but not all found Ann's card")]
    assert explain({"bonus_votes": 2}, name="Bo") == [(2, "bonus: 2 votes on Bo's card")]
    assert explain({"same_image": 2}, name="Bo") == [
        (2, "2 players (Bo included) voted for the image Bo voted for")]
    assert explain({"lone_vote": 1}, name="Bo") == [
        (1, "Bo was the only one to vote for that image")]
    assert explain({}, outcome="all", storyteller=True, name="Ann") == [
        (0, "everyone found Ann's card")]
    assert explain({"storyteller": 3, "solo_3p": 1}, storyteller=True, name="Ann")[1] == (
        1, "only one player found Ann's card (3 players): 4 instead of 3")


def test_a_hot_seat_reveal_names_each_seat_in_its_reasons() -> None:
    output = io.StringIO()
    record, _, _ = _hot_seat_game(output)
    assert record.status == "complete"
    reasons = [line for line in output.getvalue().splitlines()
               if re.match(r"    \S.*\(seat \d\): [+-]\d", line)]
    assert reasons
    assert not [line for line in reasons if SECOND_PERSON.search(line)]
    # Two seats are 'human': each is its seat; the one 'random' is itself.
    own_card = [line for line in reasons if "'s card" in line]
    assert own_card and all(re.search(r"human \(seat (\d)\): .*seat \1's card", line)
                            or re.search(r"random \(seat 2\): .*random's card", line)
                            for line in own_card)


def test_a_partners_reasons_name_the_team_whose_card_it_was() -> None:
    """In the team variant a partner shares the storyteller's lines: 'found Bo's card' would say
    that Bo told; the card was Bo's team's."""
    from dixit_ai.rules import Game, RuleSet
    from dixit_ai.rules.explain import explain_round
    from tests.rules.helpers import random_action

    rules = RuleSet.edition("odyssey-2011", teams=True)
    n = rules.min_team_players
    game = Game(rules, n, range(84), seed=1)
    rng = np.random.default_rng(1)
    checked = 0
    while not game.state.is_over:
        result = game.apply(random_action(game.state, rng))
        if result is None:
            continue
        partner = (result.storyteller + n // 2) % n
        lines = explain_round(result, partner, teams=True, name="Bo")
        assert lines == [(p, r.replace("your", "Bo's team's"))
                         for p, r in explain_round(result, partner, teams=True)]
        checked += any("card" in r and "storyteller's" not in r for _, r in lines)
    assert checked
