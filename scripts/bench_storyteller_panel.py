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
import os
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.cli.targets import Targets, too_small
from dixit_ai.reporting import Interval, new_run_dir, print_table, write_json
from models.players.cli import SMOKE_AGENT_OPTIONS, parse_args, refuse_bad_population_options

TARGETS = (0.1, 0.25, 0.5, 0.75, 0.9)
CHECKED = (0.25, 0.5, 0.75)
"""The targets whose observed rate and ECE are judged."""
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


@dataclass
class Args:
    panel: str = field(default=("panel-lite2-mpnet,panel-imagenet-zeroshot,panel-caption-reader,"
                                "panel-sibling"), metadata={
        "help": "the panel the storytellers are evaluated against (a panel spec)"})
    population: str = field(default="self,lite1-minilm,lite1-mpnet", metadata={
        "help": "the population storytellers' members (embedder names; 'self' = default; "
                "'copy': a copy of the storyteller, with its own calibration, not fitted)"})
    robustness: float = field(default=0.5, metadata={
        "help": "the population storyteller's penalty on the spread across members"})
    aim: str = field(default="mean", metadata={
        "help": "the population storyteller's aim in target mode: 'mean' (the rate over every "
                "simulated voter), 'each' (every member's rate: the worst member's gap) or "
                "'rms' (every member's rate: the root mean square of their gaps)"})
    temperature_scale: float = field(default=1.0, metadata={
        "help": "the population storyteller's scale of its members' fitted temperatures (below "
                "1: sharper; the registry's clip-calibrated uses 0.5)"})
    table_mix: float = field(default=0.0, metadata={
        "help": "the population storyteller's share of simulated tables of one kind of mind"})
    tolerance: float = field(default=0.02, metadata={
        "help": "the population storyteller's tolerance in target mode: among candidates within "
                "it of the nearest one's distance to the target, the most expected points is "
                "chosen (0: the nearest; the registry's clip-calibrated uses 0)"})
    items: int = field(default=200, metadata={
        "help": "tell items (hands); 200 puts the points differences within about +-0.17"})
    deals: int = field(default=4, metadata={"help": "deals of the panel's hands per item"})
    fit_games: int = field(default=16, metadata={
        "help": "leave-one-out cross-play games per member and iteration"})
    fit_iterations: int = field(default=3, metadata={"help": "cross-play iterations"})
    unseen_minds: str = field(default="", metadata={
        "help": "an unseen-minds map (scripts/fit_unseen_minds.py) the population storyteller "
                "aims and predicts by in target mode (its population@T rows)"})
    population_file: str = field(default="", metadata={
        "help": "a fitted population file instead of fitting (step 1 skipped)"})
    also: str = field(default="", metadata={
        "help": "registry storytellers to bench beside the others, comma-separated, each as the "
                "registry configures it (a name the bench uses itself is labelled "
                "'NAME (registry)')"})
    seed: int = field(default=1000, metadata={"help": "seed of the held-out items"})
    deck: str = field(default="dream", metadata={
        "help": "the deck the items are dealt from and every player reads (a deck spec): "
                "another dream seed (dream:seed=7001) holds out every card and story, as long "
                "as no model was trained on that seed (see models.family)"})
    tell_cards: str = field(default="all", metadata={
        "help": "the cards the storytellers' hands are dealt from: 'all', or one fixed half of "
                "the deck ('half-a', 'half-b'): develop on one half, hold out on the other, so "
                "that the held-out stories are not the development stories again (items of "
                "two seeds tell mostly the same cards)"})
    decisions: int = field(default=15, metadata={"help": "storytelling decisions timed"})
    bootstrap: int = field(default=2000, metadata={"help": "bootstrap resamples"})
    out: str = field(default="runs", metadata={"help": "where run folders go"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})
    analyse: str = field(default="", metadata={
        "help": "a run folder of this bench (its bench__panel__... folder): every figure again "
                "from its records, with the settings it was run with (no telling, no timing; "
                "the panel members' own stories of the guess table are told again, seeded); "
                "only --json and --bootstrap may be given with it"})


TARGET_ITEMS = Args().items
"""The items the targets are stated for (the default ``--items``)."""
TARGET_DECISIONS = Args().decisions
"""The decisions the timing target is stated for (the default ``--decisions``)."""


