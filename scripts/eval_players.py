"""Evaluate the embedding-model players against the targets of the players issue.

Plays seeded 5-player ``refresh-2021`` games (default deck, default model) of ``clip-greedy``,
``clip-expected-self``, ``clip-obvious``, ``clip-cryptic`` and another ``clip-greedy``, rotating
seats, until at least ``--rounds`` rounds are played, and measures from the records:

- guesser accuracy (votes on the storyteller's card) when ``clip-greedy`` tells, against chance
  ``1/(N-1)`` per vote (target: at least 2x chance);
- the storyteller success rate (some but not all guessers find the card), per agent (target:
  ``clip-expected-self`` at least 60%: a table of the default model's players, the one its
  simulation is tuned to);
- the calibration (ECE of predicted vs observed guess rates, target at most 0.10), with the
  reliability diagram;
- the observed guess rate per agent (target: ``clip-cryptic`` < ``clip-greedy`` <
  ``clip-obvious``, each within 0.10 of its target where the deck allows it).

Everything lands in ``runs/eval_players__SEED__TIME/``: records, per-round CSV, summary JSON,
reliability PNG and a readable account of the first game.

    python scripts/eval_players.py                  # >= 500 rounds
    python scripts/eval_players.py --smoke
"""

from __future__ import annotations

import csv
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai import write_records
from dixit_ai.reporting import new_run_dir
from models.players.calibration import plot_reliability, reliability
from models.players.cli import (
    SMOKE_AGENT_OPTIONS,
    apply_smoke,
    check_at_least,
    check_deck_option,
    check_table_agents,
    parse_args,
)
from models.players.experiments import play_table, readable_game, round_rows, wilson

TARGETS = {"clip-cryptic": 0.1, "clip-greedy": 0.5, "clip-obvious": 0.9}
SMOKE = {"deck": "dream:size=40", "rounds": 10}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    rounds: int = field(default=500, metadata={"help": "play until at least this many rounds"})
    agents: list[str] = field(default_factory=lambda: [
        "clip-greedy", "clip-expected-self", "clip-obvious", "clip-cryptic", "clip-greedy"],
        metadata={"help": "registry names, one per seat (seats rotate game by game)"})
    edition: str = field(default="refresh-2021", metadata={"help": "edition"})
    deck: str = field(default="dream", metadata={"help": "deck spec"})
    seed: int = field(default=1, metadata={"help": "seed of the run"})
    runs_dir: str = field(default="runs", metadata={"help": "where the run folder goes"})
    example_to: str = field(default="", metadata={
        "help": "also write the readable account of the first game here"})
    smoke: bool = field(default=False, metadata={"help": "tiny deck, vocabulary and budget"})


def check_args(args: Args, overrides: dict[str, object]) -> None:
    """Refuse settings the run cannot use, before it plays or writes anything.

    Raises:
        ValueError: ``--rounds`` below 1, an unknown edition, deck or agent, a number of seats
            the edition does not allow; the message names the flag and its limit.
    """
    check_at_least(args, (("rounds", 1),))
    check_table_agents(args.edition, args.agents, args.deck, overrides)
    check_deck_option(args.deck)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    overrides: dict[str, object] = {}
    if args.smoke:
        overrides = dict(SMOKE_AGENT_OPTIONS)
    try:
        check_args(args, overrides)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:  # a folder of its own, even beside a run started in the same second
        run = new_run_dir(args.runs_dir, "eval_players", args.seed)
    except ValueError as error:
        print(f"error: --runs-dir {error}", file=sys.stderr)
        return 2
    start = time.time()
    records = play_table(args.agents, min_rounds=args.rounds, seed=args.seed,
                         edition=args.edition, deck=args.deck, overrides=overrides)
    elapsed = time.time() - start
    write_records(run / "games.jsonl", records)
    (run / "game_example.md").write_text(readable_game(records[0]), encoding="utf-8")
    if args.example_to:
        Path(args.example_to).write_text(readable_game(records[0]), encoding="utf-8")
    rows = round_rows(records)
    with open(run / "rounds.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)

    n_players = records[0].n_players
    chance = 1.0 / (n_players - 1)
    summary: dict[str, object] = {"games": len(records), "rounds": len(rows),
                                  "seconds": round(elapsed, 1), "chance": chance}
    greedy = [r for r in rows if r["storyteller"] == "clip-greedy"]
    for label, subset in (("clip-greedy tells", greedy), ("every storyteller", rows)):
        found = sum(r["votes_on_card"] for r in subset)
        cast = sum(r["votes_cast"] for r in subset)
        low, high = wilson(found, cast)
        accuracy = found / max(cast, 1)
        summary[f"guesser_accuracy ({label})"] = {
            "accuracy": accuracy, "ci95": [low, high], "votes": cast,
            "x_chance": accuracy / chance}
        print(f"guesser accuracy ({label}): {accuracy:.3f} [{low:.3f}, {high:.3f}] over {cast} "
              f"votes = {accuracy / chance:.2f}x chance ({chance:.2f})  [target >= 2x]")
    per_agent: dict[str, dict[str, Any]] = {}
    for name in sorted({r["storyteller"] for r in rows}):
        subset = [r for r in rows if r["storyteller"] == name]
        n = len(subset)
        success = sum(r["success"] for r in subset)
        observed = np.asarray([r["observed"] for r in subset])
        predicted = np.asarray([r["predicted"] for r in subset], dtype=float)
        half = 1.96 * observed.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
        s_low, s_high = wilson(success, n)
        per_agent[name] = {
            "rounds": n, "success_rate": success / n, "success_ci95": [s_low, s_high],
            "observed_guess_rate": float(observed.mean()),
            "observed_ci95": [float(observed.mean() - half), float(observed.mean() + half)],
            "predicted_guess_rate": float(predicted.mean()),
            "points_per_turn": float(np.mean([r["storyteller_points"] for r in subset])),
            "target": TARGETS.get(name),
        }
        target = f", target {TARGETS[name]}" if name in TARGETS else ""
        print(f"{name:14s} {n:4d} turns: success {success / n:.3f} [{s_low:.3f}, {s_high:.3f}], "
              f"observed guess rate {observed.mean():.3f} +- {half:.3f} (predicted "
              f"{predicted.mean():.3f}{target}), {per_agent[name]['points_per_turn']:.2f} "
              f"points/turn")
    summary["storytellers"] = per_agent
    result = reliability([r["predicted"] for r in rows], [r["observed"] for r in rows])
    plot_reliability(result, run / "reliability.png",
                     f"{len(records[0].header['agents'])}-player table, fitted guess model")
    summary["ece"] = result.ece
    summary["reliability"] = {"predicted": result.predicted.tolist(),
                              "observed": result.observed.tolist(),
                              "counts": result.counts.tolist()}
    print(f"calibration: ECE {result.ece:.3f} over {len(rows)} rounds  [target <= 0.10]")
    (run / "summary.json").write_text(json.dumps(summary, indent=2, default=float) + "\n",
                                     encoding="utf-8")
    print(f"{len(records)} games, {len(rows)} rounds in {elapsed:.0f} s; run folder: {run}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
