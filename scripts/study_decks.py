"""Study: a population storyteller against the panel on several decks that no model was trained
on and no choice was made on, one held-out reading per deck, and across them.

One deck of 84 cards moves a target's observed rate by 0.1 to 0.2 (README, "Held out on another
deck"), so one deck is one draw. For each dream deck of ``--deck-seeds`` (seeds no model was
trained, validated or tested on, nor the population fitted on: such a seed is refused), the
population storyteller (``--population`` and the options after it: the registry's
``clip-calibrated`` by default) tells at every target of ``--targets`` on ``--items`` items, and the
panel plays and votes on real boards (the panel tell task, :mod:`models.bench.panel`). Per deck:
each member's observed rate and the pooled one at each target, and the worst gap. Across decks:
the mean of the per-deck rates with a 95% t-interval over decks (decks are the units: the items
of one deck share its cards), and on how many decks each target was met (every member and the
pooled rate within 0.10). The ECE of the storyteller's predictions over all its turns, per
member and pooled: per deck, and over every deck's turns together, beside what a perfectly
calibrated storyteller would show on the same turns (one deck's turns alone are near that noise
floor). Run folders keep the records; ``--json`` writes the figures, and ``--analyse`` that file
recomputes every figure from the run folders it names.

    python scripts/study_decks.py
    python scripts/study_decks.py --deck-seeds 7002,7003,7004,7005 --temperature-scale 0.25
    python scripts/study_decks.py --smoke
    python scripts/study_decks.py --analyse decks.json
"""

from __future__ import annotations

import json
import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import MAX_ITEMS, refuse_input
from dixit_ai.reporting import Interval, print_table, write_json
from models.players.cli import (
    SMOKE_AGENT_OPTIONS,
    apply_smoke,
    options_given,
    parse_args,
    refuse_bad_counts,
    refuse_bad_population_options,
    registry_storytellers,
)

WITHIN = 0.10
"""How near the target every member's and the pooled rate must be for a deck to meet it."""
ECE_WITHIN = 0.10
"""The issue's bound on the ECE over all turns, per member and pooled."""

SMOKE = {"items": 3, "deals": 2}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    deck_seeds: str = field(default="7002,7003,7004", metadata={
        "help": "seeds of the dream decks, comma-separated (seeds no model saw)"})
    deck_size: int = field(default=84, metadata={"help": "cards per deck"})
    population: str = field(default="self,lite1-minilm,lite1-mpnet,lite1-zeroshot", metadata={
        "help": "the storyteller's population"})
    population_file: str = field(default="wide", metadata={"help": "its population fit"})
    temperature_scale: float = field(default=0.5, metadata={
        "help": "its population_temperature_scale (the registry's clip-calibrated: 0.5)"})
    aim: str = field(default="rms", metadata={"help": "its aim"})
    tolerance: float = field(default=0.0, metadata={"help": "its tolerance"})
    robustness: float = field(default=0.0, metadata={"help": "its robustness"})
    panel: str = field(default=("panel-lite2-mpnet,panel-imagenet-zeroshot,panel-caption-reader,"
                                "panel-sibling"), metadata={"help": "the panel (a panel spec)"})
    targets: str = field(default="0.25,0.5,0.75", metadata={"help": "the targets it tells at"})
    also: str = field(default="", metadata={
        "help": "registry storytellers to play on the same items, comma-separated (their points "
                "are compared with caption-teller's, which then plays too)"})
    items: int = field(default=100, metadata={"help": "tell items per deck"})
    deals: int = field(default=4, metadata={"help": "deals of the panel's hands per item"})
    seed: int = field(default=1000, metadata={"help": "seed of the items"})
    runs_dir: str = field(default="runs", metadata={"help": "where the run folders go"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})
    guesses: bool = field(default=False, metadata={
        "help": "also the default clip guesser's top-1 on boards of every storyteller's and "
                "every panel member's told cards (target: 2x chance)"})
    analyse: str = field(default="", metadata={
        "help": "recompute an earlier study's figures from its run folders: its --json file "
                "(takes only --json beside it)"})