def fit_population_file(members: list[str], games: int, iterations: int, folder: Path,
                        smoke: bool) -> Path:
    """Step 1: leave-one-out cross-play among the population's members; their fitted guess
    models (:func:`models.players.crossplay.fit_population_crossplay`)."""
    from dixit_ai import write_records
    from models.players.crossplay import fit_population_crossplay

    names = ["default" if m == "self" else m for m in members]
    extra: dict[str, Any] = dict(SMOKE_AGENT_OPTIONS) if smoke else {}
    result = fit_population_crossplay(names, games=games, iterations=iterations, seed=0,
                                      start=None, agent_options=extra, folder=folder,
                                      progress=print)
    write_records(folder / "crossplay_games.jsonl", result.records)
    path = folder / "population.json"
    result.fit.save(path)
    print(f"population fitted on {len(result.records)} leave-one-out cross-play games:")
    print("\n".join(result.summary_lines()))
    return path


BASELINES = ("caption-teller", "object-teller", "random-teller")
POINTS_ROWS = ("clip-expected", "population-expected", "clip-expected-self", *BASELINES,
               "population@0.5", "self@0.5")
"""The storytellers of the points tables, before any ``--also``."""


def also_entries(names: list[str], extra: dict[str, Any]) -> list[dict[str, Any]]:
    """``--also``: registry storytellers as the registry configures them (``extra``: the smoke
    budget, given to clip players only), labelled by name, or ``NAME (registry)`` where the
    bench has that label already.

    Raises:
        SystemExit: a name that is not registered (the message lists the registered names), or
            one given twice.
    """
    from models.players.cli import registry_storytellers

    taken = {entry["label"] for entry in storytellers({}, {})}
    return [{"name": name, "label": f"{name} (registry)" if name in taken else name,
             "kwargs": dict(extra) if clip else {}}
            for name, clip in registry_storytellers(names)]


def registry_crowd(name: str) -> str:
    """The population options of a registry storyteller, for the report's header."""
    from dixit_ai.agents.registry import agent_spec

    kwargs = agent_spec(name).kwargs
    return (f"population: {kwargs.get('population')}, table mix {kwargs.get('table_mix', 0.0)}, "
            f"calibration: {kwargs.get('population_calibration')}")


def storytellers(crowd: dict[str, Any], extra: dict[str, Any],
                 aimed: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The bench's model entries: self-tuned and population storytellers (``crowd``: their
    population options; ``aimed``: the target-mode population storytellers' own, such as an
    unseen-minds map), the registry's ``clip-expected`` (only ``extra``: never the bench's
    population, so that its row is the agent users run), and baselines."""
    models = []
    for target in TARGETS:
        models.append({"name": "clip-greedy", "label": f"self@{target}",
                       "kwargs": {"target_guess_rate": target, **extra}})
        models.append({"name": "clip-greedy", "label": f"population@{target}",
                       "kwargs": {"target_guess_rate": target, **crowd, **(aimed or {}),
                                  **extra}})
    models.append({"name": "clip-expected-self", "label": "clip-expected-self",
                   "kwargs": extra})
    models.append({"name": "clip-expected", "label": "clip-expected", "kwargs": dict(extra)})
    models.append({"name": "clip-expected", "label": "population-expected",
                   "kwargs": {**crowd, **extra}})
    for name in BASELINES:
        models.append({"name": name, "label": name, "kwargs": {}})
    return models


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


def time_decisions(crowd: dict[str, Any], n: int, aimed: dict[str, Any] | None = None
                   ) -> dict[str, dict[str, float]]:
    """Median wall and CPU milliseconds of a storytelling decision: target 0.5 (``clip-greedy``)
    and expected points (``clip-expected-self``), each simulating itself (``self``,
    ``expected-self``) and the population (``population``, ``expected-population``), and the
    population storyteller that reads its table (``expected-reading``: ``clip-reader``, its
    simulated deals laid out by its belief; in a first round, the prior), and the registry's
    ``clip-expected`` as it is configured there (``clip-expected``)."""
    from dixit_ai.agents import make_agent
    from dixit_ai.rules import RuleSet, new_game, observe

    rules = RuleSet.edition("refresh-2021")
    out = {}
    for label, name, kwargs in (("self", "clip-greedy", {}),
                                ("population", "clip-greedy", {**crowd, **(aimed or {})}),
                                ("expected-self", "clip-expected-self", {}),
                                ("expected-population", "clip-expected-self", crowd),
                                ("expected-reading", "clip-reader", crowd),
                                ("clip-expected", "clip-expected", {})):
        agent = make_agent(name, **kwargs)
        ids = list(agent.resources.card_ids)  # type: ignore[attr-defined]  # CLIP players
        views = []
        for i in range(n):
            state = new_game(rules, 5, ids, np.random.default_rng([7, i]))
            views.append(observe(state, state.storyteller))
        for view in views:  # warm: pair clues embedded once
            agent.reset(seat=view.seat, rng=np.random.default_rng(0))
            agent.tell(view)
        wall, cpu = [], []
        for i, view in enumerate(views):
            agent.reset(seat=view.seat, rng=np.random.default_rng(i))
            start, cpu_start = time.perf_counter(), time.process_time()
            agent.tell(view)
            wall.append(1000 * (time.perf_counter() - start))
            cpu.append(1000 * (time.process_time() - cpu_start))
        out[label] = {"wall_ms": statistics.median(wall), "cpu_ms": statistics.median(cpu)}
    return out


def _correlation(figures: dict[str, Any]) -> str:
    """The story correlation a calibrated storyteller was drawn at, and the moment estimate
    where it lay outside [0, 1] (predictions off story by story)."""
    used, raw = figures["correlation_used"], figures["story_correlation"]
    if raw == used or raw != raw:
        return f"{used:.2f}"
    return f"{used:.2f} (moment estimate {raw:.2f}: the predictions are off story by story)"


def _mark(ok: bool) -> str:
    return "yes" if ok else "NO"


ANALYSE_OPTIONS = ("analyse", "json", "bootstrap")
"""The options ``--analyse`` takes; every other one is the run's own."""


