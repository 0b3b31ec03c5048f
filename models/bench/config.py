"""What a benchmark run is: models, tasks, items, seed; from the command line or a YAML file."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from dixit_ai.files import read_yaml
from models.bench.items import TELL_CARDS

TASKS = ("guess", "decoy", "tell")
"""The benchmark's tasks, in the order they run."""

EMBEDDER_PREFIXES = ("openclip:", "hf:", "default:", "oracle:")
ORACLE_PREFIX = "oracle:"
"""``oracle:EMBEDDER``: the text-only oracle, cards seen through their true caption (an upper
bound: ``oracle:default`` is the default model's text tower reading each card's caption)."""

ModelKind = Literal["embedder", "agent"]


@dataclass(frozen=True)
class ModelSpec:
    """One model under test.

    Attributes:
        label: Its name in tables and records (unique in a run).
        name: An embedder name (``default``, ``openclip:...``, ``hf:...``), the text-only oracle
            ``oracle:EMBEDDER`` (cards replaced by their captions), or a registry agent.
        kind: ``"embedder"`` or ``"agent"``.
        kwargs: Overrides for the agent's registry entry, or options of the embedder.
    """

    label: str
    name: str
    kind: ModelKind
    kwargs: dict[str, Any] = field(default_factory=dict)


def is_embedder_name(name: str) -> bool:
    """Whether ``name`` names an embedder rather than an agent: ``default``, a backend's name
    (:data:`EMBEDDER_PREFIXES`) or a member of the model family (``lite1-minilm``,
    ``lite2-mpnet:PATH``, ...), as :func:`models.load_embedder` takes them."""
    from models.family import FAMILY_NAMES

    return (name == "default" or name.startswith(EMBEDDER_PREFIXES)
            or name.partition(":")[0] in FAMILY_NAMES)


def resolve_model(entry: str | Mapping[str, Any]) -> ModelSpec:
    """A :class:`ModelSpec` from a name or a mapping ``{name, label?, kwargs?}``.

    Raises:
        ValueError: not an embedder name and no registered agent by that name (the message lists
            both kinds of name).
    """
    if isinstance(entry, Mapping):
        unknown = sorted(set(entry) - {"name", "label", "kwargs"})
        if unknown or "name" not in entry:
            raise ValueError(f"a model entry takes name, label and kwargs, not {dict(entry)!r}")
        name = str(entry["name"]).strip()
        label = str(entry.get("label") or name)
        options = entry.get("kwargs") or {}
        if not isinstance(options, Mapping):
            raise ValueError(f"the kwargs of the model {name!r} must be a mapping of options "
                             f"(kwargs: {{batch_size: 16}}), not {options!r}")
        kwargs = dict(options)
    else:
        name = label = str(entry).strip()
        kwargs = {}
    if not name:
        raise ValueError("an empty model name")
    if is_embedder_name(name):
        return ModelSpec(label, name, "embedder", kwargs)
    from dixit_ai.agents import agent_spec, list_agents

    try:
        agent_spec(name)
    except ValueError:
        agents = ", ".join(spec.name for spec in list_agents())
        raise ValueError(
            f"unknown model {name!r}: a model is an embedder ('default', 'openclip:ARCH@TAG', "
            f"'openclip:local-dir:/path', 'hf:MODEL_OR_FOLDER', a model family member such as "
            f"'lite1-minilm'), a text-only oracle "
            f"('oracle:default') or a registered agent "
            f"({agents}; add one with a YAML file in configs/agents/)"
        ) from None
    return ModelSpec(label, name, "agent", kwargs)