def seen_seeds() -> set[int]:
    """Dream seeds a model was trained, validated or tested on, or the population fitted on
    (the default deck, seed 0)."""
    from models.family import MEMBERS
    from models.train_default import DEFAULT_MODEL_SEEDS, parse_seeds

    seeds = {0, 9002, *DEFAULT_MODEL_SEEDS}  # 9002: the default model's test cards in CI
    for member in MEMBERS.values():
        flags = member.train_flags or {}
        if "train_seeds" in flags:
            seeds.update(parse_seeds(str(flags["train_seeds"])))
    return seeds


def deck_specs(seeds: str, size: int) -> list[str]:
    """The dream deck specs of ``--deck-seeds`` and ``--deck-size``.

    Raises:
        SystemExit: a seed that is not a number, named twice, or that some model saw; a size
            below 40 (five hands of six and the deals need them) or above a dream deck's
            largest.
    """
    from dixit_ai.decks.dream import MAX_DREAM_SIZE

    try:
        numbers = [int(s) for s in seeds.split(",") if s.strip()]
    except ValueError:
        refuse_input(f"--deck-seeds must be whole numbers, not {seeds!r}")
    if not numbers or len(set(numbers)) != len(numbers):
        refuse_input(f"--deck-seeds must name one seed or more, each once: {seeds!r}")
    if size < 40:
        refuse_input(f"--deck-size must be at least 40, not {size} (cards: a deck "
                     "of fewer would not deal a full game)")
    if size > MAX_DREAM_SIZE:
        refuse_input(f"--deck-size must be at most {MAX_DREAM_SIZE} (a dream deck's largest), "
                     f"not {size}")
    seen = sorted(set(numbers) & seen_seeds())
    if seen:
        refuse_input(f"--deck-seeds {seen}: a model was trained, validated or tested "
                     "on these dream seeds, or the population fitted on them; take seeds "
                     "none saw")
    return [f"dream:size={size},seed={n}" for n in numbers]


T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086)
"""Student's t 0.975 quantile for 1 to 20 degrees of freedom."""


def t_975(df: int) -> float:
    """Student's t 0.975 quantile: the table to 20 degrees of freedom, then the Cornish-Fisher
    expansion (within 0.002 there)."""
    if df <= len(T_975):
        return T_975[df - 1]
    z = 1.959964
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def over_decks(values: list[float]) -> Interval:
    """The mean over decks with a 95% t-interval, clipped to [0, 1] where rates are (NaN bounds
    for one deck)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Interval(mean, math.nan, math.nan)
    half = t_975(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return Interval(mean, max(0.0, mean - half), min(1.0, mean + half))


def deck_rates(results: dict[str, Any], targets: list[float]
               ) -> tuple[list[str], dict[str, dict[str, float]]]:
    """A run's panel members, and each member's and the pooled observed rate per target."""
    panel = results["tell"]["panel"]
    names = list(panel["members"])
    return names, {str(t): {n: panel["models"][f"population@{t}"]["members"][n]["observed"]
                            .estimate for n in [*names, "pooled"]} for t in targets}


def ece_figures(rows_by_deck: dict[str, list[dict[str, Any]]], names: list[str],
                targets: list[float], *, seed: int, resamples: int) -> dict[str, Any]:
    """The ECE of the storyteller's predictions over all its turns (every target), against
    each member's and the pooled observed rate: per deck, and over every deck's turns together
    (a card is then the deck's card: the decks' card numbers are not the same cards).

    Each entry is :func:`models.bench.panel_analysis.ece_over_turns`'s (the ECE with its
    interval over the cards told, and what a perfectly calibrated storyteller would show on the
    same turns from the votes' noise alone)."""
    from models.bench.panel_analysis import ece_over_turns

    labels = [f"population@{t}" for t in targets]
    out: dict[str, Any] = {"per_deck": {}, "all_decks": None}
    pooled: list[dict[str, Any]] = []
    for deck, rows in rows_by_deck.items():
        out["per_deck"][deck] = ece_over_turns(rows, names, labels, seed=seed,
                                               resamples=resamples)
        pooled += [{**r, "card": f"{deck}#{r['card']}"} for r in rows]
    out["all_decks"] = ece_over_turns(pooled, names, labels, seed=seed, resamples=resamples)
    return out


