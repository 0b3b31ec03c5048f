"""Running a tournament end to end: schedule, play (resumably), analyse, report."""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from tqdm import tqdm

from dixit_ai.decks import Deck
from dixit_ai.jsonl import JsonlRecords, read_jsonl
from dixit_ai.records import GameRecord
from dixit_ai.reporting import (
    DEFAULT_RESAMPLES,
    check_folder_path,
    progress_interval,
    run_folder,
)
from dixit_ai.tournament.analysis import (
    RATING_RESAMPLES,
    GameSummary,
    TournamentResults,
    analyse,
    summarize,
)
from dixit_ai.tournament.config import TournamentConfig, check_seconds
from dixit_ai.tournament.deck_check import check_run_deck, deck_identity, read_run_deck
from dixit_ai.tournament.report import (
    RATINGS_PLOT,
    REPORT_MD,
    RESULTS_CSV,
    RESULTS_JSON,
    WIN_RATE_PLOT,
    write_report,
)
from dixit_ai.tournament.runner import Backend, GamePlayer, InPlay, check_backend, play_games
from dixit_ai.tournament.schedule import balance_period
from dixit_ai.tournament.store import (
    CONFIG_FILE,
    GAMES_FILE,
    GamesWriter,
    ResumeError,
    bootstrap_counts,
    check_same_config,
    check_scheduled,
    check_totals,
    lock_run,
    read_games,
    read_run_config,
    report_settings,
    run_in_play,
    same_deck,
    schedule_of,
    write_config,
)
from dixit_ai.tournament.store import (
    on_failure_chosen as stored_choice,
)

T = TypeVar("T")


STALL_REPORT_AFTER = 300.0
"""Seconds without a finished game after which a run says which games are in play, and for how
long (then again every as many seconds while it stays stalled)."""


MAX_STALL_AFTER = 604_800.0
"""The longest stall delay, in seconds (a week): past it, turn the warning off."""


def check_stall_after(value: Any) -> None:
    """Refuse a stall delay that is not a number of seconds above 0 and at most
    :data:`MAX_STALL_AFTER` (``None``: no warning). At 0 the watch would say so in a busy loop.

    Raises:
        ValueError: naming the value and the limits.
    """
    check_seconds(value, "stall_after", MAX_STALL_AFTER, "or None: no warning")


class StallWatch:
    """Says, through ``say``, which games are in play and for how long whenever no game has
    finished for ``after`` seconds (an entrant that hangs stalls a run without a word
    otherwise)."""

    def __init__(self, in_play: InPlay, seats: dict[int, tuple[str, ...]], after: float,
                 say: Callable[[str], None]) -> None:
        self.in_play, self.seats, self.after, self.say = in_play, seats, after, say
        self.last = time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="tournament-stall-watch",
                                       daemon=True)

    def __enter__(self) -> StallWatch:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()

    def progress(self) -> None:
        """A game finished (its record was written)."""
        self.last = time.monotonic()

    def _watch(self) -> None:
        said: float | None = None  # when it last said so
        while not self.stop.wait(min(self.after / 4, 5.0)):
            now = time.monotonic()
            if now - self.last < self.after:
                continue
            if said is not None and said > self.last and now - said < self.after:
                continue  # said already during this stall: again after as long
            said = now
            self.say(self.message(now - self.last))

    def message(self, quiet: float) -> str:
        games = self.in_play.now()
        listed = "; ".join(
            f"game {index} ({', '.join(self.seats.get(index, ()))}) in play for "
            f"{seconds:.0f} s in {where}" for index, seconds, where in games[:12])
        more = f"; and {len(games) - 12} more" if len(games) > 12 else ""
        return (f"no game finished for {quiet:.0f} s; "
                + (f"in play: {listed}{more}" if games else "no game is known to be in play")
                + " (an entrant that hangs stalls its game: set decision_timeout, "
                "--decision-timeout, to end such a decision as its failure)")


@dataclass
class TournamentRun:
    """What :func:`run_tournament` did.

    Attributes:
        folder: The run folder.
        config: The tournament's config.
        results: The standings (``None`` when ``report=False``).
        played: Games played by this call.
        already: Games found in the folder when resuming.
        dropped_bytes: Bytes of an incomplete last record cut off when resuming.
        elapsed: Seconds spent playing.
        files: The report's files by kind.
    """

    folder: Path
    config: TournamentConfig
    results: TournamentResults | None
    played: int
    already: int
    dropped_bytes: int
    elapsed: float
    files: dict[str, Path]

    @property
    def games_path(self) -> Path:
        return self.folder / GAMES_FILE


