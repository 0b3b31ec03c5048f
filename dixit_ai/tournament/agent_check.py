"""The agents a tournament run was started with, by definition: kept in ``config.json``, checked
on resume.

A tournament's config names its agents (``word``, ``clip-greedy``), but a name is only a registry
entry: a YAML file whose ``kwargs`` or ``embedder`` changed between a run's start and its resume
would play the resumed games as another agent under the same label, and the standings would rate
the two as one. So a run keeps, per label, the agent's resolved definition
(:func:`agent_definitions`: its registry name, entry point and merged keyword arguments), and a
resume is refused when a definition now differs (:func:`check_run_agents`), naming the label and
what changed.

A definition does not say everything: an agent's code, or a model file behind an unchanged path,
may change too. So the resumed games' records are also compared with the run's
(:class:`RecordedAgents`): each seat's ``describe()`` (which holds, for the embedding players,
the embedder's fingerprint) must be the one the label's earlier records hold; the first record
that differs stops the run before it is written.

Runs started before ``config.json`` kept the definitions are resumed as before, with a warning
that their definitions cannot be checked: their records' descriptions are still compared.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from dixit_ai.tournament.config import TournamentConfig
from dixit_ai.tournament.store import CONFIG_FILE, ResumeError

AGENTS_KEY = "agent_definitions"
"""The key of the agents' definitions in a run's ``config.json``."""


def agent_definitions(config: TournamentConfig) -> dict[str, dict[str, Any]]:
    """Per label, what ``config.json`` keeps of each entrant: ``agent`` (its registry name),
    ``entry_point`` and ``kwargs`` (the entry's defaults with the tournament's overrides, and the
    tournament's deck for an agent given the game's deck, as JSON; a value JSON cannot hold is
    kept as its ``repr``).

    Raises:
        ValueError: an agent no entry of the registry names.
    """
    from dixit_ai.agents import agent_spec
    from dixit_ai.agents.registry import takes_deck

    definitions = {}
    for entry in config.agents:
        spec = agent_spec(entry.agent)
        kwargs = {**spec.kwargs, **entry.kwargs}
        kwargs.pop("name", None)  # the tournament's label is the agent's name
        if takes_deck(entry.agent):  # it is given the tournament's deck, whatever its entry says
            kwargs["deck"] = config.deck
        definitions[entry.label] = {"agent": entry.agent, "entry_point": spec.entry_point,
                                    "kwargs": _plain(kwargs)}
    return definitions


def _plain(value: Any) -> Any:
    """``value`` as JSON reads it back (keys sorted, a value JSON cannot hold as its repr)."""
    return json.loads(json.dumps(value, sort_keys=True, default=repr))


def read_run_agents(folder: str | Path) -> dict[str, dict[str, Any]] | None:
    """The definitions ``config.json`` keeps of a run's agents, or ``None`` (a run started
    before they were kept, or an entry that is not an object)."""
    try:
        data = json.loads((Path(folder) / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    kept = data.get(AGENTS_KEY) if isinstance(data, dict) else None
    if not isinstance(kept, dict) or not all(isinstance(v, dict) for v in kept.values()):
        return None
    return kept


def check_run_agents(folder: str | Path, recorded: Mapping[str, Any] | None,
                     config: TournamentConfig) -> str | None:
    """Refuse to resume ``folder`` when an agent's definition now differs from the one it was
    started with; return a warning for a run that kept none (``None``: checked).

    Raises:
        ResumeError: naming each label and what differs (stored != now).
    """
    if recorded is None:
        return (f"{folder}: {CONFIG_FILE} keeps no agent definitions (the run was started before "
                "dixit-ai kept them), so the agents' settings cannot be checked before play; "
                "the resumed games' agent descriptions are compared with the recorded ones")
    now = agent_definitions(config)
    changes = []
    for label in sorted(now):
        before = recorded.get(label)
        if before is None:
            continue  # a label the config check refuses, or compares as a set
        for key in ("agent", "entry_point"):
            if before.get(key) != now[label][key]:
                changes.append(f"{label}: {key} {before.get(key)!r} != {now[label][key]!r}")
        changes.extend(f"{label}: {line}" for line in _kwargs_changes(
            before.get("kwargs") or {}, now[label]["kwargs"]))
    if changes:
        raise ResumeError(
            f"{folder} was played with other agent definitions (stored != now): "
            + "; ".join(changes) + ": the resumed games would be another agent's under the same "
            "label; restore the definition (its registry file or kwargs), or start a new run")
    return None


def _kwargs_changes(before: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    lines = []
    for key in sorted(set(before) | set(now)):
        if key not in now:
            lines.append(f"kwargs {key}={_short(before[key])} is no longer given")
        elif key not in before:
            lines.append(f"kwargs {key}={_short(now[key])} is new")
        elif before[key] != now[key]:
            lines.append(f"kwargs {key}: {_short(before[key])} != {_short(now[key])}")
    return lines


def _short(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


class RecordedAgents:
    """Each label's ``describe()`` as a run's records hold it; :meth:`check` refuses a record
    whose seat describes its label otherwise."""

    def __init__(self, lines: Iterable[str]) -> None:
        self.described: dict[str, tuple[Any, int]] = {}
        for line in lines:
            self._learn(json.loads(line)["header"])

    def _seats(self, header: Mapping[str, Any]) -> list[tuple[str, Any]]:
        labels = (header.get("tournament") or {}).get("seats") or []
        return list(zip(labels, header.get("agents") or [], strict=False))

    def _learn(self, header: Mapping[str, Any]) -> None:
        game = (header.get("tournament") or {}).get("game", -1)
        for label, description in self._seats(header):
            self.described.setdefault(label, (description, game))

    def check(self, line: str, folder: str | Path) -> None:
        """Refuse the record ``line`` when a seat's description differs from its label's in the
        run's earlier records.

        Raises:
            ResumeError: naming the game, the label, the fields that differ and the earlier
                game.
        """
        header = json.loads(line)["header"]
        for label, description in self._seats(header):
            known = self.described.get(label)
            if known is None or known[0] == description:
                continue
            before, game = known
            fields = _differing(before, description)
            raise ResumeError(
                f"{folder}: game {header['tournament'].get('game')} describes {label!r} "
                f"otherwise than game {game} did ({'; '.join(fields)}): the same label would "
                "rate two agents as one; the game is not recorded. Restore the agent as it was "
                "(its registry file, model or code), or start a new run")
        self._learn(header)


def _differing(before: Any, now: Any) -> list[str]:
    if not isinstance(before, dict) or not isinstance(now, dict):
        return [f"{_short(before)} != {_short(now)}"]
    return [f"{key}: {_short(before.get(key))} != {_short(now.get(key))}"
            for key in sorted(set(before) | set(now), key=str)
            if before.get(key) != now.get(key)][:4]


def first_descriptions(records: str | Path, labels: Iterable[str]) -> dict[str, Any]:
    """Each label's ``describe()`` in the first record of ``records`` (a ``games.jsonl``) that
    seats it, reading only as far as every label is found (a line that is not a record is
    skipped: the analysis names it)."""
    wanted = set(labels)
    found: dict[str, Any] = {}
    try:
        with open(records, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if wanted <= set(found):
                    break
                try:
                    header = json.loads(line)["header"]
                    seats = zip(header["tournament"]["seats"], header["agents"], strict=False)
                except (ValueError, KeyError, TypeError):
                    continue
                for label, description in seats:
                    if label in wanted:
                        found.setdefault(label, description)
    except OSError:
        return found
    return found


def agent_lines(definitions: Mapping[str, Any] | None, described: Mapping[str, Any],
                labels: Iterable[str]) -> list[str]:
    """One report line per label: its definition (where the run kept it) and its description
    as the records hold it (the model, the embedder's fingerprint, the endpoint)."""
    lines = []
    for label in labels:
        parts = []
        defined = (definitions or {}).get(label)
        if isinstance(defined, dict):
            kwargs = defined.get("kwargs") or {}
            parts.append(f"{defined.get('agent')} ({defined.get('entry_point')})"
                         + (f", kwargs {_short(kwargs, 300)}" if kwargs else ""))
        description = described.get(label)
        if isinstance(description, dict):
            shown = {key: value for key, value in description.items() if key != "name"}
            parts.append(f"described as {_short(shown, 400)}")
        lines.append(f"{label}: " + ("; ".join(parts) or "no record describes it"))
    return lines
