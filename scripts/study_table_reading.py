"""Study: does a storyteller that reads its table from revealed votes score more among other minds?

Whole seeded 5-player ``refresh-2021`` games (default deck), as the other-minds issue measured
its random-player table. One seat holds the storyteller under test; the four others are one of
three tables:

- ``random``: three panel guessers (the four panel members, one left out in turn, game by game)
  and one ``random`` player;
- ``panel``: the four panel members (``--panel``), none of them simulated by the storytellers;
- ``mirror``: four ``clip-greedy`` players (copies of the default model).

**Held out.** The random and panel tables' guessers are panel members: before any game, every
storyteller is checked against them (:func:`models.bench.panel.check_held_out`), and one that
simulates a member's model, uses a file fitted on a member's votes, or does not say what it
simulates is refused (exit 2). The members each storyteller was held out from are printed and
written to ``--json`` (``held_out``). The mirror table is home ground by design: its copies are
not held out.

Every storyteller plays the very same games (the same seeds and seating, the test seat moving
round the table game by game), so differences are paired by game. For each (table,
storyteller): points per storytelling turn of the test seat and success (some but not all
found), with 95% bootstrap intervals over games, and the difference to ``caption-teller`` (which
says its card's caption: it knows the ground truth). For a reading storyteller, how it read the
random player: the share of random votes it gave that seat, against the others, at its last
story of each game. A storyteller ``NAME@T`` is ``NAME`` telling in target mode at guess rate
``T``: for those, the observed guess rate of its stories per guesser and pooled, and the ECE of
its predictions (pooled over its turns), beside the target.

    python scripts/study_table_reading.py --games 100
    python scripts/study_table_reading.py --tables panel --storytellers \
        clip-reader@0.25,clip-reader@0.5,clip-reader@0.75,clip-expected@0.5
    python scripts/study_table_reading.py --smoke

Records of every game land in ``runs/study_table_reading__SEED__TIME/``, with ``points.png`` (points
per storytelling turn, per storyteller and table); ``--json`` writes the figures.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dixit_ai.cli.common import (
    MAX_GAMES,
    MAX_RESAMPLES,
    refuse_input,
)
from dixit_ai.reporting import (
    mean_interval,
    new_run_dir,
    plot_intervals,
    print_table,
    write_json,
)
from dixit_ai.tournament.report import FEW_DEALS, few_note
from models.players.cli import apply_smoke, parse_args, refuse_bad_counts
from models.players.experiments import run_games

PANEL = ("panel-lite2-mpnet", "panel-imagenet-zeroshot", "panel-caption-reader", "panel-sibling")

SMOKE = {"games": 1, "workers": 1, "bootstrap": 200}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    games: int = field(default=100, metadata={"help": "games per (table, storyteller)"})
    tables: str = field(default="random,panel,mirror", metadata={
        "help": "comma-separated tables: random, panel, mirror"})
    storytellers: str = field(default="clip-reader,clip-expected,caption-teller", metadata={
        "help": "registry names of the storytellers under test (caption-teller is the "
                "baseline of the differences)"})
    panel: str = field(default=",".join(PANEL), metadata={"help": "the panel members"})
    seed: int = field(default=2000, metadata={
        "help": "seed of the games (held out: the population was fitted on seeds from 0)"})
    workers: int = field(default=2, metadata={"help": "processes"})
    bootstrap: int = field(default=2000, metadata={"help": "bootstrap resamples"})
    out: str = field(default="runs", metadata={"help": "where the run folder goes"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget, for CI"})


def seating(table: str, index: int, panel: list[str]) -> tuple[list[str], int]:
    """The four other seats' agents of game ``index`` and the test seat."""
    if table == "random":
        left_out = index % len(panel)
        others = [*[m for i, m in enumerate(panel) if i != left_out][:3], "random"]
    elif table == "panel":
        others = list(panel[:4])
    elif table == "mirror":
        others = ["clip-greedy"] * 4
    else:
        raise ValueError(f"unknown table {table!r}: random, panel or mirror")
    shift = index % len(others)
    return others[shift:] + others[:shift], index % 5


_agents: dict[tuple[str, str], Any] = {}


def _agent(name: str, smoke: bool, key: str) -> Any:
    """One agent per (name, role) per process (a seat's agent is reset every game)."""
    from dixit_ai.agents import make_agent

    if (name, key) not in _agents:
        entry, _, target = name.partition("@")
        extra: dict[str, Any] = {}
        if target:
            extra = {"mode": "target", "target_guess_rate": float(target)}
        if smoke and (entry.startswith("clip") or entry.startswith("panel")):
            extra.update(n_simulations=16, pair_clues=0, vocabulary_size=300)
        _agents[name, key] = make_agent(entry, **extra)
    return _agents[name, key]


