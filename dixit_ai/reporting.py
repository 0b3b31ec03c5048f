"""What benchmarks and tournaments share on the way out: run folders, bootstrap intervals, tables.

Every figure a report prints is recomputable from the records in its run folder; this module only
formats and resamples. Bootstrap intervals are percentile intervals over resampled *items* (games,
boards, rounds), drawn from a seeded generator, so the same records and seed give the same
interval. The plots shared by reports are :mod:`dixit_ai.plots` (re-exported here).
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import math
import os
import re
import shutil
import textwrap
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.files import atomic_writer
from dixit_ai.plots import draw_rate_matrix as draw_rate_matrix
from dixit_ai.plots import plot_intervals as plot_intervals
from dixit_ai.plots import side_colorbar as side_colorbar

__all__ = [
    "LOG_PROGRESS_INTERVAL",
    "Interval",
    "bootstrap",
    "bootstrap_indices",
    "check_folder_path",
    "cluster_numbers",
    "draw_rate_matrix",
    "markdown_table",
    "mean_interval",
    "new_run_dir",
    "plot_intervals",
    "print_table",
    "progress_interval",
    "run_folder",
    "side_colorbar",
    "write_csv",
    "write_json",
    "write_text",
]

DEFAULT_RESAMPLES = 2000
DEFAULT_LEVEL = 0.95

LOG_PROGRESS_INTERVAL = 60.0
"""Seconds between redraws of a progress bar when its stream is not a terminal (a log file, a
pipe): a week-long run at tqdm's default (ten a second) would fill its log with redraws."""


def progress_interval(stream: Any) -> float:
    """The least seconds between a progress bar's redraws on ``stream`` (tqdm's ``mininterval``):
    tqdm's default (0.1) on a terminal, :data:`LOG_PROGRESS_INTERVAL` elsewhere (a log file, a
    pipe, a closed stream or an object without ``isatty``).

    >>> import io
    >>> progress_interval(io.StringIO()) == LOG_PROGRESS_INTERVAL
    True
    """
    try:
        terminal = bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        terminal = False
    return 0.1 if terminal else LOG_PROGRESS_INTERVAL


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval."""

    estimate: float
    low: float
    high: float

    def __str__(self) -> str:
        return self.format()

    def format(self, digits: int = 3) -> str:
        """``0.512 [0.480, 0.545]``."""
        if math.isnan(self.estimate):
            return "n/a"
        return f"{self.estimate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"

    def to_dict(self) -> dict[str, float]:
        return {"estimate": self.estimate, "low": self.low, "high": self.high}


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence level must be in (0, 1), got {level}")


def bootstrap_indices(n_items: int, *, n_resamples: int = DEFAULT_RESAMPLES,
                      seed: int = 0) -> np.ndarray:
    """``(n_resamples, n_items)`` indices drawn with replacement, from a seeded generator."""
    if n_items < 1:
        raise ValueError(f"bootstrap needs at least 1 item, got {n_items}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_items, size=(n_resamples, n_items))


def cluster_numbers(clusters: Sequence[Any] | np.ndarray, n_items: int, *,
                    unit: str = "value") -> np.ndarray:
    """Each item's cluster, numbered ``0, 1, ...`` by first appearance.

    Raises:
        ValueError: not one label per item (the message counts them as ``unit``).
    """
    if len(clusters) != n_items:
        raise ValueError(f"clusters must give one label per {unit}: {len(clusters)} labels for "
                         f"{n_items} {unit}s")
    order: dict[Any, int] = {}
    return np.array([order.setdefault(label, len(order)) for label in clusters], dtype=np.int64)


def bootstrap(statistic: Callable[[np.ndarray], Any], n_items: int, *,
              n_resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL,
              seed: int = 0, batched: bool = False,
              clusters: Sequence[Any] | np.ndarray | None = None,
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile bootstrap of any statistic of resampled items.

    ``statistic(indices)`` returns a scalar or a 1-d array (one value per agent, per model...)
    computed from the items at ``indices`` (an array of item positions, with repeats). Returns
    ``(estimate, low, high)``, each with the statistic's shape; the estimate is the statistic on
    all items (not the bootstrap mean). With ``batched``, ``statistic`` takes every resample at
    once (indices of shape ``(resamples, n_items)``) and returns one row per resample: the same
    figures, without a Python call per resample.

    With ``clusters`` (one label per item) a resample draws whole clusters with replacement and
    passes the positions of all their items (the cluster bootstrap, as in
    :func:`mean_interval`, which draws the same clusters for the same seed); resamples then
    differ in length, so it cannot be ``batched``.
    """
    _check_level(level)
    if clusters is not None:
        if batched:
            raise ValueError("a cluster bootstrap's resamples differ in length: it cannot be "
                             "batched")
        which = cluster_numbers(clusters, n_items)
        members = [np.flatnonzero(which == c) for c in range(int(which.max()) + 1)]
        drawn = bootstrap_indices(len(members), n_resamples=n_resamples, seed=seed)
        estimate = np.asarray(statistic(np.arange(n_items)), dtype=np.float64)
        samples = np.stack([np.asarray(statistic(np.concatenate([members[c] for c in row])),
                                       dtype=np.float64) for row in drawn])
        alpha = (1.0 - level) / 2.0
        return (estimate, np.asarray(np.nanquantile(samples, alpha, axis=0)),
                np.asarray(np.nanquantile(samples, 1.0 - alpha, axis=0)))
    indices = bootstrap_indices(n_items, n_resamples=n_resamples, seed=seed)
    if batched:
        estimate = np.asarray(statistic(np.arange(n_items)[None, :]), dtype=np.float64)[0]
        samples = np.asarray(statistic(indices), dtype=np.float64)
    else:
        estimate = np.asarray(statistic(np.arange(n_items)), dtype=np.float64)
        samples = np.stack([np.asarray(statistic(idx), dtype=np.float64) for idx in indices])
    alpha = (1.0 - level) / 2.0
    low = np.nanquantile(samples, alpha, axis=0)
    high = np.nanquantile(samples, 1.0 - alpha, axis=0)
    return estimate, np.asarray(low), np.asarray(high)