def check_ready(config: TournamentConfig) -> Deck:
    """Validate ``config``, its agents' keyword arguments and its deck before any game (no
    model is loaded, nothing is written).

    Returns:
        The deck, loaded.

    Raises:
        ValueError: see :meth:`TournamentConfig.validate`; a keyword argument an agent does not
            take (see :func:`~dixit_ai.agents.check_agent_arguments`); or a deck too small for
            the table.
        ImportError: an agent needs an optional dependency that is not installed.
    """
    config.validate()
    from dixit_ai.agents import check_agent_arguments, party_problem
    from dixit_ai.decks import load_deck

    party = config.ruleset().mode == "party"
    for entry in config.agents:
        try:
            check_agent_arguments(entry.agent, entry.kwargs)
            # read from the agent's class: nothing is made or loaded
            problem = party_problem(entry.agent) if party else None
            if problem:
                raise ValueError(problem)
        except ValueError as error:
            if entry.label == entry.agent:
                raise
            raise ValueError(f"entry {entry.label!r}: {error}") from None

    deck = load_deck(config.deck)
    config.ruleset().check_deck(config.players, len(deck.card_ids))
    for entry in config.agents:
        # An agent given another deck than the game's sees other cards under the game's ids.
        own = entry.kwargs.get("deck")
        if not isinstance(own, str):
            continue
        same, (what, game) = same_deck(own, config.deck)
        if not same:
            raise ValueError(
                f"entry {entry.label!r}: its deck {own!r} is not the tournament's deck "
                f"{config.deck!r} ({what} against {game}): it would be shown other cards than "
                "the game's under the same ids; leave the entry's deck out (every agent that "
                "reads a deck gets the tournament's)")
    _check_http_entrants(config)
    return deck


HTTP_AGENT = "dixit_ai.agents.http_agent:HttpAgent"
"""The entry point of agents served over HTTP: cheap to make (no request is sent, no model
loaded), so a tournament makes them before anything to check their settings."""


def _check_http_entrants(config: TournamentConfig) -> None:
    """Make the HTTP entrants once, all together, and drop them: what their constructor refuses
    (a bad timeout, a key over plain http, two entrants on one endpoint asking different
    concurrency limits) is refused before the run folder is made, naming the entry.

    Raises:
        ValueError: the entry and its constructor's reason.
    """
    from dixit_ai.agents import agent_spec, make_agent_for_deck

    made = []  # kept until every entrant is made: an endpoint's limit is held while one lives
    for entry in config.agents:
        if agent_spec(entry.agent).entry_point != HTTP_AGENT:
            continue
        try:
            made.append(make_agent_for_deck(entry.agent, config.deck, **entry.kwargs))
        except (ValueError, TypeError) as error:
            raise ValueError(f"entry {entry.label!r}: {error}") from None
    made.clear()


