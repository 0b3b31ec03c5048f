"""A tournament's run folder read back: its records checked against the schedule, its failures,
the games missing from it, and its report recomputed from the records alone."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from dixit_ai.jsonl import JsonlRecords, read_jsonl
from dixit_ai.records import GameRecord
from dixit_ai.reporting import DEFAULT_RESAMPLES, check_folder_path, run_folder
from dixit_ai.tournament.agent_check import agent_lines, first_descriptions, read_run_agents
from dixit_ai.tournament.analysis import RATING_RESAMPLES, TournamentResults, analyse
from dixit_ai.tournament.config import TournamentConfig
from dixit_ai.tournament.lock import run_in_play
from dixit_ai.tournament.report import (
    RATINGS_PLOT,
    REPORT_MD,
    RESULTS_CSV,
    RESULTS_JSON,
    WIN_RATE_PLOT,
    write_report,
)
from dixit_ai.tournament.run_rules import RunRules
from dixit_ai.tournament.schedule import balance_period, games_to_seat_everyone
from dixit_ai.tournament.store import (
    CONFIG_FILE,
    GAMES_FILE,
    bootstrap_counts,
    check_scheduled,
    check_totals,
    read_run_config,
    report_settings,
    schedule_of,
)
from dixit_ai.tournament.summary import GameSummary, summarize

T = TypeVar("T")


def bootstrap_settings(n_resamples: int | None, rating_resamples: int | None,
                        stored: tuple[int, int] | None) -> tuple[int, int]:
    """The report's ``(resamples, rating resamples)``: those given, else the run's own
    (``stored``), else the defaults."""
    own = stored or (DEFAULT_RESAMPLES, RATING_RESAMPLES)
    return (own[0] if n_resamples is None else n_resamples,
            own[1] if rating_resamples is None else rating_resamples)


def read_run_records(folder: str | Path, *, allow_partial: bool = False,
                     being_written: bool = False
                     ) -> tuple[TournamentConfig, JsonlRecords[GameRecord]]:
    """A run folder's config and its records, read strictly for an analysis.

    Every line must be a record of this tournament's schedule (as for a resume), and the last
    line must be complete: an analysis of a torn or corrupt file is refused, naming the file and
    the line, unless ``allow_partial`` (then such lines are dropped and counted). Of a run
    ``being_written`` (played now by another process), a torn last line is the game being
    written: it is left out.

    Raises:
        ValueError: not a run folder, or a record file that cannot be trusted
            (:class:`~dixit_ai.jsonl.RecordFileError`).
    """
    config, read = _read_run(folder, lambda record: record, allow_partial=allow_partial,
                             being_written=being_written)
    return config, JsonlRecords(read.path, [(number, record) for number, (_, record)
                                            in read.items], read.dropped)


def _read_run(folder: str | Path, reduce: Callable[[GameRecord], T], *,
              allow_partial: bool = False, being_written: bool = False
              ) -> tuple[TournamentConfig, JsonlRecords[tuple[int, T]]]:
    """:func:`read_run_records`, each record checked and then reduced at once (an analysis
    keeps its :func:`~dixit_ai.tournament.summary.summarize`, not the record), as
    ``(schedule index, reduced)`` in schedule order."""
    config, version = read_run_config(folder)
    schedule = schedule_of(config, version)
    seen: set[int] = set()
    rules = RunRules.of(config)

    def parse(text: str) -> tuple[int, T]:
        record = GameRecord.from_json(text)
        index = check_scheduled(record, schedule, seen, name=config.name, rules=rules)
        seen.add(index)
        return index, reduce(record)

    if not (Path(folder) / GAMES_FILE).exists():  # a run stopped before its first game
        raise ValueError(f"{folder}: no game recorded yet (no {GAMES_FILE}); play its games "
                         f"with: dixit-ai tournament --resume {folder}")
    read = read_jsonl(Path(folder) / GAMES_FILE, parse, allow_partial=allow_partial,
                      what="game record", being_written=being_written)
    read.items.sort(key=lambda item: item[1][0])
    return config, read


def run_failures(folder: str | Path, *, limit: int, allow_partial: bool = True
                 ) -> tuple[list[GameRecord], int]:
    """The first records of a run folder (in schedule order) holding its first ``limit``
    agent failures, each without its rounds, and the count of all its failures: what a
    summary of the failures needs, without holding every record (see
    :func:`read_run_records` for how they are read)."""
    def failed(record: GameRecord) -> GameRecord | None:
        if not record.failures:
            return None
        return GameRecord(header=record.header, rounds=[], final_scores=record.final_scores,
                          winners=record.winners, status=record.status,
                          failures=record.failures)

    _, read = _read_run(folder, failed, allow_partial=allow_partial)
    shown: list[GameRecord] = []
    counted = total = 0
    for _, (_, record) in read.items:
        if record is None:
            continue
        total += len(record.failures)
        if counted < limit:
            shown.append(record)
            counted += len(record.failures)
    return shown, total


def load_run_records(folder: str | Path, *, allow_partial: bool = False
                     ) -> tuple[TournamentConfig, list[GameRecord]]:
    """A run folder's config and its records in schedule order (see :func:`read_run_records`)."""
    config, read = read_run_records(folder, allow_partial=allow_partial)
    return config, read.records