def mean_interval(values: Sequence[float] | np.ndarray, *,
                  n_resamples: int = DEFAULT_RESAMPLES, level: float = DEFAULT_LEVEL,
                  seed: int = 0, clusters: Sequence[Any] | np.ndarray | None = None) -> Interval:
    """The mean of ``values`` with a percentile-bootstrap interval; NaN for no values.

    With ``clusters`` (one label per value), whole clusters are resampled instead of values
    (the *cluster bootstrap*): values that share a label are not independent evidence (the same
    card told with the same clue in many hands, say), and resampling them one by one makes the
    interval too narrow. A resample's mean is over every value of the clusters drawn. With every
    label distinct it draws exactly the resamples of the plain bootstrap.

    Raises:
        ValueError: ``values`` is not 1-d, or ``clusters`` is not one label per value.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.ndim != 1:
        raise ValueError(f"mean_interval takes a 1-d sequence, got shape {data.shape}")
    which = None if clusters is None else cluster_numbers(clusters, data.size)
    if data.size == 0:
        return Interval(math.nan, math.nan, math.nan)
    _check_level(level)
    if which is None:
        # Vectorised: the mean of every resample at once.
        idx = bootstrap_indices(data.size, n_resamples=n_resamples, seed=seed)
        means = data[idx].mean(axis=1)
    else:
        k = int(which.max()) + 1
        sums = np.bincount(which, weights=data, minlength=k)
        sizes = np.bincount(which, minlength=k).astype(np.float64)
        idx = bootstrap_indices(k, n_resamples=n_resamples, seed=seed)
        means = sums[idx].sum(axis=1) / sizes[idx].sum(axis=1)
    alpha = (1.0 - level) / 2.0
    return Interval(float(data.mean()), float(np.quantile(means, alpha)),
                    float(np.quantile(means, 1.0 - alpha)))


_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def check_folder_path(path: str | os.PathLike[str], option: str = "") -> None:
    """Refuse a path given for a folder (an output folder, a folder of run folders) that names
    a file, before anything is run or written: the one check, and message, of every command.

    Args:
        path: The folder's path; one that does not exist yet passes (it will be made) unless a
            folder above it is a file.
        option: The option that gave it (``"--out"``), to start the message with.

    Raises:
        ValueError: ``[OPTION ]PATH is a file, not a folder: give the path of a folder (an
            existing one, or one to make)``; for a path under a file, ``[OPTION ]PATH: FILE is
            a file, not a folder: ...``.
    """
    folder = Path(path)
    existing = next((p for p in (folder, *folder.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        named = f"{option} {path}" if option else str(path)
        where = named if existing == folder else f"{named}: {existing}"
        raise ValueError(f"{where} is a file, not a folder: give the path of a folder (an "
                         "existing one, or one to make)")


def run_folder(kind: str, name: str, seed: int, *, root: str | os.PathLike[str] = "runs",
               when: _dt.datetime | None = None) -> Path:
    """Create and return ``ROOT/<kind>__<name>__<seed>__<UTC time>/`` (never an existing one:
    ``-2``, ``-3``, ... as :func:`new_run_dir`).

    Raises:
        ValueError: ``root`` is a file (see :func:`check_folder_path`), or cannot hold a folder
            (``root`` and the reason named).
    """
    stamp = (when or _dt.datetime.now(_dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
    slug = _SLUG.sub("-", name).strip("-") or "run"
    return _new_folder(root, f"{kind}__{slug}__{seed}__{stamp}")


def new_run_dir(out: str | os.PathLike[str], exp_name: str, seed: int, *,
                now: float | None = None) -> Path:
    """Make and return a script's run folder, ``{out}/{exp_name}__{seed}__{time}`` (``time``:
    whole seconds since the epoch, ``now`` or ``time.time()``, as CleanRL names its runs), never
    one that exists: a run started in the same second takes ``...-2``, then ``-3``, ...

    Raises:
        ValueError: ``out`` is a file (see :func:`check_folder_path`), or cannot hold a folder
            (``out`` and the reason named).
    """
    return _new_folder(out, f"{exp_name}__{seed}__{int(time.time() if now is None else now)}")


def _new_folder(root: str | os.PathLike[str], name: str) -> Path:
    """Make ``root/name`` (and ``root``'s missing parents), or the first of ``name-2``,
    ``name-3``, ... that does not exist. Each name is tried with one exclusive ``mkdir``, so two
    runs (two processes) never share a folder, whatever their clocks say."""
    check_folder_path(root)
    base = Path(root) / name
    path, n = base, 1
    while True:
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:  # another run's folder (or anything else) has this name
            n += 1
            path = base.with_name(f"{base.name}-{n}")
        except OSError as error:
            raise ValueError(f"{root}: cannot make the run's folder {path.name} "
                             f"({error.strerror or error})") from None


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` atomically (:func:`dixit_ai.files.atomic_writer`: a temporary file in
    the same folder, synced, then renamed over ``path``)."""
    with atomic_writer(path) as handle:
        handle.write(text)
    return Path(path)


def save_figure(figure: Any, path: str | os.PathLike[str], **savefig: Any) -> Path:
    """Save a matplotlib ``figure`` to ``path`` atomically: the one way the project writes a
    figure (through :func:`dixit_ai.files.atomic_writer`; a save that fails part-way, or
    Ctrl-C, leaves an existing file as it was and no temporary file).

    Args:
        figure: A matplotlib ``Figure`` (it is neither closed nor changed).
        path: The file; missing parent folders are made.
        **savefig: What ``Figure.savefig`` takes (``dpi=...``); ``format`` defaults to the
            name's suffix (``.png``: PNG).

    Raises:
        ValueError: ``path`` has no suffix and no ``format`` is given (nothing is written).
    """
    target = Path(path)
    file_format = savefig.pop("format", None) or target.suffix.lstrip(".")
    if not file_format:
        raise ValueError(f"save_figure {target}: no format (give the file a suffix such as "
                         "'.png', or format=)")
    with atomic_writer(target, "wb") as handle:
        figure.savefig(handle, format=file_format, **savefig)
    return target


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write ``data`` as indented JSON, atomically; NaN is written as null."""
    return write_text(path, json.dumps(_json_safe(data), indent=2, sort_keys=False) + "\n")


def _json_safe(value: Any) -> Any:
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, np.generic):
        return _json_safe(value.item())
    if isinstance(value, np.ndarray):
        return [_json_safe(v) for v in value.tolist()]
    if isinstance(value, Interval):
        return _json_safe(value.to_dict())
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def write_csv(path: str | os.PathLike[str], rows: Sequence[Mapping[str, Any]],
              columns: Sequence[str] | None = None) -> Path:
    """Write ``rows`` (dicts) as CSV; columns default to the first row's keys, in order."""
    if columns is None:
        columns = list(rows[0].keys()) if rows else []
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), extrasaction="ignore",
                            lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(row.get(k)) for k in columns})
    return write_text(path, buffer.getvalue())


