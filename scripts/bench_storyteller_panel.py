"""Benchmark: storytellers against a panel of guessers they never simulated (issue 12's table).

Three steps, all seeded:

1. **Fit the population** (``--fit-games`` per member, ``--fit-iterations``): leave-one-out
   cross-play among the population's members only, never a panel member
   (:func:`models.players.crossplay.fit_population_crossplay`): tables of one member's guessers
   against storytellers that simulate the other members; each member's guess model is fitted
   to the votes of minds the storyteller did not simulate, and the tables are played again
   with the new fit.
2. **Tell against the panel** (:func:`models.bench.run_bench` with ``panel``): on held-out
   items (``--seed``, disjoint from the fitting games' seeds), every storyteller tells on every
   hand; the story is played on real boards against four panel guessers (and against three and a
   random player). Storytellers: ``clip-greedy`` tuned to itself at each target, the
   population storyteller at each target, ``population-expected`` (expected points over the
   bench's ``--population``), ``clip-expected`` as the registry configures it (the storyteller
   the issue's targets are for, whatever ``--population`` says), ``clip-expected-self``
   (expected points, simulating copies of itself), and the baselines
   ``caption-teller``, ``object-teller``, ``random-teller``; ``--also`` adds registry
   storytellers as the registry configures them (yours, or ``clip-reader``), each in the points
   tables beside the others. The bench refuses any storyteller whose simulation uses a panel
   member's model.
3. **Guess**: the default clip guesser on boards of the told cards (the told card and the five
   distractors of its caption board, chance 1/6): top-1 per storyteller, and per panel member
   telling on its own model (``panel-* (telling)``: the other minds' clues); beside it the
   caption reader's top-1 (ground truth: what a clue says about the picture itself).

Then it times storytelling decisions (population vs self) and prints the tables with 95%
bootstrap intervals over items, each target checked. The items are hands dealt from one deck,
so a storyteller tells the same card (often with the same clue) in every hand that holds it:
the population storyteller's rates and every points difference also get intervals over the
cards told (the cluster bootstrap), and the number of distinct cards and card-clue pairs.
The ECE over all turns (and over targets 0.1-0.5 and 0.75-0.9) gets an interval over the cards
told too, and beside it the ECE a perfectly calibrated storyteller would show on the same turns
and votes from their noise alone (the binned ECE of a few votes per turn is not 0, and a
member's votes on one story go together), so a reader sees whether a miss is miscalibration.

After the tables, one line per issue 12 target (:func:`judge`): met, MISSED with the measured
number and the limit, or not judged (fewer items than the default 200, as ``--smoke``; the
decision time on fewer decisions than the default, or ``--analyse``); exit status 1 if a target
was missed or a figure it needs could not be computed (:mod:`dixit_ai.cli.targets`), 2 on bad
input.

    python scripts/bench_storyteller_panel.py
    python scripts/bench_storyteller_panel.py --items 60 --json runs/panel.json
    python scripts/bench_storyteller_panel.py --also clip-reader,clip-population-expected
    python scripts/bench_storyteller_panel.py --deck dream:seed=7001   # every card held out
    python scripts/bench_storyteller_panel.py --analyse runs/bench_storyteller_panel__*/bench__*
    python scripts/bench_storyteller_panel.py --smoke
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from dixit_ai.cli.common import MAX_ITEMS, refuse_input
from dixit_ai.cli.targets import Targets, too_small
from dixit_ai.reporting import write_json

# The bench itself lives in models.bench: its settings and --analyse's restoring of them
# (panel_settings), its storytellers and step 1 (panel_storytellers), steps 2 and 3 with the
# tables (panel_bench) and the decision timing (timing). This script is the command line and
# issue 12's verdict; the names tests read from it stay its own.
from models.bench.panel_bench import measure
from models.bench.panel_settings import Args, restore_args
from models.bench.panel_storytellers import CHECKED
from models.bench.panel_storytellers import POINTS_ROWS as POINTS_ROWS
from models.bench.panel_storytellers import storytellers as storytellers
from models.players.cli import (
    apply_smoke,
    parse_args,
    refuse_bad_counts,
    refuse_bad_population_options,
)

JUDGED = "population"
"""The storyteller the calibration targets are judged on (``self@T`` rows are its comparison)."""
TARGET_GAP = 0.10
"""Its observed guess rate at each of ``CHECKED``, per member and pooled: this near it at most."""
TARGET_ECE = 0.10
"""Its ECE at each of ``CHECKED`` and over all its turns, per member and pooled: at most."""
TARGET_STORYTELLER = "clip-expected"
"""The storyteller the success, points and timing targets are for (as the registry has it)."""
TARGET_SUCCESS = 0.5
"""Its success (some but not all of the panel guessers find the card): at least."""
TARGET_TOP1_OVER_CHANCE = 2.0
"""The default guesser's top-1 on the panel members' and caption-teller's clues: at least this
times chance (1/6)."""
TARGET_DECISION_MS = 150.0
"""Its storytelling decision's median wall time: at most (milliseconds)."""

