"""Study: does a guesser that reads each storyteller find other minds' cards more often?

Whole seeded 5-player ``refresh-2021`` games (default deck): one seat holds the guesser under
test, the four others the panel members (``--tellers``), each telling on its own model, as the
panel bench's table. Every guesser plays the very same games (same seeds and seating, the test
seat moving round the table game by game), so differences are paired by game. For each guesser
and storyteller: the share of the test seat's votes that found the storyteller's card (95%
bootstrap intervals over games), against chance (one over the cards it may vote for: 1/4 at
five players), by the storyteller's first, second and later stories of the game (a reading
guesser learns over a game), and the paired difference to the first guesser (``clip-greedy``,
the default guesser); and the test seat's points per round it did not tell.

No guesser may read storytellers with a model one of the tellers tells with: the study refuses
it (the panel's held-out rule, for guessers).

    python scripts/study_guesser_reading.py --games 100
    python scripts/study_guesser_reading.py --tellers panel-lite1-mpnet,panel-lite2-mpnet,\\
        panel-imagenet-zeroshot,caption-teller --guessers clip-greedy,clip-listener
    python scripts/study_guesser_reading.py --smoke

Records of every game land in ``runs/study_guesser_reading__SEED__TIME/games.jsonl``, with
``finds.png`` (find rate per storyteller and guesser); ``--json`` writes the figures.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dixit_ai.cli.common import MAX_GAMES, refuse_input
from dixit_ai.reporting import (
    mean_interval,
    new_run_dir,
    plot_intervals,
    print_table,
    write_json,
)
from models.players.cli import SMOKE_AGENT_OPTIONS, apply_smoke, parse_args, refuse_bad_counts
from models.players.experiments import run_games

TELLERS = ("panel-lite2-mpnet", "panel-imagenet-zeroshot", "panel-caption-reader",
           "panel-sibling")
STAGES = ("1st story", "2nd story", "later stories")

SMOKE = {"games": 2, "workers": 1, "bootstrap": 200}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    games: int = field(default=100, metadata={"help": "games per guesser"})
    guessers: str = field(default="clip-greedy,clip-listener", metadata={
        "help": "registry agents in the test seat (the first is the differences' baseline)"})
    tellers: str = field(default=",".join(TELLERS), metadata={
        "help": "the four other seats' agents (comma-separated)"})
    seed: int = field(default=2000, metadata={
        "help": "seed of the games (held out: the population fits used seeds from 0)"})
    workers: int = field(default=2, metadata={"help": "processes"})
    bootstrap: int = field(default=2000, metadata={"help": "bootstrap resamples"})
    out: str = field(default="runs", metadata={"help": "where the run folder goes"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget, for CI"})


_agents: dict[tuple[str, str], Any] = {}


def _agent(name: str, smoke: bool, key: str) -> Any:
    """One agent per (name, seat role) per process (a seat's agent is reset every game)."""
    from dixit_ai.agents import make_agent

    if (name, key) not in _agents:
        extra = dict(SMOKE_AGENT_OPTIONS) if smoke and name.startswith(("clip", "panel")) else {}
        _agents[name, key] = make_agent(name, **extra)
    return _agents[name, key]


def check_held_out(guesser: Any, tellers: list[Any], names: list[str]) -> None:
    """Refuse a guesser that reads storytellers with a model some teller tells with, besides
    its own (a guesser's own model is what it is measured as, as the plain guesser is among
    copies of itself).

    Raises:
        ValueError: naming the guesser's mind and the teller.
    """
    if not getattr(guesser, "read_storytellers", False):
        return
    reader = guesser.storyteller_reader
    minds = {resources.fingerprint: label for (resources, _), label in
             zip(reader.members[1:], reader.names[1:], strict=True)}
    for teller, name in zip(tellers, names, strict=True):
        own = getattr(getattr(teller, "resources", None), "fingerprint", None)
        if own in minds:
            raise ValueError(f"guesser {guesser.name!r} reads storytellers with {minds[own]!r}, "
                             f"the model {name!r} tells with: leave it out of reading_minds")


def play_one(task: tuple[str, int, int, list[str], bool]) -> dict[str, Any]:
    """Play one game; return its record (JSON) and the test seat's votes."""
    from dixit_ai import play_game

    guesser, index, game_seed, tellers, smoke = task
    shift = index % len(tellers)
    others = tellers[shift:] + tellers[:shift]
    test_seat = index % 5
    seats: list[Any] = [_agent(name, smoke, f"seat{i}") for i, name in enumerate(others)]
    under_test = _agent(guesser, smoke, "test")
    check_held_out(under_test, seats, others)
    seats.insert(test_seat, under_test)
    named = list(others)
    named.insert(test_seat, guesser)
    record = play_game(seats, edition="refresh-2021", deck="dream", seed=game_seed,
                       writable=True)
    if record.status != "complete":
        raise RuntimeError(f"{guesser} game {index} (seed {game_seed}) ended {record.status}: "
                           f"{record.failures}")
    votes = []
    told: dict[int, int] = {}
    points = []
    for r in record.rounds:
        if r.storyteller == test_seat:
            continue
        points.append(float(r.points[test_seat]))
        told[r.storyteller] = told.get(r.storyteller, 0) + 1
        chosen = r.votes.get(test_seat) or ()
        position = r.board_owner.index(r.storyteller)
        legal = sum(1 for owner in r.board_owner if owner != test_seat)
        votes.append({"teller": named[r.storyteller], "story": told[r.storyteller],
                      "found": float(position in chosen), "chance": len(chosen) / legal})
    return {"guesser": guesser, "index": index, "votes": votes,
            "points": float(np.mean(points)) if points else None, "record": record.to_json()}


def find_rate(games: list[dict[str, Any]], teller: str | None, stage: str | None
              ) -> dict[int, float]:
    """By game index, the share of the test seat's votes that found the card (of ``teller``'s
    stories, or all; at ``stage``, or all); games without such a vote are left out."""
    shares = {}
    for game in games:
        found = [v["found"] for v in game["votes"]
                 if (teller is None or v["teller"] == teller)
                 and (stage is None or STAGES[min(v["story"], 3) - 1] == stage)]
        if found:
            shares[game["index"]] = float(np.mean(found))
    return shares


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    from dixit_ai.match import game_seeds

    guessers = [g.strip() for g in args.guessers.split(",") if g.strip()]
    tellers = [t.strip() for t in args.tellers.split(",") if t.strip()]
    if len(tellers) != 4:
        refuse_input(f"--tellers needs four agents (five seats), not {len(tellers)}: "
                     f"{tellers}")
    if not guessers or len(set(guessers)) != len(guessers):
        refuse_input(f"--guessers must name distinct agents: {guessers}")
    refuse_bad_counts(args, (("games", 1),), (("games", MAX_GAMES),))
    for guesser in guessers:  # a guesser reading with a teller's model fails before any game
        check_held_out(_agent(guesser, args.smoke, "test"),
                       [_agent(t, args.smoke, f"seat{i}") for i, t in enumerate(tellers)],
                       tellers)
    try:  # a folder of its own, even beside a run started in the same second
        folder = new_run_dir(args.out, "study_guesser_reading", args.seed)
    except ValueError as error:
        refuse_input(f"--out {error}")
    seeds = game_seeds(args.seed, args.games)
    tasks = [(g, i, seeds[i], tellers, args.smoke) for g in guessers for i in range(args.games)]
    print(f"{len(tasks)} games: guessers {guessers}, tellers {tellers}, seed {args.seed}, "
          f"{args.workers} workers; records in {folder}")
    start = time.perf_counter()
    results = run_games(play_one, tasks, workers=args.workers, records=folder / "games.jsonl")
    by = {g: sorted((r for r in results if r["guesser"] == g), key=lambda r: r["index"])
          for g in guessers}
    chance = float(np.mean([v["chance"] for r in results for v in r["votes"]]))
    figures: dict[str, Any] = {"seed": args.seed, "games": args.games, "tellers": tellers,
                               "chance": chance, "finds": {}}
    base = guessers[0]
    rows = []
    for teller in [*tellers, None]:
        label = teller or "all storytellers"
        for g in guessers:
            cells = [mean_interval(list(find_rate(by[g], teller, stage).values()),
                                   seed=args.seed, n_resamples=args.bootstrap)
                     for stage in (None, *STAGES)]
            diff: Any = "-"
            if g != base:  # paired by game
                mine, theirs = find_rate(by[g], teller, None), find_rate(by[base], teller, None)
                diff = mean_interval([mine[i] - theirs[i] for i in mine if i in theirs],
                                     seed=args.seed, n_resamples=args.bootstrap)
            rows.append([label.removeprefix("panel-"), g, *cells, diff,
                         "yes" if cells[0].estimate >= 2 * chance else "NO"])
            figures["finds"][f"{label}:{g}"] = {"all": cells[0], **dict(zip(STAGES, cells[1:],
                                                                            strict=True)),
                                                f"minus {base}": diff}
    print_table(f"the test seat's votes that found the storyteller's card (95% CI over "
                f"{args.games} games, seed {args.seed}); chance {chance:.3f}",
                ["storyteller", "guesser", "found", *STAGES, f"minus {base}",
                 ">= 2x chance"], rows, digits=2, min_width=160)
    rows = []
    for g in guessers:
        mine = {r["index"]: r["points"] for r in by[g] if r["points"] is not None}
        theirs = {r["index"]: r["points"] for r in by[base] if r["points"] is not None}
        cell = mean_interval(list(mine.values()), seed=args.seed, n_resamples=args.bootstrap)
        diff = "-" if g == base else mean_interval(
            [mine[i] - theirs[i] for i in mine if i in theirs], seed=args.seed,
            n_resamples=args.bootstrap)
        rows.append([g, cell, diff])
        figures["points"] = {**figures.get("points", {}), g: {"points": cell,
                                                             f"minus {base}": diff}}
    print_table(f"the test seat's points per round it did not tell (finds, and its decoy's "
                f"votes; 95% CI over {args.games} games)",
                ["guesser", "points / guessing round", f"minus {base}"], rows, digits=2)
    plot = plot_intervals(
        folder / "finds.png", [t.removeprefix("panel-") for t in tellers],
        {g: [figures["finds"][f"{t}:{g}"]["all"] for t in tellers] for g in guessers},
        title=f"share of the test seat's votes that found each storyteller's card (95% CI over "
              f"{args.games} games, seed {args.seed}; chance {chance:.2f})",
        xlabel="find rate")
    print(f"{len(tasks)} games in {time.perf_counter() - start:.0f} s; run folder: {folder} "
          f"(plot: {plot.name})")
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