def _cell(value: Any) -> Any:
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.6g}"
    if isinstance(value, Interval):
        return value.format()
    return "" if value is None else value


def _format(value: Any, digits: int) -> str:
    if isinstance(value, Interval):
        return value.format(digits)
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *,
                   digits: int = 3) -> str:
    """A GitHub-flavoured Markdown table; floats and intervals are formatted with ``digits``."""
    def esc(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(esc(c) for c in columns) + " |",
             "|" + "|".join("---" for _ in columns) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(esc(_format(v, digits)) for v in row) + " |")
    return "\n".join(lines) + "\n"


def print_table(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *,
                digits: int = 3, file: Any = None, min_width: int = 100) -> None:
    """Print a table to the terminal with rich (a plain-text table where rich is absent).

    The table is laid out at least ``min_width`` characters wide (wider terminals use their
    width), so that intervals are not wrapped when output goes to a file or a pipe.
    """
    rows = [list(r) for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:  # pragma: no cover - rich is a core dependency
        print(title, file=file)
        print(markdown_table(columns, rows, digits=digits), file=file)
        return
    from rich.markup import escape

    # escaped: a title holds names (a run's, its agents') that may look like style tags
    table = Table(title=escape(title), title_justify="left", min_width=min(len(title), 100))
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=i == 0)

    for row in rows:  # escaped: an interval "[nan, nan]" is text, not a style tag
        table.add_row(*(escape(_format(v, digits)) for v in row))
    console = _console(Console, file=file)
    if console.width < 1:  # COLUMNS=0, which rich takes as the width: no width known
        console = _console(Console, file=file,
                           width=shutil.get_terminal_size((80, 24)).columns)
    if console.is_terminal or _positive_columns():
        # A terminal of known width: a table too wide for it would wrap into unreadable rows,
        # so it is printed as one block per row instead.
        from rich.measure import Measurement

        needed = Measurement.get(console, console.options.update_width(10_000),
                                 table).maximum
        if needed > console.width:
            print_blocks(title, columns, rows, digits=digits, file=file,
                         width=max(console.width, MIN_BLOCK_WIDTH))
            return
        console.print(table)
        return
    _console(Console, file=file, width=max(min_width, console.width)).print(table)


