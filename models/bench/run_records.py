"""A benchmark run's records, read and checked: what :mod:`models.bench.analysis` computes from.

:func:`read_run` reads a run folder's ``bench.json`` and ``records.jsonl`` strictly: a record of
no model or task of the run, an item recorded twice, a figure outside its range or (in a
finished run) a model's missing answer is refused, naming the file and the line or the items,
unless the caller allows a partial run; then the header counts what was dropped or is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dixit_ai.jsonl import read_json

BENCH_TASKS = ("guess", "decoy", "tell")


def read_run(folder: str | Path, *, allow_partial: bool = False
             ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``bench.json`` and the records of a run folder, read strictly.

    An empty, torn or corrupt ``records.jsonl``, a record of no model or task of the run, a
    record of an item already recorded (the same task, model, clue kind and item) and a value
    outside its range (a success, share or guess rate outside [0, 1], a rank outside the board)
    are refused, naming the file and the line, unless ``allow_partial``: then such lines are
    dropped and the header's ``"dropped_records"`` counts them. A finished run must also hold
    every record: each model of a task (every model; only agents tell) answers every item that
    another answered, and as many items as ``bench.json`` says; a missing one is refused, naming
    the file, the task, the model and the items, unless ``allow_partial`` or the run was
    interrupted (``"finished": false``): then the header's ``"missing_records"`` counts them
    and ``"missing"`` says which.

    Raises:
        ValueError: the folder is not a benchmark run folder, or its records cannot be trusted
            (:class:`dixit_ai.jsonl.RecordFileError`).
    """
    from dixit_ai.jsonl import RecordFileError, json_object, read_jsonl

    path = Path(folder)
    if not (path / "bench.json").is_file() or not (path / "records.jsonl").is_file():
        raise ValueError(f"{path} is not a benchmark run folder (no bench.json and "
                         f"records.jsonl)")
    header = read_json(path / "bench.json")
    try:
        labels = {m["label"] for m in header["models"]}
        tasks = set(header["config"]["tasks"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path / 'bench.json'}: not a benchmark header ({error})") from None

    try:
        board_size = int(header["config"].get("board_size", 0)) or None
    except (TypeError, ValueError):
        board_size = None
    seen: dict[tuple[str, str, str | None, int], None] = {}

    def parse(text: str) -> dict[str, Any]:
        record = json_object(text, "benchmark record")
        if record.get("task") not in tasks or record.get("task") not in BENCH_TASKS:
            raise ValueError(f"task {record.get('task')!r} is not one of the run's "
                             f"({', '.join(sorted(tasks))})")
        if record.get("model") not in labels:
            raise ValueError(f"model {record.get('model')!r} is not one of the run's")
        _check_values(record, board_size)
        key = _record_key(record)
        if key in seen:
            raise ValueError(f"{_describe_key(key)} is recorded twice")
        seen[key] = None
        return record

    records_path = path / "records.jsonl"
    try:
        read = read_jsonl(records_path, parse, allow_partial=allow_partial,
                          what="benchmark record")
    except RecordFileError as error:
        if header.get("aborted"):  # say why the run holds so little
            raise RecordFileError(f"{error}; the run was aborted: {header['aborted']}") from None
        raise
    missing = _missing_records(header, read.records)
    if missing and not allow_partial and header.get("finished") is not False:
        raise RecordFileError(f"{records_path}: records are missing: {_missing_text(missing)};"
                              " a finished run holds every model's answer to every item: pass "
                              "--allow-partial to analyse the records it holds")
    header = {**header, "dropped_records": len(read.dropped),
              "missing_records": sum(n for _, _, _, n in missing)}
    if missing:
        header["missing"] = _missing_text(missing)
        if any(items[0].startswith("at most") for _, model, items, _ in missing
               if model == "every model"):
            header["missing_records_at_most"] = True  # stories a stopped tell task never told
    return header, read.records


def _record_key(record: dict[str, Any]) -> tuple[str, str, str | None, int]:
    """What a record answers: (task, model, clue kind of a guess, item)."""
    kind = record.get("kind") if record["task"] == "guess" else None
    return (record["task"], record["model"], None if kind is None else str(kind),
            record["item"])


def _describe_key(key: tuple[str, str, str | None, int]) -> str:
    task, model, kind, item = key
    return (f"the {task} record of model {model!r}, "
            + (f"clue kind {kind!r}, " if kind is not None else "") + f"item {item}")


def _check_values(record: dict[str, Any], board_size: int | None) -> None:
    """Refuse a record whose figures are not of their kind and range (``ValueError``)."""

    def number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    def share(name: str, optional: bool = False) -> None:
        value: Any = record.get(name)
        if value is None and optional:
            return
        if not number(value) or not 0.0 <= float(value) <= 1.0:
            raise ValueError(f"{name} {value!r} is not a number in [0, 1]")

    item = record.get("item")
    if not isinstance(item, int) or isinstance(item, bool) or item < 0:
        raise ValueError(f"item {item!r} is not a non-negative integer")
    if not isinstance(record.get("invalid"), bool):
        raise ValueError(f"invalid {record.get('invalid')!r} is not true or false")
    task = record["task"]
    if task == "guess":
        if not isinstance(record.get("kind"), str):
            raise ValueError(f"kind {record.get('kind')!r} is not a clue kind")
        share("correct")
        rank = record.get("rank")
        if rank is not None and (not isinstance(rank, int) or isinstance(rank, bool)
                                 or rank < 1 or (board_size is not None and rank > board_size)):
            raise ValueError(f"rank {rank!r} is not a position on the board "
                             f"(1..{board_size or 'board size'})")
        share("reciprocal_rank", optional=True)
        if record.get("reciprocal_rank") == 0:
            raise ValueError("reciprocal_rank 0 is not the reciprocal of a rank")
    elif task == "decoy":
        share("share")
        share("drew")
        for name in ("shares", "drew_vote"):
            values = record.get(name)
            if not isinstance(values, list) or not all(
                    number(v) and 0.0 <= v <= 1.0 for v in values):
                raise ValueError(f"{name} {values!r} is not a list of numbers in [0, 1]")
    else:  # tell
        for name in ("success", "observed", "predicted", "target"):
            share(name, optional=True)


def _missing_records(header: dict[str, Any], records: Sequence[dict[str, Any]]
                     ) -> list[tuple[str, str, list[Any], int]]:
    """``(what, model, missing items, number of records)`` for every model lacking items of a
    task (and clue kind) that another model answered, or that ``bench.json`` counts; items that
    no model answered are one entry for ``"every model"``, whose number counts every model's
    record. A run stopped before its tell task was done counts its storytellers' story items
    (``story:<label>``) as one per tell item, the most there can be (``"stories": "at most"``
    in ``bench.json``'s ``items``): those entries say "at most"."""
    tasks = [t for t in header["config"]["tasks"] if t in BENCH_TASKS]
    models = [m["label"] for m in header["models"]]
    agents = [m["label"] for m in header["models"] if m.get("kind") == "agent"]
    items = header.get("items")
    counts: dict[str, Any] = items if isinstance(items, dict) else {}
    at_most = counts.get("stories") == "at most"
    answered: dict[tuple[str, str | None], dict[str, set[int]]] = {}
    for record in records:
        task, model, kind, item = _record_key(record)
        answered.setdefault((task, kind), {}).setdefault(model, set()).add(item)
    groups: list[tuple[str, str | None, int | None]] = []
    for task in tasks:
        if task == "guess":
            guess = counts.get("guess")
            said: dict[str, Any] = guess if isinstance(guess, dict) else {}
            kinds = list(dict.fromkeys([*said, *(k for t, k in answered if t == "guess")]))
            groups += [("guess", k, said.get(str(k))) for k in kinds]
        else:
            count = counts.get(task)
            groups.append((task, None, count if isinstance(count, int) else None))
    missing: list[tuple[str, str, list[Any], int]] = []
    for task, kind, count in groups:
        by_model = answered.get((task, kind), {})
        expected = set().union(*by_model.values()) if by_model else set()
        story = str(kind).startswith("story:")
        if count is not None and len(expected) < count and not story:
            expected |= set(range(count))
        what = f"{task}" + (f" ({kind})" if kind is not None else "")
        answering = agents if task == "tell" else models
        for model in answering:
            lacking = sorted(expected - by_model.get(model, set()))
            if lacking:
                missing.append((what, model, lacking, len(lacking)))
        if count is not None and len(expected) < count:  # items nobody answered (stories)
            bound = "at most " if story and at_most else ""
            missing.append((what, "every model",
                            [f"{bound}{count - len(expected)} of {count} items"],
                            (count - len(expected)) * len(answering)))
    return missing


def _missing_text(missing: Sequence[tuple[str, str, list[Any], int]]) -> str:
    parts = []
    for what, model, items, _ in missing[:6]:
        shown = ", ".join(str(i) for i in items[:8]) + (", ..." if len(items) > 8 else "")
        parts.append(f"{what} of {model}: item{'s' if len(items) != 1 else ''} {shown}")
    more = f"; and {len(missing) - 6} more" if len(missing) > 6 else ""
    return "; ".join(parts) + more
