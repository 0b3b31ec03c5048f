"""Figures of the tell task against the panel (:mod:`models.bench.panel`), from the records.

Per storyteller: the observed guess rate per panel member (the share of that member's votes that
found the card) and pooled over the panel (all panel votes), each with a bootstrap interval over
items; success (some but not all of the four panel guessers found it) and the storyteller's
points per storytelling turn (the rules' own), with four panel guessers and with three and a
random player; the ECE of the storyteller's predictions against each member's and the pooled
observed rate, with the reliability curves; and the cross-play matrix (storyteller x guesser
model), whose last column is the reference population: the storyteller **against itself** when
it is built on the reference embedder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.reporting import Interval, draw_rate_matrix, save_figure, side_colorbar
from models.bench.analysis import CALIBRATION_BINS  # the bench's tell task bins its ECE alike

SELF_COLUMN = "against itself (reference)"


def _rate(found: dict[str, int], seen: dict[str, int], names: Sequence[str]) -> float:
    total = sum(seen[n] for n in names)
    return math.nan if total == 0 else sum(found[n] for n in names) / total


def panel_results(header: dict[str, Any], rows: Sequence[dict[str, Any]],
                  interval: Callable[..., Interval]) -> dict[str, Any] | None:
    """The panel figures of every storyteller (``None``: the run had no panel).

    ``interval(values, clusters=None)`` gives a mean's interval; with ``clusters`` it resamples
    whole clusters (:func:`dixit_ai.reporting.mean_interval`). Each observed rate has two: over
    items (``observed``), and over the cards told (``observed_by_card``), since a storyteller
    tells the same card, often with the same clue, in every hand that holds it, and those items
    are not independent evidence. ``stories`` counts the distinct cards and (card, clue) pairs
    told.
    """
    from models.players.calibration import reliability

    panel = header.get("panel")
    if not panel:
        return None
    names = [m["name"] for m in panel["members"]]
    out: dict[str, Any] = {"members": names, "models": {}}
    by_model: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_model.setdefault(row["model"], []).append(row)
    for model, cells in by_model.items():
        played = [r for r in cells if r.get("panel")]
        if not played:
            continue
        target = next((r["target"] for r in cells if r["target"] is not None), None)
        told = [r.get("card") for r in played]
        entry: dict[str, Any] = {"target": target, "n": len(cells),
                                 "held_out": _held_out(played),
                                 "members": {},
                                 "stories": {"cards": len(set(told)),
                                             "card_clues": len({(r.get("card"), r.get("clue"))
                                                                for r in played})}}
        for which, prefix in (("panel", ""), ("random", "random_")):
            pooled = [_rate(r["panel"][f"{prefix}found"], r["panel"][f"{prefix}seen"], names)
                      for r in played]
            # An invalid answer scores no success and no points.
            entry[which] = {
                "observed": interval([x for x in pooled if not math.isnan(x)]),
                "success": interval([r["panel"][f"{prefix}success"] if r.get("panel") else 0.0
                                     for r in cells]),
                "points": interval([r["panel"][f"{prefix}points"] if r.get("panel") else 0.0
                                    for r in cells]),
            }
        entry["points_values"] = [r["panel"]["points"] if r.get("panel") else 0.0
                                  for r in cells]
        entry["random_points_values"] = [r["panel"]["random_points"] if r.get("panel")
                                         else 0.0 for r in cells]
        entry["items"] = [r["item"] for r in cells]
        entry["told_cards"] = [r.get("card") for r in cells]
        for name in [*names, "pooled"]:
            members = names if name == "pooled" else [name]
            rates = [_rate(r["panel"]["found"], r["panel"]["seen"], members) for r in played]
            pairs = [(r["predicted"], x) for r, x in zip(played, rates, strict=True)
                     if r["predicted"] is not None and not math.isnan(x)]
            kept = [(x, card) for x, card in zip(rates, told, strict=True) if not math.isnan(x)]
            cell: dict[str, Any] = {
                "observed": interval([x for x, _ in kept]),
                "observed_by_card": interval([x for x, _ in kept],
                                             clusters=[card for _, card in kept]),
                "ece": None, "reliability": None}
            if pairs:
                curve = reliability([p for p, _ in pairs], [o for _, o in pairs],
                                    bins=CALIBRATION_BINS)
                cell["ece"] = curve.ece
                cell["reliability"] = {"predicted": curve.predicted.tolist(),
                                       "observed": curve.observed.tolist(),
                                       "counts": curve.counts.tolist()}
            entry["members"][name] = cell
        selfplay = [r["observed"] for r in played if r["observed"] is not None]
        entry["against_itself"] = interval(selfplay)
        out["models"][model] = entry
    return out


def _held_out(played: Sequence[dict[str, Any]]) -> list[str] | None:
    """The members every one of a storyteller's stories was checked held out from (the
    records' ``held_out``); ``None``: some record was never checked (it has no such field), and
    nothing is claimed for it."""
    lists = [r.get("held_out") for r in played]
    checked = [x for x in lists if isinstance(x, list)]
    if not checked or len(checked) < len(lists):
        return None
    return [str(n) for n in checked[0] if all(n in x for x in checked[1:])]


def held_out_text(entry: dict[str, Any], members: Sequence[str]) -> str:
    """What a storyteller's panel figures say of held-out members: each one named, or ``not
    checked`` (records without the field)."""
    held = entry.get("held_out")
    if held is None:
        return "not checked"
    if not held:
        return "none"
    every = set(held) >= set(members)
    return ("all: " if every else "only: ") + ", ".join(held)


def ece_over_turns(rows: Sequence[dict[str, Any]], names: Sequence[str],
                   models: Sequence[str], *, seed: int = 0, resamples: int = 2000,
                   ) -> dict[str, dict[str, Any] | None]:
    """The ECE of the storytellers ``models``' predictions over all their turns together (every
    target), against each panel member's observed rate and the pooled one.

    Per member (``None`` where it cast no vote on a predicted turn): ``ece``; ``by_card``, its
    interval over the cards told (:func:`~models.players.calibration.ece_interval`: a story
    told again in other hands is not new evidence); what a perfectly calibrated storyteller
    would show on the same turns and votes from their noise alone
    (:func:`~models.players.calibration.calibrated_ece`), with independent votes
    (``calibrated_independent``) and with the correlation the member's votes on one story (card
    and clue) were measured to have (``story_correlation``, ``calibrated``); and ``turns``,
    ``cards`` and ``stories``.
    """
    from models.players.calibration import calibrated_ece, ece_interval, story_correlation

    played = [r for r in rows if r["model"] in models and r.get("panel")
              and r["predicted"] is not None]
    out: dict[str, dict[str, Any] | None] = {}
    for name in [*names, "pooled"]:
        members = names if name == "pooled" else [name]
        turns = [(r["predicted"], _rate(r["panel"]["found"], r["panel"]["seen"], members),
                  sum(r["panel"]["seen"][m] for m in members),
                  r["card"] if r.get("card") is not None else ("turn", i), r.get("clue"))
                 for i, r in enumerate(played)]
        turns = [t for t in turns if not math.isnan(t[1])]
        if not turns:
            out[name] = None
            continue
        predicted, observed, votes, cards, clues = (list(x) for x in zip(*turns, strict=True))
        stories = list(zip(cards, clues, strict=True))
        by_card = ece_interval(predicted, observed, clusters=cards, bins=CALIBRATION_BINS,
                               n_resamples=resamples, seed=seed)
        rho = story_correlation(predicted, observed, votes, stories)
        # A moment estimate: beyond [0, 1] where the predictions are off story by story; the
        # calibrated storyteller's votes are drawn at the nearest correlation there is.
        used = 0.0 if math.isnan(rho) else min(1.0, max(0.0, rho))
        draws = max(2, resamples // 2)
        out[name] = {
            "ece": by_card.estimate, "by_card": by_card,
            "calibrated_independent": calibrated_ece(predicted, votes, bins=CALIBRATION_BINS,
                                                     draws=draws, seed=seed),
            "story_correlation": rho, "correlation_used": used,
            "calibrated": calibrated_ece(
                predicted, votes, clusters=stories, correlation=used,
                bins=CALIBRATION_BINS, draws=draws, seed=seed),
            "turns": len(turns), "cards": len(set(cards)), "stories": len(set(stories))}
    return out


def paired_difference(a: Sequence[float], b: Sequence[float], *, seed: int,
                      resamples: int, clusters: Sequence[Any] | None = None) -> Interval:
    """The mean of ``a - b`` over paired items, with a bootstrap interval (over ``clusters`` of
    items, such as the card told, where given)."""
    from dixit_ai.reporting import mean_interval

    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return mean_interval(diff, seed=seed, n_resamples=resamples, clusters=clusters)


def equal_chance_ceiling(guessers: int, random_players: int = 0, random_chance: float = 0.25,
                         *, grid: int = 10_001) -> tuple[float, float]:
    """The most a story can succeed (some but not all of the guessers find the card) when every
    panel guesser finds the card with the same chance ``p`` and all find it independently,
    beside ``random_players`` that find it with ``random_chance``: ``(success, p)``, maximised
    over ``p`` on a grid of ``grid`` points in [0, 1].

    A storyteller that uses nothing of how the guessers differ cannot expect more: with four
    guessers it is 0.875 (at p = 0.5), with three and a random player voting among four cards
    0.900 (at p = 0.634).

    Raises:
        ValueError: fewer than one voter, a negative count, a chance outside [0, 1], or a grid
            of fewer than 2 points.
    """
    if guessers < 0 or random_players < 0 or guessers + random_players < 1:
        raise ValueError(f"need at least one guesser and no negative counts, not {guessers} "
                         f"guessers and {random_players} random players")
    if not 0.0 <= random_chance <= 1.0:
        raise ValueError(f"random_chance must be in [0, 1], not {random_chance}")
    if grid < 2:
        raise ValueError(f"grid must have at least 2 points, not {grid}")
    p = np.linspace(0.0, 1.0, grid)
    none = (1.0 - p) ** guessers * (1.0 - random_chance) ** random_players
    every = p ** guessers * random_chance ** random_players
    success = 1.0 - none - every
    best = int(np.argmax(success))
    return float(success[best]), float(p[best])


def panel_tables(panel: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """``(title, columns, rows)``: the panel leaderboard and the per-member guess rates."""
    models = panel["models"]
    if not models:
        return []
    names = panel["members"]

    def fmt(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.3f}"

    order = sorted(models, key=lambda m: -models[m]["panel"]["points"].estimate)
    rows = []
    for m in order:
        e = models[m]
        rows.append([m, "n/a" if e["target"] is None else f"{e['target']:.2f}",
                     e["panel"]["observed"], e["panel"]["success"], e["panel"]["points"],
                     fmt(e["members"]["pooled"]["ece"]), e["random"]["success"],
                     e["random"]["points"], e["against_itself"]])
    tables = [("tell against the panel (real boards, 4 panel guessers; 95% CI)",
               ["storyteller", "target", "observed (pooled)", "success", "points / turn",
                "ECE (pooled)", "success, 1 random", "points, 1 random",
                "observed against itself"], rows)]
    rows = [[m, held_out_text(models[m], names)] for m in order]
    tables.append(("tell against the panel: the members each storyteller was held out from "
                   "(neither simulated nor in a fit it uses; checked before it told)",
                   ["storyteller", "held out"], rows))
    rows = [[m, *[models[m]["members"][n]["observed"] for n in names]] for m in order]
    tables.append(("tell against the panel: observed guess rate per member (95% CI)",
                   ["storyteller", *names], rows))
    rows = [[m, *[fmt(models[m]["members"][n]["ece"]) for n in [*names, "pooled"]]]
            for m in order if models[m]["members"]["pooled"]["ece"] is not None]
    if rows:
        tables.append(("tell against the panel: ECE of the predictions per member",
                       ["storyteller", *names, "pooled"], rows))
    return tables


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


def write_panel_plots(folder: Path, panel: dict[str, Any]) -> dict[str, str]:
    """The cross-play matrix and one reliability diagram per predicting storyteller."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = panel["models"]
    if not models:
        return {}
    names = panel["members"]
    plots: dict[str, str] = {}
    labels = list(models)
    columns = [*names, "pooled", SELF_COLUMN]
    matrix = np.array([[models[m]["members"][n]["observed"].estimate for n in [*names, "pooled"]]
                       + [models[m]["against_itself"].estimate] for m in labels])
    fig, ax = plt.subplots(figsize=(1.1 * len(columns) + 3, 0.45 * len(labels) + 2))
    image = draw_rate_matrix(ax, matrix, labels, [c.removeprefix("panel-") for c in columns])
    ax.axvline(len(columns) - 1.5, color="white", linewidth=2)
    ax.set_title("cross-play: observed guess rate (storyteller x guesser model);\n"
                 "last column: the reference population (against itself for default-model "
                 "storytellers)", fontsize=9)
    side_colorbar(fig, ax, image, "observed guess rate")
    fig.tight_layout()
    save_figure(fig, folder / "panel_crossplay.png", dpi=120)
    plt.close(fig)
    plots["crossplay"] = "panel_crossplay.png"
    for model, entry in models.items():
        if entry["members"]["pooled"]["reliability"] is None:
            continue
        fig, ax = plt.subplots(figsize=(5.5, 5.5))
        ax.plot([0, 1], [0, 1], "--", color="grey", linewidth=1, label="perfect calibration")
        for name in [*names, "pooled"]:
            cell = entry["members"][name]
            data = cell["reliability"]
            if data is None:
                continue
            filled = np.array(data["counts"]) > 0
            ax.plot(np.array(data["predicted"])[filled], np.array(data["observed"])[filled],
                    "o-" if name == "pooled" else ".-", linewidth=2.5 if name == "pooled" else 1,
                    label=f"{name.removeprefix('panel-')} (ECE {cell['ece']:.3f})")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.set_xlabel("predicted guess rate (bin mean)")
        ax.set_ylabel("observed guess rate of the panel member (bin mean)")
        ax.set_title(f"{model} against the panel: reliability per member", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", fontsize="x-small")
        fig.tight_layout()
        file = f"panel_reliability__{_slug(model)}.png"
        save_figure(fig, folder / file, dpi=110)
        plt.close(fig)
        plots[f"reliability:{model}"] = file
    return plots