def run_tournament(
    config: TournamentConfig,
    *,
    out: str | Path = "runs",
    resume: str | Path | None = None,
    workers: int = 1,
    backend: Backend = "local",
    address: str | None = None,
    progress: bool = True,
    report: bool = True,
    n_resamples: int | None = None,
    rating_resamples: int | None = None,
    player: GamePlayer | None = None,
    stop_after: int | None = None,
    announce: Callable[[Path, int, int], None] | None = None,
    log: Callable[[str], None] | None = None,
    on_failure_chosen: bool | None = None,
    stall_after: float | None = STALL_REPORT_AFTER,
) -> TournamentRun:
    """Play a tournament (or the rest of one) and write its records and report.

    Args:
        config: The tournament.
        out: The folder under which a new run folder is made.
        resume: A run folder to continue instead (its config must equal ``config``, except for
            more games: the tournament is then extended with the next games of its schedule,
            as one longer run would have played them). The agents may be listed in another
            order and the deck spelt another way (``dream`` for ``dream:size=84,seed=0``): the
            run goes on with its own config and its own schedule version. The deck's content
            must be the run's own (a folder deck's images and captions unchanged; see
            :mod:`~dixit_ai.tournament.deck_check`).
        workers: Processes that play (local: this one and ``workers - 1`` spawned) or Ray
            actors; 1 plays in this process only.
        backend: ``"local"`` or ``"ray"``.
        address: The Ray cluster to join (``--backend ray`` only).
        progress: Show a progress bar (on stderr).
        report: Analyse the records and write the report when all games are played.
        n_resamples: Bootstrap resamples of the figures other than ratings (``None``: a
            resumed run's own, as kept in its ``config.json``, else 2000).
        rating_resamples: Bootstrap resamples of the ratings (``None``: a resumed run's own,
            else 200). A new run keeps both in its ``config.json``, so that its report is the
            same however often it was interrupted and resumed.
        player: A ready :class:`GamePlayer` for ``workers=1`` (reuses its loaded agents).
        stop_after: Play at most this many games, then stop as if interrupted (for tests and
            for running a tournament in slices).
        announce: Called with (run folder, games already recorded, games in the schedule)
            before any game is played.
        log: Called with one line per one-time step before play (loading a model, embedding
            the deck's cards and the clue vocabulary), with counts and timings, and with a
            warning when a resumed run's deck cannot be checked (else that warning is issued
            with :func:`warnings.warn`).
        on_failure_chosen: Recorded in ``config.json``: whether the user chose the failure
            policy (the command line's exit status depends on it).
        stall_after: When no game has finished for this many seconds, say (through ``log``,
            else on stderr) which games are in play, with their seats, for how long and in
            which process; ``None``: never. A number above 0 and at most
            :data:`MAX_STALL_AFTER`.

    Raises:
        ValueError: a bad config, or a folder that cannot be resumed
            (:class:`~dixit_ai.tournament.store.ResumeError`: among others, a deck whose
            content is not the one the run was started on).
    """
    check_stall_after(stall_after)
    deck = check_ready(config)
    check_backend(backend, workers, address)
    # The run folder is held (see lock_run) from before its files are touched until the report
    # is written: a second process resuming it meanwhile is refused.
    with ExitStack() as held:
        if resume is not None:
            folder = Path(resume)
            before, version = read_run_config(folder)
            _check_writable(folder)
            _hold(held, folder)  # before anything is read to be repaired or rewritten
            extend = config.games > before.games
            if config.games < before.games:  # the same tournament otherwise, it is said so
                check_same_config(before, replace(config, games=before.games), folder)
                raise ResumeError(f"{folder} holds this tournament with more games (stored != "
                                  f"given: games: {before.games} != {config.games}): --games "
                                  "extends a run, never shortens it; leave --games out, or "
                                  f"give more than {before.games}")
            # More games extend the tournament with the next games of the same schedule: a
            # schedule's first games do not depend on how many follow (see make_schedule).
            target = replace(before, games=config.games) if extend else before
            check_same_config(target, config, folder)
            # The run's own config (its agents' order, its deck's spelling) and schedule version
            # go on: what was given only equals it.
            config = target
            schedule = schedule_of(config, version)
            settings = _bootstrap_settings(n_resamples, rating_resamples,
                                           report_settings(folder))
            recorded = read_run_deck(folder)
            # A run started before config.json kept the deck is checked against its records.
            records = (() if recorded is not None
                       else read_games(folder, schedule, name=config.name).lines.values())
            warning = check_run_deck(folder, recorded, deck, records=records)
            if warning is not None:
                if log is not None:
                    log(warning)
                else:
                    warnings.warn(warning, stacklevel=2)
            stored = read_games(folder, schedule, repair=True, name=config.name)
            if extend:
                chosen = on_failure_chosen or stored_choice(folder)
                write_config(folder, config, schedule, on_failure_chosen=chosen or None,
                             version=version, deck=deck_identity(deck), report=settings)
        else:
            settings = _bootstrap_settings(n_resamples, rating_resamples, None)
            schedule = schedule_of(config)
            folder = run_folder("tournament", config.name, config.seed, root=out)
            try:
                write_config(folder, config, schedule, on_failure_chosen=on_failure_chosen,
                             deck=deck_identity(deck), report=settings)
            except BaseException:  # no game began: the new folder, without its config, goes
                shutil.rmtree(folder, ignore_errors=True)
                raise
            _hold(held, folder)
            stored = read_games(folder, schedule, name=config.name)
        pending = [game for game in schedule if game.index not in stored.lines]
        if stop_after is not None:
            pending = pending[:max(stop_after, 0)]
        if announce is not None:
            announce(folder, len(stored.lines), len(schedule))

        # With workers, this process can load the report's modules while they play the last games.
        completes = report and len(stored.lines) + len(pending) == len(schedule)
        started = time.perf_counter()
        played = 0
        in_play = InPlay()
        with ExitStack() as watching, GamesWriter(folder) as writer, tqdm(
                total=len(schedule), initial=len(stored.lines), desc="games", unit="game",
                disable=not progress, file=sys.stderr, dynamic_ncols=True,
                mininterval=progress_interval(sys.stderr)) as bar:
            watch = None
            if stall_after is not None and pending:
                watch = watching.enter_context(StallWatch(
                    in_play, {game.index: game.seats for game in pending}, stall_after,
                    log or (lambda line: tqdm.write(line, file=sys.stderr))))
            for line in play_games(config, pending, backend=backend, workers=workers,
                                   address=address, player=player, log=log,
                                   idle=load_report_modules if completes else None,
                                   in_play=in_play):
                writer.append(line)
                played += 1
                bar.update()
                if watch is not None:
                    watch.progress()
        elapsed = time.perf_counter() - started

        results: TournamentResults | None = None
        files: dict[str, Any] = {}
        if report and len(stored.lines) + played == len(schedule):
            results, files = analyse_folder(folder, n_resamples=settings[0],
                                            rating_resamples=settings[1], overwrite=True)
        return TournamentRun(folder, config, results, played, len(stored.lines),
                             stored.dropped_bytes, elapsed, files)


