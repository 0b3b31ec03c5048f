"""Fit what a population storyteller's predictions mean among minds it did not simulate.

Two kinds of unseen mind ``m``, each a ``panel-m`` guesser of the registry:

- ``--outside``: a mind outside the population (and outside the panel the storyteller will be
  evaluated against, which the map must not know): the storyteller itself, exactly as configured
  (``--population``, ``--population-file`` and the rest), tells; ``m`` votes. Its population fit
  must not have been fitted on ``m``'s votes.
- ``--leave-out``: a member of the population: the storyteller simulates the population without
  ``m``, with a population fit made without ``m``'s votes (``--leave-out-fits``, one file per
  member, e.g. from ``fit_calibration.py --crossplay --population`` the others). That
  storyteller differs from the one the map serves (one member fewer, other fitted
  temperatures): check on development items that its map transfers.

The storyteller tells at every target of ``--targets`` on the tell items (``--seed``, ``--deck``,
``--tell-cards``); ``m``'s guessers play the decoys and vote on real boards (the panel tell task,
:mod:`models.bench.panel`, with a panel of ``m`` alone). The unseen-minds map
(:class:`models.players.unseen_minds.UnseenMindMap`) is the isotonic regression of ``m``'s rate on
the storyteller's prediction, over every turn of every unseen mind (each turn weighted by its
votes). It is written with the settings of the storyteller it serves (the
whole population, its fit, the temperature scale, aim, tolerance, robustness and table mix), the
voters whose votes made it (the members left out, and those of the leave-out fits), and the run
folders, whose records recompute it. No panel member outside the population is used.

    python scripts/fit_unseen_minds.py --outside default-zeroshot --temperature-scale 0.25 \\
        --out runs/unseen_default_zeroshot.json
    python scripts/fit_unseen_minds.py --leave-out lite1-minilm,lite1-mpnet \\
        --leave-out-fits runs/pop_without_minilm.json,runs/pop_without_mpnet.json \\
        --out models/data/unseen_minds_calibrated.json
    python scripts/fit_unseen_minds.py --smoke --out /tmp/map.json
"""

from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.cli.common import MAX_ITEMS, refuse_input
from dixit_ai.reporting import print_table
from models.players.cli import (
    SMOKE_AGENT_OPTIONS,
    apply_smoke,
    parse_args,
    refuse_bad_counts,
    refuse_bad_population_options,
)

SMOKE = {"items": 3, "deals": 2}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    population: str = field(default="self,lite1-minilm,lite1-mpnet,lite1-zeroshot", metadata={
        "help": "the population of the storyteller the map serves (embedder names; 'self' = "
                "its own)"})
    population_file: str = field(default="wide", metadata={
        "help": "that storyteller's population fit (a shipped name or a path)"})
    temperature_scale: float = field(default=0.5, metadata={
        "help": "that storyteller's population_temperature_scale"})
    aim: str = field(default="rms", metadata={"help": "that storyteller's aim"})
    tolerance: float = field(default=0.0, metadata={"help": "that storyteller's tolerance"})
    robustness: float = field(default=0.0, metadata={"help": "that storyteller's robustness"})
    table_mix: float = field(default=0.0, metadata={"help": "that storyteller's table mix"})
    outside: str = field(default="", metadata={
        "help": "minds outside the population that vote on the storyteller's own clues, "
                "comma-separated (each a panel-NAME registry guesser; never a member of the "
                "panel the storyteller will be measured against)"})
    leave_out: str = field(default="", metadata={
        "help": "population members left out one at a time, comma-separated (each needs a "
                "panel-NAME registry guesser and a --leave-out-fits file)"})
    leave_out_fits: str = field(default="", metadata={
        "help": "one population fit per member left out, comma-separated, in the same order, "
                "each made without that member's votes"})
    targets: str = field(default="0.1,0.25,0.4,0.5,0.6,0.75,0.9,1.0", metadata={
        "help": "the targets the leave-out storytellers tell at"})
    items: int = field(default=100, metadata={"help": "tell items per member"})
    deals: int = field(default=4, metadata={"help": "deals of the guessers' hands per item"})
    seed: int = field(default=5000, metadata={"help": "seed of the tell items (development)"})
    deck: str = field(default="dream", metadata={"help": "the deck (a deck spec)"})
    tell_cards: str = field(default="half-a", metadata={
        "help": "the cards the storyteller's hands come from ('all', 'half-a', 'half-b')"})
    out: str = field(default="", metadata={"help": "where the map goes (JSON; required)"})
    runs_dir: str = field(default="runs", metadata={"help": "where the run folders go"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})


