"""Every figure of a benchmark, computed from its run folder's records alone, and shown.

:func:`compute` turns a run's header and records into results (bootstrap intervals);
:func:`leaderboards`, the plots (:mod:`models.bench.plots`), :func:`csv_rows` and :func:`report`
present them. The records
are read and checked by :mod:`models.bench.run_records` (:func:`read_run`, importable from here
too). :func:`analyse` reads ``bench.json`` and ``records.jsonl`` and writes ``results.json``,
``results.csv``, the plots and ``report.md``, and prints the leaderboard; running it again on
the same folder gives the same numbers (bootstrap intervals resample items with the run's seed,
the same resamples for every model, so models are compared on paired items).

What is measured:

* **guess**: top-1 accuracy and mean reciprocal rank of the target per clue kind (both share
  ties: the expected score when tied cards are ordered at random); chance is
  ``1 / board_size`` and ``H(board_size) / board_size``. Agents answer one vote, so they have
  no MRR. An invalid answer scores 0 and counts in ``invalid``.
* **decoy**: the decoy's vote share (expected fraction of reference guessers voting for it), the
  probability it draws at least one vote, and two baselines from the same hands: a random hand
  card and the best hand card.
* **tell**: success (probability that some but not all reference guessers find the card),
  observed guess rate, its gap to the storyteller's target, and the expected calibration error
  (10 bins) of the storyteller's predicted guess rates against the observed ones.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.jsonl import read_json
from dixit_ai.reporting import (
    Interval,
    markdown_table,
    mean_interval,
    print_table,
    write_csv,
    write_json,
    write_text,
)
from models.bench.plots import write_plots

# Reading and checking a run's records lives in models.bench.run_records; the names stay
# importable from here too (scripts, tests and the CLI read them from this module).
from models.bench.run_records import BENCH_TASKS as BENCH_TASKS
from models.bench.run_records import read_run as read_run
from models.evaluation import QUERY_KINDS

CALIBRATION_BINS = 10
"""Equal-width bins of the ECE and the reliability diagrams, here and in the panel bench."""


REPORT_FILES = ("results.json", "results.csv", "report.md", "guess_accuracy.png",
                "decoy_share.png", "tell_success.png", "calibration.png")
"""The files an analysis writes (never over an earlier report unless told to)."""


def _harmonic(n: int) -> float:
    return float(sum(1.0 / k for k in range(1, n + 1)))


def _reciprocal_rank(record: dict[str, Any]) -> float:
    """A guess record's reciprocal rank: ties shared (``reciprocal_rank``), else ``1 / rank``
    (records written before ties were shared)."""
    shared = record.get("reciprocal_rank")
    return float(shared) if shared is not None else 1.0 / record["rank"]


def compute(header: dict[str, Any], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The results (plain data) of a run, from its header and records."""
    config = header["config"]
    seed, resamples = int(config["seed"]), int(config["bootstrap"])
    board_size = int(config["board_size"])
    models = [m["label"] for m in header["models"]]
    kinds_of = {m["label"]: m["kind"] for m in header["models"]}

    def interval(values: Sequence[float], clusters: Sequence[Any] | None = None) -> Interval:
        return mean_interval(values, seed=seed, n_resamples=resamples, clusters=clusters)

    def rate(rows: Sequence[dict[str, Any]]) -> float:
        return float(np.mean([r["invalid"] for r in rows])) if rows else math.nan

    by_task: dict[str, list[dict[str, Any]]] = {"guess": [], "decoy": [], "tell": []}
    for record in records:
        by_task.setdefault(record["task"], []).append(record)

    results: dict[str, Any] = {
        "run": {"name": config["name"], "seed": seed, "items": config["items"],
                "deck": header["deck"], "edition": header["edition"],
                "reference": header.get("reference"), "tasks": config["tasks"]},
        "models": [{"label": m["label"], "name": m["name"], "kind": m["kind"],
                    "embedder": _embedder_of(m)} for m in header["models"]],
        "chance": {"guess_top1": 1.0 / board_size,
                   "guess_mrr": _harmonic(board_size) / board_size},
    }

    if "guess" in config["tasks"]:
        present = {r["kind"] for r in by_task["guess"]}
        stories = [f"story:{m}" for m in models if f"story:{m}" in present]
        kinds = [k for k in QUERY_KINDS if k in present] + stories
        guess: dict[str, Any] = {}
        for model in models:
            rows = [r for r in by_task["guess"] if r["model"] == model]
            entry: dict[str, Any] = {"invalid_rate": rate(rows), "kinds": {}}
            for kind in kinds:
                cell = [r for r in rows if r["kind"] == kind]
                reciprocal = [_reciprocal_rank(r) for r in cell if r["rank"] is not None]
                entry["kinds"][kind] = {
                    "top1": interval([r["correct"] for r in cell]),
                    "mrr": (interval(reciprocal)
                            if cell and len(reciprocal) == len(cell) else None),
                    "invalid_rate": rate(cell),
                    "n": len(cell),
                }
            fixed = [r for r in rows if r["kind"] in QUERY_KINDS]
            entry["top1_fixed_kinds"] = interval([r["correct"] for r in fixed])
            guess[model] = entry
        results["guess"] = {"kinds": kinds, "models": guess}

    if "decoy" in config["tasks"]:
        decoy: dict[str, Any] = {}
        rows_all = by_task["decoy"]
        for model in models:
            rows = [r for r in rows_all if r["model"] == model]
            decoy[model] = {
                "vote_share": interval([r["share"] for r in rows]),
                "drew_vote": interval([r["drew"] for r in rows]),
                "invalid_rate": rate(rows),
                "n": len(rows),
            }
        first = [r for r in rows_all if r["model"] == models[0]] if models else []
        results["decoy"] = {
            "models": decoy,
            "baselines": {
                "random_card": interval([float(np.mean(r["shares"])) for r in first]),
                "best_card": interval([float(np.max(r["shares"])) for r in first]),
            },
        }

    if "tell" in config["tasks"]:
        from models.players.calibration import reliability

        tell: dict[str, Any] = {}
        for model in models:
            rows = [r for r in by_task["tell"] if r["model"] == model]
            if kinds_of[model] != "agent":
                continue
            valid = [r for r in rows if not r["invalid"]]
            observed = [r["observed"] for r in valid if r["observed"] is not None]
            target = next((r["target"] for r in rows if r["target"] is not None), None)
            paired = [(r["predicted"], r["observed"]) for r in valid
                      if r["predicted"] is not None and r["observed"] is not None]
            entry = {
                "success": interval([0.0 if r["invalid"] or r["success"] is None
                                     else r["success"] for r in rows]),
                "guess_rate": interval(observed),
                "target": target,
                "target_gap": (abs(float(np.mean(observed)) - target)
                               if target is not None and observed else None),
                "invalid_rate": rate(rows),
                "n": len(rows),
                "ece": None,
                "reliability": None,
            }
            if paired:
                curve = reliability([p for p, _ in paired], [o for _, o in paired],
                                    bins=CALIBRATION_BINS)
                entry["ece"] = curve.ece
                entry["predicted_mean"] = float(np.mean([p for p, _ in paired]))
                entry["reliability"] = {
                    "edges": curve.edges.tolist(), "predicted": curve.predicted.tolist(),
                    "observed": curve.observed.tolist(), "counts": curve.counts.tolist()}
            tell[model] = entry
        results["tell"] = {"models": tell}
        from models.bench.panel_analysis import panel_results

        panel = panel_results(header, by_task["tell"], interval)
        if panel is not None:
            results["tell"]["panel"] = panel
    return results