@dataclass
class BenchConfig:
    """A benchmark run's settings (the defaults are the README's benchmark).

    Attributes:
        models: Names, or ``{name, label, kwargs}`` mappings, of the models under test.
        tasks: Which of ``guess``, ``decoy``, ``tell`` to run.
        seed: Seed of the items, the agents' generators and the bootstrap.
        items: Items per task (per clue kind for ``guess``).
        name: The run's name (its folder is ``runs/bench__<name>__<seed>__<time>``).
        deck: The deck spec; agents with a ``deck`` argument are given this deck.
        board_size: Cards on a guess board (target and decoys; 3 to 7).
        reference: The embedder of the reference population (decoy and tell tasks).
        reference_deals: Deals of the reference players' hands averaged per item.
        panel: A panel spec (:func:`models.players.panel.resolve_panel`: ``"panel"``, or
            member names) for the tell task against guessers on other models
            (:mod:`models.bench.panel`); ``None``: only the reference population.
        tell_cards: The cards the tell task deals the storyteller's hands from: ``"all"``, or
            one fixed half of the deck (``"half-a"``, ``"half-b"``;
            :func:`models.bench.items.card_half`), to hold a storyteller out on stories it
            was not developed on.
        device: Where embedders run (``cpu``, ``cuda``, ``auto``).
        bootstrap: Bootstrap resamples of every interval.
        out: The folder under which run folders are made.
    """

    models: list[Any] = field(default_factory=lambda: ["default"])
    tasks: list[str] = field(default_factory=lambda: list(TASKS))
    seed: int = 0
    items: int = 50
    name: str = "bench"
    deck: str = "dream"
    board_size: int = 6
    reference: str = "default"
    reference_deals: int = 8
    panel: str | None = None
    tell_cards: str = "all"
    device: str = "cpu"
    bootstrap: int = 2000
    out: str = "runs"

    def validate(self) -> list[ModelSpec]:
        """Check every setting; return the resolved models.

        Raises:
            ValueError: a bad setting (the message names it and the accepted values).
        """
        self.check_settings()
        if isinstance(self.models, str):
            self.models = [m.strip() for m in self.models.split(",") if m.strip()]
        if not isinstance(self.models, list | tuple):
            raise ValueError(f"models must be a list of model names or entries, not "
                             f"{self.models!r}")
        if not self.models:
            raise ValueError("no model given (e.g. --models default,clip-greedy)")
        specs = [resolve_model(entry) for entry in self.models]
        labels = [spec.label for spec in specs]
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise ValueError(f"model label(s) given twice: {', '.join(twice)} (give each a "
                             f"'label' in the config)")
        self.check_tasks_play(specs)
        return specs

    def check_tasks_play(self, specs: Sequence[ModelSpec]) -> None:
        """Refuse tasks and a panel that the models given would leave with nothing to play:
        the run would write no record, or the panel hear no story.

        The guess and decoy tasks play embedders and agents alike; the tell task plays agents'
        stories (an embedder tells none), and a panel guesses them in the tell task.

        Raises:
            ValueError: the message names the tasks, the panel or the models, and what to add
                or choose instead.
        """
        if self.panel and "tell" not in self.tasks:
            raise ValueError(f"a panel ({self.panel!r}) plays only in the tell task; the tasks "
                             f"are {', '.join(self.tasks)}: add tell (--tasks ...,tell)")
        if any(spec.kind == "agent" for spec in specs) or "tell" not in self.tasks:
            return
        models = ", ".join(spec.label for spec in specs)
        add = ("add an agent such as clip-greedy, caption-teller or random to the models "
               "(`dixit-ai agents` lists them)")
        if self.tasks == ["tell"]:
            raise ValueError(f"the tell task plays agents' stories and the models given "
                             f"({models}) hold no agent: {add}, or choose the guess or decoy "
                             f"task, which embedders play (--tasks guess,decoy)")
        if self.panel:
            raise ValueError(f"a panel ({self.panel!r}) plays agents' stories in the tell task "
                             f"and the models given ({models}) hold no agent: {add}, or leave "
                             f"out the panel")

    def check_settings(self) -> None:
        """Check every setting but the models (which :meth:`validate` resolves); ``tasks`` given
        as ``"guess,tell"`` becomes a list, in the order the tasks run.

        Raises:
            ValueError: a bad setting (the message names it and the accepted values).
        """
        if isinstance(self.tasks, str):
            self.tasks = [t.strip() for t in self.tasks.split(",") if t.strip()]
        if not isinstance(self.tasks, list | tuple):
            raise ValueError(f"tasks must be a list among {', '.join(TASKS)}, not "
                             f"{self.tasks!r}")
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown:
            raise ValueError(f"unknown task(s) {', '.join(map(repr, unknown))}; "
                             f"tasks are {', '.join(TASKS)}")
        if not self.tasks:
            raise ValueError(f"no task given; tasks are {', '.join(TASKS)}")
        self.tasks = [t for t in TASKS if t in self.tasks]
        for key in ("name", "deck", "reference", "device", "out"):
            value = getattr(self, key)
            if not isinstance(value, str):
                raise ValueError(f"{key} must be text, not {value!r}")
        if self.panel is not None and not isinstance(self.panel, str):
            raise ValueError(f"panel must be text (a panel or member names), not "
                             f"{self.panel!r}")
        if self.tell_cards not in TELL_CARDS:
            raise ValueError(f"tell_cards must be one of {', '.join(TELL_CARDS)}, not "
                             f"{self.tell_cards!r}")
        _check_int("items", self.items, 1)
        _check_int("seed", self.seed, 0)
        _check_int("board_size", self.board_size, 3, 7)
        _check_int("reference_deals", self.reference_deals, 1)
        _check_int("bootstrap", self.bootstrap, 1)
        if not is_embedder_name(self.reference) or self.reference.startswith(ORACLE_PREFIX):
            raise ValueError(f"reference must be an embedder name, not {self.reference!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _check_int(key: str, value: Any, low: int, high: int | None = None) -> None:
    """Refuse a setting that is not an integer from ``low`` (to ``high``), naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (
            high is not None and value > high):
        limit = (f"between {low} and {high}" if high is not None
                 else "a non-negative integer" if low == 0 else f"an integer of at least {low}")
        raise ValueError(f"{key} must be {limit}, not {value!r}")


def load_bench_config(path: str | os.PathLike[str], **overrides: Any) -> BenchConfig:
    """Read a bench YAML file (keys as :class:`BenchConfig`'s fields); ``overrides`` win.

    Raises:
        ValueError: the file is not UTF-8 text, not valid YAML, not a mapping, or has an
            unknown key (the message names the file and the problem).
        OSError: it cannot be read.
    """
    data = read_yaml(path) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: a bench config is a mapping of settings")
    known = set(BenchConfig.__dataclass_fields__)
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(known))}")
    data.update({k: v for k, v in overrides.items() if v is not None})
    return BenchConfig(**data)


def split_names(text: str | Sequence[str]) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]`` (lists pass through)."""
    if isinstance(text, str):
        return [part.strip() for part in text.split(",") if part.strip()]
    return [str(part) for part in text]


RUN_HEADER_KEYS = ("config", "deck", "edition", "models")
"""What an analysis reads of a run's ``bench.json`` besides the records."""


def check_run_header(header: Mapping[str, Any], path: str | os.PathLike[str]) -> BenchConfig:
    """The settings of a run's ``bench.json``, checked as a new run's are (the models aside),
    so that an analysis refuses a bad header before it writes anything.

    Args:
        header: The parsed ``bench.json``.
        path: The file, for the messages.

    Raises:
        ValueError: a key is missing or a setting is out of range (the message names the file).
    """
    missing = [key for key in RUN_HEADER_KEYS if key not in header]
    config = header.get("config")
    if not missing and not isinstance(config, Mapping):
        missing = ["config"]
    if missing:
        raise ValueError(f"{path}: not a benchmark header (no {', '.join(missing)})")
    assert isinstance(config, Mapping)
    fields = BenchConfig.__dataclass_fields__
    needed = [key for key in ("name", "seed", "items", "tasks", "board_size", "bootstrap")
              if key not in config]
    if needed:
        raise ValueError(f"{path}: the settings ('config') lack {', '.join(needed)}")
    settings = BenchConfig(**{key: value for key, value in config.items() if key in fields})
    try:
        settings.check_settings()
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
    return settings
