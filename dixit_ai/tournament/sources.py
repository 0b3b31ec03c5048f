"""Where each agent's points come from: its own stories, its votes, the votes its decoys drew,
and what its stories give the other players.

A storyteller's points per storytelling turn are only half of what its stories do: a clue that
some but not all find scores 3 for the storyteller and also 3 for each finder, and the votes it
sends to decoys score for their owners. What wins a game is a margin over the others, so this
counts both sides of each story: per agent, the points its stories gave each other player, and
its *margin per story* (its points minus the mean of the others' in that round; in Team Dixit,
of the other teams': a partner scores the storyteller's points). Every figure
is a mean with a 95% percentile-bootstrap interval over deals, as the tournament's standings
(:mod:`dixit_ai.tournament.analysis`).

Points are split by their named parts (:data:`dixit_ai.rules.POINT_PARTS`): ``story`` is the
``storyteller`` part (and the 3-player solo bonus of the storyteller), ``decoy`` the votes on
one's own cards (``bonus_votes`` and what a cap takes back), ``guess`` every other part (found,
all or none, the single-vote bonus, Dixit Party's image parts), ``forfeit`` the forfeited
rounds.

Aborted games (``on_failure="abort"``) are left out, as the standings leave them out: a game
stopped part-way is not a game's points. :func:`complete_games` says how many.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dixit_ai.records import GameRecord
from dixit_ai.reporting import DEFAULT_RESAMPLES, Interval, mean_interval
from dixit_ai.tournament.summary import deal_key, seat_labels, teams_of

SOURCES = ("story", "guess", "decoy", "forfeit")
"""Where a seat's points in a game come from (their sum is its final score)."""

DECOY_PARTS = frozenset({"bonus_votes", "cap"})


@dataclass(frozen=True)
class AgentSources:
    """One agent's points by source, a seat-game each, and what its stories do.

    Attributes:
        agent: Its label.
        seat_games: Seats it held, over all games.
        per_game: Points a seat-game from each of :data:`SOURCES`, and ``total``.
        stories: Its storytelling turns (forfeited ones left out).
        own: Its points per story.
        given: Mean points of each other player in the rounds it told.
        margin: Its points minus ``given``, per story.
    """

    agent: str
    seat_games: int
    per_game: dict[str, Interval]
    stories: int
    own: Interval
    given: Interval
    margin: Interval


def source_of(part: str, storyteller: bool) -> str:
    """The source (:data:`SOURCES`) of a named part of a seat's points."""
    if part == "forfeit":
        return "forfeit"
    if part in DECOY_PARTS:
        return "decoy"
    if part == "storyteller" or (storyteller and part == "solo_3p"):
        return "story"
    return "guess"


def complete_games(records: Sequence[GameRecord]) -> tuple[list[GameRecord], int]:
    """The records of games that were played out (not aborted), and how many were aborted."""
    kept = [record for record in records if record.status != "aborted"]
    return kept, len(records) - len(kept)


def point_sources(records: Sequence[GameRecord], *, n_resamples: int = DEFAULT_RESAMPLES,
                  seed: int = 0) -> list[AgentSources]:
    """Every agent's points by source (see the module docstring), most points a game first.
    Aborted games are left out (:func:`complete_games`).

    Raises:
        ValueError: no records, only aborted games, or a record without the named parts of its
            points (written before the rules named them), which cannot be split.
    """
    if not records:
        raise ValueError("no game records to split into sources")
    records, aborted = complete_games(records)
    if not records:
        raise ValueError(f"no game to split into sources: all {aborted} were aborted")
    seat_rows: dict[str, list[tuple[tuple[str, int], dict[str, float]]]] = {}
    story_rows: dict[str, list[tuple[tuple[str, int], float, float]]] = {}  # deal, own, given
    for record in records:
        labels = seat_labels(record)
        deal = deal_key(record)
        team_of = teams_of(record)   # in Team Dixit a partner scores the storyteller's points
        sums = [dict.fromkeys(SOURCES, 0.0) for _ in labels]
        for number, game_round in enumerate(record.rounds, start=1):
            if len(game_round.parts) != len(labels):
                raise ValueError(f"game {record.seed}, round {number}: its points have no named "
                                 "parts (a record written before the rules named them), so "
                                 "they cannot be split into sources")
            teller = game_round.storyteller
            for seat, parts in enumerate(game_round.parts):
                for part, value in parts.items():
                    sums[seat][source_of(part, seat == teller)] += value
            if teller in game_round.forfeits:
                continue
            others = [points for seat, points in enumerate(game_round.points)
                      if team_of[seat] != team_of[teller]]
            given = float(np.mean(others)) if others else 0.0
            story_rows.setdefault(labels[teller], []).append(
                (deal, float(game_round.points[teller]), given))
        for seat, label in enumerate(labels):
            total = sum(sums[seat].values())
            if total != record.final_scores[seat]:
                raise ValueError(f"game {record.seed}, seat {seat}: its parts sum to {total}, "
                                 f"its final score is {record.final_scores[seat]}")
            seat_rows.setdefault(label, []).append((deal, {**sums[seat], "total": total}))
    agents = []
    for label, rows in seat_rows.items():
        deals = [deal for deal, _ in rows]
        per_game = {name: mean_interval([row[name] for _, row in rows], clusters=deals,
                                        n_resamples=n_resamples, seed=seed)
                    for name in (*SOURCES, "total")}
        told = story_rows.get(label, [])
        story_deals = [deal for deal, _, _ in told]
        scored = np.array([[own, others] for _, own, others in told]).reshape(-1, 2)
        per_story = [mean_interval(values, clusters=story_deals, n_resamples=n_resamples,
                                   seed=seed)
                     for values in (scored[:, 0], scored[:, 1], scored[:, 0] - scored[:, 1])]
        agents.append(AgentSources(agent=label, seat_games=len(rows), per_game=per_game,
                                   stories=len(told), own=per_story[0], given=per_story[1],
                                   margin=per_story[2]))
    return sorted(agents, key=lambda agent: -agent.per_game["total"].estimate)