HELD_OUT_TABLES = ("random", "panel")
"""The tables whose guessers are panel members: storytellers must be held out from them."""


def held_out(names: list[str], panel: list[str], smoke: bool) -> dict[str, list[str]]:
    """The panel members each storyteller is held out from (every member, or an error).

    Raises:
        ValueError: a member's agent names no embedder (no model to compare), or a storyteller
            is not held out (:func:`models.bench.panel.check_held_out`: it simulates a member's
            model, uses a file fitted on a member's votes, or does not say).
    """
    from models.bench.panel import check_held_out

    members = []
    for member in panel:
        fingerprint = _agent(member, smoke, "check").describe().get("embedder")
        if not isinstance(fingerprint, str):
            raise ValueError(f"panel member {member!r} names no embedder in its describe(): "
                             "the held-out check compares the storytellers' models with the "
                             "members' by fingerprint")
        members.append((member, fingerprint))
    return {name: check_held_out(name, _agent(name, smoke, "check").describe(), members)
            for name in names}


def play_one(task: tuple[str, str, int, int, list[str], bool]) -> dict[str, Any]:
    """Play one game; return its record (JSON) and the test seat's figures."""
    from dixit_ai import play_game

    table, storyteller, index, game_seed, panel, smoke = task
    others, test_seat = seating(table, index, panel)
    seats: list[Any] = [_agent(name, smoke, f"seat{i}") for i, name in enumerate(others)]
    under_test = _agent(storyteller, smoke, "test")
    seats.insert(test_seat, under_test)
    record = play_game(seats, edition="refresh-2021", deck="dream", seed=game_seed,
                       writable=True)
    if record.status != "complete":
        raise RuntimeError(f"{table}/{storyteller} game {index} (seed {game_seed}) ended "
                           f"{record.status}: {record.failures}")
    named = list(others)
    named.insert(test_seat, storyteller)
    points, success, turns = [], [], []
    for r in record.rounds:
        if r.storyteller != test_seat:
            continue
        points.append(r.points[test_seat])
        position = r.board_owner.index(test_seat)
        found = {f"{named[int(s)]}#{s}": float(position in v) for s, v in r.votes.items()}
        success.append(float(0 < sum(found.values()) < len(found)))
        turns.append({"predicted": r.predicted_guess_rate, "found": found})
    read = None
    story = getattr(under_test, "last_story", None)
    if story is not None and "table" in story.info:
        share = story.info["table"]["random_share"]
        opponents = [(test_seat + i) % 5 for i in range(1, 5)]
        random_seat = next((s for s, n in enumerate(named) if n == "random" and
                            s != test_seat), None)
        if random_seat is not None:
            g = opponents.index(random_seat)
            read = {"random": share[g],
                    "others": float(np.mean([v for i, v in enumerate(share) if i != g]))}
    return {"table": table, "storyteller": storyteller, "index": index,
            "points": float(np.mean(points)) if points else None, "turns": len(points),
            "success": float(np.mean(success)) if success else None, "read": read,
            "stories": turns, "record": record.to_json()}


