"""The panel bench's settings (``scripts/bench_storyteller_panel.py``): its command line
(:class:`Args`, each field a ``--flag``) and, for ``--analyse``, the settings a run folder of the
bench was run with (:func:`restore_args`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import refuse_input
from models.bench.panel_storytellers import storytellers


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


ANALYSE_OPTIONS = ("analyse", "json", "bootstrap")
"""The options ``--analyse`` takes; every other one is the run's own."""


def restore_args(args: Args) -> tuple[Args, list[dict[str, Any]], dict[str, Any]]:
    """``--analyse``: the settings a run folder was run with (its ``bench.json``), its
    ``--also`` entries and its clip players' extra options.

    Raises:
        SystemExit: another option given beside ``--analyse``, or not a run folder of this
            bench (no ``bench.json``, one that is not JSON or of another shape, or no
            ``population@0.5`` or ``clip-expected`` storyteller in it).
    """
    given = [name for name in vars(args) if name not in ANALYSE_OPTIONS
             and getattr(args, name) != getattr(Args(), name)]
    if given:
        refuse_input(f"--analyse recomputes a run with its own settings; it takes "
                     f"only --json and --bootstrap, not --{given[0].replace('_', '-')}")
    path = Path(args.analyse) / "bench.json"
    if not path.is_file():
        refuse_input(f"--analyse {args.analyse}: no bench.json there (give the "
                     "bench__panel__... folder of a run)")
    try:
        config, entries = _run_header(path)
    except ValueError as error:
        refuse_input(f"--analyse {args.analyse}: {error}")
    for label in ("population@0.5", "clip-expected"):
        if label not in entries:
            refuse_input(f"--analyse {args.analyse}: {path}: not a run of this bench (no "
                         f"{label} storyteller)")
    crowd = entries["population@0.5"]["kwargs"]
    extra = dict(entries["clip-expected"]["kwargs"])
    try:
        restored = _restored(args, config, crowd)
    except KeyError as error:
        refuse_input(f"--analyse {args.analyse}: its bench.json does not say "
                     f"{error} (a run of an older version of this bench)")
    taken = {e["label"] for e in storytellers({}, {})}
    also = [{"name": m["name"], "label": m["label"], "kwargs": m["kwargs"]}
            for m in entries.values() if m["label"] not in taken]
    restored.also = ",".join(m["name"] for m in also)
    return restored, also, extra


def _run_header(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A run's ``bench.json``: its settings (``config``) and its models by label, each with its
    ``kwargs`` object.

    Raises:
        ValueError: not UTF-8, not JSON, or JSON of another shape (the message names the file
            and what is wrong).
    """
    from dixit_ai.jsonl import read_json

    header = read_json(path)
    if not isinstance(header, dict):
        raise ValueError(f"{path}: not a benchmark header (a JSON {_json_kind(header)}, where "
                         "an object with 'config' is due)")
    if "config" not in header:
        raise ValueError(f"{path}: not a benchmark header (no 'config')")
    config = header["config"]
    if not isinstance(config, dict):
        raise ValueError(f"{path}: not a benchmark header ('config' is a JSON "
                         f"{_json_kind(config)}, not an object)")
    models = config.get("models")
    if not isinstance(models, list) or not all(
            isinstance(m, dict) and isinstance(m.get("label"), str)
            and isinstance(m.get("name"), str) for m in models):
        raise ValueError(f"{path}: not a benchmark header ('config'['models'] is not a list "
                         "of models, each an object with a 'name' and a 'label')")
    entries = {m["label"]: m for m in models}
    for label, entry in entries.items():
        if not isinstance(entry.get("kwargs", {}), dict):
            raise ValueError(f"{path}: not a benchmark header (the kwargs of {label} are not "
                             "an object)")
    return config, {label: {**entry, "kwargs": entry.get("kwargs", {})}
                    for label, entry in entries.items()}


def _json_kind(value: Any) -> str:
    """``array``, ``string``, ``number``... : what JSON calls a value's type."""
    kinds = {list: "array", str: "string", bool: "boolean", int: "number", float: "number",
             dict: "object", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


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
