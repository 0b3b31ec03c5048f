"""One strict reader of JSON Lines record files, for every analysis (tournaments, benchmarks).

An analysis must not trust a file it cannot read whole. :func:`read_jsonl` refuses, naming the
file and the line:

- a file with no record (empty, or blank lines only);
- a torn last line (no final newline: the writer was cut off while writing it);
- a line that is not valid JSON, or that ``parse`` rejects (raises ``ValueError``).

With ``allow_partial=True`` such lines are dropped instead and counted in
:attr:`JsonlRecords.dropped` (a file with no readable record is still refused), so that a report
can say how many records it left out.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar, overload

from dixit_ai.files import read_utf8

T = TypeVar("T")


class RecordFileError(ValueError):
    """A record file an analysis cannot trust (the message names the file and the line)."""


@dataclass
class JsonlRecords(Generic[T]):
    """What :func:`read_jsonl` read.

    Attributes:
        path: The file.
        items: ``(line number, parsed record)`` for every record kept, in file order.
        dropped: ``(line number, reason)`` for every line left out (``allow_partial`` only).
    """

    path: Path
    items: list[tuple[int, T]] = field(default_factory=list)
    dropped: list[tuple[int, str]] = field(default_factory=list)

    @property
    def records(self) -> list[T]:
        """The records kept, in file order."""
        return [item for _, item in self.items]

    def dropped_summary(self) -> str:
        """E.g. ``"2 records dropped (lines 5, 9)"``, or ``""`` when none was."""
        if not self.dropped:
            return ""
        lines = ", ".join(str(number) for number, _ in self.dropped[:10])
        more = ", ..." if len(self.dropped) > 10 else ""
        plural = "s" if len(self.dropped) != 1 else ""
        return f"{len(self.dropped)} record{plural} dropped (line{plural} {lines}{more})"


def _json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"not valid JSON ({error})") from None


def json_object(text: str, what: str) -> dict[str, Any]:
    """The JSON object one record line holds (``what`` names the record's kind in the errors).

    >>> json_object('{"task": "guess"}', "benchmark record")
    {'task': 'guess'}

    Raises:
        ValueError: the text is not valid JSON, or its value is not an object.
    """
    data = _json_object(text)
    if not isinstance(data, dict):
        raise ValueError(f"a {what} is a JSON object")
    return data


_WHOLE_FILE_LIMIT = 64 * 1024 * 1024
"""The largest file :func:`json_lines_hint` parses whole (to see if it is one JSON document)."""


def json_lines_hint(path: str | os.PathLike[str], line: str) -> str:
    """A hint to add to the error for the first record line of ``path`` (``line``, its text),
    where that line is not valid JSON but the file looks like JSON written over several lines
    (pretty-printed, as ``python -m json.tool`` writes it): its first line is just ``{``, or the
    whole file is one JSON document. ``""`` otherwise.

    >>> json_lines_hint("x.jsonl", '{"task": "guess"}\\n')
    ''
    """
    try:
        json.loads(line)
    except json.JSONDecodeError:
        pass
    else:  # the line is JSON: what is wrong with it is not its layout
        return ""
    document: Any = None
    try:  # (a regular file only: a pipe's text has been read)
        if os.path.isfile(path) and os.path.getsize(path) <= _WHOLE_FILE_LIMIT:
            document = json.loads(Path(path).read_bytes().decode("utf-8"))
    except (OSError, ValueError):  # not JSON as a whole (or not UTF-8, or not readable)
        document = None
    if document is None and line.strip() != "{":
        return ""
    hint = ("; records are JSON Lines: one JSON object per line, each record on a single line, "
            "and this file ")
    if isinstance(document, dict):
        return hint + ("holds one JSON object written over several lines (pretty-printed); "
                       f"`python -m json.tool --compact {shlex.quote(str(path))}` prints it "
                       "on one line")
    if document is not None:  # a JSON array: only a container spans lines
        return hint + ("holds one JSON document written over several lines (a JSON array, "
                       "not one object per line)")
    return hint + "looks pretty-printed (its first line is just '{')"


def read_json(path: str | os.PathLike[str]) -> Any:
    """The JSON value a file holds (a run's header, settings or timing), read strictly.

    Raises:
        OSError: the file cannot be read.
        ValueError: the file is not UTF-8 text, or not JSON; the message names the file.
    """
    text = read_utf8(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error})") from None


@overload
def read_jsonl(path: str | os.PathLike[str], *, allow_partial: bool = False,
               what: str = "record", being_written: bool = False) -> JsonlRecords[Any]: ...


@overload
def read_jsonl(path: str | os.PathLike[str], parse: Callable[[str], T], *,
               allow_partial: bool = False, what: str = "record",
               being_written: bool = False) -> JsonlRecords[T]: ...


def read_jsonl(path: str | os.PathLike[str], parse: Callable[[str], Any] = _json_object, *,
               allow_partial: bool = False, what: str = "record",
               being_written: bool = False) -> JsonlRecords[Any]:
    """Read every line of a JSON Lines file through ``parse``, strictly (see the module).

    Args:
        path: The file.
        parse: Turns one line's text into a record; raises ``ValueError`` for a bad one
            (default: ``json.loads``).
        allow_partial: Drop unreadable lines (and a torn last line) instead of refusing the file.
        what: What a record is called in messages (``"game record"``, say).
        being_written: The file is being appended to now (a run in play): a torn last line is
            the record being written, left out and not counted as dropped; every other line is
            read as strictly as ever.

    Raises:
        RecordFileError: see the module docstring; the message starts ``PATH, line N:``.
        OSError: the file cannot be read.
    """
    source = Path(path)
    if source.is_dir():
        raise RecordFileError(f"{source}: a folder, not a file of {what}s")
    result: JsonlRecords[Any] = JsonlRecords(source)
    with source.open("rb") as handle:  # line by line: a large file is never held whole
        for number, line in enumerate(handle, start=1):
            _read_line(result, number, line, parse, allow_partial=allow_partial, what=what,
                       being_written=being_written)
    if not result.items:
        dropped = f" ({result.dropped_summary()})" if result.dropped else ""
        raise RecordFileError(f"{source}: no {what} to analyse"
                              + (dropped or " (the file is empty)"))
    return result


def _read_line(result: JsonlRecords[Any], number: int, line: bytes,
               parse: Callable[[str], Any], *, allow_partial: bool, what: str,
               being_written: bool) -> None:
    """Read line ``number`` of a file (with its newline, if it has one) into ``result`` (see
    :func:`read_jsonl`)."""
    torn = not line.endswith(b"\n")  # text after the last newline: the last line is torn
    raw = line if torn else line[:-1]
    if not raw.strip():
        return
    if torn:
        if being_written:
            return
        reason = ("incomplete last line (no newline at its end: the run was cut off "
                  "while writing it)")
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            reason = f"not UTF-8 text ({error})"
        else:
            try:
                result.items.append((number, parse(text)))
                return
            except ValueError as error:
                reason = str(error)
                if not result.items and not result.dropped:  # the first record line
                    reason += json_lines_hint(result.path, text)
    if not allow_partial:
        raise RecordFileError(f"{result.path}, line {number}: {reason}; fix or remove the "
                              f"line, or pass --allow-partial to analyse the other {what}s")
    result.dropped.append((number, reason))