def _settings(args: Args) -> dict[str, Any]:
    """The settings of the storyteller the map serves, as its agent states them."""
    from dixit_ai.agents import make_agent

    agent = make_agent("clip-greedy", population=args.population,
                       population_calibration=args.population_file,
                       population_temperature_scale=args.temperature_scale, aim=args.aim,
                       tolerance=args.tolerance, robustness=args.robustness,
                       table_mix=args.table_mix)
    settings: dict[str, Any] = agent.unseen_minds_settings()  # type: ignore[attr-defined]
    return settings


def tell_against(member: str, population: str, fit: str, args: Args, targets: list[float],
                 extra: dict[str, Any]) -> tuple[Path, list[dict[str, Any]]]:
    """A storyteller simulating ``population`` (fitted by ``fit``) tells at every target;
    ``member`` votes. The run folder and its tell records."""
    from models.bench import BenchConfig, run_bench
    from models.bench.analysis import read_run

    crowd = {"population": population, "population_calibration": fit,
             "population_temperature_scale": args.temperature_scale, "aim": args.aim,
             "tolerance": args.tolerance, "robustness": args.robustness,
             "table_mix": args.table_mix}
    models = [{"name": "clip-greedy", "label": f"{member}@{t}",
               "kwargs": {"target_guess_rate": t, **crowd, **extra}} for t in targets]
    config = BenchConfig(models=models, tasks=["tell"], seed=args.seed, items=args.items,
                         reference_deals=args.deals, panel=f"panel-{member}", deck=args.deck,
                         tell_cards=args.tell_cards, out=args.runs_dir,
                         name=f"unseen_{member}")
    run = run_bench(config, progress=True, show=False)
    _, records = read_run(run.folder)
    return run.folder, [r for r in records if r["task"] == "tell"]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    refuse_bad_population_options(args.aim, args.temperature_scale, args.tolerance)
    refuse_bad_counts(args, (("items", 1), ("deals", 1)), (("items", MAX_ITEMS),))
    from models.bench.items import TELL_CARDS
    from models.players.guess_model import VOTERS_KEY, fitted_file_voters
    from models.players.population_fit import population_fit_path
    from models.players.unseen_minds import UnseenMindMap, file_sha256

    if not args.out:
        refuse_input("--out FILE is required (where the map goes)")
    if args.tell_cards not in TELL_CARDS:
        refuse_input(f"--tell-cards must be one of {', '.join(TELL_CARDS)}, not "
                     f"{args.tell_cards!r}")
    try:
        targets = [float(t) for t in args.targets.split(",") if t.strip()]
    except ValueError:
        refuse_input(f"--targets must be numbers in [0, 1], not {args.targets!r}")
    if len(targets) < 2 or any(not 0 <= t <= 1 for t in targets):
        refuse_input(f"--targets must be two or more numbers in [0, 1], not "
                     f"{args.targets!r}")
    names = [m.strip() for m in args.population.split(",") if m.strip()]
    outside = [m.strip() for m in args.outside.split(",") if m.strip()]
    left = [m.strip() for m in args.leave_out.split(",") if m.strip()]
    fits = [f.strip() for f in args.leave_out_fits.split(",") if f.strip()]
    if not outside and not left:
        refuse_input("name the unseen minds: --outside (minds outside the "
                     "population) or --leave-out (members left out one at a time)")
    if len(fits) != len(left):
        refuse_input(f"--leave-out-fits needs one population fit per member left out "
                     f"({len(left)}: {left}), not {len(fits)}")
    if len(set(outside + left)) != len(outside + left):
        refuse_input(f"an unseen mind is named twice: {outside + left}")
    jobs: list[tuple[str, str, str]] = []  # (unseen mind, storyteller's population, its fit)
    for m in outside:
        if m in names:
            refuse_input(f"--outside {m!r} is a member of --population ({names}): "
                         "leave it out instead (--leave-out)")
        jobs.append((m, args.population, args.population_file))
    for m, fit in zip(left, fits, strict=True):
        if m not in names or m in ("self", "copy"):
            refuse_input(f"--leave-out {m!r} is not a member of --population "
                         f"({names}) with a model of its own")
        jobs.append((m, ",".join(n for n in names if n != m), fit))
    for m, _, fit in jobs:
        try:
            fingerprint = _member_fingerprint(m, args)
        except ValueError as error:
            refuse_input(f"unseen mind {m!r}: {error}")
        path = population_fit_path(fit)
        if path is None or not path.is_file():
            refuse_input(f"population fit {fit!r} for {m} is not a file")
        fit_voters = fitted_file_voters(path)
        if fit_voters is None:
            refuse_input(f"{fit} does not record the voters it was fitted on "
                         f"({VOTERS_KEY!r})")
        if any(v.get("fingerprint") == fingerprint for v in fit_voters):
            refuse_input(f"{fit} was fitted on {m}'s votes: the storyteller that "
                         f"{m} votes on must be fitted without them")
    extra: dict[str, Any] = {}
    if args.smoke:
        extra = dict(SMOKE_AGENT_OPTIONS)
    settings = _settings(args)
    started = time.time()
    predicted: list[float] = []
    observed: list[float] = []
    weights: list[float] = []
    voters: list[dict[str, Any]] = []
    paths = {m: Path(str(population_fit_path(f))) for m, _, f in jobs}
    runs: list[str] = []
    rows = []
    for m, population, fit in jobs:
        print(f"telling with {population} (fit {fit}); {m} votes")
        folder, records = tell_against(m, population, fit, args, targets, extra)
        runs.append(str(folder))
        key = f"panel-{m}"
        for target in targets:
            turns = [r for r in records if r["model"] == f"{m}@{target}"
                     and r.get("panel") and r["panel"]["seen"].get(key)]
            found = sum(r["panel"]["found"][key] for r in turns)
            seen = sum(r["panel"]["seen"][key] for r in turns)
            for r in turns:
                predicted.append(float(r["predicted"]))
                observed.append(r["panel"]["found"][key] / r["panel"]["seen"][key])
                weights.append(float(r["panel"]["seen"][key]))
            rows.append([m, f"{target:.2f}", len(turns),
                         float(np.mean([r["predicted"] for r in turns])) if turns else float("nan"),
                         found / seen if seen else float("nan")])
        agent_fp = _member_fingerprint(m, args)
        voters.append({"fingerprint": agent_fp, "name": key})
        voters.extend(fitted_file_voters(paths[m]) or [])
    unique = list({(v["fingerprint"], v["name"]): v for v in voters}.values())
    fitted = UnseenMindMap.fit(predicted, observed, weights, settings=settings, meta={
        VOTERS_KEY: unique,
        "outside": outside, "left_out": left,
        "storytellers": {m: {"population": p, "fit": f, "fit_sha256": file_sha256(paths[m])}
                         for m, p, f in jobs},
        "targets": targets, "items": args.items, "deals": args.deals, "seed": args.seed,
        "deck": args.deck, "tell_cards": args.tell_cards, "turns": len(predicted),
        "runs": runs, "arguments": asdict(args), "command": " ".join(sys.argv),
        "seconds": round(time.time() - started, 1)})
    print_table("the storyteller's prediction and the unseen mind's rate",
                ["unseen mind", "target", "turns", "predicted (mean)", "the member found"], rows,
                digits=3)
    grid = [0.0, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 1.0]
    print_table("the map: predicted -> the rate an unsimulated mind finds",
                ["predicted", *[f"{g:.2f}" for g in grid]],
                [["unseen mind", *[float(fitted(g)) for g in grid]]], digits=3)
    for t in (0.25, 0.5, 0.75):
        aimed, reachable = fitted.aim(t)
        print(f"  target {t:.2f}: aim the simulated minds at {aimed:.3f}"
              + ("" if reachable else " (out of reach: the highest prediction)"))
    fitted.save(args.out)
    _plot(fitted, predicted, observed, weights, Path(args.out).with_suffix(".png"))
    print(f"map -> {args.out} (plot {Path(args.out).with_suffix('.png')})")
    return 0


