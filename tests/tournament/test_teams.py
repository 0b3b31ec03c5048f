"""Team tournaments (Team Dixit): partners balanced by the schedule, a team's win a win for each
partner, ratings that rank teams, and the chance a seat has of winning (1/teams)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.tournament import analyse
from dixit_ai.tournament.analysis import rate_games
from dixit_ai.tournament.schedule import make_schedule, partner_counts, seat_counts
from dixit_ai.tournament.summary import summarize
from tests.tournament.helpers import game


@pytest.mark.parametrize(("agents", "seats", "deals"), [
    (["random", "clip-greedy", "clip-obvious"], 6, 12), (list("abcd"), 8, 10),
    (list("abcdef"), 6, 20), (list("abcdefghijkl"), 12, 22)])
def test_the_schedule_balances_partners_and_keeps_the_tables_of_a_game_without_teams(
        agents: list[str], seats: int, deals: int) -> None:
    """Before (version 2), in a 3-agent, 6-seat team tournament one agent was partnered with
    itself in every game of a deal and the others with each other: 48, 18, 12 and 12 games of
    the four partnerships over 30 games."""
    n = seats * deals
    teams = make_schedule(agents, seats=seats, n_games=n, seed=1, teams=True)
    plain = make_schedule(agents, seats=seats, n_games=n, seed=1)
    # Version 4 orders a lineup otherwise where a rotation of it repeats it, and only then:
    # the same agents at every table, and the same seats where no deal repeated a game.
    version_2 = make_schedule(agents, seats=seats, n_games=n, seed=1, version=2)
    assert [sorted(g.seats) for g in plain] == [sorted(g.seats) for g in version_2]
    if len(agents) >= seats:
        assert plain == version_2
    # the same agents at each table, every agent in every seat as often as before
    assert [sorted(g.seats) for g in teams] == [sorted(g.seats) for g in plain]
    assert seat_counts(teams) == seat_counts(plain)
    old = partner_counts(make_schedule(agents, seats=seats, n_games=n, seed=1, version=2))
    every_pair = {tuple(sorted((a, b))) for a in agents for b in agents if a != b}
    for version in (3, 4):  # version 4 orders the teams otherwise, never pairs them otherwise
        counts = partner_counts(make_schedule(agents, seats=seats, n_games=n, seed=1,
                                              teams=True, version=version))
        spread = max(counts.values()) - min(counts.values())
        assert spread <= max(old.values()) - min(old.values())
        assert spread <= 2 * seats   # within two deals' worth of games of each other
        assert every_pair <= set(counts)   # every two agents are partners somewhere


def test_a_team_win_is_a_win_for_each_partner_and_chance_is_one_in_teams() -> None:
    labels = ["a", "b", "c", "a2", "b2", "c2"]   # partners: seats 0-3, 1-4, 2-5
    won = game(labels, [20, 12, 9, 20, 12, 9], index=0, winners=[0, 3])
    tie = game(labels, [15, 15, 9, 15, 15, 9], index=1, winners=[0, 1, 3, 4])
    for record in (won, tie):
        record.header["rules"] = {"teams": True}
    assert summarize(won).shares == (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
    assert summarize(tie).shares == (0.5, 0.5, 0.0, 0.5, 0.5, 0.0)
    results = analyse([won, tie], n_resamples=20, rating_resamples=0)
    rate = {s.agent: s.win_rate.estimate for s in results.standings}
    assert rate == {"a": 0.75, "a2": 0.75, "b": 0.25, "b2": 0.25, "c": 0.0, "c2": 0.0}
    assert results.teams == 3 and results.to_dict()["teams"] == 3
    # without the team rule the same records are six players' games
    plain = analyse([game(labels, [20, 12, 9, 20, 12, 9], index=0, winners=[0, 3])],
                    n_resamples=20, rating_resamples=0)
    assert plain.teams is None and plain.standing("a").win_rate.estimate == 0.5


def test_ratings_rank_teams_each_partner_with_its_own_rating() -> None:
    games = [(["a", "b", "c", "d"], [10, 4, 10, 4])] * 3
    mu, _ = rate_games(games, ["a", "b", "c", "d"], [[0, 1, 0, 1]] * 3)
    assert mu["a"] == pytest.approx(mu["c"]) and mu["b"] == pytest.approx(mu["d"])
    assert mu["a"] > mu["b"]
    # each seat alone: the same scores rank a and c tied first, b and d tied last, too
    alone, _ = rate_games(games, ["a", "b", "c", "d"])
    assert alone["a"] > alone["b"]
    assert alone == rate_games(games, ["a", "b", "c", "d"], [[0, 1, 2, 3]] * 3)[0]


def test_a_team_tournament_says_its_chance_and_balances_win_shares(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--agents", "random,x=random,y=random", "--edition",
                 "odyssey-2011", "--players", "6", "--rule", "teams=true", "--games", "12",
                 "--max-rounds", "6", "--seed", "0", "--workers", "1", "--no-progress",
                 "--resamples", "20", "--rating-resamples", "0", "--out", str(tmp_path)]) == 0
    (run,) = tmp_path.iterdir()
    results = json.loads((run / "results.json").read_text())
    assert results["teams"] == 3
    # a seat's win shares average 1/teams over every seat of every game
    seat_games = sum(s["seat_games"] for s in results["standings"])
    wins = sum(s["win_rate"]["estimate"] * s["seat_games"] for s in results["standings"])
    assert wins / seat_games == pytest.approx(1 / 3)
    report = (run / "report.md").read_text()
    assert "a seat wins when its team wins (chance 0.333: 3 teams)" in report
    assert "12 games (6 players in 3 teams, 2 deals)" in report
    records = [json.loads(line) for line in (run / "games.jsonl").read_text().splitlines()]
    partners = {tuple(sorted((r["header"]["tournament"]["seats"][s],
                              r["header"]["tournament"]["seats"][s + 3]))) for r in records
                for s in range(3)}
    assert {("random", "x"), ("random", "y"), ("x", "y")} <= partners
