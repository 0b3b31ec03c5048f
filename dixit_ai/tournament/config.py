"""What a tournament is: its agents, its table and its games, as data (code or YAML).

A :class:`TournamentConfig` holds everything that decides which games are played and how:
the agents (registry names, or labelled registry entries with keyword overrides), the edition and
rule overrides, the number of players per table, the number of games, the deck, the seed and the
failure policy. How the games are run (workers, backend) is not part of it: it never changes a
result. A YAML file (``configs/tournaments/*.yaml``) holds the same fields::

    name: clip-four
    agents: [clip-greedy, clip-expected, clip-obvious, random]
    edition: refresh-2021
    players: 5
    games: 500
    seed: 0
    deck: dream
    rules: {}              # rule overrides, typed as RuleSet's fields: {teams: true}
    on_failure: forfeit    # or abort
    max_rounds: null
    decision_timeout: null # seconds an agent may take over one decision (null: no limit)

An agent may also be ``label=name`` (the same registry agent entered twice under two labels), or a
mapping, to enter it with different settings::

    agents:
      - clip-greedy
      - {label: greedy-t05, agent: clip-greedy, kwargs: {vote_temperature: 0.5}}
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

from dixit_ai.agents import agent_spec
from dixit_ai.rules import EDITIONS, RuleSet
from dixit_ai.rules.overrides import check_rules

FailurePolicy = Literal["abort", "forfeit"]

CONFIG_KEYS = ("name", "agents", "edition", "players", "games", "seed", "deck", "rules",
               "on_failure", "max_rounds", "decision_timeout")
"""The keys of a tournament file (and of ``config.json``'s ``config``)."""


@dataclass(frozen=True)
class AgentEntry:
    """One tournament entrant.

    Attributes:
        label: The name it is ranked under (unique in the tournament).
        agent: Its registry name (``dixit-ai agents`` lists them).
        kwargs: Keyword overrides for :func:`dixit_ai.agents.make_agent`.
    """

    label: str
    agent: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, item: Any) -> AgentEntry:
        """An entry from a registry name, ``"label=name"``, or a ``{label, agent, kwargs}``
        mapping.

        Raises:
            ValueError: neither a non-empty name nor a mapping with ``agent``.
        """
        if isinstance(item, AgentEntry):
            return item
        if isinstance(item, str):
            label, equals, name = item.rpartition("=")
            name, label = name.strip(), label.strip() or name.strip()
            if not name:
                raise ValueError(f"an agent name is empty in {item!r}")
            if equals and not item.partition("=")[0].strip():
                raise ValueError(f"the label is empty in {item!r}: give LABEL=NAME, or the name "
                                 "alone")
            return cls(label, name)
        if isinstance(item, dict):
            unknown = sorted(set(item) - {"label", "agent", "kwargs"})
            if unknown:
                raise ValueError(f"agent entry {item!r}: unknown key(s) {', '.join(unknown)}")
            if not isinstance(item.get("agent"), str) or not item["agent"].strip():
                raise ValueError(f"agent entry {item!r} needs 'agent' (a registry name)")
            kwargs = item.get("kwargs") or {}
            if not isinstance(kwargs, dict):
                raise ValueError(f"agent entry {item!r}: 'kwargs' must be a mapping")
            if "name" in kwargs:
                raise ValueError(f"agent entry {item!r}: give the name as 'label', not in "
                                 "'kwargs'")
            agent = item["agent"].strip()
            return cls(str(item.get("label") or agent).strip(), agent, dict(kwargs))
        raise ValueError(f"an agent is a registry name or a mapping, not {item!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "agent": self.agent, "kwargs": dict(self.kwargs)}



@dataclass(frozen=True)
class TournamentConfig:
    """Everything that decides a tournament's games (see the module docstring).

    Attributes:
        agents: The entrants (at least two; labels unique).
        players: Seats per table (fewer entrants than seats: some play two seats).
        games: How many games.
        seed: The tournament's seed: deals and table draws derive from it.
        edition: The rules' edition.
        deck: A deck spec (``"dream"``, ``"folder:PATH"``, ...).
        rules: Rule overrides, as :meth:`RuleSet.edition` takes them.
        on_failure: ``"forfeit"`` (a failing seat's move is made by the rules and it scores
            nothing that round; the default) or ``"abort"`` (the game stops and is left out of
            the ratings). Failures are always recorded and counted per agent.
        max_rounds: Truncate every game after this many rounds (``None``: no limit).
        decision_timeout: Seconds an agent may take over one decision (``None``: no limit,
            the default). A decision that takes longer is the agent's failure, recorded with
            error ``"DecisionTimeout"`` and handled by ``on_failure``; the hung instance is
            set aside (the seat's later decisions in that game fail at once) and a new one
            is made for the next game; an entrant with
            :data:`~dixit_ai.tournament.player.MAX_STUCK_DECISIONS` decisions still running
            past the limit fails its decisions at once until one ends. Off by default: a
            limit makes a game's record depend on the machine's speed and load, where
            otherwise the seed alone decides it.
        name: The run's name (the run folder is ``tournament__<name>__<seed>__<time>``).
    """

    agents: tuple[AgentEntry, ...]
    players: int = 5
    games: int = 100
    seed: int = 0
    edition: str = "refresh-2021"
    deck: str = "dream"
    rules: dict[str, Any] = field(default_factory=dict)
    on_failure: FailurePolicy = "forfeit"
    max_rounds: int | None = None
    decision_timeout: float | None = None
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "agents", tuple(AgentEntry.parse(a) for a in self.agents))
        if not self.name:
            object.__setattr__(self, "name", default_name(self.labels, self.players))

    @property
    def labels(self) -> list[str]:
        """The entrants' labels, in the order given."""
        return [entry.label for entry in self.agents]

    def entry(self, label: str) -> AgentEntry:
        """The entrant called ``label``."""
        for entry in self.agents:
            if entry.label == label:
                return entry
        raise KeyError(label)

    def ruleset(self) -> RuleSet:
        """The rules of every game."""
        return RuleSet.edition(self.edition, **self.rules)

    def validate(self) -> None:
        """Check what can be checked before any game (no model is loaded).

        Raises:
            ValueError: a name, edition or deck that is not text, a label or name with a control
                character or too long, too few agents, a repeated label, an unknown agent, a
                bad edition, rule, player count, game count, seed,
                failure policy or round limit (the message says which).
        """
        for key in ("name", "edition", "deck"):
            if not isinstance(getattr(self, key), str):
                raise ValueError(f"{key} must be text, not {getattr(self, key)!r}")
        if len(self.agents) < 2:
            raise ValueError(
                f"a tournament needs at least 2 agents, got {len(self.agents)}: "
                f"{', '.join(self.labels) or 'none'}")
        for label in self.labels:  # before the name, which is made of them by default
            _check_shown("agent label", label)
        _check_shown("name", self.name)
        seen: set[str] = set()
        for label in self.labels:
            if label in seen:
                raise ValueError(f"agent {label!r} is entered twice; give each entry its own "
                                 "label (e.g. {label: greedy-2, agent: clip-greedy})")
            seen.add(label)
        for entry in self.agents:
            agent_spec(entry.agent)  # raises, listing the registered names
        if self.edition not in EDITIONS:
            raise ValueError(f"unknown edition {self.edition!r}; editions: {', '.join(EDITIONS)}")
        _check_int("players", self.players, 1)
        _check_int("games", self.games, 1)
        _check_int("seed", self.seed, 0)
        if self.on_failure not in ("abort", "forfeit"):
            raise ValueError(f"on_failure must be 'abort' or 'forfeit', not {self.on_failure!r}")
        if self.max_rounds is not None:
            _check_int("max_rounds", self.max_rounds, 1)
        check_decision_timeout(self.decision_timeout)
        check_rules(self.rules)
        self.ruleset().check_players(self.players)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, as a tournament file holds it (entries as mappings)."""
        return {
            "name": self.name,
            "agents": [entry.to_dict() for entry in self.agents],
            "edition": self.edition,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "deck": self.deck,
            "rules": dict(self.rules),
            "on_failure": self.on_failure,
            "max_rounds": self.max_rounds,
            "decision_timeout": self.decision_timeout,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "config") -> TournamentConfig:
        """A config from a mapping (a parsed YAML file or ``config.json``'s ``config``).

        Raises:
            ValueError: unknown keys, no agents, or values of the wrong type.
        """
        if not isinstance(data, dict):
            raise ValueError(f"{source}: a tournament config is a mapping")
        unknown = sorted(set(data) - set(CONFIG_KEYS))
        if unknown:
            raise ValueError(f"{source}: unknown key(s) {', '.join(unknown)}; "
                             f"known: {', '.join(CONFIG_KEYS)}")
        agents = data.get("agents")
        if isinstance(agents, str):
            agents = split_names(agents)
        if not isinstance(agents, list) or not agents:
            raise ValueError(f"{source}: 'agents' must be a non-empty list")
        values: dict[str, Any] = {k: data[k] for k in CONFIG_KEYS
                                  if k in data and k != "agents" and data[k] is not None}
        for key in ("max_rounds", "decision_timeout"):
            if key in data:
                values[key] = data[key]
        for key in ("name", "edition", "deck"):
            if key in values and not isinstance(values[key], str):
                raise ValueError(f"{source}: '{key}' must be text, not {values[key]!r}")
        rules = values.get("rules", {})
        if not isinstance(rules, dict):
            raise ValueError(f"{source}: 'rules' must be a mapping of rule overrides")
        values["rules"] = check_rules(rules, source=f"{source}: rules")
        try:
            return cls(agents=tuple(AgentEntry.parse(a) for a in agents), **values)
        except TypeError as error:
            raise ValueError(f"{source}: {error}") from error

    def with_changes(self, **changes: Any) -> TournamentConfig:
        """A copy with some fields replaced (``None`` values are ignored; the name is kept
        unless given)."""
        kept = {k: v for k, v in changes.items() if v is not None}
        if "agents" in kept:
            kept["agents"] = tuple(AgentEntry.parse(a) for a in kept["agents"])
        return replace(self, **kept)


MAX_LABEL_LENGTH = 100
"""The longest agent label or run name (shown in tables, and the run folder's name)."""


def _check_shown(what: str, text: str) -> None:
    """Refuse a label or name that would corrupt the tables it is shown in: a control or
    line-separating character (a newline breaks a Markdown table, an escape sequence recolours
    the terminal), a lone surrogate (no UTF-8 record or report can hold it: the games were
    played, then writing them failed), or one longer than :data:`MAX_LABEL_LENGTH`."""
    for position, char in enumerate(text):
        if 0xD800 <= ord(char) <= 0xDFFF:
            raise ValueError(f"{what} {text!r} is not valid Unicode text (a lone surrogate "
                             f"U+{ord(char):04X} at position {position}; under an ASCII locale, "
                             "a non-ASCII argument arrives so: run under a UTF-8 locale)")
    if any(unicodedata.category(char) in ("Cc", "Zl", "Zp") for char in text):
        raise ValueError(f"{what} {text!r} holds a control character (a newline, a tab, an "
                         "escape); give it without")
    if len(text) > MAX_LABEL_LENGTH:
        raise ValueError(f"{what} {text[:20]!r}... must be at most {MAX_LABEL_LENGTH} "
                         f"characters, not {len(text)}")


MAX_DECISION_TIMEOUT = 86_400.0
"""The longest decision limit, in seconds (a day): past it, leave the limit off."""


def check_seconds(value: Any, name: str, maximum: float, unset: str) -> None:
    """Refuse a delay that is not a number of seconds above 0 and at most ``maximum`` (NaN and
    booleans included); ``None`` passes (``unset`` says what it means, for the message).

    Raises:
        ValueError: naming ``name``, the limits and the value.
    """
    if value is None:
        return
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not 0 < value <= maximum):
        raise ValueError(f"{name} must be a number of seconds above 0 and at most "
                         f"{maximum:,.0f} ({unset}), not {value!r}")


def check_decision_timeout(value: Any) -> None:
    """Refuse a decision limit that is not a number of seconds above 0 and at most
    :data:`MAX_DECISION_TIMEOUT` (``None``: no limit)."""
    check_seconds(value, "decision_timeout", MAX_DECISION_TIMEOUT, "or null: no limit")


def _check_int(key: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{key} must be an int of at least {minimum}, not {value!r}")


def split_names(text: str, option: str = "--agents") -> list[str]:
    """``"a, b,c"`` -> ``["a", "b", "c"]``.

    Raises:
        ValueError: an entry is empty (``"a,,b"``, ``",a"``: one would silently be dropped, and
            the table be one seat short), naming ``option``.
    """
    names = [name.strip() for name in text.split(",")]
    for position, name in enumerate(names, start=1):
        if not name:
            raise ValueError(f"{option} {text!r}: entry {position} is empty; give one name per "
                             "entry, comma-separated")
    return names


def default_name(labels: list[str], players: int) -> str:
    """The entrants joined by ``+`` when short, else their count and the table size."""
    joined = "+".join(labels)
    return joined if len(joined) <= 64 else f"{len(labels)}-agents-{players}p"


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read a tournament YAML file.

    Raises:
        ValueError: the file is not a tournament config: not UTF-8 YAML, a key given twice, or
            settings that are not a tournament's (the message names it).
        OSError: it cannot be read (no such file: the message names it).
    """
    from dixit_ai.files import read_yaml

    return TournamentConfig.from_dict(read_yaml(path), source=str(path))


def differences(a: TournamentConfig, b: TournamentConfig) -> list[str]:
    """The fields in which two configs differ, as ``key: a != b`` lines.

    The agents are compared as a set of entries (by label): the order they are listed in
    decides no game (see :func:`~dixit_ai.tournament.schedule.make_schedule`).
    """
    left, right = a.to_dict(), b.to_dict()
    for side in (left, right):
        side["agents"] = sorted(side["agents"], key=lambda entry: str(entry["label"]))
    return [f"{f.name}: {left[f.name]!r} != {right[f.name]!r}"
            for f in fields(TournamentConfig) if left[f.name] != right[f.name]]
