"""What every ``dixit-ai`` command shares: exit statuses, ``--rule`` parsing, failure reports.

Exit statuses (the same for every command):

- ``0`` (:data:`EXIT_OK`): done;
- ``1`` (:data:`EXIT_FAILED`): the command ran, and what it checked or played failed: a replay
  mismatch, agent failures in the games (unless ``--on-failure forfeit`` was chosen), a game that
  stopped; or its work failed part-way (:class:`RunFailed`: a full disk, a folder that became
  unwritable), the message naming what failed;
- ``2`` (:data:`EXIT_USAGE`): bad input (an option, a file, a record, a missing extra), found
  before the work began; the message names it and nothing was written;
- ``130`` (:data:`EXIT_INTERRUPTED`): interrupted (Ctrl-C);
- ``141`` (:data:`EXIT_BROKEN_PIPE`): the reader of its output went away (``| head``); it stops
  quietly, as a command killed by SIGPIPE would.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from dixit_ai.files import not_a_regular_file

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141

RUN_ERRORS = (OSError, ValueError, ImportError)
"""The errors a command reports with a message instead of a traceback: bad input (exit 2) when
raised while its input is checked, a failure of the run (exit 1) once its work has begun (see
:func:`running`)."""

MAX_GAMES = 10_000_000
"""The most games one run plays (``simulate --games``, a tournament's ``games``): weeks of play
at the fastest; more would only exhaust memory on the games' seeds and schedule."""

MAX_RESAMPLES = 100_000
"""The most bootstrap resamples of an interval (``--resamples``, ``--rating-resamples``,
``--bootstrap``): each draws one index per game or item, so more would exhaust memory."""

MAX_ITEMS = 100_000
"""The most items a benchmark draws per task and clue kind (``bench --items``)."""

FAILURES_SHOWN = 5
"""How many agent failures a command prints one by one before giving only their count."""


def rule_argument(text: str) -> tuple[str, Any]:
    """``--rule KEY=VALUE`` for argparse: typed by the RuleSet field (see
    :func:`dixit_ai.rules.overrides.parse_rule`)."""
    from dixit_ai.rules.overrides import parse_rule

    try:
        return parse_rule(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def progress_line(line: str) -> None:
    """Print one progress line of a one-time step (loading a model, embedding cards) to stderr,
    at once, so that nothing sits silent."""
    print(line, file=sys.stderr, flush=True)


def json_for_stdout(data: Any, **options: Any) -> str:
    """``json.dumps(data)`` for printing: non-ASCII characters as they are where standard
    output takes every character (UTF-8), else as ``\\u`` escapes, so that the printed JSON
    stays the same data under ``PYTHONIOENCODING=ascii`` or a Latin-1 locale (a replaced
    character would change it)."""
    encoding = (getattr(sys.stdout, "encoding", None) or "ascii").lower().replace("_", "-")
    return json.dumps(data, ensure_ascii=not encoding.startswith("utf"), **options)


def plain(text: str | None) -> str | None:
    """Help text without reStructuredText markup: ````x```` and ```x``` become ``'x'``."""
    if text is None:
        return None
    text = re.sub(r"``([^`]+)``", r"'\1'", text)
    text = re.sub(r":\w+:`~?([^`]+)`", r"\1", text)
    return re.sub(r"`([^`]+)`", r"'\1'", text)


def failure_lines(records: Iterable[Any], *, limit: int = FAILURES_SHOWN) -> list[str]:
    """One line per agent failure in ``records`` (game records), the first ``limit`` of them,
    then a count of the rest.

    Each line names the game (its position and seed), the seat and its agent, the round
    (counted from 1, as the game's own prompts and reports count them, then as the record's
    ``round`` field counts it, from 0: ``round 2 (record: round 1)``), the phase, what the
    runner did and the reason.
    """
    return numbered_failure_lines(enumerate(records, start=1), limit=limit)


def numbered_failure_lines(numbered: Iterable[tuple[int, Any]], *, limit: int = FAILURES_SHOWN,
                           total: int | None = None, unrecorded: str | None = None) -> list[str]:
    """:func:`failure_lines` of ``(position, record)`` pairs: a run that kept only the records
    of its first failures gives those, each with its game's position, and ``total``, the
    failures of every game it played. ``unrecorded`` (e.g. ``"pass --out to keep them"``) says
    that no records were written: the count of the failures not shown says so instead of
    sending the reader to the records."""
    lines: list[str] = []
    counted = 0
    for number, record in numbered:
        agents = record.header.get("agents", [])
        info = record.header.get("tournament")
        game = (f"game {info['game']}" if isinstance(info, dict) and "game" in info
                else f"game {number}")
        for failure in record.failures:
            counted += 1
            if counted > limit:
                continue
            name = (agents[failure.seat].get("name", "?")
                    if failure.seat < len(agents) else "?")
            lines.append(f"  {game} (seed {record.header.get('seed')}), seat {failure.seat} "
                         f"({name}), round {failure.round + 1} (record: round {failure.round}), "
                         f"{failure.phase}: {failure.error}: {failure.reason} [{failure.penalty}]")
    total = counted if total is None else total
    if total > limit:
        where = ("every failure is in the records" if unrecorded is None
                 else f"not shown, and no records were written: {unrecorded}")
        lines.append(f"  ... and {total - limit} more ({where})")
    if total:
        lines.insert(0, f"agent failures: {total}")
    return lines


def print_failures(records: Iterable[Any], *, file: Any = None,
                   limit: int = FAILURES_SHOWN) -> int:
    """Print :func:`failure_lines` (to stderr by default); return how many failures there were."""
    records = list(records)
    lines = failure_lines(records, limit=limit)
    for line in lines:
        print(line, file=file or sys.stderr)
    return sum(len(record.failures) for record in records)


def failure_status(failures: int, on_failure: str, *, chosen: bool) -> int:
    """The exit status of a command whose games had ``failures`` agent failures.

    Failures make the command fail unless the user chose ``forfeit`` (then they are part of
    the result: recorded, counted, and the games went on).
    """
    if failures and not (chosen and on_failure == "forfeit"):
        if on_failure == "forfeit":
            print(f"exit status {EXIT_FAILED}: {failures} agent failure(s) were forfeited by "
                  "default; pass --on-failure forfeit to accept them", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def check_at_least(args: Any, least: Iterable[tuple[str, float]]) -> None:
    """Refuse the first of ``args``' settings below its least value, naming it as a flag.

    Raises:
        ValueError: ``--flag-name must be at least N, not V``.
    """
    for name, smallest in least:
        value = getattr(args, name)
        if value < smallest:
            raise ValueError(f"--{name.replace('_', '-')} must be at least {smallest:g}, not "
                             f"{value}")


def check_at_most(name: str, value: int, most: int) -> None:
    """Refuse a count above its largest value, naming it (``--games``, or a config key).

    Raises:
        ValueError: ``NAME must be at most N, not V``.
    """
    if value > most:
        raise ValueError(f"{name} must be at most {most:,}, not {value:,}")


def refuse_input(message: str) -> NoReturn:
    """End a script on bad input found before its work: ``error: MESSAGE`` on stderr, exit
    :data:`EXIT_USAGE` (``SystemExit(message)`` would exit 1, the status of a failed run)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(EXIT_USAGE)


def check_out_file(path: Path, option: str = "--out") -> None:
    """Refuse an output file that cannot be written, before anything runs or is created.

    Args:
        path: The file a command will write.
        option: The option that named it, for the message.

    Raises:
        ValueError: ``path`` is a folder or not a regular file (a pipe, a device), its folder
            does not exist, or either is not writable.
    """
    if path.is_dir():
        raise ValueError(f"{option} {path} is a folder; give the name of a file")
    problem = not_a_regular_file(path)
    if problem:
        raise ValueError(f"{option} {path}: {problem}; give the name of a file")
    if path.is_symlink():  # written through: the file it points to must be writable
        path = Path(os.path.realpath(path))
    folder = path.parent
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists()
                                                     and not os.access(path, os.W_OK)):
        raise ValueError(f"{option} {path}: cannot write there (permission denied)")


def refuse_run_options(args: argparse.Namespace, flags: dict[str, str], what: str) -> None:
    """Refuse the options among ``flags`` (``dest: --flag``) given with ``what`` (``--analyse``),
    which ignores them: a figure recomputed from the records never depends on them, and a user
    who asked for ``--items 500`` should not read the old run's figures as theirs.

    An option counts as given when its value is not ``None``, ``False`` or an empty list.

    Raises:
        ValueError: naming every such option given.
    """
    given = [flag for dest, flag in flags.items()
             if getattr(args, dest, None) not in (None, False, [])]
    if given:
        raise ValueError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to "
                         f"a new run; {what} recomputes an earlier run from its records and "
                         "takes none of them")


class RunFailed(Exception):
    """A command's work failed part-way, after its input was checked (exit 1, not 2): the
    message names what was being done and the error (a full disk, a folder that became
    unwritable, a record that cannot be written)."""


@dataclass
class Work:
    """What :func:`running` reports a failure as, and whether the work has begun.

    Attributes:
        what: What the command is doing (``"writing the records to out.jsonl"``).
        started: Whether the work has begun: an error before is left as it is (bad input).
        then: What the user can do after a failure (``"continue with --resume DIR"``).
    """

    what: str
    started: bool = True
    then: str = ""

    def start(self, what: str | None = None, then: str | None = None) -> None:
        """The work begins (a library call's announcement that its input is checked)."""
        self.started = True
        self.what = self.what if what is None else what
        self.then = self.then if then is None else then


@contextmanager
def running(what: str, *, then: str = "", started: bool = True) -> Iterator[Work]:
    """The part of a command that does its work, once its input is checked.

    An :data:`RUN_ERRORS` error raised in the block once the work has begun is a failure of
    the run, raised again as :class:`RunFailed` (exit 1) naming ``what`` (and saying ``then``,
    what the user can do or find after it); an error before then
    (``started=False`` until :meth:`Work.start`, for a library call that checks its input first
    and announces its work) stays bad input (exit 2). A broken pipe stays one (exit 141).
    """
    work = Work(what, started, then)
    try:
        yield work
    except BrokenPipeError:
        raise
    except RUN_ERRORS as error:
        if not work.started:
            raise
        then = f"; {work.then}" if work.then else ""
        raise RunFailed(f"{work.what}: {error}{then}") from error
