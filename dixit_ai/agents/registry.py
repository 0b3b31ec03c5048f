"""The agent registry: entries are data, looked up by name, imported only when made.

Each entry names a ``"module:attr"`` entry point (a class or factory), default keyword arguments
and, where the agent needs an optional dependency, the extra that installs it. ``dixit_ai`` never
imports heavy modules (``models``, torch) until an agent that needs them is made, so the core
installs and runs without them.

>>> agent = make_agent("random", second_vote_rate=0.0)
>>> agent.name, agent.second_vote_rate
('random', 0.0)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

from dixit_ai.agents.base import Agent


@dataclass(frozen=True)
class AgentSpec:
    """One registry entry.

    Attributes:
        name: The name agents are made by (``"random"``, ``"clip-greedy"``, ...).
        entry_point: ``"module:attr"`` of a class or factory returning an :class:`Agent`.
        kwargs: Default keyword arguments, overridable in :func:`make_agent`.
        description: One line for ``dixit-ai agents``.
        extra: The pip extra that installs what the entry point imports, if any.
    """

    name: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    description: str = ""
    extra: str | None = None


_REGISTRY: dict[str, AgentSpec] = {}


def register_agent(
    name: str,
    entry_point: str,
    *,
    description: str = "",
    extra: str | None = None,
    overwrite: bool = False,
    **kwargs: Any,
) -> AgentSpec:
    """Add an entry to the registry.

    Raises:
        ValueError: the name is taken (unless ``overwrite``) or the entry point is malformed.
    """
    if name in _REGISTRY and not overwrite:
        raise ValueError(f"an agent named {name!r} is already registered")
    module, _, attr = entry_point.partition(":")
    if not module or not attr:
        raise ValueError(f"entry point {entry_point!r} must look like 'package.module:attr'")
    spec = AgentSpec(name, entry_point, dict(kwargs), description, extra)
    _REGISTRY[name] = spec
    return spec


def agent_spec(name: str) -> AgentSpec:
    """The registry entry called ``name``.

    Raises:
        ValueError: no such agent (the message lists the registered names).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(
            f"no agent named {name!r}; registered agents: {', '.join(sorted(_REGISTRY))}"
        ) from None


def list_agents() -> list[AgentSpec]:
    """Every registered entry, sorted by name."""
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def make_agent(name: str, **overrides: Any) -> Agent:
    """Make the agent registered as ``name``, with ``overrides`` replacing default arguments.

    Raises:
        ValueError: no such agent.
        ImportError: the entry point needs an optional dependency that is not installed (the
            message names the extra to install).
    """
    spec = agent_spec(name)
    module_name, _, attr = spec.entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        hint = (f"; install it with: pip install 'dixit-ai[{spec.extra}]'" if spec.extra
                else "")
        raise ImportError(
            f"agent {name!r} needs {module_name!r}, which could not be imported "
            f"({error}){hint}"
        ) from error
    factory = getattr(module, attr, None)
    if factory is None:
        raise ImportError(f"agent {name!r}: {module_name!r} has no attribute {attr!r}")
    kwargs = {**spec.kwargs, **overrides}
    kwargs.setdefault("name", name)
    agent: Agent = factory(**kwargs)
    return agent


register_agent(
    "random",
    "dixit_ai.agents.random_agent:RandomAgent",
    description="uniformly random legal moves, clue from a small word list (seeded)",
)
