"""Schedule version 4: no deal plays the same game twice. With fewer agents than seats a lineup
such as [a, b, a, b] rotated by two seats is itself, so its deal played games 0 and 2 (and 1
and 3) identically: same seed, same seats, identical records, counted twice. Version 4 orders
each lineup so that no rotation gives it back; runs of earlier versions keep their schedule."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from dixit_ai.records import GameRecord
from dixit_ai.tournament import run_tournament
from dixit_ai.tournament.schedule import (
    ScheduledGame,
    balance_period,
    make_schedule,
    partner_counts,
    repeats_under_rotation,
    seat_counts,
)
from tests.tournament.helpers import random_config


def repeated(games: list[ScheduledGame]) -> list[tuple[int, tuple[str, ...]]]:
    """The (seed, seats) of the games scheduled more than once."""
    seen = Counter((g.seed, g.seats) for g in games)
    return [key for key, count in seen.items() if count > 1]


def test_the_probes_deal_played_twice_in_version_3_and_once_in_version_4() -> None:
    old = make_schedule(["random", "word"], seats=4, n_games=8, seed=2, version=3)
    assert old[0].seats == old[2].seats and old[0].seed == old[2].seed
    assert repeated(old)
    new = make_schedule(["random", "word"], seats=4, n_games=8, seed=2)
    assert not repeated(new)
    assert not any(repeats_under_rotation(g.seats) for g in new)


@pytest.mark.parametrize("teams", [False, True])
def test_no_deal_repeats_a_game(teams: bool) -> None:
    for n_agents, seats, seed in itertools.product(range(2, 7), range(3, 13), range(4)):
        if teams and (seats % 2 or seats < 6):
            continue
        agents = [f"agent{i}" for i in range(n_agents)]
        period = balance_period(n_agents, seats)
        games = make_schedule(agents, seats=seats, n_games=period * 2, seed=seed, teams=teams)
        # A team deal whose every team is one agent partnering itself repeats under any order
        # (the partners' balance comes first): only those deals may repeat their games.
        allowed = {(g.seed, g.seats) for g in games if teams and all(
            g.seats[s] == g.seats[s + seats // 2] for s in range(seats // 2))}
        assert set(repeated(games)) <= allowed, (n_agents, seats, seed)
        counts = seat_counts(games)  # still every agent in every seat equally often
        assert all(len(set(c)) == 1 for c in counts.values()), (n_agents, seats, seed)
        if teams:
            assert sum(partner_counts(games).values()) == len(games) * seats // 2


def test_a_tournament_of_two_agents_at_four_seats_plays_eight_different_games(tmp_path) -> None:
    run = run_tournament(random_config(agents=("random", "b=random"), players=4, games=8,
                                       seed=2, max_rounds=2),
                         out=tmp_path, progress=False, n_resamples=10, rating_resamples=0)
    lines = (run.folder / "games.jsonl").read_text().splitlines()
    records = [GameRecord.from_json(line) for line in lines]
    keys = {(r.seed, tuple(r.header["tournament"]["seats"])) for r in records}
    assert len(keys) == 8
    config = json.loads((run.folder / "config.json").read_text())
    assert config["schedule"]["version"] == 4


def test_repeats_under_rotation() -> None:
    assert repeats_under_rotation(("a", "b", "a", "b"))
    assert repeats_under_rotation(("a", "b", "c", "a", "b", "c"))
    assert not repeats_under_rotation(("a", "a", "b", "b"))
    assert not repeats_under_rotation(("a", "b", "c"))