def restore_args(args: Args) -> tuple[Args, list[dict[str, Any]], dict[str, Any]]:
    """``--analyse``: the settings a run folder was run with (its ``bench.json``), its
    ``--also`` entries and its clip players' extra options.

    Raises:
        SystemExit: another option given beside ``--analyse``, or not a run folder of this
            bench (no ``bench.json``, or no ``population@`` storytellers in it).
    """
    import json

    given = [name for name in vars(args) if name not in ANALYSE_OPTIONS
             and getattr(args, name) != getattr(Args(), name)]
    if given:
        raise SystemExit(f"error: --analyse recomputes a run with its own settings; it takes "
                         f"only --json and --bootstrap, not --{given[0].replace('_', '-')}")
    path = Path(args.analyse) / "bench.json"
    if not path.is_file():
        raise SystemExit(f"error: --analyse {args.analyse}: no bench.json there (give the "
                         "bench__panel__... folder of a run)")
    config = json.loads(path.read_text(encoding="utf-8"))["config"]
    entries = {m["label"]: m for m in config["models"]}
    crowd = entries.get("population@0.5", {}).get("kwargs")
    if crowd is None:
        raise SystemExit(f"error: --analyse {args.analyse}: not a run of this bench (no "
                         "population@0.5 storyteller)")
    extra = dict(entries["clip-expected"]["kwargs"])
    try:
        restored = _restored(args, config, crowd)
    except KeyError as error:
        raise SystemExit(f"error: --analyse {args.analyse}: its bench.json does not say "
                         f"{error} (a run of an older version of this bench)") from None
    taken = {e["label"] for e in storytellers({}, {})}
    also = [{"name": m["name"], "label": m["label"], "kwargs": m["kwargs"]}
            for m in config["models"] if m["label"] not in taken]
    restored.also = ",".join(m["name"] for m in also)
    return restored, also, extra


def _restored(args: Args, config: dict[str, Any], crowd: dict[str, Any]) -> Args:
    return Args(
        panel=config["panel"], population=crowd["population"],
        robustness=crowd["robustness"], aim=crowd["aim"],
        temperature_scale=crowd["population_temperature_scale"],
        table_mix=crowd["table_mix"], tolerance=crowd["tolerance"], items=config["items"],
        deals=config["reference_deals"], population_file=crowd["population_calibration"],
        unseen_minds=crowd.get("unseen_minds", ""), seed=config["seed"],
        deck=config.get("deck", "dream"), tell_cards=config.get("tell_cards", "all"),
        bootstrap=args.bootstrap, json=args.json, analyse=args.analyse)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    refuse_bad_population_options(args.aim, args.temperature_scale, args.tolerance)
    restored = None
    if args.analyse:
        args, *restored = restore_args(args)
    from models.bench.items import TELL_CARDS

    if args.tell_cards not in TELL_CARDS:
        raise SystemExit(f"error: --tell-cards must be one of {', '.join(TELL_CARDS)}, not "
                         f"{args.tell_cards!r}")
    if args.smoke:
        args.items, args.deals, args.fit_games, args.decisions = 3, 2, 1, 2
        args.fit_iterations = 1
        args.bootstrap = 200
    figures = measure(args, restored)
    if args.json:
        write_json(args.json, figures)
    return judge(figures, args).report()


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
            raise SystemExit(f"error: --analyse {args.analyse}: {error}") from None
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
            raise SystemExit(f"error: --out {error}") from None
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
