"""Study: a storyteller's predicted guess rate against a panel's observed one, for *every*
candidate clue.

The tell benchmark (``scripts/bench_storyteller_panel.py``) plays the one clue each storyteller
chose. This study scores every (hand card, vocabulary clue) of each held-out item at once: the
panel's observed rate of each (the share of its votes that find the card on the item's real
boards, as the benchmark plays them: :meth:`models.bench.panel.PanelTable.found_rates`) beside
the rate each simulation predicts (the self-simulating storyteller with its fitted guess model;
the population of ``--population`` with the guess models of ``--population-file``). Then, per
target, the candidate a storyteller would choose by closeness (the population's robustness
penalty included) and the panel's observed rate of it. Pair clues and the refinement steps of a
real decision are left out (vocabulary clues, one simulation each), so its figures are close to
the benchmark's, not equal: it is for comparing guess models quickly (a fit with and without a
bias, another population, another temperature), not for reporting a storyteller.

    python scripts/study_candidate_clues.py
    python scripts/study_candidate_clues.py --population-file runs/.../population.json
    python scripts/study_candidate_clues.py --smoke
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from dixit_ai.reporting import mean_interval, print_table, write_json
from models.players.cli import parse_args

TARGETS = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass
class Args:
    panel: str = field(default=("panel-lite2-mpnet,panel-imagenet-zeroshot,panel-caption-reader,"
                                "panel-sibling"), metadata={"help": "the panel (a panel spec)"})
    population: str = field(default="self,lite1-minilm,lite1-mpnet", metadata={
        "help": "the population's members (embedder names; 'self' = default)"})
    population_file: str = field(default="default", metadata={
        "help": "the population's guess models ('default': models/data/population.json)"})
    robustness: float = field(default=0.5, metadata={
        "help": "the population's penalty on the spread of the guess rate across members"})
    items: int = field(default=60, metadata={"help": "held-out tell items"})
    deals: int = field(default=4, metadata={"help": "deals of the panel's hands per item"})
    simulations: int = field(default=256, metadata={"help": "simulated deals per item"})
    seed: int = field(default=1000, metadata={"help": "seed of the items"})
    bootstrap: int = field(default=2000, metadata={"help": "bootstrap resamples"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    from dixit_ai.decks import load_deck
    from dixit_ai.rules import RuleSet
    from models.bench.items import DeckFacts, ItemSets
    from models.bench.panel import PanelTable
    from models.players.agent import DEFAULT_CALIBRATION
    from models.players.panel_models import load_member_resources
    from models.players.population import load_population_fit, simulate_population
    from models.players.simulation import (
        GuessModel,
        draw_deals,
        simulate,
        storyteller_points_by_finders,
    )

    if args.smoke:
        args.items, args.deals, args.simulations, args.bootstrap = 2, 2, 16, 100
    started = time.perf_counter()
    deck = load_deck("dream")
    table = PanelTable(args.panel, deck, seed=args.seed)
    names = ["default" if m.strip() == "self" else m.strip()
             for m in args.population.split(",") if m.strip()]
    members = [load_member_resources(n, deck) for n in names]
    shared = [n for n, f in zip(table.names, table.fingerprints, strict=True)
              if f in {r.fingerprint for r in members}]
    if shared:
        raise SystemExit(f"the population simulates panel member(s) {', '.join(shared)}: "
                         "take them out of one or the other")
    fit = load_population_fit(args.population_file)
    if fit is None:
        raise SystemExit(f"no population file at {args.population_file!r}")
    own = members[0] if names[0] == "default" else load_member_resources("default", deck)
    own_model = GuessModel.load(DEFAULT_CALIBRATION)
    models = [fit.model_for(r.fingerprint, GuessModel(correlation=0.0)) for r in members]
    rules = RuleSet.edition("refresh-2021")
    points = storyteller_points_by_finders(rules, 5, 4)
    items = ItemSets(DeckFacts.of(deck), seed=args.seed, items=args.items, board_size=6,
                     reference_deals=args.deals).tell_items()
    rng = np.random.default_rng([args.seed, 31])
    chosen: dict[str, dict[float, list[tuple[float, dict[str, float]]]]] = {
        "self": {t: [] for t in TARGETS}, "population": {t: [] for t in TARGETS}}
    pairs: dict[str, list[np.ndarray]] = {"self": [], "population": [], "observed": []}
    for item in tqdm(items, desc="items", unit="item", disable=args.smoke):
        truth = table.found_rates(item.hand, item.deals, item.index)
        pooled = np.mean([truth[n] for n in table.names if n in truth], axis=0)
        hand_rows = [int(c) for c in item.hand]
        unseen = [int(c) for c in deck.card_ids if int(c) not in hand_rows]
        deals = draw_deals(rng, len(unseen), args.simulations, 4, 6)
        mine = simulate(own.card_vocabulary_sims[own.rows(hand_rows)],
                        own.card_vocabulary_sims[own.rows(unseen)], deals, n_voters=4,
                        cards_per_guesser=1, model=own_model, points_by_finders=points)
        crowd = simulate_population(
            [r.card_vocabulary_sims[r.rows(hand_rows)] for r in members],
            [r.card_vocabulary_sims[r.rows(unseen)] for r in members], deals, n_voters=4,
            cards_per_guesser=1, models=models, points_by_finders=points)
        pairs["self"].append(mine.guess_rate.ravel())
        pairs["population"].append(crowd.guess_rate.ravel())
        pairs["observed"].append(pooled.ravel())
        for kind, result, spread in (("self", mine, 0.0),
                                     ("population", crowd, args.robustness * crowd.spread)):
            for target in TARGETS:
                score = np.abs(result.guess_rate - target) + spread
                card, clue = np.unravel_index(int(np.argmin(score)), score.shape)
                chosen[kind][target].append((float(pooled[card, clue]), {
                    n: float(truth[n][card, clue]) for n in truth}))

    observed = np.concatenate(pairs["observed"])
    figures: dict[str, Any] = {"panel": table.names, "population": names,
                               "population_file": args.population_file, "items": args.items,
                               "seed": args.seed, "candidates": int(observed.size)}
    rows = []
    for kind in ("self", "population"):
        predicted = np.concatenate(pairs[kind])
        correlation = float(np.corrcoef(predicted, observed)[0, 1])
        cells = []
        for target in TARGETS:
            values = [v for v, _ in chosen[kind][target]]
            cells.append(mean_interval(values, seed=args.seed, n_resamples=args.bootstrap))
        rows.append([kind, f"{correlation:.3f}", *cells])
        figures[kind] = {"correlation": correlation, "observed_at_target": {
            str(t): c for t, c in zip(TARGETS, cells, strict=True)}, "per_member": {
            str(t): {n: float(np.mean([m[n] for _, m in chosen[kind][t]]))
                     for n in table.names} for t in TARGETS}}
    print_table(f"every candidate clue of {args.items} held-out items ({observed.size} (card, "
                f"clue) pairs) against {', '.join(table.names)}: correlation of predicted and "
                "observed rates, and the observed rate of the closest candidate per target "
                "(95% CI)", ["simulation", "corr", *[f"target {t}" for t in TARGETS]], rows,
                digits=2, min_width=120)
    print(f"{time.perf_counter() - started:.0f} s")
    if args.json:
        write_json(args.json, figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