# ---------------------------------------------------------------------- tables


def _fmt_rate(value: float | None) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.1%}"


def leaderboards(results: dict[str, Any]) -> list[tuple[str, list[str], list[list[Any]]]]:
    """``(title, columns, rows)`` of every table the report and the terminal show."""
    tables = []
    if "guess" in results:
        kinds = results["guess"]["kinds"]
        fixed = [k for k in kinds if k in QUERY_KINDS]
        stories = [k for k in kinds if k not in QUERY_KINDS]
        models = results["guess"]["models"]
        order = sorted(models, key=lambda m: -_estimate(models[m]["top1_fixed_kinds"]))
        columns = ["model", *fixed, "MRR (object)", "invalid"]
        rows: list[list[Any]] = []
        for model in order:
            entry = models[model]
            mrr = entry["kinds"].get("object", {}).get("mrr")
            rows.append([model, *[entry["kinds"][k]["top1"] for k in fixed],
                         mrr if mrr is not None else "n/a", _fmt_rate(entry["invalid_rate"])])
        chance = results["chance"]
        rows.append(["chance", *[chance["guess_top1"]] * len(fixed), chance["guess_mrr"], ""])
        tables.append(("guess: top-1 accuracy per clue kind, 95% CI", columns, rows))
        if stories:
            rows = [[model, *[models[model]["kinds"][k]["top1"] for k in stories]]
                    for model in order]
            rows.append(["chance", *[chance["guess_top1"]] * len(stories)])
            tables.append(("guess on clues told by each storyteller (columns): top-1, 95% CI",
                           ["guesser", *[k.split(":", 1)[1] for k in stories]], rows))
    if "decoy" in results:
        models = results["decoy"]["models"]
        order = sorted(models, key=lambda m: -_estimate(models[m]["vote_share"]))
        rows = [[m, models[m]["vote_share"], models[m]["drew_vote"],
                 _fmt_rate(models[m]["invalid_rate"])] for m in order]
        base = results["decoy"]["baselines"]
        rows.append(["random hand card", base["random_card"], "", ""])
        rows.append(["best hand card", base["best_card"], "", ""])
        tables.append(("decoy: votes drawn from the reference guessers, 95% CI",
                       ["model", "vote share", "drew >= 1 vote", "invalid"], rows))
    if "tell" in results and not results["tell"]["models"]:
        # The default run (the default model alone, every task): nobody told a story. Said, so
        # that a missing table is not mistaken for a task that failed or was left out.
        tables.append(("tell: no story was told: the tell task plays agents' stories and the "
                       "models hold no agent (add one, e.g. --models default,clip-greedy)",
                       ["storyteller", "success"], [["none", "n/a"]]))
    elif "tell" in results:
        models = results["tell"]["models"]
        order = sorted(models, key=lambda m: -_estimate(models[m]["success"]))
        rows = []
        for m in order:
            entry = models[m]
            rows.append([m, entry["success"], entry["guess_rate"],
                         "n/a" if entry["target"] is None else f"{entry['target']:.2f}",
                         "n/a" if entry["target_gap"] is None else f"{entry['target_gap']:.3f}",
                         "n/a" if entry["ece"] is None else f"{entry['ece']:.3f}",
                         _fmt_rate(entry["invalid_rate"])])
        reference = (results["run"].get("reference") or {}).get("embedder", "default")
        home = ("the default model: home ground for a default-based storyteller"
                if reference == "default" else f"on {reference}")
        tables.append((f"tell: storyteller success and calibration against the reference "
                       f"guessers ({home}; --panel for other minds), 95% CI",
                       ["storyteller", "success", "observed guess rate", "target", "|gap|",
                        "ECE", "invalid"], rows))
        if results["tell"].get("panel"):
            from models.bench.panel_analysis import panel_tables

            tables += panel_tables(results["tell"]["panel"])
    return tables


