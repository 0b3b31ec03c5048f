"""One run of the panel bench (``scripts/bench_storyteller_panel.py``): steps 1 to 3, or with
``--analyse`` a run's records again, then the timing of storytelling decisions; every table
printed as it comes, and the figures (``--json``'s) returned.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import refuse_input
from dixit_ai.reporting import Interval, new_run_dir, print_table
from models.bench.panel_settings import Args
from models.bench.panel_storytellers import (
    CHECKED,
    POINTS_ROWS,
    TARGETS,
    also_entries,
    fit_population_file,
    registry_crowd,
    storytellers,
)
from models.bench.timing import time_decisions
from models.players.cli import SMOKE_AGENT_OPTIONS


def measure(args: Args, restored: list[Any] | None) -> dict[str, Any]:
    """Steps 1 to 3 (or, with ``--analyse``, the run's records again: ``restored`` is its
    ``--also`` entries and its clip players' extra options), then the timing; every table
    printed as it comes. The figures (``--json``'s)."""
    from dixit_ai.rules import RuleSet
    from models.bench import BenchConfig, run_bench
    from models.bench.analysis import read_run
    from models.bench.panel import EDITION, TABLE_GUESSERS
    from models.bench.panel_analysis import (
        ece_over_turns,
        equal_chance_ceiling,
        paired_difference,
    )

    members = [m.strip() for m in args.population.split(",") if m.strip()]
    aimed = {"unseen_minds": args.unseen_minds} if args.unseen_minds else {}
    crowd: dict[str, Any]
    extra: dict[str, Any]
    also: list[dict[str, Any]]
    if args.analyse:
        from models.bench.analysis import analyse

        run_folder = Path(args.analyse)
        try:
            results = analyse(run_folder, show=False)
        except ValueError as error:
            refuse_input(f"--analyse {args.analyse}: {error}")
        crowd = {"population": args.population,
                 "population_calibration": args.population_file}
        assert restored is not None
        also, extra = restored
    else:
        extra = dict(SMOKE_AGENT_OPTIONS) if args.smoke else {}
        also = also_entries([n.strip() for n in args.also.split(",") if n.strip()], extra)
        try:  # a folder of its own, even beside a run started in the same second
            folder = new_run_dir(args.out, "bench_storyteller_panel", args.seed)
        except ValueError as error:
            refuse_input(f"--out {error}")
        fitted = [m for m in members if m != "copy"]  # a copy keeps its own calibration
        population_file = args.population_file or str(
            fit_population_file(fitted, args.fit_games, args.fit_iterations, folder,
                                args.smoke))
        crowd = {"population": args.population, "population_calibration": population_file,
                 "robustness": args.robustness, "table_mix": args.table_mix, "aim": args.aim,
                 "population_temperature_scale": args.temperature_scale,
                 "tolerance": args.tolerance}
        config = BenchConfig(models=storytellers(crowd, extra, aimed) + also,
                             tasks=["tell"], seed=args.seed, items=args.items,
                             reference_deals=args.deals, panel=args.panel,
                             tell_cards=args.tell_cards, bootstrap=args.bootstrap,
                             deck=args.deck, out=str(folder), name="panel")
        run = run_bench(config, progress=True, show=False)
        run_folder, results = run.folder, run.results
    panel = results["tell"]["panel"]
    records = [r for r in read_run(run_folder)[1] if r["task"] == "tell"]
    names = panel["members"]
    models = panel["models"]
    first = next(iter(models.values()))
    print(f"\npanel: {', '.join(names)}; every storyteller was evaluated against all of them "
          f"(held out: {', '.join(first['held_out'])}); population: {args.population} (aim "
          f"{args.aim}, robustness {args.robustness}, temperatures x {args.temperature_scale}, "
          f"tolerance {args.tolerance}, unseen-minds map {args.unseen_minds or 'none'}); "
          f"{args.items} held-out items (seed {args.seed}, hands from "
          f"{'every card' if args.tell_cards == 'all' else 'card ' + args.tell_cards}) x "
          f"{args.deals} deals")
    print(f"clip-expected: as the registry configures it ({registry_crowd('clip-expected')}); "
          f"population-expected: expected points over --population ({args.population}, table "
          f"mix {args.table_mix})")

    figures: dict[str, Any] = {"panel": names, "population": members, "aim": args.aim,
                               "robustness": args.robustness,
                               "temperature_scale": args.temperature_scale,
                               "tolerance": args.tolerance, "items": args.items,
                               "unseen_minds": args.unseen_minds or None, "deck": args.deck,
                               "tell_cards": args.tell_cards,
                               "seed": args.seed, "targets": {}}
    for kind in ("self", "population"):
        rows = []
        observed_means = []
        for target in TARGETS:
            entry = models[f"{kind}@{target}"]
            cells = entry["members"]
            pooled = cells["pooled"]
            observed_means.append(pooled["observed"].estimate)
            worst = max(abs(cells[n]["observed"].estimate - target) for n in [*names, "pooled"])
            ece = [cells[n]["ece"] for n in [*names, "pooled"] if cells[n]["ece"] is not None]
            row = [f"{target:.2f}", *[cells[n]["observed"] for n in names], pooled["observed"],
                   f"{pooled['ece']:.3f}" if pooled["ece"] is not None else "n/a",
                   f"{max(ece):.3f}" if ece else "n/a", f"{worst:.3f}",
                   entry["against_itself"]]
            if target in CHECKED:
                row.append(_mark(worst <= 0.10 and bool(ece) and max(ece) <= 0.10))
            else:
                row.append("-")
            rows.append(row)
            figures["targets"][f"{kind}@{target}"] = {
                "members": {n: cells[n]["observed"].estimate for n in names},
                "pooled": pooled["observed"], "against_itself": entry["against_itself"],
                "ece": {n: cells[n]["ece"] for n in [*names, "pooled"]}}
        for key, span, targets in (("all_turns", "all turns (every target)", TARGETS),
                                   ("low_targets", "the turns at 0.1 to 0.5", TARGETS[:3]),
                                   ("high_targets", "the turns at 0.75 and 0.9", TARGETS[3:])):
            over = ece_over_turns(records, names, [f"{kind}@{t}" for t in targets],
                                  seed=args.seed, resamples=args.bootstrap)
            figures[f"{kind}_ece_{key}"] = over
            print(f"{kind}: ECE over {span}, 95% CI over the cards told; then what a perfectly "
                  f"calibrated storyteller would show on the same turns from the votes' noise "
                  f"alone, with the correlation of a member's votes on one story (card and "
                  f"clue) as measured, and with independent votes:\n  " + "\n  ".join(
                      f"{n} {v['by_card']}" + ("" if v["ece"] <= 0.10 else " (> 0.10)")
                      + f"; calibrated {v['calibrated']} at correlation "
                      + _correlation(v) + f", {v['calibrated_independent'].estimate:.3f} "
                      f"independent ({v['cards']} cards, {v['stories']} stories, {v['turns']} "
                      f"turns)" for n, v in over.items() if v is not None))
        checked = [observed_means[TARGETS.index(t)] for t in CHECKED]
        monotone = all(a < b for a, b in itertools.pairwise(checked))
        print_table(f"{kind}: observed guess rate against the panel (95% CI); targets 0.25/0.5/"
                    f"0.75 each within 0.10 and ECE <= 0.10 per member and pooled; monotone: "
                    f"{_mark(monotone)}",
                    ["target", *names, "pooled", "ECE pooled", "ECE worst member",
                     "worst |gap|", "against itself (not a target)", "met"], rows, digits=2,
                    min_width=150)
        figures[f"{kind}_monotone"] = monotone

    # The items are hands dealt from one deck, so a storyteller tells the same card, often with
    # the same clue, in every hand that holds it: those items are one story, not several.
    rows = []
    for target in TARGETS:
        entry = models[f"population@{target}"]
        cells, stories = entry["members"], entry["stories"]
        rows.append([f"{target:.2f}", stories["cards"], stories["card_clues"],
                     *[cells[n]["observed_by_card"] for n in names],
                     cells["pooled"]["observed_by_card"]])
        figures["targets"][f"population@{target}"].update(
            stories=stories, by_card={n: cells[n]["observed_by_card"]
                                      for n in [*names, "pooled"]})
    print_table(f"population: observed guess rate with 95% CI over the cards told (cluster "
                f"bootstrap; {args.items} items)", ["target", "cards told", "card-clue pairs",
                                                    *names, "pooled"],
                rows, digits=2, min_width=150)

    for which, title in (("panel", "four panel guessers"),
                         ("random", "three panel guessers and one random player")):
        rows = []
        key = "points_values" if which == "panel" else "random_points_values"
        base = models["caption-teller"][key]
        for label in (*POINTS_ROWS, *(e["label"] for e in also)):
            e = models[label]
            diff = paired_difference(e[key], base, seed=args.seed, resamples=args.bootstrap)
            by_card = paired_difference(e[key], base, seed=args.seed, resamples=args.bootstrap,
                                        clusters=e["told_cards"])
            rows.append([label, e[which]["success"], e[which]["points"], diff, by_card,
                         _mark(diff.low > 0) if label != "caption-teller" else "-",
                         _mark(by_card.low > 0) if label != "caption-teller" else "-"])
            figures[f"{which}:{label}"] = {"success": e[which]["success"],
                                           "points": e[which]["points"],
                                           "points_minus_caption_teller": diff,
                                           "points_minus_caption_teller_by_card": by_card}
        print_table(f"against {title}: success (target >= 0.5 for clip-expected) and points per "
                    f"storytelling turn, difference to caption-teller (95% CI, paired items)",
                    ["storyteller", "success", "points / turn", "minus caption-teller",
                     "minus caption-teller (CI over its told cards)", "above (CI > 0)",
                     "above (CI over cards > 0)"], rows, digits=2, min_width=150)
        # What a storyteller gets at most if it uses nothing of how the guessers differ: each
        # finds its card with one chance p, independently (the random player votes among the
        # TABLE_GUESSERS cards not its own).
        randoms = 0 if which == "panel" else 1
        best, at = equal_chance_ceiling(TABLE_GUESSERS - randoms, randoms, 1 / TABLE_GUESSERS)
        most = best * RuleSet.edition(EDITION).storyteller_points
        figures[f"{which}:ceiling"] = {"success": best, "points": most, "p": at}
        print(f"  ceiling where every panel guesser finds the card with one chance p, "
              f"independently: success {best:.3f}, {most:.2f} points (p = {at:.3f}); "
              f"caption-teller + {most - models['caption-teller'][which]['points'].estimate:.2f}")

    guesses = guess_figures(run_folder, args.items, args.seed, args.bootstrap, args.panel,
                            extra, args.tell_cards, args.deck)
    chance = 1 / 6
    rows = [[m, g["default"], _mark(g["default"].estimate >= 2 * chance), g["caption-reader"]]
            for m, g in guesses.items()]
    print_table(f"the default clip guesser on boards of the told cards: top-1 (95% CI); chance "
                f"{chance:.3f}, target >= {2 * chance:.3f}; beside it the caption reader (ground "
                "truth: what the clue says about the picture)",
                ["storyteller", "top-1", ">= 2x", "caption-reader top-1"], rows, digits=3,
                min_width=120)
    figures["default_guesser_top1"] = {m: g["default"] for m, g in guesses.items()}
    figures["ground_truth_top1"] = {m: g["caption-reader"] for m, g in guesses.items()}

    if args.analyse:
        print("storytelling decisions: not timed (--analyse recomputes the records' figures)")
    else:
        timing = time_decisions(crowd, args.decisions, aimed)
        figures["decision_ms"] = timing
        print(f"storytelling decision (median of {args.decisions}; target <= 150 ms with the "
              f"population), load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} "
              "cores:")
        for label, figure in timing.items():
            print(f"  {label}: {figure['wall_ms']:.0f} ms wall / {figure['cpu_ms']:.0f} ms CPU")
    print(f"run folder: {run_folder}")
    return figures


def guess_figures(folder: Path, items: int, seed: int, resamples: int, panel: str,
                  extra: dict[str, Any], tell_cards: str = "all", deck_spec: str = "dream"
                  ) -> dict[str, dict[str, Interval]]:
    """Step 3: the default clip guesser on boards of each storyteller's told cards, and of the
    cards told by the panel members themselves (``panel-*`` agents telling on their own models:
    can the default guesser read other minds?); beside it, ``caption-reader`` (it reads the
    cards' captions: what the clue says about the picture itself). ``{storyteller: {"default":
    top-1, "caption-reader": top-1}}``."""
    from dixit_ai.decks import load_deck
    from dixit_ai.reporting import mean_interval
    from models.bench.analysis import read_run
    from models.bench.reading import panel_reading_hits

    _, records = read_run(folder)
    hits = panel_reading_hits(records, load_deck(deck_spec), items=items, seed=seed,
                              panel=panel, tell_cards=tell_cards, **extra)
    return {teller: {name: mean_interval(h, seed=seed, n_resamples=resamples)
                     for name, h in by_guesser.items()} for teller, by_guesser in hits.items()}


def _correlation(figures: dict[str, Any]) -> str:
    """The story correlation a calibrated storyteller was drawn at, and the moment estimate
    where it lay outside [0, 1] (predictions off story by story)."""
    used, raw = figures["correlation_used"], figures["story_correlation"]
    if raw == used or raw != raw:
        return f"{used:.2f}"
    return f"{used:.2f} (moment estimate {raw:.2f}: the predictions are off story by story)"


def _mark(ok: bool) -> str:
    return "yes" if ok else "NO"
