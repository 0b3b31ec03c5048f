"""Standings from hand-made records: ratings, win rates with ties, storytelling, bad input."""

from __future__ import annotations

import json
import math

import pytest

from dixit_ai.tournament import analyse, rate_games
from tests.tournament.helpers import game, story_round


def same(left, right) -> bool:
    """Equal results (NaN equal to NaN)."""
    return (json.dumps(left.to_dict(), sort_keys=True)
            == json.dumps(right.to_dict(), sort_keys=True))


def test_the_agent_that_always_wins_ranks_first():
    records = [game(["a", "b", "c"], [30, 20, 10], index=0),
               game(["b", "c", "a"], [22, 12, 31], index=1),
               game(["c", "a", "b"], [11, 30, 25], index=2)]
    results = analyse(records, n_resamples=200, rating_resamples=50)
    assert results.agents == ["a", "b", "c"]
    a, b, c = (results.standing(x) for x in "abc")
    assert a.win_rate.estimate == 1.0 and b.win_rate.estimate == 0.0
    assert a.mean_points.estimate == pytest.approx((30 + 31 + 30) / 3)
    assert a.rating.estimate > 25 > c.rating.estimate
    assert a.rating.low <= a.rating.estimate <= a.rating.high
    assert a.games == a.seat_games == 3 and results.games == 3 and results.deals == 3
    assert results.seat_win_rate == pytest.approx([1 / 3, 1 / 3, 1 / 3])


def test_ties_are_shared():
    records = [game(["a", "b", "c"], [30, 30, 10], index=0),
               game(["a", "b", "c"], [30, 30, 10], index=1)]
    results = analyse(records, n_resamples=100, rating_resamples=0)
    a, b, c = (results.standing(x) for x in "abc")
    assert a.win_rate.estimate == b.win_rate.estimate == 0.5 and c.win_rate.estimate == 0.0
    assert a.rating.estimate == pytest.approx(b.rating.estimate)  # tied ranks, equal updates
    assert math.isnan(a.rating.low)  # no rating interval asked for
    mu, _ = rate_games([(["a", "b"], [5, 5])], ["a", "b"])
    assert mu["a"] == pytest.approx(mu["b"]) == pytest.approx(25.0)


def test_an_agent_on_two_seats_is_rated_on_both():
    mu, sigma = rate_games([(["a", "a", "b"], [30, 20, 10])], ["a", "b"])
    single, single_sigma = rate_games([(["a", "c", "b"], [30, 20, 10])], ["a", "b", "c"])
    assert mu["a"] > single["a"] > 25  # the second seat beat b as well
    assert sigma["a"] < single_sigma["a"]
    records = [game(["a", "a", "b"], [30, 20, 10], index=0)]
    results = analyse(records, n_resamples=50, rating_resamples=10)
    a = results.standing("a")
    assert a.games == 1 and a.seat_games == 2 and a.win_rate.estimate == 0.5


def test_storytelling_figures():
    n = 4
    rounds = [
        # a tells: 1 of 3 find (success), a scores 3
        story_round(0, storyteller=0, n_players=n, finders=[1], points=[3, 3, 0, 0],
                    scores=[3, 3, 0, 0]),
        # b tells: everyone finds (failure), b scores 0
        story_round(1, storyteller=1, n_players=n, finders=[0, 2, 3], points=[2, 0, 2, 2],
                    scores=[5, 3, 2, 2]),
        # a tells again: nobody finds (failure)
        story_round(2, storyteller=0, n_players=n, finders=[], points=[0, 2, 2, 2],
                    scores=[5, 5, 4, 4]),
    ]
    records = [game(["a", "b", "c", "d"], [5, 5, 4, 4], rounds=rounds, index=0)]
    results = analyse(records, n_resamples=50, rating_resamples=0)
    a, b, c = (results.standing(x) for x in "abc")
    assert a.storytelling_turns == 2 and b.storytelling_turns == 1
    assert a.storyteller_success.estimate == 0.5 and b.storyteller_success.estimate == 0.0
    assert a.storyteller_points.estimate == 1.5 and b.storyteller_points.estimate == 0.0
    assert math.isnan(c.storyteller_points.estimate)  # never told


def test_games_of_a_deal_are_resampled_together_and_order_is_the_schedule():
    # Given out of order: analysis sorts by schedule index (ratings depend on order).
    records = [game(["b", "a"], [10, 20], index=1, deal=0),
               game(["a", "b"], [20, 10], index=0, deal=0),
               game(["a", "b"], [5, 25], index=2, deal=1)]
    results = analyse(records, n_resamples=50, rating_resamples=20)
    assert results.deals == 2 and results.games == 3
    in_order = analyse(sorted(records, key=lambda r: r.header["tournament"]["game"]),
                       n_resamples=50, rating_resamples=20)
    assert same(results, in_order)