def _estimate(value: Any) -> float:
    estimate = value.estimate if isinstance(value, Interval) else float("nan")
    return -1.0 if math.isnan(estimate) else estimate


# ---------------------------------------------------------------------- files


def csv_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (model, task, metric, condition): the long format of ``results.csv``."""
    rows: list[dict[str, Any]] = []
    kinds = {m["label"]: m["kind"] for m in results["models"]}

    def add(model: str, task: str, metric: str, condition: str, value: Any, n: int) -> None:
        row = {"model": model, "model_kind": kinds.get(model, ""), "task": task,
               "metric": metric, "condition": condition, "n": n}
        if isinstance(value, Interval):
            row.update(estimate=value.estimate, low=value.low, high=value.high)
        else:
            row.update(estimate=value, low=None, high=None)
        rows.append(row)

    if "guess" in results:
        for model, entry in results["guess"]["models"].items():
            for kind, cell in entry["kinds"].items():
                add(model, "guess", "top1", kind, cell["top1"], cell["n"])
                if cell["mrr"] is not None:
                    add(model, "guess", "mrr", kind, cell["mrr"], cell["n"])
                add(model, "guess", "invalid_rate", kind, cell["invalid_rate"], cell["n"])
    if "decoy" in results:
        for model, entry in results["decoy"]["models"].items():
            add(model, "decoy", "vote_share", "", entry["vote_share"], entry["n"])
            add(model, "decoy", "drew_vote", "", entry["drew_vote"], entry["n"])
            add(model, "decoy", "invalid_rate", "", entry["invalid_rate"], entry["n"])
    if "tell" in results:
        for model, entry in results["tell"]["models"].items():
            add(model, "tell", "success", "", entry["success"], entry["n"])
            add(model, "tell", "guess_rate", "", entry["guess_rate"], entry["n"])
            add(model, "tell", "target_gap", "", entry["target_gap"], entry["n"])
            add(model, "tell", "ece", "", entry["ece"], entry["n"])
            add(model, "tell", "invalid_rate", "", entry["invalid_rate"], entry["n"])
    return rows


def _embedder_of(model: dict[str, Any]) -> str | None:
    """The fingerprint of the embedder a model entry of ``bench.json`` plays on: its own (an
    embedder), or its agent's as the agent describes itself (``None``: not said, a random
    agent, say)."""
    if isinstance(model.get("fingerprint"), str):
        return str(model["fingerprint"])
    agent = model.get("agent")
    found = agent.get("embedder") if isinstance(agent, dict) else None
    return found if isinstance(found, str) else None


def _model_words(model: dict[str, Any]) -> str:
    """``embedder `default-64db...```, ``agent on embedder `...```, or the bare kind."""
    embedder = model.get("embedder")
    if not embedder:
        return str(model["kind"])
    return (f"embedder `{embedder}`" if model["kind"] == "embedder"
            else f"{model['kind']} on embedder `{embedder}`")


CSV_COLUMNS = ["model", "model_kind", "task", "metric", "condition", "estimate", "low", "high",
               "n"]


def report(results: dict[str, Any], plots: dict[str, str], timing: dict[str, Any] | None
           ) -> str:
    """The Markdown report: settings, tables, plots, definitions."""
    run = results["run"]
    lines = [f"# Benchmark `{run['name']}` (seed {run['seed']})", ""]
    lines.append(f"Deck `{run['deck']['spec']}` ({run['deck']['size']} cards, fingerprint "
                 f"`{run['deck']['fingerprint'][:16]}`), {run['items']} items per task and "
                 f"clue kind, tables under `{run['edition']}` rules. Models: "
                 + ", ".join(f"`{m['label']}` ({_model_words(m)})" for m in results["models"])
                 + ".")
    if run.get("reference"):
        ref = run["reference"]
        lines.append(f"Reference population: `{ref['embedder']}` players, guess model "
                     f"temperature {ref['guess_model']['temperature']:.4g}, bias "
                     f"{ref['guess_model']['bias']:.4g}.")
        if ref["guess_model"].get("calibrated") is False:
            lines.append(f"**The reference guess model is not calibrated for `{ref['embedder']}`**"
                         f": it was fitted for `{ref['guess_model']['fitted_for']}`, on another "
                         "similarity scale.")
    if run.get("dropped_records"):
        lines.append(f"**{run['dropped_records']} unreadable record(s) of `records.jsonl` were "
                     "dropped (`--allow-partial`)**: these figures leave them out.")
    if run.get("missing_records"):
        bound = "At most " if run.get("missing_records_at_most") else ""
        lines.append(f"**{bound}{run['missing_records']} record(s) are missing from "
                     "`records.jsonl` "
                     f"({run.get('missing')})**: these figures cover the records it holds.")
    if run.get("source"):
        lines.append(f"Records: `{run['source']}`.")
    lines.append("")
    shown: set[str] = set()
    for title, columns, rows in leaderboards(results):
        lines += [f"## {title}", "", markdown_table(columns, rows)]
        task = title.split(":")[0].split()[0]
        if task in plots and task not in shown:
            shown.add(task)
            lines += [f"![{task}]({plots[task]})", ""]
        if task == "tell" and "calibration" in plots and "calibration" not in shown:
            shown.add("calibration")  # once, under the first tell table
            lines += [f"![calibration]({plots['calibration']})", ""]
        if title.startswith("tell against the panel (") and "crossplay" in plots:
            lines += [f"![cross-play]({plots['crossplay']})", ""]
            lines += [f"![{key}]({file})" for key, file in plots.items()
                      if key.startswith("reliability:")] + [""]
    lines += ["## What the tasks measure", "",
              "- **guess**: boards of a target and decoys sharing no object with it; a clue "
              "(the full caption, one object's name, a hand-written association, or a clue a "
              "storyteller under test told); top-1 accuracy and mean reciprocal rank. Agents "
              "vote in a real vote-phase view (their own card on the board too). An invalid "
              "answer scores 0.",
              "- **decoy**: a clue about the storyteller's card and a hand of 6; the model's "
              "decoy is shuffled in with the storyteller's card and three reference players' "
              "decoys; vote share = expected fraction of reference guessers that vote for it.",
              "- **tell**: a hand of 6; the storyteller's (card, clue) against four reference "
              "players (decoys and calibrated votes, averaged over deals); success = some but "
              "not all find the card; ECE of the predicted guess rates (10 bins).",
              "- The reference players are built on the reference embedder: a model or agent "
              "on that same embedder plays on home ground in the decoy and tell tasks (its "
              "best decoy is the reference guessers' favourite by construction).", ""]
    if timing:
        lines += ["## Timing", "",
                  f"Model inference {timing['inference_s']:.2f} s "
                  f"({timing['items_encoded']} images/texts encoded), loading "
                  f"{timing['load_s']:.2f} s, whole run {timing['total_s']:.2f} s.", ""]
    lines += ["Every figure is recomputed from `records.jsonl` by "
              "`dixit-ai bench --analyse <this folder>`.", ""]
    return "\n".join(lines)


TIMING_KEYS = ("inference_s", "items_encoded", "load_s", "total_s")
"""What the report reads of a run's ``timing.json``, each a number."""