def _member_fingerprint(member: str, args: Args) -> str:
    from models.players.panel import member as panel_member
    from models.players.panel_models import load_member_resources

    return str(load_member_resources(panel_member(member).embedder, args.deck).fingerprint)


def _plot(fitted: Any, predicted: list[float], observed: list[float], weights: list[float],
          path: Path) -> None:
    """The turns (binned by prediction, with their votes' share) and the map."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dixit_ai.reporting import save_figure

    x, y, w = (np.asarray(v) for v in (predicted, observed, weights))
    bins = np.linspace(0, 1, 11)
    which = np.clip(np.digitize(x, bins) - 1, 0, 9)
    fig, ax = plt.subplots(figsize=(5, 5))
    for b in range(10):
        sel = which == b
        if sel.any():
            ax.scatter(np.average(x[sel], weights=w[sel]), np.average(y[sel], weights=w[sel]),
                       s=10 + 2 * sel.sum(), color="tab:blue", alpha=0.7)
    grid = np.linspace(0, 1, 101)
    ax.plot(grid, fitted(grid), color="tab:red", label="map (isotonic)")
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="prediction held")
    ax.set_xlabel("storyteller's prediction (minds it simulated)")
    ax.set_ylabel("rate found by the unseen mind")
    ax.set_title("minds the storyteller did not simulate")
    ax.legend(loc="upper left")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
