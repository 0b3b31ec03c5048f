"""Study: a storyteller's predicted guess rate against a panel's observed one, for *every*
candidate clue.

The tell benchmark (``scripts/bench_storyteller_panel.py``) plays the one clue each storyteller
chose. This study scores every (hand card, vocabulary clue) of each held-out item at once: the
panel's observed rate of each (the share of its votes that find the card on the item's real
boards, as the benchmark plays them: :meth:`models.bench.panel.PanelTable.found_rates`) beside
the rate each simulation predicts (the self-simulating storyteller with its fitted guess model;
the population of ``--population`` with the guess models of ``--population-file``, their
temperatures times ``--temperature-scale``). Then, per target, the candidate a storyteller would
choose by closeness (of the rate over every voter, or with ``--aim each`` of its worst member,
with ``--aim rms`` the root mean square of its members' gaps; the population's robustness
penalty included) and the panel's observed rate of it, pooled and
per member. Pair clues and the refinement steps of a
real decision are left out (vocabulary clues, one simulation each), so its figures are close to
the benchmark's, not equal: it is for comparing guess models quickly (a fit with and without a
bias, another population, another temperature), not for reporting a storyteller.

``--oracle``: what *any* storyteller could reach against this panel. Each item's deals are split
in two halves; on the first half's observed rates, per target, the candidate whose worst
member is nearest the target (the panel's own answers, which no storyteller has) is chosen, and
its rate on the second half (held out: the choice is not fitted to the luck of those deals) is
reported per member, with the same for a choice made for each member alone. It measures what
knowing the panel's answers on other deals of the same hand buys (an upper reference for a
storyteller, limited by how many deals the choice sees: with few, clues seen at 3 of 4 regress
towards the middle on new deals), not the best clue that exists.

    python scripts/study_candidate_clues.py
    python scripts/study_candidate_clues.py --population-file runs/.../population.json
    python scripts/study_candidate_clues.py --aim each --robustness 0 --temperature-scale 0.5 \
        --population self,lite1-minilm,lite1-mpnet,lite1-zeroshot --population-file \
        models/data/population_wide.json
    python scripts/study_candidate_clues.py --smoke
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from dixit_ai.cli.common import (
    MAX_ITEMS,
    MAX_RESAMPLES,
    refuse_input,
)
from dixit_ai.reporting import mean_interval, print_table, progress_interval, write_json
from models.players.cli import (
    apply_smoke,
    parse_args,
    refuse_bad_counts,
    refuse_bad_population_options,
)

AIM_WORDS = {"mean": "the mean", "each": "each member (the worst gap)",
             "rms": "each member (the root mean square of the gaps)"}

TARGETS = (0.1, 0.25, 0.5, 0.75, 0.9)

SMOKE = {"items": 2, "deals": 2, "simulations": 16, "bootstrap": 100}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


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
    aim: str = field(default="mean", metadata={
        "help": "the population's aim: 'mean' (the rate over every simulated voter), 'each' "
                "(the worst member's gap to the target) or 'rms' (the root mean square of the "
                "members' gaps), as the storyteller's aim"})
    temperature_scale: float = field(default=1.0, metadata={
        "help": "multiplies every population member's fitted temperature (below 1: members "
                "that vote more sharply than fitted)"})
    items: int = field(default=60, metadata={"help": "held-out tell items"})
    deals: int = field(default=4, metadata={"help": "deals of the panel's hands per item"})
    simulations: int = field(default=256, metadata={"help": "simulated deals per item"})
    seed: int = field(default=1000, metadata={"help": "seed of the items"})
    tell_cards: str = field(default="all", metadata={
        "help": "the cards the hands are dealt from: 'all', or one fixed half of the deck "
                "('half-a', 'half-b'; see models.bench.items.card_half)"})
    bootstrap: int = field(default=2000, metadata={"help": "bootstrap resamples"})
    oracle: bool = field(default=False, metadata={
        "help": "also the held-out oracle: the clue nearest each target on half the deals, "
                "scored on the other half (needs --deals >= 2)"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    from dixit_ai.decks import load_deck
    from dixit_ai.rules import RuleSet
    from models.bench.items import DeckFacts, ItemSets
    from models.bench.panel import PanelTable
    from models.players.guess_files import DEFAULT_CALIBRATION
    from models.players.panel_models import load_member_resources
    from models.players.population import simulate_population
    from models.players.population_fit import load_population_fit
    from models.players.simulation import (
        GuessModel,
        draw_deals,
        simulate,
        storyteller_points_by_finders,
    )

    refuse_bad_population_options(args.aim, args.temperature_scale)
    refuse_bad_counts(args, (("items", 1), ("deals", 1), ("simulations", 1), ("bootstrap", 1)),
                      (("items", MAX_ITEMS), ("bootstrap", MAX_RESAMPLES)))
    if args.oracle and args.deals < 2:
        refuse_input(f"--oracle splits each item's deals in two halves: --deals must be at "
                     f"least 2, not {args.deals}")
    started = time.perf_counter()
    deck = load_deck("dream")
    table = PanelTable(args.panel, deck, seed=args.seed)
    names = ["default" if m.strip() == "self" else m.strip()
             for m in args.population.split(",") if m.strip()]
    members = [load_member_resources(n, deck) for n in names]
    shared = [n for n, f in zip(table.names, table.fingerprints, strict=True)
              if f in {r.fingerprint for r in members}]
    if shared:
        refuse_input(f"the population simulates panel member(s) {', '.join(shared)}: "
                     "take them out of one or the other")
    fit = load_population_fit(args.population_file)
    if fit is None:
        refuse_input(f"no population file at {args.population_file!r}")
    own = members[0] if names[0] == "default" else load_member_resources("default", deck)
    own_model = GuessModel.load(DEFAULT_CALIBRATION)
    models = [fit.model_for(r.fingerprint, GuessModel(correlation=0.0)).scaled(
        args.temperature_scale) for r in members]
    rules = RuleSet.edition("refresh-2021")
    points = storyteller_points_by_finders(rules, 5, 4)
    items = ItemSets(DeckFacts.of(deck), seed=args.seed, items=args.items, board_size=6,
                     reference_deals=args.deals, tell_cards=args.tell_cards).tell_items()
    rng = np.random.default_rng([args.seed, 31])
    chosen: dict[str, dict[float, list[tuple[float, dict[str, float]]]]] = {
        "self": {t: [] for t in TARGETS}, "population": {t: [] for t in TARGETS}}
    pairs: dict[str, list[np.ndarray]] = {"self": [], "population": [], "observed": []}
    oracle = Oracle(table.names)
    for item in tqdm(items, desc="items", unit="item", disable=args.smoke,
                     mininterval=progress_interval(sys.stderr)):
        truth = table.found_rates(item.hand, item.deals, item.index)
        if args.oracle:
            half = len(item.deals) // 2
            oracle.add(table.found_rates(item.hand, item.deals[:half], item.index),
                       table.found_rates(item.hand, item.deals[half:], item.index + half))
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
                score = candidate_gaps(result, target, args.aim if kind == "population"
                                       else "mean") + spread
                card, clue = np.unravel_index(int(np.argmin(score)), score.shape)
                chosen[kind][target].append((float(pooled[card, clue]), {
                    n: float(truth[n][card, clue]) for n in truth}))

    observed = np.concatenate(pairs["observed"])
    figures: dict[str, Any] = {"panel": table.names, "population": names,
                               "population_file": args.population_file, "aim": args.aim,
                               "temperature_scale": args.temperature_scale, "items": args.items,
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
    print_table(f"observed rate per panel member of the closest candidate per target "
                f"(population aiming at {AIM_WORDS[args.aim]}, "
                f"temperatures x {args.temperature_scale})",
                ["simulation", "member", *[f"target {t}" for t in TARGETS]],
                [[kind, n, *(f"{figures[kind]['per_member'][str(t)][n]:.2f}" for t in TARGETS)]
                 for kind in ("self", "population") for n in table.names], min_width=120)
    print_table(f"every candidate clue of {args.items} held-out items ({observed.size} (card, "
                f"clue) pairs) against {', '.join(table.names)}: correlation of predicted and "
                "observed rates, and the observed rate of the closest candidate per target "
                "(95% CI)", ["simulation", "corr", *[f"target {t}" for t in TARGETS]], rows,
                digits=2, min_width=120)
    if args.oracle:
        figures["oracle"] = oracle.report(args.seed, args.bootstrap, args.items, args.deals)
    print(f"{time.perf_counter() - started:.0f} s")
    if args.json:
        write_json(args.json, figures)
    return 0


def candidate_gaps(result: Any, target: float, aim: str) -> np.ndarray:
    """``(h, K)``: each candidate's distance to ``target``: of the rate over every simulated
    voter (``aim="mean"``), of its worst member (``aim="each"``) or the root mean square of the
    members' gaps (``aim="rms"``); a result without per-member rates falls back to the mean, as
    the storyteller does."""
    from models.players.population import PopulationResult

    gap = result.member_gap(target, aim) if aim != "mean" and isinstance(
        result, PopulationResult) else None
    return np.asarray(np.abs(result.guess_rate - target)) if gap is None else gap


class Oracle:
    """The held-out oracle of ``--oracle``: choices made on one half of each item's deals,
    scored on the other half."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        # kind ("all members" or a member) -> target -> member -> held-out rate per item
        self.chosen: dict[str, dict[float, dict[str, list[float]]]] = {
            kind: {t: {n: [] for n in names} for t in TARGETS}
            for kind in ("all members", *names)}

    def add(self, seen: dict[str, np.ndarray], held_out: dict[str, np.ndarray]) -> None:
        """One item: per member, the ``(hand, clues)`` rates on the two halves of its deals."""
        names = [n for n in self.names if n in seen and n in held_out]
        stacked = np.stack([seen[n] for n in names])                    # (M, h, K)
        for target in TARGETS:
            gaps = np.abs(stacked - target)
            for kind, score in (("all members", gaps.max(axis=0)),
                                *((n, gaps[i]) for i, n in enumerate(names))):
                card, clue = np.unravel_index(int(np.argmin(score)), score.shape)
                for n in names:
                    self.chosen[kind][target][n].append(float(held_out[n][card, clue]))

    def report(self, seed: int, resamples: int, items: int, deals: int) -> dict[str, Any]:
        """Print the oracle's table; its figures (per kind, target and member)."""
        figures: dict[str, Any] = {}
        rows = []
        for kind, by_target in self.chosen.items():
            figures[kind] = {}
            for target, by_member in by_target.items():
                cells = {n: mean_interval(v, seed=seed, n_resamples=resamples)
                         for n, v in by_member.items() if v}
                figures[kind][str(target)] = cells
                if target in (0.25, 0.5, 0.75):
                    shown = cells if kind == "all members" else {kind: cells[kind]}
                    worst = max(abs(c.estimate - target) for c in shown.values())
                    rows.append([kind, target, *[cells[n] if n in shown else "-"
                                                 for n in self.names],
                                 f"{worst:.2f}", "met" if worst <= 0.10 else "NOT met"])
        print_table(f"held-out oracle ({items} items, clue chosen on {deals // 2} deals from the "
                    f"panel's own answers, scored on the other {deals - deals // 2}): chosen "
                    "for all members at once (nearest worst member), or for one member alone; "
                    "observed rate per member (95% CI)",
                    ["chosen for", "target", *self.names, "worst |gap|", "within 0.10"], rows,
                    digits=2, min_width=140)
        return figures


if __name__ == "__main__":
    raise SystemExit(main())
