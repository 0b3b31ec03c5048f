"""``dixit-ai replay``: re-run records through the rules; fail loudly on any mismatch.

A tournament's records are checked against its schedule too, where the tournament's seed is at
hand: a record holds its game's seed, game index and deal, and the run folder's
``config.json`` the tournament's seed, from which the schedule derives each game's seed, deal
and seats. Records read from a run folder's ``games.jsonl`` are checked so; tournament records
anywhere else are said not to be.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import EXIT_FAILED, EXIT_OK
from dixit_ai.records import read_numbered_records
from dixit_ai.replay import MalformedRecord, ReplayMismatch, replay_record
from dixit_ai.tournament.config import TournamentConfig
from dixit_ai.tournament.run_rules import RunRules
from dixit_ai.tournament.schedule import ScheduledGame
from dixit_ai.tournament.store import (
    CONFIG_FILE,
    GAMES_FILE,
    ResumeError,
    check_scheduled,
    schedule_beside,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="check game records against the rules",
        description="Re-run every record of each file through the rules and fail (exit 1) on "
                    "the first board, owner, point, score or winner that differs; a record "
                    "that cannot be read or replayed (a broken structure) exits 2. The records "
                    "of a tournament run folder's games.jsonl are also checked against the "
                    "schedule its config.json derives (each game's index, deal, seed and "
                    "seats; exit 1 on a difference, and when that config.json cannot give the "
                    "schedule); tournament records elsewhere are said not to be.")
    parser.add_argument("paths", nargs="+", metavar="RECORDS.jsonl",
                        help="JSON Lines files of game records")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = rounds = 0
    notes: list[str] = []
    unchecked: list[str] = []  # run folders whose schedule could not be derived
    for path in args.paths:
        if Path(path).is_dir():
            inside = Path(path) / "games.jsonl"
            hint = (f"; a tournament run's records are {inside}" if inside.is_file() else "")
            raise ValueError(f"{path}: a folder, not a file of game records{hint}")
    for path in args.paths:
        tournament: tuple[TournamentConfig, list[ScheduledGame]] | None = None
        why = ""
        try:
            tournament = schedule_beside(path)
        except ResumeError as error:
            why = str(error)
        seen: set[int] = set()
        in_tournament = in_file = 0
        for index, (line, record) in enumerate(read_numbered_records(path), start=1):
            info = record.header.get("tournament")
            scheduled = (f"; tournament game {info['game']}" if isinstance(info, dict)
                         and isinstance(info.get("game"), int) else "")
            where = f"{path}, record {index} (line {line}{scheduled})"
            try:
                replay_record(record)
            except MalformedRecord as error:  # bad input: exit 2, naming the file and line
                raise ValueError(f"{where}: {error}") from error
            except ReplayMismatch as error:
                print(f"MISMATCH in {where}: {error}", file=sys.stderr)
                return EXIT_FAILED
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from error
            if tournament is not None:
                mismatch = schedule_mismatch(record, tournament, seen, Path(path))
                if mismatch:
                    print(f"MISMATCH in {where}: {mismatch}", file=sys.stderr)
                    return EXIT_FAILED
            in_tournament += record.header.get("tournament") is not None
            games += 1
            rounds += len(record.rounds)
            in_file += 1
        if in_file == 0:
            # Bad input, named: among other files it would pass unseen (a run that died
            # before its first game), and alone it was 'no records found' (exit 1).
            raise ValueError(f"{path}: no game record in it (empty, or blank lines only)")
        if tournament is not None:
            config = tournament[0]
            notes.append(f"{path}: the {in_tournament} tournament games match the schedule of "
                         f"their run ({Path(path).parent / CONFIG_FILE}: seed {config.seed}, "
                         f"{config.games} games): game index, deal, seed and seats")
        elif in_tournament and (Path(path).parent / CONFIG_FILE).is_file() and \
                Path(path).name == GAMES_FILE:
            unchecked.append(f"{path}: its {in_tournament} tournament games could not be "
                             f"checked against their run's schedule: {why}")
        elif in_tournament:
            notes.append(f"{path}: the game and deal indices and seeds of its {in_tournament} "
                         f"tournament games were not checked: {why}; the tournament's seed is "
                         f"in its run folder's {CONFIG_FILE}, and only a run folder's own "
                         "games.jsonl is checked against it")
    print(f"replayed {games} game{'s' if games != 1 else ''} ({rounds} "
          f"round{'s' if rounds != 1 else ''}): every record matches the rules")
    for note in notes:
        print(note)
    for problem in unchecked:  # a run folder's check that could not be made is a failure
        print(f"NOT CHECKED: {problem}", file=sys.stderr)
    return EXIT_FAILED if unchecked else EXIT_OK


def schedule_mismatch(record: Any, tournament: tuple[TournamentConfig, list[ScheduledGame]],
                      seen: set[int], path: Path) -> str | None:
    """How ``record``, read from the run folder's ``games.jsonl`` at ``path``, differs from
    the run's schedule (``None``: it does not); a record found is added to ``seen``."""
    config, schedule = tournament
    if record.header.get("tournament") is None:
        return (f"a record with no tournament entry in a tournament's {path.name} (every game "
                f"there is one of the schedule of {path.parent / CONFIG_FILE})")
    try:
        seen.add(check_scheduled(record, schedule, seen, name=config.name,
                                 rules=RunRules.of(config), where=(
            f" of its run ({path.parent / CONFIG_FILE}, seed {config.seed})")))
    except ValueError as error:
        return f"tournament {error}"
    return None