def run_bootstrap_settings(folder: Path) -> tuple[tuple[int, int], str] | None:
    """``(resamples, rating resamples)`` that a run folder's ``results.json`` states, else
    those its ``config.json`` keeps (a run interrupted before its report, or a report that
    cannot be read or states no valid counts), each with the name of the file it came from;
    ``None`` when neither holds them (a run started before they were kept, with no readable
    report)."""
    import json

    try:
        method = json.loads((folder / RESULTS_JSON).read_text(encoding="utf-8"))["method"]
        counts = bootstrap_counts(method["n_resamples"], method["rating_resamples"])
    except (OSError, ValueError, KeyError, TypeError):
        counts = None
    if counts is not None:
        return counts, RESULTS_JSON
    kept = report_settings(folder)
    return None if kept is None else (kept, CONFIG_FILE)


def missing_games(config: TournamentConfig, records: list[GameRecord]) -> list[int]:
    """Schedule indices below the last recorded game that have no record (games cut from the
    middle of ``games.jsonl``; the games after the last one were not played yet)."""
    return _missing(record.header["tournament"]["game"] for record in records)


def _missing(indices: Iterable[int]) -> list[int]:
    played = set(indices)
    return [index for index in range(max(played, default=-1) + 1) if index not in played]


def _numbers(values: list[int]) -> str:
    shown = ", ".join(str(v) for v in values[:12])
    return shown + (f", ... ({len(values)} in all)" if len(values) > 12 else "")


def schedule_notes(folder: Path, config: TournamentConfig, indices: Iterable[int], *,
                   playing: bool = False) -> list[str]:
    """What an analysis of a run folder's records must say of its schedule: a run unfinished
    (or ``playing``: played now by another process), with its seats unbalanced when the games
    recorded are not whole rotations, and games missing from the middle of ``games.jsonl``.
    ``indices`` are the schedule indices of the games recorded."""
    indices = list(indices)
    notes: list[str] = []
    last = max(indices, default=-1)
    if last + 1 < config.games:  # games after the last recorded one: not played yet
        period = balance_period(len(config.agents), config.players)
        count = len(indices)
        notes.append(f"the run is {'being played' if playing else 'unfinished'}: "
                     f"{count} of its {config.games} scheduled games are recorded"
                     + (" so far" if playing else "")
                     + (f" (the seats are not balanced: a rotation is {period} games)"
                        if count % period else "")
                     + ("; another process is playing it (analyse it again once it "
                        "ends)" if playing else
                        f"; continue it with: dixit-ai tournament --resume {folder}"))
    missing = _missing(indices)
    if missing:
        notes.append(f"{len(missing)} of the {config.games} scheduled games "
                     f"{'is' if len(missing) == 1 else 'are'} missing "
                     f"from {GAMES_FILE}: game{'s' if len(missing) != 1 else ''} "
                     f"{_numbers(missing)}; these figures cover the other "
                     f"{len(indices)}")
    return notes