TARGET_ITEMS = Args().items
"""The items the targets are stated for (the default ``--items``)."""
TARGET_DECISIONS = Args().decisions
"""The decisions the timing target is stated for (the default ``--decisions``)."""
SMOKE = {"items": 3, "deals": 2, "fit_games": 1, "decisions": 2, "fit_iterations": 1,
         "bootstrap": 200}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    refuse_bad_population_options(args.aim, args.temperature_scale, args.tolerance)
    restored = None
    if args.analyse:
        args, *restored = restore_args(args)
    from models.bench.items import TELL_CARDS

    if args.tell_cards not in TELL_CARDS:
        refuse_input(f"--tell-cards must be one of {', '.join(TELL_CARDS)}, not "
                     f"{args.tell_cards!r}")
    if args.smoke:  # what the command line gave stays as given
        apply_smoke(args, SMOKE)
    refuse_bad_counts(args, (("items", 1), ("deals", 1)), (("items", MAX_ITEMS),))
    figures = measure(args, restored)
    if args.json:
        write_json(args.json, figures)
    return judge(figures, args).report()


def judge(figures: dict[str, Any], args: Args) -> Targets:
    """Issue 12's targets, judged on the figures (after every table): the population
    storyteller's observed guess rate within ``TARGET_GAP`` of 0.25, 0.5 and 0.75 and its ECE at
    each at most ``TARGET_ECE``, per member and pooled (the tables' "met" column); the rate
    rising with the target (pooled); the ECE over all its turns, per member and pooled;
    ``clip-expected``'s success and points above ``caption-teller`` (the paired difference's
    interval over items above 0), with four panel guessers and with three and a random player;
    the default guesser's top-1 on the panel members' own clues and ``caption-teller``'s at
    least twice chance; and ``clip-expected``'s decision time. None is judged on fewer items
    than the default (the decision time: fewer decisions, or ``--analyse``, which times none).
    """
    unjudged = too_small("items", args.items, TARGET_ITEMS)
    targets = Targets()

    def worst(name: str, values: dict[str, float | None], limit: float, what: str) -> None:
        known = {n: v for n, v in values.items() if v is not None and not math.isnan(v)}
        if unjudged is not None:
            targets.not_judged(name, unjudged)
        elif not known:
            targets.fail(f"{name}: no {what} to judge")
        else:
            member = max(known, key=lambda n: known[n])
            targets.judge(name, known[member] <= limit, f"{known[member]:.3f} ({member})",
                          f"<= {limit:.3f}")

    rows = {t: figures["targets"][f"{JUDGED}@{t}"] for t in CHECKED}
    for t, row in rows.items():
        observed = {**row["members"], "pooled": row["pooled"].estimate}
        worst(f"{JUDGED}@{t}: observed guess rate's largest distance from {t}, panel members "
              "and pooled", {n: abs(v - t) for n, v in observed.items()}, TARGET_GAP,
              "observed rate")
        worst(f"{JUDGED}@{t}: largest ECE, panel members and pooled", row["ece"], TARGET_ECE,
              "ECE (no predictions)")
    rates = [row["pooled"].estimate for row in rows.values()]
    targets.judge(f"{JUDGED}: pooled observed guess rate rising with the target "
                  f"({', '.join(map(str, CHECKED))})",
                  all(a < b for a, b in itertools.pairwise(rates)),
                  ", ".join(f"{x:.3f}" for x in rates), "rising", unjudged)
    over = figures[f"{JUDGED}_ece_all_turns"]
    worst(f"{JUDGED}: largest ECE over all turns, panel members and pooled",
          {n: None if v is None else v["ece"] for n, v in over.items()}, TARGET_ECE,
          "ECE (no predictions)")
    for which, title in (("panel", "four panel guessers"),
                         ("random", "three panel guessers and a random player")):
        entry = figures[f"{which}:{TARGET_STORYTELLER}"]
        targets.at_least(f"{TARGET_STORYTELLER} success, {title}", entry["success"].estimate,
                         TARGET_SUCCESS, digits=3, unjudged=unjudged)
        diff = entry["points_minus_caption_teller"]
        targets.judge(f"{TARGET_STORYTELLER} points per storytelling turn minus caption-teller, "
                      f"{title}: the 95% CI over items", diff.low > 0,
                      f"{diff.estimate:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]",
                      "its low end > 0", unjudged)
    chance = 1 / 6
    for teller, top1 in figures["default_guesser_top1"].items():
        if teller.startswith("panel-") or teller == "caption-teller":
            targets.at_least(f"default guesser's top-1 on {teller}'s clues", top1.estimate,
                             TARGET_TOP1_OVER_CHANCE * chance, digits=3, unjudged=unjudged)
    name = f"{TARGET_STORYTELLER} storytelling decision, median wall time"
    if "decision_ms" not in figures:
        targets.not_judged(name, "--analyse times no decision")
    else:
        targets.at_most(name, figures["decision_ms"][TARGET_STORYTELLER]["wall_ms"],
                        TARGET_DECISION_MS, unit=" ms", digits=0,
                        unjudged=too_small("decisions timed", args.decisions, TARGET_DECISIONS))
    return targets


if __name__ == "__main__":
    raise SystemExit(main())
