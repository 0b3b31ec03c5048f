"""How a benchmark script reports its targets, and the exit status they give.

Every ``scripts/bench_*.py`` prints its figures first, then one line per target, after them:

- ``target met: NAME: MEASURED (limit LIMIT)``;
- ``target MISSED: NAME: MEASURED (limit LIMIT)``;
- ``target not judged: NAME: WHY`` where the run is smaller than the size the target is stated
  for (a smoke run: its figures are noise, so neither "met" nor "missed" would be true), or
  another configuration than the target's;
- ``FAILED: WHAT``: what the script measures did not work (a run failed, two runs that must
  agree did not, a figure could not be computed).

Its exit status is then ``1`` (:data:`~dixit_ai.cli.common.EXIT_FAILED`) if any target was
missed or anything failed, else ``0``; bad input was refused before anything ran, with ``2``
(argparse). On a miss or a failure one more line on stderr names them, so a person who sent
the figures to a file still sees why the command failed.

Example::

    >>> targets = Targets()
    >>> targets.at_least("rounds/s, 5 players", 7820.4, 5000, unit=" rounds/s", digits=0)
    >>> targets.not_judged("batched rounds/s", too_small("parallel games", 40, 1000))
    >>> targets.report()
    target met: rounds/s, 5 players: 7,820 rounds/s (limit >= 5,000 rounds/s)
    target not judged: batched rounds/s: 40 parallel games; judged on 1,000 or more
    0
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from dixit_ai.cli.common import EXIT_FAILED, EXIT_OK


def too_small(what: str, value: float, least: float) -> str | None:
    """Why a target is not judged on a run of ``value`` ``what`` (``None`` when ``value`` is at
    least ``least``, the size the target is stated for)."""
    if value >= least:
        return None
    return f"{value:,g} {what}; judged on {least:,g} or more"


@dataclass
class Targets:
    """The verdicts of one run: add them as the figures come, then :meth:`report` them."""

    lines: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def judge(self, name: str, ok: bool, measured: str, limit: str,
              unjudged: str | None = None) -> None:
        """One target: met when ``ok``; ``unjudged`` (a reason) leaves it not judged."""
        if unjudged is not None:
            self.not_judged(name, unjudged)
        elif ok:
            self.lines.append(f"target met: {name}: {measured} (limit {limit})")
        else:
            self.lines.append(f"target MISSED: {name}: {measured} (limit {limit})")
            self.missed.append(name)

    def at_least(self, name: str, measured: float, limit: float, *, unit: str = "",
                 digits: int = 2, unjudged: str | None = None) -> None:
        """A target ``measured >= limit``."""
        self.judge(name, measured >= limit, _number(measured, digits, unit),
                   f">= {_number(limit, digits, unit)}", unjudged)

    def at_most(self, name: str, measured: float, limit: float, *, unit: str = "",
                digits: int = 2, unjudged: str | None = None) -> None:
        """A target ``measured <= limit``."""
        self.judge(name, measured <= limit, _number(measured, digits, unit),
                   f"<= {_number(limit, digits, unit)}", unjudged)

    def below(self, name: str, measured: float, limit: float, *, unit: str = "",
              digits: int = 2, unjudged: str | None = None) -> None:
        """A target ``measured < limit``."""
        self.judge(name, measured < limit, _number(measured, digits, unit),
                   f"< {_number(limit, digits, unit)}", unjudged)

    def not_judged(self, name: str, why: str | None) -> None:
        """A target this run cannot judge, and why."""
        self.lines.append(f"target not judged: {name}: {why}")

    def fail(self, what: str) -> None:
        """What the script measures did not work: the run fails, whatever its targets."""
        self.lines.append(f"FAILED: {what}")
        self.failed.append(what)

    def report(self, file: Any = None) -> int:
        """Print the verdicts (to stdout by default), and on stderr a line naming what was
        missed or failed; return the exit status."""
        for line in self.lines:
            print(line, file=file or sys.stdout)
        if not (self.missed or self.failed):
            return EXIT_OK
        parts = []
        if self.missed:
            parts.append(f"{len(self.missed)} target(s) missed: {'; '.join(self.missed)}")
        if self.failed:
            parts.append(f"failed: {'; '.join(self.failed)}")
        print(f"exit status {EXIT_FAILED}: {', '.join(parts)}", file=sys.stderr, flush=True)
        return EXIT_FAILED


def _number(value: float, digits: int, unit: str) -> str:
    return f"{value:,.{digits}f}{unit}"