REPORT_FILES = (RESULTS_CSV, RESULTS_JSON, RATINGS_PLOT, WIN_RATE_PLOT, REPORT_MD)
"""The files a report writes (an analysis never replaces them unless told to)."""


def check_no_report(folder: Path) -> None:
    """Refuse to write a report into ``folder`` over an earlier one.

    Raises:
        ValueError: ``folder`` holds a report file (the message says how to proceed).
    """
    present = [name for name in REPORT_FILES if (folder / name).exists()]
    if present:
        raise ValueError(f"{folder} already holds a report ({', '.join(present)}); pass "
                         "--overwrite to replace it, or --out another folder")


def unseated_note(left: list[str], config: TournamentConfig, *, finished: bool = True
                  ) -> str:
    """What to say of agents that have no seat in a tournament's games (``finished``: in all
    its games; else in those played so far)."""
    needed = games_to_seat_everyone(len(config.labels), config.players)
    return (f"{len(left)} of the {len(config.labels)} agents had no seat in "
            + (f"the {config.games} game{'s' if config.games != 1 else ''}" if finished
               else "the games recorded so far")
            + f" ({', '.join(left)}): each deal seats {config.players} agents, those that "
            f"played least first; {needed} games or more give every agent a seat")


def analyse_folder(folder: str | Path, *, out: str | Path | None = None,
                   n_resamples: int | None = None,
                   rating_resamples: int | None = None, allow_partial: bool = False,
                   overwrite: bool = False, new_folder_in: str | Path | None = None,
                   announce: Callable[[Path], None] | None = None
                   ) -> tuple[TournamentResults, dict[str, Any]]:
    """Recompute a tournament's results from its records and write the report.

    ``folder`` is a tournament run folder (or its ``games.jsonl``), or any ``.jsonl`` file of
    game records. The records are read strictly (:func:`dixit_ai.jsonl.read_jsonl`): a torn,
    empty or corrupt file is refused unless ``allow_partial``, and then the report says how many
    records were dropped. Games of the schedule missing from a run folder's records (a line
    deleted from the middle) are named in a warning the report carries.

    The bootstrap of a run folder uses the run's own settings by default (the resamples its
    ``results.json`` states, the tournament's seed), so that the report reproduces the run's
    intervals; ``n_resamples`` / ``rating_resamples`` override them, and the report says so. A
    bare records file does not carry the tournament's seed: its bootstrap seed is 0 (and the
    resamples the defaults, 2000 and 200), and the report says so.

    The report goes to ``out``; else, with ``new_folder_in``, to a new run
    folder there (``tournament-analysis__<name>__<seed>__<time>``); else next to the records (the
    run folder itself, or the records file's folder). It never replaces an earlier report
    unless ``overwrite``; nothing is written when anything is refused. ``announce`` is called
    with the report's folder once everything is read and checked, before the report is
    written (an error after it is a failure to write, not bad input).

    Returns:
        The results and the written files by kind.

    Raises:
        ValueError: not a run folder or a records file, records that cannot be trusted, no
            game to analyse, an ``out`` that is a file (see
            :func:`dixit_ai.reporting.check_folder_path`), or a report already in the target
            folder.
    """
    path = Path(folder)
    if path.is_file() and path.name == GAMES_FILE and (path.parent / CONFIG_FILE).exists():
        path = path.parent  # a run folder's own records: its config names the agents
    config_data: dict[str, Any] | None = None
    notes: list[str] = []
    entrants: list[str] = []   # a run folder's agents (a records file does not name them all)
    if path.is_dir() and (path / CONFIG_FILE).exists():
        playing = run_in_play(path)  # another process plays it now: its records grow
        config, run_read = _read_run(path, summarize, allow_partial=allow_partial,
                                     being_written=playing)
        indices = [index for _, (index, _) in run_read.items]
        read = JsonlRecords(run_read.path, [(number, summary) for number, (_, summary)
                                            in run_read.items], run_read.dropped)
        config_data, title, seed, name = (config.to_dict(), f"Tournament {config.name}",
                                          config.seed, config.name)
        entrants = config.labels
        beside = path
        found = run_bootstrap_settings(path)
        stored = None if found is None else found[0]
        origin = (f"the run's own ({found[1]})" if found is not None else
                  f"the defaults (neither the run's {RESULTS_JSON} nor its {CONFIG_FILE} "
                  "states them)")
        own = stored or (DEFAULT_RESAMPLES, RATING_RESAMPLES)
        notes += schedule_notes(path, config, indices, playing=playing)
    elif path.is_file():
        def parse(text: str) -> GameSummary:
            record = GameRecord.from_json(text)
            check_totals(record)
            return summarize(record)

        read = read_jsonl(path, parse, allow_partial=allow_partial, what="game record")
        title, seed, name = f"Games of {path.name}", 0, path.stem
        beside = path.parent
        origin = ("the defaults, bootstrap seed 0: a records file alone does not carry the "
                  "tournament's seed (analyse its run folder to reproduce the run's intervals)")
        own, stored = (DEFAULT_RESAMPLES, RATING_RESAMPLES), None
    elif path.is_dir():
        raise ValueError(f"{path}: not a tournament run folder (no {CONFIG_FILE})")
    else:
        raise ValueError(f"{path}: no such run folder or records file")
    chosen = bootstrap_settings(n_resamples, rating_resamples, own)
    overridden = [f"{option} {value} (not {default})" for option, value, default in
                  (("--resamples", n_resamples, own[0]),
                   ("--rating-resamples", rating_resamples, own[1]))
                  if value is not None and value != default]
    # Said where the intervals are not the run's own as its report printed them: another
    # option, a run without a report, a records file without the tournament's seed.
    settings = None
    if path.is_file() or (stored is not None and overridden) or (
            stored is None and (n_resamples is None or rating_resamples is None)):
        settings = f"Bootstrap settings: {origin}"
        if overridden:
            settings += ", overridden by " + " and ".join(overridden)
    results = analyse(read.records, n_resamples=chosen[0], rating_resamples=chosen[1],
                      seed=seed, entrants=entrants)
    left = [s.agent for s in results.standings if s.agent in entrants and not s.seat_games
            and not s.aborted_games and not s.failures]
    if left:
        notes.append(unseated_note(left, config, finished=not any(
            note.startswith("the run is") for note in notes)))
    results = dataclasses.replace(results, dropped=len(read.dropped), settings=settings,
                                  notes=tuple(notes))
    if out is not None:
        target = Path(out)
    elif new_folder_in is not None:
        target = None
    else:
        target = beside
    if target is not None:
        check_folder_path(target)
    if target is not None and not overwrite:
        check_no_report(target)
    if target is None:
        target = run_folder("tournament-analysis", name, seed, root=new_folder_in or "runs")
    if announce is not None:
        announce(target)
    if target.resolve() != beside.resolve():  # a report away from its records names them
        results = dataclasses.replace(results, source=str(read.path))
    agents = None
    if config_data is not None:  # a run folder: what each agent was, for the report
        agents = agent_lines(read_run_agents(beside), first_descriptions(
            beside / GAMES_FILE, entrants), entrants)
    files = write_report(target, results, config=config_data, title=title, agents=agents)
    return results, files
