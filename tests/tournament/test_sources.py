"""Points by source (dixit_ai.tournament.sources) and the script that prints them."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from dixit_ai import play_game
from dixit_ai.agents import make_agent
from dixit_ai.records import GameRecord, RoundRecord
from dixit_ai.rules import RuleSet, score_parts
from dixit_ai.tournament import analyse
from dixit_ai.tournament.sources import SOURCES, point_sources, source_of
from scripts import points_by_source
from tests.tournament.helpers import game, story_round

REFRESH = RuleSet.edition("refresh-2021")


def scored(round_: RoundRecord, scores: list[int]) -> RoundRecord:
    """``round_`` with its points and named parts as the rules score it."""
    parts = score_parts(REFRESH, n_players=len(round_.played), storyteller=round_.storyteller,
                        board_owner=round_.board_owner, votes=round_.votes)
    points = [sum(seat.values()) for seat in parts]
    return dataclasses.replace(round_, points=points, parts=parts,
                               scores=[a + b for a, b in zip(scores, points, strict=True)])


def two_rounds() -> GameRecord:
    """Seats A, B, A, B. Round 1: seat 0 (A) tells, seat 1 alone finds it (3 + a vote on its
    card: 4), seat 3 gets a vote on its card (1), seat 2 nothing. Round 2: seat 1 (B) tells and
    everyone finds it (2 each, the storyteller 0)."""
    first = scored(story_round(1, storyteller=0, n_players=4, finders=[1], points=[0] * 4,
                               scores=[0] * 4), [0] * 4)
    second = scored(story_round(2, storyteller=1, n_players=4, finders=[0, 2, 3],
                                points=[0] * 4, scores=[0] * 4), first.scores)
    assert first.points == [3, 4, 0, 1] and second.points == [2, 0, 2, 2]  # as the rules say
    return game(["A", "B", "A", "B"], second.scores, index=0, rounds=[first, second])


def test_a_known_game_splits_as_the_rules_score_it() -> None:
    a, b = point_sources([two_rounds()], n_resamples=20)
    assert (a.agent, b.agent) == ("A", "B")
    # A: seat 0 told (3) and found B's card (2); seat 2 found B's card (2)
    assert {name: a.per_game[name].estimate for name in (*SOURCES, "total")} == {
        "story": 1.5, "guess": 2.0, "decoy": 0.0, "forfeit": 0.0, "total": 3.5}
    # B: seat 1 found A's card (3) and drew a vote (1); seat 3 drew a vote (1), found B's (2)
    assert {name: b.per_game[name].estimate for name in (*SOURCES, "total")} == {
        "story": 0.0, "guess": 2.5, "decoy": 1.0, "forfeit": 0.0, "total": 3.5}
    # A's story gave the others 4, 0 and 1 against its 3; B's gave 2 each against its 0
    assert (a.stories, a.own.estimate, a.given.estimate) == (1, 3.0, pytest.approx(5 / 3))
    assert a.margin.estimate == pytest.approx(4 / 3)
    assert (b.stories, b.own.estimate, b.given.estimate, b.margin.estimate) == (1, 0, 2, -2)


@pytest.mark.parametrize(("part", "storyteller", "source"), [
    ("storyteller", True, "story"), ("solo_3p", True, "story"), ("solo_3p", False, "guess"),
    ("found", False, "guess"), ("all_or_none", False, "guess"), ("single_vote", False, "guess"),
    ("bonus_votes", False, "decoy"), ("cap", False, "decoy"), ("forfeit", True, "forfeit"),
    ("same_image", False, "guess")])
def test_each_named_part_has_its_source(part: str, storyteller: bool, source: str) -> None:
    assert source_of(part, storyteller) == source


@pytest.mark.parametrize("edition", ["refresh-2021", "odyssey-2024", "original-2008"])
def test_random_games_sources_add_up_and_own_points_are_the_standings(edition: str) -> None:
    players = 3 if edition == "original-2008" else 5
    records = []
    for seed in range(6):
        record = play_game([make_agent("random") for _ in range(players)], edition=edition,
                           seed=seed, max_rounds=8)
        labels = ["x" if seat % 2 else "y" for seat in range(players)]
        record.header["agents"] = [{"name": label} for label in labels]
        records.append(record)
    agents = point_sources(records, n_resamples=20)
    standings = {s.agent: s for s in analyse(records, n_resamples=20).standings}
    for agent in agents:
        total = sum(agent.per_game[name].estimate for name in SOURCES)
        assert total == pytest.approx(agent.per_game["total"].estimate)
        assert total == pytest.approx(standings[agent.agent].mean_points.estimate)
        assert agent.own.estimate == pytest.approx(
            standings[agent.agent].storyteller_points.estimate)
        assert agent.margin.estimate == pytest.approx(agent.own.estimate - agent.given.estimate)
        assert agent.per_game["guess"].estimate > 0 and agent.per_game["decoy"].estimate > 0


def aborted_game() -> GameRecord:
    """A game B stopped after one round (``on_failure="abort"``): A's story scored 3."""
    first = two_rounds().rounds[0]
    return game(["A", "B", "A", "B"], first.scores, index=1, rounds=[first], status="aborted")


