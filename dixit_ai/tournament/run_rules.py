"""The rules of a tournament run's games, as its ``config.json`` gives them, and the check of a
record's ``header.edition`` and ``header.rules`` against them.

A run folder's records were all played by the run's config: a record whose edition or rule
parameters differ is not one of its games (it came from another run, or from a process whose
shared rules an in-process agent changed), and counting it would score the run under rules it
never chose. So ``--resume``, ``--analyse`` and ``dixit-ai replay`` of a run folder's
``games.jsonl`` refuse it (resume, analyse) or report it as a mismatch (replay), naming each
parameter that differs, the record's value and the config's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from dixit_ai.records import RECORD_FORMAT, GameRecord

_ABSENT = object()


@dataclass(frozen=True)
class RunRules:
    """The edition and every rule parameter of a run's games (as a record's header holds
    them)."""

    edition: str
    parameters: dict[str, Any]

    @classmethod
    def of(cls, config: Any) -> RunRules:
        """The rules a :class:`~dixit_ai.tournament.config.TournamentConfig` plays by."""
        rules = config.ruleset()
        # As a record reads them back: JSON's lists, not tuples.
        return cls(rules.name, json.loads(json.dumps(rules.parameters())))

    def mismatch(self, record: GameRecord) -> str | None:
        """How ``record``'s edition and rules differ from these (``None``: they do not).

        A record of an earlier format may lack the parameters a later format added (replay
        reads those by the format's own defaults): only the parameters it holds are compared.
        """
        header = record.header
        differ: list[str] = []
        if header.get("edition") != self.edition:
            differ.append(f"edition: the record has {header.get('edition')!r}, the config "
                          f"gives {self.edition!r}")
        recorded = header.get("rules")
        if not isinstance(recorded, dict):
            differ.append(f"rules: the record has {recorded!r}")
            return "; ".join(differ)
        keys = (set(recorded) | set(self.parameters) if header.get("format") == RECORD_FORMAT
                else set(recorded))
        for key in sorted(keys):
            mine, theirs = recorded.get(key, _ABSENT), self.parameters.get(key, _ABSENT)
            if mine != theirs:
                differ.append(f"{key}: the record has {_shown(mine)}, the config gives "
                              f"{_shown(theirs)}")
        return "; ".join(differ) or None


def _shown(value: Any) -> str:
    return "nothing" if value is _ABSENT else repr(value)