def run_decks(args: Args, decks: list[str], targets: list[float],
              also: list[tuple[str, bool]]) -> dict[str, str]:
    """Play every deck's items (one bench run per deck; ``also``: the registry storytellers
    beside the population, each with whether it is a clip player); the run folders by deck."""
    from models.bench import BenchConfig, run_bench

    extra: dict[str, Any] = dict(SMOKE_AGENT_OPTIONS) if args.smoke else {}
    crowd = {"population": args.population, "population_calibration": args.population_file,
             "population_temperature_scale": args.temperature_scale, "aim": args.aim,
             "tolerance": args.tolerance, "robustness": args.robustness}
    runs: dict[str, str] = {}
    for deck in decks:
        print(f"deck {deck}: {args.items} items x {len(targets)} targets")
        models = [{"name": "clip-greedy", "label": f"population@{t}",
                   "kwargs": {"target_guess_rate": t, **crowd, **extra}} for t in targets]
        models += [{"name": name, "label": name, "kwargs": dict(extra) if clip else {}}
                   for name, clip in also]
        config = BenchConfig(models=models, tasks=["tell"], seed=args.seed, items=args.items,
                             reference_deals=args.deals, panel=args.panel, deck=deck,
                             out=args.runs_dir, name="decks")
        run = run_bench(config, progress=True, show=False)
        runs[deck] = str(run.folder)
    return runs


BASELINE = "caption-teller"
"""The storyteller every ``--also`` storyteller's points are compared with (it says its card's
caption: it knows the ground truth)."""


def also_storytellers(names: str) -> list[tuple[str, bool]]:
    """``--also``: the registry storytellers (:func:`models.players.cli.registry_storytellers`),
    with ``caption-teller`` added where it is missing."""
    listed = [n.strip() for n in names.split(",") if n.strip()]
    if len(set(listed)) == len(listed) and listed and BASELINE not in listed:
        listed.append(BASELINE)
    return registry_storytellers(listed)

def points_figures(results_by_deck: dict[str, dict[str, Any]], names: list[str], *, seed: int,
                   resamples: int) -> dict[str, Any]:
    """Success and points per storytelling turn of the storytellers ``names`` with four panel
    guessers (``panel``) and with three and a random player (``random``): per deck, and over
    every deck's items, with the paired difference to ``caption-teller`` over the same items
    (95% bootstrap over items, and over the cards each told: a card told in many hands is not
    new evidence; a card is the deck's card)."""
    from models.bench.panel_analysis import paired_difference

    out: dict[str, Any] = {}
    for which, key in (("panel", "points_values"), ("random", "random_points_values")):
        table: dict[str, Any] = {}
        for name in names:
            mine: list[float] = []
            base: list[float] = []
            cards: list[str] = []
            per_deck: dict[str, float] = {}
            for deck, results in results_by_deck.items():
                models = results["tell"]["panel"]["models"]
                entry, other = models[name], models[BASELINE]
                theirs = dict(zip(other["items"], other[key], strict=True))
                told = dict(zip(entry["items"], entry["told_cards"], strict=True))
                points = dict(zip(entry["items"], entry[key], strict=True))
                shared = [i for i in entry["items"] if i in theirs]
                mine += [points[i] for i in shared]
                base += [theirs[i] for i in shared]
                cards += [f"{deck}#{told[i]}" for i in shared]
                per_deck[deck] = statistics.fmean(points[i] for i in shared)
            cell: dict[str, Any] = {
                "points": statistics.fmean(mine), "per_deck": per_deck, "items": len(mine)}
            if name != BASELINE:
                cell["minus_baseline"] = paired_difference(mine, base, seed=seed,
                                                           resamples=resamples)
                cell["minus_baseline_by_card"] = paired_difference(
                    mine, base, seed=seed, resamples=resamples, clusters=cards)
            table[name] = cell
        out[which] = table
    return out


def guess_figures(hits_by_deck: dict[str, dict[str, dict[str, list[float]]]], *, seed: int,
                  resamples: int) -> dict[str, Any]:
    """Per teller, the default guesser's and caption-reader's top-1 on boards of its told cards
    (:func:`models.bench.reading.panel_reading_hits`): per deck, and over every deck's stories
    with a 95% bootstrap interval."""
    from dixit_ai.reporting import mean_interval

    tellers = list(next(iter(hits_by_deck.values())))
    out: dict[str, Any] = {}
    for teller in tellers:
        cell: dict[str, Any] = {"per_deck": {}}
        for guesser in ("default", "caption-reader"):
            pooled = [h for hits in hits_by_deck.values() for h in hits[teller][guesser]]
            cell[guesser] = mean_interval(pooled, seed=seed, n_resamples=resamples)
        cell["per_deck"] = {deck: statistics.fmean(hits[teller]["default"])
                            for deck, hits in hits_by_deck.items()}
        out[teller] = cell
    return out