def test_aborted_games_are_left_out_as_the_standings_leave_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alone = point_sources([two_rounds()], n_resamples=20)
    with_aborted = point_sources([two_rounds(), aborted_game()], n_resamples=20)
    assert with_aborted == alone  # the stopped game moves no figure
    standings = analyse([two_rounds(), aborted_game()], n_resamples=20).standings
    assert {s.agent: s.mean_points.estimate for s in standings} == {
        a.agent: a.per_game["total"].estimate for a in with_aborted}
    with pytest.raises(ValueError, match="all 1 were aborted"):
        point_sources([aborted_game()])
    records = tmp_path / "games.jsonl"
    records.write_text(two_rounds().to_json() + "\n" + aborted_game().to_json() + "\n")
    assert points_by_source.main([str(records), "--resamples", "20",
                                  "--json", str(tmp_path / "s.json")]) == 0
    assert "(1 game, 1 aborted left out;" in capsys.readouterr().out
    data = json.loads((tmp_path / "s.json").read_text())
    assert (data["games"], data["aborted"]) == (1, 1)


def test_records_without_named_parts_are_refused() -> None:
    record = two_rounds()
    record.rounds[1] = dataclasses.replace(record.rounds[1], parts=[])
    with pytest.raises(ValueError, match="round 2: its points have no named parts"):
        point_sources([record])
    with pytest.raises(ValueError, match="no game records"):
        point_sources([])


def test_the_script_prints_and_writes_the_figures(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    records = tmp_path / "games.jsonl"
    records.write_text(two_rounds().to_json() + "\n")
    assert points_by_source.main([str(records), "--resamples", "20",
                                  "--json", str(tmp_path / "s.json")]) == 0
    out = capsys.readouterr().out
    assert "Points a game by source" in out and "margin" in out
    data = json.loads((tmp_path / "s.json").read_text())
    assert [a["agent"] for a in data["agents"]] == ["A", "B"]
    assert data["agents"][1]["margin_per_story"]["estimate"] == -2


def test_the_script_refuses_bad_input_writing_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert points_by_source.main([str(tmp_path / "missing"), "--json",
                                  str(tmp_path / "s.json")]) == 2
    assert "no such run folder or records file" in capsys.readouterr().err
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"header": ')
    assert points_by_source.main([str(torn), "--json", str(tmp_path / "s.json")]) == 2
    assert "torn.jsonl" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        points_by_source.main([str(torn), "--resamples", "0"])
    assert "--resamples must be at least 1" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["torn.jsonl"]


def test_in_team_dixit_a_story_gives_the_other_teams_not_the_partner(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A partner scores the storyteller's points (the team's): counted among "the others" it
    made every story's margin smaller than the lead it gave its team."""
    record = play_game([make_agent("random") for _ in range(6)], edition="odyssey-2011",
                       seed=2, teams=True)
    record.header["agents"] = [{"name": "x"}] * 6
    (agent,) = point_sources([record], n_resamples=20)
    own, given = [], []
    for game_round in record.rounds:
        teller = game_round.storyteller
        partner = (teller + 3) % 6
        assert game_round.points[partner] == game_round.points[teller]
        own.append(game_round.points[teller])
        given.append(sum(p for seat, p in enumerate(game_round.points)
                         if seat not in (teller, partner)) / 4)
    assert agent.given.estimate == pytest.approx(sum(given) / len(given))
    assert agent.margin.estimate == pytest.approx((sum(own) - sum(given)) / len(own))
    assert agent.given.estimate == pytest.approx(2 + 1 / 3)   # the partner counted: 2.07
    records = tmp_path / "teams.jsonl"
    records.write_text(record.to_json() + "\n")
    assert points_by_source.main([str(records), "--resamples", "20"]) == 0
    assert "each other team" in capsys.readouterr().out