MIN_BLOCK_WIDTH = 20
"""The narrowest a table's title is wrapped to, one block per row (``COLUMNS=5`` would wrap it
five characters a line)."""


def _positive_columns() -> bool:
    """Whether ``COLUMNS`` gives a width (a positive integer; ``0`` or text gives none, as
    :func:`shutil.get_terminal_size` reads it)."""
    columns = os.environ.get("COLUMNS", "").strip()
    return columns.isdigit() and int(columns) > 0


def _console(console_class: Any, **options: Any) -> Any:
    """A rich console whose broken pipe (a reader gone away, ``| head``) is raised as
    :class:`BrokenPipeError`, which the command line ends quietly with 141: rich's own handling
    ends the program with ``SystemExit(1)``, the status of a failed run."""

    class _Console(console_class):  # type: ignore[misc]
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return _Console(**options)


def print_blocks(title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *,
                 digits: int = 3, file: Any = None, width: int = 80) -> None:
    """A table for a narrow terminal: the title, then one block per row, one line per column.

    The first column names the block (a leading ``#`` rank column joins it: ``1. name``); each
    further column is a ``name  value`` line.
    """
    print(textwrap.fill(title, width=width), file=file)
    ranked = len(columns) > 1 and columns[0] == "#"
    shown = list(columns[2:] if ranked else columns[1:])
    label = max((len(str(c)) for c in shown), default=0)
    for row in rows:
        values = [_format(v, digits) for v in row]
        print("", file=file)
        print(f"{values[0]}. {values[1]}" if ranked else values[0], file=file)
        for column, value in zip(shown, values[len(columns) - len(shown):], strict=True):
            if value != "":
                print(f"  {column:<{label}}  {value}", file=file)
