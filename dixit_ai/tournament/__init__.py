"""Tournaments among registered agents: scheduling, resumable parallel play, ratings, reports.

A tournament is data (:class:`TournamentConfig`: agents, table, games, seed); its schedule
(:func:`make_schedule`) rotates seats over duplicate deals and draws balanced tables; its games are
played here, on local processes or on Ray (:func:`run_tournament`), appended to ``games.jsonl``
as they finish, and resumable; its standings (:func:`analyse`) are computed from the records
alone: OpenSkill ratings, win rate, points and storytelling, with bootstrap intervals.

Agents are made by registry name inside the workers, so this package imports no model code.

>>> cautious = {"label": "cautious", "agent": "random", "kwargs": {"second_vote_rate": 0.0}}
>>> config = TournamentConfig(agents=("random", cautious), players=3, games=6)
>>> config.labels, config.name
(['random', 'cautious'], 'random+cautious')
"""

from __future__ import annotations

from dixit_ai.tournament.analysis import (
    AgentStanding,
    TournamentResults,
    analyse,
    rate_games,
)
from dixit_ai.tournament.config import AgentEntry, TournamentConfig, load_config
from dixit_ai.tournament.folder import analyse_folder, load_run_records
from dixit_ai.tournament.player import GamePlayer
from dixit_ai.tournament.report import print_leaderboard, write_report
from dixit_ai.tournament.run import TournamentRun, run_tournament
from dixit_ai.tournament.runner import play_games
from dixit_ai.tournament.schedule import ScheduledGame, make_schedule
from dixit_ai.tournament.store import ResumeError, read_games

__all__ = [
    "AgentEntry",
    "AgentStanding",
    "GamePlayer",
    "ResumeError",
    "ScheduledGame",
    "TournamentConfig",
    "TournamentResults",
    "TournamentRun",
    "analyse",
    "analyse_folder",
    "load_config",
    "load_run_records",
    "make_schedule",
    "play_games",
    "print_leaderboard",
    "rate_games",
    "read_games",
    "run_tournament",
    "write_report",
]