def read_timing(path: Path) -> dict[str, Any] | None:
    """A run's ``timing.json`` (None where the run has none), checked before any report is
    written.

    Raises:
        ValueError: not UTF-8, not JSON, or not the object the bench writes (the message names
            the file and what is wrong).
    """
    if not path.is_file():
        return None
    timing = read_json(path)
    if not isinstance(timing, dict):
        kind = "array" if isinstance(timing, list) else type(timing).__name__
        raise ValueError(f"{path}: not the bench's timing (a JSON {kind}, where an object "
                         f"with {', '.join(TIMING_KEYS)} is due)")
    for key in TIMING_KEYS:
        if key not in timing:
            raise ValueError(f"{path}: not the bench's timing (no {key!r})")
        value = timing[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
                value) or value < 0:
            raise ValueError(f"{path}: not the bench's timing ({key!r} is {value!r}, not a "
                             "number of at least 0)")
    return timing


def analyse(folder: str | Path, *, show: bool = True,
            out: str | Path | Callable[[], Path] | None = None,
            allow_partial: bool = False, overwrite: bool = True,
            announce: Callable[[Path], None] | None = None) -> dict[str, Any]:
    """Recompute every figure of a run folder from its records; write and print them.

    Writes ``results.json``, ``results.csv``, the plots and ``report.md`` into ``out`` (default:
    the run folder itself), or into the folder ``out()`` makes (a new run folder: it is called
    once the records are read and the figures computed, so that records refused leave no empty
    folder). The records are read strictly (see :func:`read_run`); nothing is written when they
    are refused, nor over an earlier report unless ``overwrite``.

    ``announce`` (if given) is called with the report's folder once the records are read and
    the figures computed, before anything is written.

    Returns:
        The results (intervals as :class:`~dixit_ai.reporting.Interval`).

    Raises:
        ValueError: not a run folder, records that cannot be trusted, a ``timing.json`` that
            is not the bench's (:func:`read_timing`), or (``overwrite=False``) a report already
            in ``out``.
    """
    path = Path(folder)
    header, records = read_run(path, allow_partial=allow_partial)
    make_target: Callable[[], Path] | None = None
    if out is None:
        target = path
    elif isinstance(out, (str, Path)):
        target = Path(out)
    else:
        make_target, target = out, path  # a new folder, made below: it holds no report
    if not overwrite and make_target is None:
        present = [name for name in REPORT_FILES if (target / name).exists()]
        if present:
            raise ValueError(f"{target} already holds a report ({', '.join(present)}); pass "
                             "--overwrite to replace it, or --out another folder")
    timing = read_timing(path / "timing.json")
    results = compute(header, records)
    if header.get("dropped_records"):
        results["run"]["dropped_records"] = header["dropped_records"]
    if header.get("missing_records"):
        results["run"]["missing_records"] = header["missing_records"]
        results["run"]["missing"] = header["missing"]
        bound = "at most " if header.get("missing_records_at_most") else ""
        if bound:
            results["run"]["missing_records_at_most"] = True
        print(f"warning: {bound}{header['missing_records']} record(s) missing from "
              f"{path / 'records.jsonl'} ({header['missing']}); the report says so",
              file=sys.stderr)
    if make_target is not None:
        target = make_target()
    if target.resolve() != path.resolve():
        results["run"]["source"] = str(path)
    if announce is not None:
        announce(target)
    target.mkdir(parents=True, exist_ok=True)
    write_json(target / "results.json", results)
    write_csv(target / "results.csv", csv_rows(results), CSV_COLUMNS)
    plots = write_plots(target, results)
    write_text(target / "report.md", report(results, plots, timing))
    if show:
        for title, columns, rows in leaderboards(results):
            print_table(title, columns, rows, digits=2, min_width=140)
    return results
