"""Where each agent's points come from in a tournament, and what its stories give the others.

Reads a tournament's run folder (or any ``.jsonl`` file of game records) and prints, per agent,
its points a game split by source (its stories, its votes, the votes its decoys drew), then per
story: the points it scored, those each other player got in that round, and the margin between
the two. A storyteller that scores more per story can still lose games, if its stories give the
other players more than they give it: the margin is what wins (see
:mod:`dixit_ai.tournament.sources`). Agents come most points a game first; "seat-games" counts
the seats an agent held over all games (with more seats than agents, some games seat it
twice). Aborted games are left out, as the standings leave them out, and counted in the
title. 95% intervals over deals (bootstrap seed 0, ``--resamples`` resamples).

A run folder's records are read as ``dixit-ai tournament --analyse`` reads them (each checked
against the schedule) and the same warnings are printed: a run unfinished (with its seats
unbalanced when its games are not whole rotations) or games missing from the middle of
``games.jsonl``. A torn or corrupt file is refused unless ``--allow-partial`` (then its bad
lines are dropped and counted). ``--json`` also writes the figures, with the records they come
from (``source``: path and SHA-256 of the records file), the bootstrap (``method``), the lines
dropped and the warnings.

    python scripts/points_by_source.py runs/tournament__clip-sharp+clip-greedy__0__...
    python scripts/points_by_source.py games.jsonl --json sources.json

Exit status 2 on bad input (a path that is neither, records that cannot be read or split).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from dixit_ai.cli.common import EXIT_USAGE
from dixit_ai.decks.cache import file_sha256
from dixit_ai.jsonl import read_jsonl
from dixit_ai.records import GameRecord
from dixit_ai.reporting import DEFAULT_RESAMPLES, print_table, write_json
from dixit_ai.tournament.folder import read_run_records, schedule_notes
from dixit_ai.tournament.lock import run_in_play
from dixit_ai.tournament.sources import (
    SOURCES,
    AgentSources,
    complete_games,
    point_sources,
)
from dixit_ai.tournament.store import CONFIG_FILE, GAMES_FILE
from dixit_ai.tournament.summary import teams_of

SEED = 0
"""The bootstrap's seed (the README's figures were computed with it)."""


@dataclass
class Read:
    """What the script read: the records, the records file, the bad lines dropped
    (``--allow-partial``) and the warnings of a run folder's schedule."""

    records: list[GameRecord]
    path: Path
    dropped: int
    notes: list[str]


def read_records(path: Path, *, allow_partial: bool = False) -> Read:
    """A run folder's records (checked against its schedule, as ``tournament --analyse``
    checks them, with its warnings), or a records file's.

    Raises:
        ValueError: neither, or records that cannot be trusted (the message names the file).
    """
    if path.is_file() and path.name == GAMES_FILE and (path.parent / CONFIG_FILE).exists():
        path = path.parent  # a run folder's own records: its config gives the schedule
    if path.is_dir():
        playing = run_in_play(path)
        config, read = read_run_records(path, allow_partial=allow_partial,
                                        being_written=playing)
        indices = [record.header["tournament"]["game"] for record in read.records]
        return Read(read.records, read.path, len(read.dropped),
                    schedule_notes(path, config, indices, playing=playing))
    if not path.exists():
        raise ValueError(f"{path}: no such run folder or records file")
    read = read_jsonl(path, GameRecord.from_json, allow_partial=allow_partial,
                      what="game record")
    return Read(read.records, read.path, len(read.dropped), [])


def figures(agents: list[AgentSources], games: int, aborted: int, read: Read,
            n_resamples: int) -> dict[str, object]:
    """The figures as JSON: the records they come from, the bootstrap, the games counted and
    the aborted ones left out, and per agent every interval as ``{estimate, low, high}``."""
    return {"source": {"path": str(read.path), "sha256": file_sha256(read.path),
                       "dropped_lines": read.dropped},
            "method": {"interval": "95% percentile bootstrap over deals",
                       "n_resamples": n_resamples, "seed": SEED},
            "warnings": read.notes,
            "games": games, "aborted": aborted,
            "agents": [{"agent": a.agent, "seat_games": a.seat_games, "stories": a.stories,
                        "per_game": {name: value.to_dict() for name, value in a.per_game.items()},
                        "own_per_story": a.own.to_dict(),
                        "given_per_story": a.given.to_dict(),
                        "margin_per_story": a.margin.to_dict()} for a in agents]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", type=Path, help="a tournament run folder or a .jsonl file")
    parser.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES,
                        help=f"bootstrap resamples (default {DEFAULT_RESAMPLES}, at least 1)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--allow-partial", action="store_true",
                        help="drop (and count) torn or corrupt lines instead of refusing them")
    args = parser.parse_args(argv)
    if args.resamples < 1:
        parser.error(f"--resamples must be at least 1, not {args.resamples}")
    try:
        read = read_records(args.records, allow_partial=args.allow_partial)
        records = read.records
        agents = point_sources(records, n_resamples=args.resamples, seed=SEED)
    except (ValueError, OSError) as error:
        print(f"points_by_source: {error}", file=sys.stderr)
        return EXIT_USAGE
    if read.dropped:
        print(f"warning: {read.dropped} unreadable line(s) of {read.path} dropped "
              "(--allow-partial): these figures leave them out", file=sys.stderr)
    for note in read.notes:
        print(f"warning: {note}", file=sys.stderr)
    shown = [name for name in SOURCES
             if name != "forfeit" or any(a.per_game[name].estimate for a in agents)]
    kept, aborted = complete_games(records)
    left_out = f", {aborted} aborted left out" if aborted else ""
    games = f"{len(kept)} game{'s' if len(kept) != 1 else ''}"
    print_table(f"Points a game by source ({games}{left_out}; 95% intervals over "
                "deals)",
                ["agent", "seat-games", *shown, "total"],
                [[a.agent, a.seat_games, *(a.per_game[name] for name in shown),
                  a.per_game["total"]] for a in agents], digits=2, min_width=130)
    seats = sum(len(record.final_scores) for record in kept)
    print(f"seat-games: the seats an agent held, over all games ({seats} seats in "
          f"{len(kept)} games); its points are per seat-game")
    teams = any(len(set(teams_of(record))) < len(record.final_scores) for record in kept)
    others = "each other team" if teams else "each other player"   # a partner scores as one
    print_table(f"Per story: the storyteller's points, {others}'s, and the margin",
                ["storyteller", "stories", "own points", others, "margin"],
                [[a.agent, a.stories, a.own, a.given, a.margin] for a in agents], digits=2,
                min_width=110)
    if args.json is not None:
        write_json(args.json, figures(agents, len(kept), aborted, read, args.resamples))
        print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
