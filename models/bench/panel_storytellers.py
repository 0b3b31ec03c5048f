"""The panel bench's storytellers (``scripts/bench_storyteller_panel.py``).

The entries it benches: ``clip-greedy`` tuned to itself and the population storyteller at each
of :data:`TARGETS`, ``population-expected`` (expected points over the bench's population),
``clip-expected`` as the registry configures it, ``clip-expected-self``, the baselines, and
``--also``'s registry storytellers; and step 1, the population the population storytellers
simulate, fitted by leave-one-out cross-play among its members.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from models.players.cli import SMOKE_AGENT_OPTIONS

TARGETS = (0.1, 0.25, 0.5, 0.75, 0.9)
"""The guess rates the self-tuned and the population storytellers are tuned to."""
CHECKED = (0.25, 0.5, 0.75)
"""The targets whose observed rate and ECE are judged."""


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

