"""The schedule: which agents sit where in every game, and which deal each game plays.

A schedule is computed from ``(agents, seats, n_games, seed)`` alone, so every worker, every
backend and every resumed run agrees on it. Only the *set* of agents counts, not the order in
which they are listed: they are drawn in the order of their labels (sorted), so ``a,b,c`` and
``c,a,b`` play the same games, hence get the same ratings. It is made of *deals*, each of
``seats`` games:

- **Duplicate deals.** The games of one deal share one seed, hence one deal of the cards (and the
  same rules stream): the luck of the deal is the same for everyone and cancels out of the
  comparison.
- **Seat rotation.** A deal seats a *lineup* (one agent per seat) and rotates it one seat per game
  (game ``j`` of the deal gives seat ``s`` to ``lineup[(s + j) % seats]``), a Latin square: within
  a deal, every lineup member plays every seat, hence every seat's hand, exactly once. The lineup's
  order is shuffled per deal (seeded), so that who sits after whom varies too; from version 4 the
  order is drawn again while a rotation of it would give the lineup back (an agent that holds
  two seats: ``[a, b, a, b]``), so that the games of a deal are all different.
- **Balanced table draws.** With more agents than seats, each deal's lineup is drawn greedily:
  the agents that have played least so far first, then those that have met the already seated
  agents least, ties broken at random (seeded). Every agent plays about equally often and every
  pair meets about equally often. With fewer agents than seats, every agent sits at every table
  and the extra seats go, in turn, to the agents that have had fewest (an agent then plays two
  seats, as two independent players).

When the number of games is a multiple of ``seats`` (with fewer agents than seats: of
``seats * agents / gcd(seats, agents)``), every agent plays every seat exactly equally often;
otherwise the last deal is cut short and the balance is off by at most one deal.

>>> games = make_schedule(["a", "b", "c"], seats=3, n_games=6, seed=0)
>>> [g.deal for g in games], len({g.seed for g in games})
([0, 0, 0, 1, 1, 1], 2)
>>> sorted(games[0].seats) == ["a", "b", "c"]
True
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dixit_ai.match import game_seeds
from dixit_ai.rules.teams import team_pairs

SCHEDULE_VERSION = 4
"""Bumped whenever the same inputs would give a different schedule. Version 1 drew the tables
from the agents in the order they were listed (so listing them in another order played other
games); version 2 draws them from the agents sorted by label; version 3 pairs the partners of
team games (the same games as version 2 otherwise); version 4 orders each lineup so that no
rotation of it repeats it (with fewer agents than seats, ``[a, b, a, b]`` rotated by two seats
is itself: the deal played the same game, on the same seed, twice)."""

SCHEDULE_VERSIONS = (1, 2, 3, 4)
"""The versions :func:`make_schedule` can still compute (a run keeps its own version: a run
started with version 1 is resumed, extended and analysed with version 1's schedule)."""

MAX_SCHEDULE_GAMES = 10_000_000
"""The most games of a schedule (a tournament's ``games``), which is built in memory before any
game: weeks of play at the fastest. The same as the command line's ``MAX_GAMES``
(:mod:`dixit_ai.cli.common`, a layer above)."""

_DRAW_STREAM = 0x7A6C
"""Mixed into the tournament seed for the table draws' generator (the deals use ``seed``)."""
_PARTNER_STREAM = 0x7A6D
"""Mixed into the tournament seed for the partners' draw of team games (apart, so that the
tables drawn are those of a game without teams)."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a schedule.

    Attributes:
        index: Its position in the schedule (the key of its record).
        deal: The deal it plays (games of one deal share ``seed``).
        seed: The game's seed, passed to :func:`dixit_ai.play_game`.
        seats: The agent label of each seat.
    """

    index: int
    deal: int
    seed: int
    seats: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {"game": self.index, "deal": self.deal, "seed": self.seed,
                "seats": list(self.seats)}


def balance_period(n_agents: int, seats: int) -> int:
    """The number of games after which every agent has played every seat equally often.

    With at least as many agents as seats this is one deal (exact seat balance within each
    lineup member; across agents, balance in *how often* each plays is approximate for more
    agents than seats, see the module docstring).
    """
    if n_agents >= seats:
        return seats
    return seats * (n_agents // math.gcd(n_agents, seats))


def games_to_seat_everyone(n_agents: int, seats: int) -> int:
    """The fewest games in which every agent has a seat: the first game of the deal that seats
    the last of them (each deal seats ``seats`` agents, those that played least first).

    >>> games_to_seat_everyone(5, 3), games_to_seat_everyone(3, 4), games_to_seat_everyone(7, 4)
    (4, 1, 5)
    """
    return (-(-n_agents // seats) - 1) * seats + 1


def unseated(games: Sequence[ScheduledGame], agents: Sequence[str]) -> list[str]:
    """The agents (in the order given) that have no seat in ``games``."""
    seated = {label for game in games for label in game.seats}
    return [agent for agent in agents if agent not in seated]


MAX_REDRAWS = 1_000
"""The most times a lineup's order is drawn again (version 4) before the order that groups each
agent's seats together, which no rotation repeats, is taken."""


def repeats_under_rotation(lineup: Sequence[str]) -> bool:
    """Whether a rotation of ``lineup`` by fewer seats than it has gives it back (its deal would
    play one game twice).

    >>> repeats_under_rotation(("a", "b", "a", "b")), repeats_under_rotation(("a", "a", "b", "b"))
    (True, False)
    """
    n = len(lineup)
    seated = tuple(lineup)
    return any(seated[r:] + seated[:r] == seated for r in range(1, n) if n % r == 0)


def _grouped(lineup: Sequence[str]) -> tuple[str, ...]:
    """``lineup`` with each agent's seats together, in the order of first appearance: with two
    agents or more, no rotation gives it back."""
    first = {agent: i for i, agent in reversed(list(enumerate(lineup)))}
    return tuple(sorted(lineup, key=first.__getitem__))


def draw_lineups(agents: Sequence[str], seats: int, n_deals: int,
                 rng: np.random.Generator, *, distinct_games: bool = False
                 ) -> list[tuple[str, ...]]:
    """One lineup (an agent per seat) per deal, balanced as the module docstring says;
    ``distinct_games`` (version 4): ordered so that no rotation repeats it."""
    appearances = Counter({agent: 0 for agent in agents})
    meetings: Counter[tuple[str, str]] = Counter()
    lineups = []
    for _ in range(n_deals):
        chosen: list[str] = []
        for _ in range(seats):
            noise = rng.random(len(agents))

            def key(i: int, chosen: list[str] = chosen, noise: np.ndarray = noise
                    ) -> tuple[int, int, int, float]:
                agent = agents[i]
                met = sum(meetings[_pair(agent, other)] for other in chosen if other != agent)
                return (chosen.count(agent), appearances[agent], met, float(noise[i]))

            pick = agents[min(range(len(agents)), key=key)]
            chosen.append(pick)
            appearances[pick] += 1
        for a, b in itertools.combinations(sorted(set(chosen)), 2):
            meetings[(a, b)] += 1
        order = rng.permutation(seats)
        lineup = tuple(chosen[i] for i in order)
        redraws = 0
        while distinct_games and repeats_under_rotation(lineup):
            redraws += 1
            if redraws > MAX_REDRAWS:
                lineup = _grouped(lineup)
                break
            order = rng.permutation(seats)
            lineup = tuple(chosen[i] for i in order)
        lineups.append(lineup)
    return lineups


def partner_lineups(lineups: Sequence[tuple[str, ...]], rng: np.random.Generator, *,
                    distinct_games: bool = False) -> list[tuple[str, ...]]:
    """Each lineup reordered so that the partners of a team game are balanced.

    The rules make seats ``s`` and ``s + seats/2`` partners, and the rotation of a deal keeps
    the lineup's positions ``k`` and ``k + seats/2`` together in every game of it. So each deal's
    members are paired: greedily, the pair that has been partners least so far first (ties at
    random, seeded), then improved by exchanging partners between two teams while that lowers
    the sum of squares of every pair's count (an agent that holds two seats counts as a pair
    with itself). The teams' order and each team's order are shuffled; ``distinct_games``
    (version 4): drawn again while a rotation of the lineup gives it back. Teams that are all an
    agent partnering itself (``(a, a), (b, b)``) repeat under every order: such a deal keeps its
    pairing (the partners' balance comes first) and plays each of its games twice.
    """
    partnered: Counter[tuple[str, str]] = Counter()
    ordered = []
    for lineup in lineups:
        left = list(lineup)
        teams: list[tuple[str, str]] = []
        while left:
            noise = rng.random((len(left), len(left)))
            i, j = min(((i, j) for i in range(len(left)) for j in range(i + 1, len(left))),
                       key=lambda ij: (partnered[_pair(left[ij[0]], left[ij[1]])],
                                       float(noise[ij])))
            teams.append((left[i], left[j]))
            del left[j], left[i]
        teams = _improve_partners(teams, partnered)
        lineup = _seat_teams(teams, rng)
        redraws = 0
        # with one mixed team at least, some order of the teams repeats under no rotation
        mixed = any(a != b for a, b in teams)
        while distinct_games and mixed and repeats_under_rotation(lineup):
            redraws += 1
            if redraws > MAX_REDRAWS:
                lineup = _grouped_teams(teams)
                break
            lineup = _seat_teams(teams, rng)
        partnered.update(_pair(*team) for team in teams)
        ordered.append(lineup)
    return ordered


def _seat_teams(teams: Sequence[tuple[str, str]], rng: np.random.Generator) -> tuple[str, ...]:
    """The lineup of ``teams``: each team's order and the teams' order shuffled, partners
    ``seats/2`` apart."""
    flipped = [team if rng.random() < 0.5 else team[::-1] for team in teams]
    order = rng.permutation(len(flipped))
    return tuple([flipped[k][0] for k in order] + [flipped[k][1] for k in order])


def _grouped_teams(teams: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """The teams in order of their first agent, each (first, second) with a mixed team's
    agents in label order: a lineup no rotation repeats when one team at least is mixed."""
    ordered = sorted((min(team), max(team)) for team in teams)
    return tuple([a for a, _ in ordered] + [b for _, b in ordered])


def _improve_partners(teams: list[tuple[str, str]], partnered: Counter[tuple[str, str]]
                      ) -> list[tuple[str, str]]:
    """``teams`` with partners exchanged between two teams while the sum of squares of the
    pairs' counts (``partnered`` and these teams) falls."""

    def cost(chosen: Sequence[tuple[str, str]]) -> int:
        added = Counter(_pair(*team) for team in chosen)
        return sum((partnered[pair] + n) ** 2 - partnered[pair] ** 2
                   for pair, n in added.items())

    teams = list(teams)
    best = cost(teams)
    improved = True
    while improved:
        improved = False
        for x, y in itertools.combinations(range(len(teams)), 2):
            (a, b), (c, d) = teams[x], teams[y]
            for swapped in (((a, c), (b, d)), ((a, d), (b, c))):
                trial = [*teams]
                trial[x], trial[y] = swapped
                value = cost(trial)
                if value < best:
                    teams, best, improved = trial, value, True
                    break
            if improved:
                break
    return teams


def partner_counts(games: Sequence[ScheduledGame]) -> Counter[tuple[str, str]]:
    """How many team games each pair of agents (an agent with itself included) are partners
    in: seats ``s`` and ``s + seats/2``."""
    counts: Counter[tuple[str, str]] = Counter()
    for game in games:
        for a, b in team_pairs(len(game.seats)):
            counts[_pair(game.seats[a], game.seats[b])] += 1
    return counts


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


def make_schedule(agents: Sequence[str], *, seats: int, n_games: int,
                  seed: int, version: int = SCHEDULE_VERSION,
                  teams: bool = False) -> list[ScheduledGame]:
    """The tournament's games, in order (see the module docstring).

    Args:
        agents: Distinct agent labels (at least two), in any order.
        seats: Players per game.
        n_games: Games in the tournament.
        seed: The tournament's seed (non-negative).
        version: The schedule's version (see :data:`SCHEDULE_VERSION`); an earlier one only to
            continue a run that was started with it.
        teams: The games are team games (an even number of seats, seats ``s`` and
            ``s + seats/2`` partners): from version 3 the partners are balanced
            (:func:`partner_lineups`).

    Raises:
        ValueError: fewer than two agents, a repeated label, a non-positive count, more games
            than :data:`MAX_SCHEDULE_GAMES`, or a version that is not one of
            :data:`SCHEDULE_VERSIONS`.
    """
    if version not in SCHEDULE_VERSIONS:
        raise ValueError(f"schedule version {version!r} is unknown to this version of dixit-ai "
                         f"(it computes versions {', '.join(map(str, SCHEDULE_VERSIONS))})")
    # Version 2 on: the agents' order is canonical (by label), so the order they were listed in
    # decides nothing. Version 1 kept the order given.
    agents = sorted(agents) if version >= 2 else list(agents)
    if len(agents) < 2:
        raise ValueError(f"a schedule needs at least 2 agents, got {len(agents)}")
    if len(set(agents)) != len(agents):
        raise ValueError(f"agent labels must be distinct, got {agents}")
    if seats < 1 or n_games < 1:
        raise ValueError(f"seats and n_games must be positive, got {seats} and {n_games}")
    if n_games > MAX_SCHEDULE_GAMES:
        raise ValueError(f"n_games must be at most {MAX_SCHEDULE_GAMES:,}, not {n_games:,}")
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    n_deals = -(-n_games // seats)
    deal_seeds = game_seeds(seed, n_deals)
    rng = np.random.default_rng([seed, _DRAW_STREAM])
    distinct = version >= 4
    lineups = draw_lineups(agents, seats, n_deals, rng, distinct_games=distinct)
    if teams and version >= 3:
        if seats % 2:
            raise ValueError(f"a team game has an even number of seats, not {seats}")
        lineups = partner_lineups(lineups, np.random.default_rng([seed, _PARTNER_STREAM]),
                                  distinct_games=distinct)
    games = []
    for index in range(n_games):
        deal, turn = divmod(index, seats)
        lineup = lineups[deal]
        games.append(ScheduledGame(
            index=index, deal=deal, seed=deal_seeds[deal],
            seats=tuple(lineup[(seat + turn) % seats] for seat in range(seats))))
    return games


def schedule_fingerprint(games: Sequence[ScheduledGame], version: int = SCHEDULE_VERSION) -> str:
    """A SHA-256 of the schedule (its version, and every game's seed and seats)."""
    payload = json.dumps([version, [g.to_dict() for g in games]],
                         separators=(",", ":"))
    return hashlib.sha256(payload.encode()).hexdigest()


def seat_counts(games: Sequence[ScheduledGame]) -> dict[str, list[int]]:
    """How often each agent sits in each seat."""
    seats = len(games[0].seats) if games else 0
    counts: dict[str, list[int]] = {}
    for game in games:
        for seat, agent in enumerate(game.seats):
            counts.setdefault(agent, [0] * seats)[seat] += 1
    return counts


def pair_counts(games: Sequence[ScheduledGame]) -> Counter[tuple[str, str]]:
    """How many games each pair of distinct agents shares a table."""
    counts: Counter[tuple[str, str]] = Counter()
    for game in games:
        for a, b in itertools.combinations(sorted(set(game.seats)), 2):
            counts[(a, b)] += 1
    return counts
