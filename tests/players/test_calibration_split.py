"""The fit/held-out split of ``scripts/fit_calibration.py`` (:func:`split_fit_held`)."""

from __future__ import annotations

import itertools

from dixit_ai.records import GameRecord
from models.players.calibration import split_fit_held


def game(seed: int, deal: int | None = None, index: int = 0) -> GameRecord:
    header: dict[str, object] = {"seed": seed}
    if deal is not None:
        header["tournament"] = {"deal": deal, "game": index, "name": "t", "seats": []}
    return GameRecord(header, [], [], [])


def seeds(records: list[GameRecord]) -> list[tuple[int, object]]:
    return [(r.seed, r.header.get("tournament")) for r in records]


def test_the_split_depends_on_the_games_not_their_order():
    games = [game(11), game(5), game(8), game(2), game(30, 0, 0), game(30, 0, 1)]
    first = split_fit_held(games)
    for order in itertools.permutations(games):
        fit, held = split_fit_held(list(order))
        assert (seeds(fit), seeds(held)) == (seeds(first[0]), seeds(first[1]))


def test_the_games_of_a_tournament_deal_fall_on_one_side():
    # 3 deals of 4 games each: a deal's games share its seed
    games = [game(seed, deal, 4 * deal + j)
             for deal, seed in enumerate((70, 10, 40)) for j in range(4)]
    fit, held = split_fit_held(games)
    assert {r.seed for r in fit} == {10, 70} and {r.seed for r in held} == {40}
    assert len(fit) == 8 and len(held) == 4


def test_one_seed_holds_nothing_out():
    games = [game(3, 0, j) for j in range(4)]
    fit, held = split_fit_held(games)
    assert len(fit) == 4 and held == []