def _hold(held: ExitStack, folder: Path) -> None:
    """Lock ``folder`` (:func:`~dixit_ai.tournament.store.lock_run`) until ``held`` closes."""
    handle = lock_run(folder)
    if handle is not None:
        held.callback(os.close, handle)


def _check_writable(folder: Path) -> None:
    """Refuse to resume a run folder this process cannot write (its games are appended to
    ``games.jsonl``, its config and report rewritten), before anything is played.

    Raises:
        ResumeError: naming the folder or file, and how to read the run without writing it.
    """
    games = folder / GAMES_FILE
    for path in (folder, *((games,) if games.exists() else ())):
        if not os.access(path, os.W_OK | (os.X_OK if path == folder else 0)):
            raise ResumeError(f"{path}: cannot write there (permission denied); a resumed run "
                              f"appends to {GAMES_FILE} and rewrites its report (to read the "
                              "run only: dixit-ai tournament --analyse FOLDER --out ELSEWHERE)")


def _bootstrap_settings(n_resamples: int | None, rating_resamples: int | None,
                        stored: tuple[int, int] | None) -> tuple[int, int]:
    """The report's ``(resamples, rating resamples)``: those given, else the run's own
    (``stored``), else the defaults."""
    own = stored or (DEFAULT_RESAMPLES, RATING_RESAMPLES)
    return (own[0] if n_resamples is None else n_resamples,
            own[1] if rating_resamples is None else rating_resamples)


def load_report_modules() -> None:
    """Import what writing the report needs (the plots' matplotlib, as they select it).

    Without matplotlib this does nothing: the report itself says what is missing, as it would
    have without this head start.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot
    except ImportError:
        return


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
    keeps its :func:`~dixit_ai.tournament.analysis.summarize`, not the record), as
    ``(schedule index, reduced)`` in schedule order."""
    config, version = read_run_config(folder)
    schedule = schedule_of(config, version)
    seen: set[int] = set()

    def parse(text: str) -> tuple[int, T]:
        record = GameRecord.from_json(text)
        index = check_scheduled(record, schedule, seen, name=config.name)
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
    if path.is_dir() and (path / CONFIG_FILE).exists():
        playing = run_in_play(path)  # another process plays it now: its records grow
        config, run_read = _read_run(path, summarize, allow_partial=allow_partial,
                                     being_written=playing)
        indices = [index for _, (index, _) in run_read.items]
        read = JsonlRecords(run_read.path, [(number, summary) for number, (_, summary)
                                            in run_read.items], run_read.dropped)
        config_data, title, seed, name = (config.to_dict(), f"Tournament {config.name}",
                                          config.seed, config.name)
        beside = path
        found = run_bootstrap_settings(path)
        stored = None if found is None else found[0]
        origin = (f"the run's own ({found[1]})" if found is not None else
                  f"the defaults (neither the run's {RESULTS_JSON} nor its {CONFIG_FILE} "
                  "states them)")
        own = stored or (DEFAULT_RESAMPLES, RATING_RESAMPLES)
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
                            f"; continue it with: dixit-ai tournament --resume {path}"))
        missing = _missing(indices)
        if missing:
            notes.append(f"{len(missing)} of the {config.games} scheduled games "
                         f"{'is' if len(missing) == 1 else 'are'} missing "
                         f"from {GAMES_FILE}: game{'s' if len(missing) != 1 else ''} "
                         f"{_numbers(missing)}; these figures cover the other "
                         f"{len(indices)}")
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
    chosen = _bootstrap_settings(n_resamples, rating_resamples, own)
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
                      seed=seed)
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
    files = write_report(target, results, config=config_data, title=title)
    return results, files
