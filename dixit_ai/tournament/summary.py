"""What the standings read of each game record: a :class:`GameSummary` of a few numbers a game
(seats, scores, win shares, storytelling turns, failures), and how a record's seats, deal and
teams are named. :mod:`dixit_ai.tournament.analysis` computes the standings from these.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dixit_ai.records import GameRecord
from dixit_ai.rules.teams import seat_units


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the figures need of one game record (:func:`summarize`): an analysis holds these,
    a few numbers a game, and not the records with their rounds, boards and notes.

    Attributes:
        game: The tournament's schedule index, if the record has one.
        deal: The bootstrap's item: the tournament's deal, else the seed.
        status: The record's status.
        ruleset: The edition and rule overrides (records of two rule sets do not compare).
        labels: Each seat's agent label.
        n_players: The record's player count.
        final_scores: Each seat's final score.
        shares: Each seat's share of the win (ties shared; in a team game, its team's).
        team_of: Each seat's team: the seat itself, or in a team game ``seat % (n / 2)``.
        turns: Per round, ``(storyteller seat, forfeited, storyteller's points, success)``.
        failure_seats: The seat of each recorded failure.
        culprit: The seat whose failure stopped an aborted game, if known.
    """

    game: int | None
    deal: tuple[str, int]
    status: str
    ruleset: str
    labels: tuple[str, ...]
    n_players: int
    final_scores: tuple[float, ...]
    shares: tuple[float, ...]
    team_of: tuple[int, ...]
    turns: tuple[tuple[int, bool, float, float], ...]
    failure_seats: tuple[int, ...]
    culprit: int | None


def summarize(record: GameRecord) -> GameSummary:
    """The :class:`GameSummary` of ``record``."""
    info = record.header.get("tournament")
    game = info["game"] if isinstance(info, dict) and isinstance(info.get("game"), int) else None
    culprit = _aborting_failure(record) if record.status == "aborted" else None
    rules = json.dumps(record.header.get("rules", {}), sort_keys=True)
    team_of = teams_of(record)
    return GameSummary(
        game=game, deal=deal_key(record), status=record.status,
        ruleset=f"{record.header.get('edition')} {rules}",
        labels=tuple(seat_labels(record)), n_players=record.n_players,
        final_scores=tuple(record.final_scores),
        shares=tuple(_winner_shares(record, team_of)), team_of=tuple(team_of),
        turns=tuple((r.storyteller, r.storyteller in r.forfeits,
                     r.points[r.storyteller], float(0 < len(r.finders) < len(r.votes)))
                    for r in record.rounds),
        failure_seats=tuple(failure.seat for failure in record.failures),
        culprit=None if culprit is None else culprit.seat)


def seat_labels(record: GameRecord) -> list[str]:
    """Each seat's agent label: the tournament's, else the name in the record's header."""
    info = record.header.get("tournament")
    if isinstance(info, dict) and isinstance(info.get("seats"), list):
        return [str(label) for label in info["seats"]]
    return [str(agent.get("name", "?")) for agent in record.header["agents"]]


def deal_key(record: GameRecord) -> tuple[str, int]:
    """The bootstrap's item of ``record``: its tournament deal, else its seed."""
    info = record.header.get("tournament")
    if isinstance(info, dict) and isinstance(info.get("deal"), int):
        return ("deal", info["deal"])
    return ("seed", record.seed)


def teams_of(record: GameRecord) -> list[int]:
    """Each seat's team: in a team game (the record's rules say ``teams``) seats ``s`` and
    ``s + n/2`` are partners, team ``s % (n/2)``; else each seat is its own."""
    n = len(record.final_scores)
    rules = record.header.get("rules")
    return seat_units(n, isinstance(rules, dict) and rules.get("teams") is True and n % 2 == 0)


def _winner_shares(record: GameRecord, team_of: Sequence[int]) -> list[float]:
    winners = list(record.winners)
    if not winners and record.final_scores:  # truncated: the seats with the top score
        top = max(record.final_scores)
        winners = [seat for seat, score in enumerate(record.final_scores) if score == top]
    won = {team_of[seat] for seat in winners}
    return [1.0 / len(won) if team in won else 0.0 for team in team_of]


def _aborting_failure(record: GameRecord) -> Any:
    """The failure that stopped an aborted game (the last one with penalty ``"abort"``), or
    ``None``."""
    for failure in reversed(record.failures):
        if failure.penalty == "abort":
            return failure
    return None
