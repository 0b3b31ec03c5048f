"""``dixit-ai replay``: re-run records through the rules; fail loudly on any mismatch."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dixit_ai.records import read_records
from dixit_ai.replay import ReplayMismatch, replay_record


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "replay", help="check game records against the rules",
        description="Re-run every record of each file through the rules and fail (exit 1) on "
                    "the first board, owner, point, score or winner that differs.")
    parser.add_argument("paths", nargs="+", metavar="RECORDS.jsonl",
                        help="JSON Lines files of game records")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    games = rounds = 0
    for path in args.paths:
        for record in read_records(path):
            try:
                replay_record(record)
            except ReplayMismatch as error:
                print(f"MISMATCH in {path}, game {games + 1}: {error}", file=sys.stderr)
                return 1
            games += 1
            rounds += len(record.rounds)
    if games == 0:
        print("no records found in " + ", ".join(args.paths), file=sys.stderr)
        return 1
    print(f"replayed {games} games ({rounds} rounds): every record matches the rules")
    return 0
