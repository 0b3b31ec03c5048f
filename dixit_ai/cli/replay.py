"""``dixit-ai replay``: re-run records through the rules; fail loudly on any mismatch."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dixit_ai.cli.common import EXIT_FAILED, EXIT_OK
from dixit_ai.records import read_numbered_records
from dixit_ai.replay import MalformedRecord, ReplayMismatch, replay_record


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="check game records against the rules",
        description="Re-run every record of each file through the rules and fail (exit 1) on "
                    "the first board, owner, point, score or winner that differs; a record "
                    "that cannot be read or replayed (a broken structure) exits 2.")
    parser.add_argument("paths", nargs="+", metavar="RECORDS.jsonl",
                        help="JSON Lines files of game records")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = rounds = 0
    for path in args.paths:
        for index, (line, record) in enumerate(read_numbered_records(path), start=1):
            where = f"{path}, game {index} (line {line})"
            try:
                replay_record(record)
            except MalformedRecord as error:  # bad input: exit 2, naming the file and line
                raise ValueError(f"{where}: {error}") from error
            except ReplayMismatch as error:
                print(f"MISMATCH in {where}: {error}", file=sys.stderr)
                return EXIT_FAILED
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from error
            games += 1
            rounds += len(record.rounds)
    if games == 0:
        print("no records found in " + ", ".join(args.paths), file=sys.stderr)
        return EXIT_FAILED
    print(f"replayed {games} games ({rounds} rounds): every record matches the rules")
    return EXIT_OK
