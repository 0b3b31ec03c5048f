"""What the match runner checks of an agent at the start of a game: ``reset()`` and
``describe()``.

Both run before the first decision, outside the decisions' failure policy: an agent whose
``reset()`` raises, or whose ``describe()`` raises or returns what a record cannot hold, makes
:func:`~dixit_ai.match.play_game` raise :class:`AgentSetupError` (a ``ValueError``) naming the
seat, the agent, the method and, for a description, the field; nothing is played. Found there,
and not when the record is written after the game, the failure costs no game, and a tournament
stops with that message (its run folder resumable once the agent is mended) instead of a
traceback that names neither agent nor field.

A description must be a ``dict`` whose ``"name"`` is the agent's name (the records credit the
agent by it). For a record that will be written (``play_game(writable=True)``, as the tournament,
``simulate`` and ``play`` ask) its values must also be what strict JSON can write
(``allow_nan=False``): numbers, text, booleans, ``None``, lists and objects whose keys are text,
or numbers (written as text; one object's keys of one kind) (a dataclass counts as the object of
its fields: the record is written through :func:`dataclasses.asdict`). A numpy scalar is
refused, not converted (``float(x)`` or ``x.item()`` is the agent's to write): a record that
differs from what the agent said would be worse than a refusal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dixit_ai.json_fields import json_problem, shown

DESCRIBED_CHARACTERS = 100_000
"""The longest description (as JSON) a record takes from one agent: a description is written
into every game's header."""


class AgentSetupError(ValueError):
    """An agent's ``reset()`` or ``describe()`` failed at the start of a game (the message names
    the seat, the agent and the method); nothing was played."""


def agent_label(agent: Any) -> str:
    """The agent's name as the messages give it: its ``name``, and its class when other."""
    name = getattr(agent, "name", None)
    inner = getattr(agent, "agent", agent)  # a tournament's TimedAgent wraps the agent
    kind = type(inner).__name__
    if not isinstance(name, str):
        return kind
    return repr(name) if name == kind else f"{name!r} ({kind})"


def reset_agent(agent: Any, seat: int, rng: np.random.Generator) -> None:
    """``agent.reset(seat=seat, rng=rng)``; its error is raised as :class:`AgentSetupError`
    naming the seat and the agent.

    Raises:
        AgentSetupError: the agent's ``reset()`` raised (``SystemExit`` included).
    """
    try:
        agent.reset(seat=seat, rng=rng)
    except (Exception, SystemExit) as error:
        raise AgentSetupError(
            f"seat {seat}: agent {agent_label(agent)}: reset() {_raised(error)}; nothing was "
            "played") from error


def described(agent: Any, seat: int, *, writable: bool = True) -> dict[str, Any]:
    """The agent's ``describe()``, checked to be what a game record can hold.

    ``writable=False`` leaves out the strict-JSON and size checks, for a game whose record is
    kept in memory only (a description may then hold objects).

    Raises:
        AgentSetupError: ``describe()`` raised, or returned something other than a ``dict``,
            or one without the agent's ``"name"``; with ``writable``, one with a value strict
            JSON cannot write (the message names the field, e.g. ``describe()['temp']``), or
            one longer than :data:`DESCRIBED_CHARACTERS` as JSON.
    """
    where = f"seat {seat}: agent {agent_label(agent)}"
    method = getattr(agent, "describe", None)
    if not callable(method):
        raise AgentSetupError(f"{where} has no describe() method (it returns the dict the "
                              "game record keeps of the agent: name, parameters, models)")
    try:
        description = method()
    except (Exception, SystemExit) as error:
        raise AgentSetupError(f"{where}: describe() {_raised(error)}; nothing was played"
                              ) from error
    if not isinstance(description, dict):
        raise AgentSetupError(f"{where}: describe() must return a dict (the record's "
                              f"description of the agent), not {shown(description)}")
    name = getattr(agent, "name", None)
    recorded = description.get("name")
    if not isinstance(recorded, str):
        raise AgentSetupError(f"{where}: describe() must give the agent's name as 'name' (the "
                              f"records credit the agent by it), not {shown(recorded)}")
    if isinstance(name, str) and recorded != name:
        raise AgentSetupError(f"{where}: describe()['name'] is {recorded!r} but the agent is "
                              f"named {name!r}: the record would credit another agent (describe "
                              "should return self.name)")
    if not writable:
        return description
    problem = json_problem(description, "describe()")
    if problem is not None:
        raise AgentSetupError(f"{where}: {problem}")
    size = len(_json(description))
    if size > DESCRIBED_CHARACTERS:
        raise AgentSetupError(f"{where}: describe() is {size:,} characters as JSON; a record "
                              f"takes at most {DESCRIBED_CHARACTERS:,} per agent")
    return description


def _json(value: Any) -> str:
    """``value`` as the record writes it (a dataclass as its fields, keys sorted)."""
    import dataclasses
    import json

    def fields(item: Any) -> Any:
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            return dataclasses.asdict(item)
        raise TypeError(f"{type(item).__name__} is not JSON")

    return json.dumps(value, allow_nan=False, sort_keys=True, default=fields)


def _raised(error: BaseException) -> str:
    if isinstance(error, SystemExit):
        return f"called sys.exit({error.code!r})"
    return f"raised {type(error).__name__}: {error}"


class RulesChanged(AgentSetupError):
    """An in-process agent wrote to the game's rules (a frozen :class:`RuleSet`, shared by every
    game of the process on its edition and overrides): the rules are put back and the game
    stops, naming the agent."""


def check_rules(rules: Any, fields: dict[str, Any], agent: Any, seat: int, method: str) -> None:
    """Raise :class:`RulesChanged` when ``rules``' attributes are no longer ``fields``
    (``dict(vars(rules))`` taken before ``agent``'s ``method``), having put them back.

    One comparison of two dicts: it runs after every decision of every game, where building
    ``rules.parameters()`` each time cost a quarter of a random game's time.

    Raises:
        RulesChanged: naming the seat, the agent, the method and each parameter changed.
    """
    now = vars(rules)
    if now == fields:
        return
    changed = [f"{key} {fields.get(key)!r} -> {now.get(key)!r}"
               for key in sorted(set(fields) | set(now)) if fields.get(key) != now.get(key)]
    for key in set(now) - set(fields):
        object.__delattr__(rules, key)
    for key, value in fields.items():
        object.__setattr__(rules, key, value)  # the shared rules, put back for other games
    raise RulesChanged(f"seat {seat}: agent {agent_label(agent)} changed the game's rules in its "
                       f"{method} ({', '.join(changed)}); they are put back and the game "
                       "stops: an in-process agent is trusted code, and this one is not")