def calibration_rows(games: list[dict[str, Any]], target: float, seed: int, resamples: int
                     ) -> dict[str, Any]:
    """Observed guess rate per guesser kind and pooled (each game's share of finding votes,
    95% interval over games), and the ECE of the predicted guess rates (over turns)."""
    from models.players.calibration import reliability

    kinds = sorted({key.split("#")[0] for g in games for t in g["stories"] for key in t["found"]})
    cells: dict[str, Any] = {}
    for kind in [*kinds, "pooled"]:
        shares = []
        for g in games:
            votes = [v for t in g["stories"] for k, v in t["found"].items()
                     if kind == "pooled" or k.split("#")[0] == kind]
            if votes:
                shares.append(float(np.mean(votes)))
        cells[kind] = mean_interval(shares, seed=seed, n_resamples=resamples)
    turns = [t for g in games for t in g["stories"] if t["predicted"] is not None]
    ece = reliability([t["predicted"] for t in turns],
                      [float(np.mean(list(t["found"].values()))) for t in turns]).ece \
        if turns else None
    worst = max(abs(c.estimate - target) for c in cells.values())
    return {"observed": cells, "ece": ece, "worst_gap": worst}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    from dixit_ai.match import game_seeds

    # before any game: a count below 1 played nothing or failed only at the report
    refuse_bad_counts(args, (("games", 1), ("workers", 1), ("bootstrap", 1)),
                      (("games", MAX_GAMES), ("bootstrap", MAX_RESAMPLES)))
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    names = [s.strip() for s in args.storytellers.split(",") if s.strip()]
    panel = [m.strip() for m in args.panel.split(",") if m.strip()]
    if len(panel) != 4:
        refuse_input(f"--panel needs four members, not {len(panel)}: {panel}")
    for table in tables:
        seating(table, 0, panel)  # an unknown table fails before any game
    checked: dict[str, list[str]] | None = None
    if any(t in HELD_OUT_TABLES for t in tables):
        try:
            checked = held_out(names, panel, args.smoke)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    try:  # a folder of its own, even beside a run started in the same second
        folder = new_run_dir(args.out, "study_table_reading", args.seed)
    except ValueError as error:
        print(f"error: --out {error}", file=sys.stderr)
        return 2
    seeds = game_seeds(args.seed, args.games)
    tasks = [(t, s, i, seeds[i], panel, args.smoke) for t in tables for s in names
             for i in range(args.games)]
    print(f"{len(tasks)} games: tables {tables}, storytellers {names}, seed {args.seed}, "
          f"{args.workers} workers; records in {folder}")
    if checked is None:
        print("held out: not checked (no table of panel members)")
    else:
        print("held out: every storyteller checked against the panel members, none simulated by "
              "it nor in a fit it uses:")
        for name, members in checked.items():
            print(f"  {name}: held out from {', '.join(members)}")
    start = time.perf_counter()
    results = run_games(play_one, tasks, workers=args.workers, records=folder / "games.jsonl")

    figures: dict[str, Any] = {"seed": args.seed, "games": args.games, "panel": panel,
                               "held_out": checked}
    base = "caption-teller"
    over = f"{args.games} game{'s' if args.games != 1 else ''}{few_note(args.games, 'games')}"
    if few_note(args.games, "games"):
        print(f"note: {args.games} game{'s' if args.games != 1 else ''} per storyteller and "
              f"table: fewer than {FEW_DEALS}, the intervals are not reliable", file=sys.stderr)
    for table in tables:
        rows = []
        by = {s: sorted((r for r in results if r["table"] == table and r["storyteller"] == s),
                        key=lambda r: r["index"]) for s in names}
        for s in names:
            games = [r for r in by[s] if r["points"] is not None]
            points = mean_interval([r["points"] for r in games], seed=args.seed,
                                   n_resamples=args.bootstrap)
            success = mean_interval([r["success"] for r in games], seed=args.seed,
                                    n_resamples=args.bootstrap)
            diff: Any = "-"
            if base in by and s != base:
                paired = [(a["points"], b["points"]) for a, b in zip(by[s], by[base], strict=True)
                          if a["points"] is not None and b["points"] is not None]
                diff = mean_interval([a - b for a, b in paired], seed=args.seed,
                                     n_resamples=args.bootstrap)
            reads = [r["read"] for r in by[s] if r["read"] is not None]
            read = (f"{np.mean([x['random'] for x in reads]):.2f} vs "
                    f"{np.mean([x['others'] for x in reads]):.2f}") if reads else "-"
            rows.append([s, points, success, diff, read, sum(r["turns"] for r in games)])
            figures[f"{table}:{s}"] = {"points": points, "success": success,
                                       "minus_caption_teller": diff, "read": read}
        print_table(f"table '{table}': the test seat's points per storytelling turn and "
                    f"success (95% CI over {over}), paired difference to {base}",
                    ["storyteller", "points / turn", "success", f"minus {base}",
                     "random share: random seat vs others", "turns"], rows, digits=2,
                    min_width=140)
        targeted = [s for s in names if "@" in s]
        if targeted:
            measured = {}
            for s in targeted:
                target = float(s.partition("@")[2])
                measured[s] = calibration_rows(by[s], target, args.seed, args.bootstrap)
                figures[f"{table}:{s}"].update(measured[s])
            kinds = sorted({k for m in measured.values() for k in m["observed"]} - {"pooled"})
            kinds.append("pooled")
            rows = [[s, *(m["observed"].get(k, "-") for k in kinds),
                     "n/a" if m["ece"] is None else f"{m['ece']:.3f}", f"{m['worst_gap']:.2f}"]
                    for s, m in measured.items()]
            print_table(f"table '{table}': observed guess rate of the target-mode storytellers' "
                        f"stories per guesser and pooled (95% CI over games), ECE of their "
                        f"predictions over turns, worst gap to the target",
                        ["storyteller", *(k.removeprefix("panel-") for k in kinds), "ECE",
                         "worst gap"], rows, digits=2, min_width=140)
    plot = plot_intervals(
        folder / "points.png", names,
        {table: [figures[f"{table}:{s}"]["points"] for s in names] for table in tables},
        title=f"points per storytelling turn of the test seat, by table (95% CI over "
              f"{over}, seed {args.seed})", xlabel="points per storytelling turn")
    print(f"{len(tasks)} game{'s' if len(tasks) != 1 else ''} in "
          f"{time.perf_counter() - start:.0f} s; run folder: {folder} "
          f"(plot: {plot.name})")
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