def test_aborted_games_are_left_out_truncated_games_count():
    records = [game(["a", "b"], [3, 9], index=0, status="aborted"),
               game(["a", "b"], [12, 4], index=1, status="truncated")]
    results = analyse(records, n_resamples=20, rating_resamples=0)
    assert results.games == 1 and results.aborted == 1
    assert results.standing("a").win_rate.estimate == 1.0  # top score of a truncated game
    with pytest.raises(ValueError, match="no game to analyse"):
        analyse(records[:1])
    with pytest.raises(ValueError, match="no game to analyse"):
        analyse([])


def test_records_of_two_editions_or_rule_sets_are_not_pooled():
    """Points to 30 and points to 10 are not one table: mixed records are refused, naming each
    edition or rule set and its games, and nothing is computed."""
    first = [game(["a", "b", "c"], [30, 20, 10], seed=s) for s in range(3)]
    other = game(["a", "b", "c"], [8, 10, 9], seed=9)
    other.header["edition"] = "odyssey-2011"
    with pytest.raises(ValueError, match=r"mix 2 editions \(3 games of refresh-2021 \{\}; "
                                         r"1 games of odyssey-2011"):
        analyse([*first, other])
    shorter = game(["a", "b", "c"], [8, 10, 9], seed=9)
    shorter.header["rules"] = {"score_limit": 10}
    with pytest.raises(ValueError, match="mix 2 rule sets"):
        analyse([*first, shorter])
    assert analyse(first, n_resamples=20, rating_resamples=0).games == 3


def test_records_without_a_tournament_entry_use_the_agents_names():
    records = [game(["x", "y", "z"], [1, 2, 3], seed=s) for s in range(4)]
    results = analyse(records, n_resamples=20, rating_resamples=5)
    assert results.agents == ["z", "y", "x"] and results.deals == 4


def test_the_same_records_give_the_same_results():
    records = [game(["a", "b", "c"], [30 - i, 20 + i, 10], index=i) for i in range(6)]
    assert same(analyse(records, rating_resamples=20), analyse(records, rating_resamples=20))


def _failed(record, seat: int, penalty: str):
    from dixit_ai.records import Failure

    record.failures.append(Failure(seat=seat, round=0, phase="vote", reason="boom",
                                   error="RuntimeError", action=None, penalty=penalty))
    return record


def test_a_failure_that_aborts_a_game_is_still_that_agents_failure():
    """Under on_failure='abort' the game a failure stops is left out of the figures, but the
    failure is the failing agent's all the same: it counts in its failures, and the games it
    aborted are named; an agent whose failures aborted every game it sat in stays on the board
    (no figures, its failures shown), not vanished from it."""
    records = [_failed(game(["a", "b", "crashy"], [3, 9, 1], index=0, status="aborted"), 2,
                       "abort"),
               _failed(game(["a", "b", "c"], [30, 20, 10], index=1), 2, "forfeit"),
               _failed(game(["b", "c", "a"], [3, 9, 1], index=2, status="aborted"), 1,
                       "abort"),
               game(["c", "a", "b"], [30, 20, 10], index=3)]
    results = analyse(records, n_resamples=20, rating_resamples=5)
    assert results.games == 2 and results.aborted == 2
    c, crashy = results.standing("c"), results.standing("crashy")
    assert (c.failures, c.aborted_games) == (2, 1)
    assert (crashy.failures, crashy.aborted_games, crashy.games) == (1, 1, 0)
    assert math.isnan(crashy.win_rate.estimate) and math.isnan(crashy.rating.estimate)
    assert results.agents[-1] == "crashy"  # no analysed game: below every rated agent
    assert results.standing("a").failures == 0
    assert results.to_dict()["standings"][-1]["aborted_games"] == 1
    with pytest.raises(ValueError, match=r"no game to analyse \(1 aborted: 1 by crashy\)"):
        analyse(records[:1])


def test_the_report_names_who_aborted_the_games_left_out(tmp_path):
    import io

    from dixit_ai.tournament.report import print_leaderboard, summary_line, write_report

    records = [_failed(game(["a", "b", "crashy"], [3, 9, 1], index=0, status="aborted"), 2,
                       "abort"),
               game(["a", "b", "c"], [30, 20, 10], index=1)]
    results = analyse(records, n_resamples=20, rating_resamples=0)
    assert "1 aborted games left out (1 by crashy's failures)" in summary_line(results)
    out = io.StringIO()
    print_leaderboard(results, file=out)
    assert "crashy 1 (1 game aborted, left out)" in out.getvalue()
    files = write_report(tmp_path, results)
    assert "crashy" in files["report"].read_text()
    assert "aborted_games" in files["csv"].read_text().splitlines()[0]