ANALYSE_OPTIONS = ("analyse", "json", "guesses")
"""The options ``--analyse`` takes; every other one is the study's own."""


def restore(args: Args) -> tuple[Args, dict[str, str]]:
    """``--analyse``: the arguments and run folders of an earlier study (its ``--json`` file).

    Raises:
        SystemExit: another option beside ``--analyse``, or a file that is not a study's
            figures.
    """
    others = [f"--{name.replace('_', '-')}"
              for name in sorted(options_given(args) - set(ANALYSE_OPTIONS))]
    if others:
        refuse_input(f"--analyse recomputes a study with its own settings; it takes "
                     f"only --json and --guesses beside it, not {', '.join(others)}")
    path = Path(args.analyse)
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
        arguments, runs = earlier["arguments"], earlier["runs"]
        if not isinstance(arguments, dict) or not isinstance(runs, dict):
            raise TypeError("'arguments' and 'runs' must each be an object")
        restored = Args(**{k: v for k, v in arguments.items() if k in Args.__dataclass_fields__})
    except (OSError, ValueError, KeyError, TypeError) as error:
        refuse_input(f"--analyse {path}: not the figures of a study_decks run "
                     f"(its --json file): {error}")
    restored.analyse, restored.json = args.analyse, args.json
    restored.guesses = restored.guesses or args.guesses
    return restored, {str(k): str(v) for k, v in runs.items()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    runs: dict[str, str] | None = None
    if args.analyse:
        args, runs = restore(args)
    refuse_bad_population_options(args.aim, args.temperature_scale, args.tolerance)
    refuse_bad_counts(args, (("items", 1), ("deals", 1)), (("items", MAX_ITEMS),))
    decks = deck_specs(args.deck_seeds, args.deck_size)
    try:
        targets = [float(t) for t in args.targets.split(",") if t.strip()]
    except ValueError:
        refuse_input(f"--targets must be numbers in [0, 1], not {args.targets!r}")
    if not targets or any(not 0 <= t <= 1 for t in targets):
        refuse_input(f"--targets must be numbers in [0, 1], not {args.targets!r}")
    from models.bench.analysis import compute, read_run

    started = time.time()
    also = also_storytellers(args.also)
    if runs is None:
        runs = run_decks(args, decks, targets, also)
    elif sorted(runs) != sorted(decks):
        refuse_input(f"--analyse {args.analyse}: its run folders are of the decks "
                     f"{sorted(runs)}, its arguments name {sorted(decks)}")
    per_deck: dict[str, dict[str, dict[str, float]]] = {}
    rows_by_deck: dict[str, list[dict[str, Any]]] = {}
    results_by_deck: dict[str, dict[str, Any]] = {}
    hits_by_deck: dict[str, dict[str, dict[str, list[float]]]] = {}
    extra: dict[str, Any] = dict(SMOKE_AGENT_OPTIONS) if args.smoke else {}
    names: list[str] = []
    resamples = 2000
    for deck in decks:
        try:
            header, records = read_run(runs[deck])
        except ValueError as error:
            if args.analyse:  # the earlier run's folder: the input
                refuse_input(f"deck {deck}: {error}")
            # this run's own folder, just written: the run failed (exit 1)
            raise SystemExit(f"error: deck {deck}: {error}") from None
        resamples = int(header["config"]["bootstrap"])
        results_by_deck[deck] = compute(header, records)
        names, per_deck[deck] = deck_rates(results_by_deck[deck], targets)
        rows_by_deck[deck] = [r for r in records if r["task"] == "tell"]
        if args.guesses:
            from dixit_ai.decks import load_deck
            from models.bench.reading import panel_reading_hits

            print(f"deck {deck}: the default guesser on the told cards' boards")
            hits_by_deck[deck] = panel_reading_hits(
                rows_by_deck[deck], load_deck(deck), items=args.items, seed=args.seed,
                panel=args.panel, tell_cards=str(header["config"].get("tell_cards", "all")),
                **extra)
    figures: dict[str, Any] = {"arguments": asdict(args), "decks": decks, "runs": runs,
                               "per_deck": per_deck, "across": {}, "met": {}}
    shown = [n.removeprefix("panel-") for n in names]
    rows = []
    for deck in decks:
        for t in targets:
            cells = per_deck[deck][str(t)]
            worst = max(abs(v - t) for v in cells.values())
            rows.append([deck, f"{t:.2f}", *[cells[n] for n in [*names, "pooled"]], worst,
                         "yes" if worst <= WITHIN else "NO"])
    print_table(f"observed guess rate against the panel, per deck (every member and pooled "
                f"within {WITHIN} of the target: met)",
                ["deck", "target", *shown, "pooled", "worst gap", "met"], rows, digits=2,
                min_width=140)
    summary: list[list[Any]] = []
    for t in targets:
        across = {n: over_decks([per_deck[d][str(t)][n] for d in decks])
                  for n in [*names, "pooled"]}
        met = sum(max(abs(v - t) for v in per_deck[d][str(t)].values()) <= WITHIN
                  for d in decks)
        figures["across"][str(t)] = across
        figures["met"][str(t)] = met
        summary.append([f"{t:.2f}", *[across[n] for n in [*names, "pooled"]],
                        f"{met} of {len(decks)}"])
    print_table(f"across {len(decks)} decks: mean of the per-deck rates (95% t-interval over "
                "decks)", ["target", *shown, "pooled", "decks met"], summary, digits=2,
                min_width=140)
    ece = ece_figures(rows_by_deck, names, targets, seed=args.seed, resamples=resamples)
    figures["ece"] = ece
    ece_rows: list[list[Any]] = []
    for deck, entry in [*ece["per_deck"].items(), ("all decks", ece["all_decks"])]:
        found = [entry[n] for n in [*names, "pooled"]]
        worst = max((c["ece"] for c in found if c), default=math.nan)
        ece_rows.append([deck, "this storyteller", *[c["by_card"] if c else None for c in found],
                         "yes" if worst <= ECE_WITHIN else "NO"])
        ece_rows.append(["", "calibrated would show",
                         *[c["calibrated"] if c else None for c in found], ""])
    print_table(f"ECE over all turns (every target), per member and pooled, 95% interval over the "
                f"cards told (every member and pooled <= {ECE_WITHIN}: met); below each, what a "
                "perfectly calibrated storyteller would show on the same turns from the votes' "
                "noise alone", ["deck", "", *shown, "pooled", "met"], ece_rows, digits=3,
                min_width=140)
    if also:
        labels = [name for name, _ in also]
        figures["points"] = points_figures(results_by_deck, labels, seed=args.seed,
                                           resamples=resamples)
        for which, title in (("panel", "four panel guessers"),
                             ("random", "three panel guessers and one random player")):
            table = figures["points"][which]
            print_table(
                f"against {title}: points per storytelling turn per deck, over every deck's "
                f"items, and minus {BASELINE} (paired items; 95% bootstrap over items, and over "
                f"the cards told)", ["storyteller", *[d.split("seed=")[-1] for d in decks],
                                     "all decks", f"minus {BASELINE}", "over cards told"],
                [[name, *[table[name]["per_deck"][d] for d in decks], table[name]["points"],
                  table[name].get("minus_baseline", "-"),
                  table[name].get("minus_baseline_by_card", "-")] for name in labels],
                digits=2, min_width=140)
    if hits_by_deck:
        from models.bench.reading import CHANCE

        figures["guesses"] = guess_figures(hits_by_deck, seed=args.seed, resamples=resamples)
        print_table(f"the default clip guesser's top-1 on boards of each teller's told cards "
                    f"(the card and 5 distractors: chance {CHANCE:.3f}, target 2x chance "
                    f"{2 * CHANCE:.3f}), per deck and over every deck's stories (95% bootstrap); "
                    "caption-reader reads the captions: what a clue says of the picture",
                    ["teller", *[d.split("seed=")[-1] for d in decks], "all decks",
                     "caption-reader", ">= 2x chance"],
                    [[teller, *[cell["per_deck"][d] for d in decks], cell["default"],
                      cell["caption-reader"],
                      "yes" if cell["default"].estimate >= 2 * CHANCE else "NO"]
                     for teller, cell in figures["guesses"].items()], digits=2,
                    min_width=140)
    figures["seconds"] = round(time.time() - started, 1)
    print(f"{figures['seconds']:.0f} s; run folders: {', '.join(runs.values())}")
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
