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
pooled rate within 0.10). Run folders keep the records; ``--json`` writes the figures.

    python scripts/study_decks.py
    python scripts/study_decks.py --deck-seeds 7002,7003,7004,7005 --temperature-scale 0.25
    python scripts/study_decks.py --smoke
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from dixit_ai.reporting import Interval, print_table, write_json
from models.players.cli import SMOKE_AGENT_OPTIONS, parse_args, refuse_bad_population_options

WITHIN = 0.10
"""How near the target every member's and the pooled rate must be for a deck to meet it."""


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
    items: int = field(default=100, metadata={"help": "tell items per deck"})
    deals: int = field(default=4, metadata={"help": "deals of the panel's hands per item"})
    seed: int = field(default=1000, metadata={"help": "seed of the items"})
    runs_dir: str = field(default="runs", metadata={"help": "where the run folders go"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})


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
            below 40 (five hands of six and the deals need them).
    """
    try:
        numbers = [int(s) for s in seeds.split(",") if s.strip()]
    except ValueError:
        raise SystemExit(f"error: --deck-seeds must be whole numbers, not {seeds!r}") from None
    if not numbers or len(set(numbers)) != len(numbers):
        raise SystemExit(f"error: --deck-seeds must name one seed or more, each once: {seeds!r}")
    if size < 40:
        raise SystemExit(f"error: --deck-size must be at least 40 cards, not {size}")
    seen = sorted(set(numbers) & seen_seeds())
    if seen:
        raise SystemExit(f"error: --deck-seeds {seen}: a model was trained, validated or tested "
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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    refuse_bad_population_options(args.aim, args.temperature_scale, args.tolerance)
    decks = deck_specs(args.deck_seeds, args.deck_size)
    try:
        targets = [float(t) for t in args.targets.split(",") if t.strip()]
    except ValueError:
        raise SystemExit(f"error: --targets must be numbers in [0, 1], not {args.targets!r}"
                         ) from None
    if not targets or any(not 0 <= t <= 1 for t in targets):
        raise SystemExit(f"error: --targets must be numbers in [0, 1], not {args.targets!r}")
    from models.bench import BenchConfig, run_bench

    extra: dict[str, Any] = {}
    if args.smoke:
        args.items, args.deals = 3, 2
        extra = dict(SMOKE_AGENT_OPTIONS)
    crowd = {"population": args.population, "population_calibration": args.population_file,
             "population_temperature_scale": args.temperature_scale, "aim": args.aim,
             "tolerance": args.tolerance, "robustness": args.robustness}
    started = time.time()
    per_deck: dict[str, dict[str, dict[str, float]]] = {}
    runs: dict[str, str] = {}
    names: list[str] = []
    for deck in decks:
        print(f"deck {deck}: {args.items} items x {len(targets)} targets")
        models = [{"name": "clip-greedy", "label": f"population@{t}",
                   "kwargs": {"target_guess_rate": t, **crowd, **extra}} for t in targets]
        config = BenchConfig(models=models, tasks=["tell"], seed=args.seed, items=args.items,
                             reference_deals=args.deals, panel=args.panel, deck=deck,
                             out=args.runs_dir, name="decks")
        run = run_bench(config, progress=True, show=False)
        runs[deck] = str(run.folder)
        panel = run.results["tell"]["panel"]
        names = list(panel["members"])
        per_deck[deck] = {
            str(t): {n: panel["models"][f"population@{t}"]["members"][n]["observed"].estimate
                     for n in [*names, "pooled"]} for t in targets}
    figures: dict[str, Any] = {"arguments": asdict(args), "decks": decks, "runs": runs,
                               "per_deck": per_deck, "across": {}, "met": {}}
    rows = []
    for deck in decks:
        for t in targets:
            cells = per_deck[deck][str(t)]
            worst = max(abs(v - t) for v in cells.values())
            rows.append([deck, f"{t:.2f}", *[cells[n] for n in [*names, "pooled"]], worst,
                         "yes" if worst <= WITHIN else "NO"])
    print_table(f"observed guess rate against the panel, per deck (every member and pooled "
                f"within {WITHIN} of the target: met)",
                ["deck", "target", *names, "pooled", "worst gap", "met"], rows, digits=2,
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
                "decks)", ["target", *names, "pooled", "decks met"], summary, digits=2,
                min_width=140)
    figures["seconds"] = round(time.time() - started, 1)
    print(f"{figures['seconds']:.0f} s; run folders: {', '.join(runs.values())}")
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
