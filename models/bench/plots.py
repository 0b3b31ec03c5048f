"""A benchmark's plots, drawn from its results (:func:`models.bench.analysis.compute`): accuracy,
decoy share and storyteller success with their intervals, and the storytellers' reliability
curves."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.reporting import plot_intervals, save_figure


def plot_calibration(path: Path, tell: dict[str, Any]) -> Path | None:
    """Reliability curves of every storyteller that predicts its guess rate."""
    curves = {m: e for m, e in tell.items() if e.get("reliability")}
    if not curves:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    ax.plot([0, 1], [0, 1], "--", color="grey", linewidth=1, label="perfect calibration")
    for model, entry in curves.items():
        data = entry["reliability"]
        predicted = np.array(data["predicted"], dtype=float)
        observed = np.array(data["observed"], dtype=float)
        filled = np.array(data["counts"]) > 0
        ax.plot(predicted[filled], observed[filled], "o-",
                label=f"{model} (ECE {entry['ece']:.3f})")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted guess rate (bin mean)")
    ax.set_ylabel("observed guess rate, reference guessers (bin mean)")
    ax.set_title("tell: calibration of predicted guess rates")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
    return path


def write_plots(folder: Path, results: dict[str, Any]) -> dict[str, str]:
    """Every plot of the run (PNG files in the run folder); name -> file name. A task the
    records hold no figure of (a run stopped before it) gets no plot, and a note on stderr says
    so."""
    plots: dict[str, str] = {}

    def drawable(task: str, labels: Any, file: str) -> bool:
        if task not in results:
            return False
        if not labels:
            print(f"note: {file} not drawn: the records hold no {task} figures",
                  file=sys.stderr)
            return False
        return True

    if drawable("guess", results.get("guess", {}).get("kinds"), "guess_accuracy.png"):
        kinds = results["guess"]["kinds"]
        models = results["guess"]["models"]
        plot_intervals(folder / "guess_accuracy.png", kinds,
                       {m: [models[m]["kinds"][k]["top1"] for k in kinds] for m in models},
                       title="guess: top-1 accuracy per clue kind (95% CI)",
                       xlabel="top-1 accuracy", reference=results["chance"]["guess_top1"])
        plots["guess"] = "guess_accuracy.png"
    if drawable("decoy", results.get("decoy", {}).get("models"), "decoy_share.png"):
        models = results["decoy"]["models"]
        plot_intervals(folder / "decoy_share.png", list(models),
                       [models[m]["vote_share"] for m in models],
                       title="decoy: vote share among reference guessers (95% CI)",
                       xlabel="expected fraction of reference guessers voting for the decoy",
                       reference=results["decoy"]["baselines"]["random_card"].estimate,
                       reference_label="random hand card")
        plots["decoy"] = "decoy_share.png"
    if drawable("tell", results.get("tell", {}).get("models"), "tell_success.png"):
        models = results["tell"]["models"]
        plot_intervals(folder / "tell_success.png", list(models),
                       [models[m]["success"] for m in models],
                       title="tell: storyteller success (95% CI)",
                       xlabel="probability that some but not all reference guessers find it")
        plots["tell"] = "tell_success.png"
        if plot_calibration(folder / "calibration.png", models) is not None:
            plots["calibration"] = "calibration.png"
        if results["tell"].get("panel"):
            from models.bench.panel_analysis import write_panel_plots

            plots.update(write_panel_plots(folder, results["tell"]["panel"]))
    return plots
