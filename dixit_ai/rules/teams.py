"""Partners of the team variant (Team Dixit): seats ``s`` and ``s + n/2`` sit opposite and share
one score, team ``s % (n/2)``.

The one place this arithmetic lives: the rules, the records' readers, the tournament schedule
and the web table all ask here.
"""

from __future__ import annotations


def _check(n_players: int) -> int:
    if n_players < 2 or n_players % 2:
        raise ValueError(f"a team game seats an even number of players (at least 2), not "
                         f"{n_players}")
    return n_players // 2


def partner_seat(seat: int, n_players: int) -> int:
    """The seat opposite ``seat``: its partner."""
    return (seat + _check(n_players)) % n_players


def team_index(seat: int, n_players: int) -> int:
    """The team of ``seat``, from 0 to ``n_players/2 - 1``."""
    return seat % _check(n_players)


def team_pairs(n_players: int) -> tuple[tuple[int, int], ...]:
    """Each team's two seats, team by team: ``((0, n/2), (1, n/2 + 1), ...)``."""
    half = _check(n_players)
    return tuple((seat, seat + half) for seat in range(half))


def seat_units(n_players: int, teams: bool) -> list[int]:
    """Each seat's scoring unit: its team in a team game, else the seat itself."""
    if not teams:
        return list(range(n_players))
    half = _check(n_players)
    return [seat % half for seat in range(n_players)]
