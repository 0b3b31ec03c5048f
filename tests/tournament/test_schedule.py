"""The schedule: seat rotation, duplicate deals, balanced draws, determinism."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from dixit_ai.tournament import make_schedule
from dixit_ai.tournament.schedule import (
    SCHEDULE_VERSION,
    balance_period,
    pair_counts,
    schedule_fingerprint,
    seat_counts,
)

AGENTS = [f"a{i}" for i in range(8)]


@pytest.mark.parametrize(("n_agents", "seats"), [(2, 3), (3, 3), (4, 5), (5, 5), (7, 5), (8, 4)])
def test_every_agent_plays_every_seat_equally_often(n_agents, seats):
    agents = AGENTS[:n_agents]
    n_games = balance_period(n_agents, seats) * 3
    games = make_schedule(agents, seats=seats, n_games=n_games, seed=1)
    counts = seat_counts(games)
    assert set(counts) == set(agents)
    for per_seat in counts.values():
        assert len(set(per_seat)) == 1, counts  # the same count in every seat
    if n_agents <= seats or n_games % n_agents == 0:
        # every agent plays the same number of seat-games over whole periods
        totals = {sum(per_seat) for per_seat in counts.values()}
        assert len(totals) == 1 or n_agents > seats, counts


@pytest.mark.parametrize(("n_agents", "seats"), [(3, 3), (4, 5), (7, 5)])
def test_duplicate_deals_share_one_seed_and_rotate_the_lineup(n_agents, seats):
    games = make_schedule(AGENTS[:n_agents], seats=seats, n_games=seats * 6, seed=2)
    by_deal: dict[int, list] = {}
    for g in games:
        by_deal.setdefault(g.deal, []).append(g)
    assert len(by_deal) == 6
    assert len({deal[0].seed for deal in by_deal.values()}) == 6  # deals differ
    for deal in by_deal.values():
        assert len(deal) == seats and len({g.seed for g in deal}) == 1  # games share the deal
        first = deal[0].seats
        for turn, g in enumerate(deal):
            assert g.seats == tuple(first[(s + turn) % seats] for s in range(seats))
        # each lineup member (each copy of an agent) plays every seat once per deal
        for seat in range(seats):
            assert Counter(g.seats[seat] for g in deal) == Counter(first)


def test_fewer_agents_than_seats_every_agent_at_every_table_extras_rotated():
    games = make_schedule(AGENTS[:4], seats=5, n_games=20, seed=0)
    for g in games:
        assert set(g.seats) == set(AGENTS[:4])
    doubled = Counter(next(a for a, n in Counter(g.seats).items() if n == 2)
                      for g in games[::5])
    assert doubled == Counter({a: 1 for a in AGENTS[:4]})  # each takes the extra seat once


def test_more_agents_than_seats_balanced_draws():
    agents = AGENTS[:7]
    games = make_schedule(agents, seats=5, n_games=5 * 7 * 4, seed=5)
    appearances = Counter(agent for g in games for agent in g.seats)
    assert set(appearances.values()) == {100}  # 28 deals x 5 seats / 7 agents x 5 games
    for g in games:
        assert len(set(g.seats)) == 5  # never twice at one table when there are enough agents
    pairs = pair_counts(games)
    assert len(pairs) == 21  # every pair meets
    values = [n // 5 for n in pairs.values()]  # in deals
    assert max(values) - min(values) <= 2, pairs


def test_the_schedule_depends_on_its_inputs_alone():
    first = make_schedule(AGENTS[:4], seats=5, n_games=40, seed=9)
    assert first == make_schedule(AGENTS[:4], seats=5, n_games=40, seed=9)
    assert schedule_fingerprint(first) == schedule_fingerprint(
        make_schedule(AGENTS[:4], seats=5, n_games=40, seed=9))
    other = make_schedule(AGENTS[:4], seats=5, n_games=40, seed=10)
    assert other != first and schedule_fingerprint(other) != schedule_fingerprint(first)
    assert [g.index for g in first] == list(range(40))


@pytest.mark.parametrize(("n_agents", "seats"), [(2, 3), (3, 4), (4, 5), (5, 5), (7, 5)])
def test_the_order_the_agents_are_listed_in_changes_no_game(n_agents, seats):
    agents = ["zeta", "b=random", "Alpha", "mu", "c", "beta-2", "_x"][:n_agents]
    first = make_schedule(agents, seats=seats, n_games=seats * 9 + 1, seed=4)
    for order in itertools.islice(itertools.permutations(agents), 1, 24):
        games = make_schedule(list(order), seats=seats, n_games=seats * 9 + 1, seed=4)
        assert games == first
        assert schedule_fingerprint(games) == schedule_fingerprint(first)


def test_version_1_keeps_the_order_given_for_the_runs_it_started():
    """Version 1 drew the tables in the order listed: runs started with it keep that schedule
    (and its fingerprint), while version 2 on is the same for every order."""
    assert SCHEDULE_VERSION == 4
    orders = [["c", "a", "b", "d"], ["a", "b", "c", "d"], ["d", "c", "b", "a"]]
    old = [make_schedule(order, seats=5, n_games=20, seed=3, version=1) for order in orders]
    assert old[0] != old[1] and old[1] != old[2]  # the gap version 2 closes
    assert old[1] == make_schedule(orders[2], seats=5, n_games=20, seed=3)  # sorted = v2
    assert schedule_fingerprint(old[1], 1) != schedule_fingerprint(old[1])
    with pytest.raises(ValueError, match=r"schedule version 5 is unknown .*versions 1, 2, 3, 4"):
        make_schedule(orders[0], seats=5, n_games=20, seed=3, version=5)


def test_an_incomplete_last_deal_is_cut_short():
    games = make_schedule(AGENTS[:3], seats=3, n_games=7, seed=0)
    assert len(games) == 7 and [g.deal for g in games] == [0, 0, 0, 1, 1, 1, 2]


def test_balance_period():
    assert balance_period(4, 5) == 20 and balance_period(2, 4) == 4 and balance_period(6, 4) == 4
    for n_agents, seats in itertools.product(range(2, 7), range(3, 7)):
        period = balance_period(n_agents, seats)
        counts = seat_counts(make_schedule(AGENTS[:n_agents], seats=seats, n_games=period,
                                           seed=0))
        assert all(len(set(c)) == 1 for c in counts.values())


@pytest.mark.parametrize(("agents", "seats", "games", "seed", "match"), [
    (["a"], 3, 3, 0, "at least 2 agents"),
    (["a", "a"], 3, 3, 0, "distinct"),
    (["a", "b"], 3, 0, 0, "positive"),
    (["a", "b"], 3, 3, -1, "non-negative"),
])
def test_bad_schedules(agents, seats, games, seed, match):
    with pytest.raises(ValueError, match=match):
        make_schedule(agents, seats=seats, n_games=games, seed=seed)
