"""Where each agent's points come from in a tournament, and what its stories give the others.

Reads a tournament's run folder (or any ``.jsonl`` file of game records) and prints, per agent,
its points a game split by source (its stories, its votes, the votes its decoys drew), then per
story: the points it scored, those each other player got in that round, and the margin between
the two. A storyteller that scores more per story can still lose games, if its stories give the
other players more than they give it: the margin is what wins (see
:mod:`dixit_ai.tournament.sources`). Agents come most points a game first; "seat-games" counts
the seats an agent held over all games (with more seats than agents, some games seat it
twice). Aborted games are left out, as the standings leave them out, and counted in the
title. 95% intervals over deals; ``--json`` also writes the figures.

    python scripts/points_by_source.py runs/tournament__clip-sharp+clip-greedy__0__...
    python scripts/points_by_source.py games.jsonl --json sources.json

Exit status 2 on bad input (a path that is neither, records that cannot be read or split).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dixit_ai.cli.common import EXIT_USAGE
from dixit_ai.jsonl import read_jsonl
from dixit_ai.records import GameRecord
from dixit_ai.reporting import DEFAULT_RESAMPLES, print_table, write_json
from dixit_ai.tournament.folder import load_run_records
from dixit_ai.tournament.sources import (
    SOURCES,
    AgentSources,
    complete_games,
    point_sources,
)
from dixit_ai.tournament.summary import teams_of


def read_records(path: Path) -> list[GameRecord]:
    """A run folder's records (checked against its schedule), or a records file's.

    Raises:
        ValueError: neither, or records that cannot be trusted (the message names the file).
    """
    if path.is_dir():
        return load_run_records(path)[1]
    if not path.exists():
        raise ValueError(f"{path}: no such run folder or records file")
    return read_jsonl(path, GameRecord.from_json, what="game record").records


def figures(agents: list[AgentSources], games: int, aborted: int) -> dict[str, object]:
    """The figures as JSON: the games counted and the aborted ones left out, and per agent
    every interval as ``{estimate, low, high}``."""
    return {"games": games, "aborted": aborted,
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
    args = parser.parse_args(argv)
    if args.resamples < 1:
        parser.error(f"--resamples must be at least 1, not {args.resamples}")
    try:
        records = read_records(args.records)
        agents = point_sources(records, n_resamples=args.resamples)
    except (ValueError, OSError) as error:
        print(f"points_by_source: {error}", file=sys.stderr)
        return EXIT_USAGE
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
        write_json(args.json, figures(agents, len(kept), aborted))
        print(f"json: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
