"""Running a tournament end to end: schedule, play (resumably), then analyse and report
(:mod:`dixit_ai.tournament.folder` reads a run folder back)."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
import warnings
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tqdm import tqdm

from dixit_ai.decks import Deck
from dixit_ai.reporting import (
    progress_interval,
    run_folder,
)
from dixit_ai.tournament.agent_check import (
    RecordedAgents,
    agent_definitions,
    check_run_agents,
    read_run_agents,
)
from dixit_ai.tournament.analysis import NoGameToAnalyse, TournamentResults
from dixit_ai.tournament.config import TournamentConfig, check_seconds
from dixit_ai.tournament.deck_check import check_run_deck, deck_identity, read_run_deck
from dixit_ai.tournament.folder import analyse_folder, bootstrap_settings
from dixit_ai.tournament.lock import lock_run
from dixit_ai.tournament.player import GamePlayer, InPlay
from dixit_ai.tournament.run_rules import RunRules
from dixit_ai.tournament.runner import Backend, check_backend, play_games
from dixit_ai.tournament.store import (
    GAMES_FILE,
    GamesWriter,
    ResumeError,
    append_history,
    check_same_config,
    read_games,
    read_run_config,
    report_settings,
    resume_entry,
    same_deck,
    schedule_of,
    write_config,
)
from dixit_ai.tournament.store import (
    on_failure_chosen as stored_choice,
)

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
    """Validate ``config``, its agents (each made once, with its keyword arguments) and its deck
    before any game (no model is loaded, nothing is written).

    Returns:
        The deck, loaded.

    Raises:
        ValueError: see :meth:`TournamentConfig.validate`; a keyword argument an agent does not
            take (see :func:`~dixit_ai.agents.check_agent_arguments`) or a value its constructor
            refuses; or a deck too small for the table.
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
    _check_entrants(config)
    return deck


def _check_entrants(config: TournamentConfig) -> None:
    """Make every entrant once, all together, and drop them: what a constructor refuses (a
    value out of its range, an HTTP agent's bad timeout or key over plain http, two entrants on
    one endpoint asking different concurrency limits) is refused before the run folder is made,
    naming the entry. A constructor loads no model (the registry's agents load theirs at their
    first decision, or at :meth:`~dixit_ai.tournament.player.GamePlayer.warm_up`), so this
    is cheap.

    Raises:
        ValueError: the entry and its constructor's reason.
    """
    from dixit_ai.agents import make_agent_for_deck

    made = []  # kept until every entrant is made: an endpoint's limit is held while one lives
    for entry in config.agents:
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
            settings = bootstrap_settings(n_resamples, rating_resamples,
                                           report_settings(folder))
            recorded = read_run_deck(folder)
            # A run started before config.json kept the deck is checked against its records.
            records = (() if recorded is not None
                       else read_games(folder, schedule, name=config.name,
                                       rules=RunRules.of(config)).lines.values())
            deck_warning = check_run_deck(folder, recorded, deck, records=records)
            defined = read_run_agents(folder)
            for warning in (deck_warning, check_run_agents(folder, defined, config)):
                if warning is None:
                    continue
                if log is not None:
                    log(warning)
                else:
                    warnings.warn(warning, stacklevel=2)
            stored = read_games(folder, schedule, repair=True, name=config.name,
                                rules=RunRules.of(config))
            # The run's config.json keeps when and by which versions it was started, and
            # says when it was resumed or extended, and by which.
            entry = resume_entry("extended" if extend else "resumed", config.games,
                                 len(stored.lines))
            if extend:
                chosen = on_failure_chosen or stored_choice(folder)
                write_config(folder, config, schedule, on_failure_chosen=chosen or None,
                             version=version, deck=deck_identity(deck), report=settings,
                             agents=defined, history_entry=entry)
            elif len(stored.lines) < len(schedule):  # a resume that plays nothing says nothing
                append_history(folder, entry)
        else:
            settings = bootstrap_settings(n_resamples, rating_resamples, None)
            schedule = schedule_of(config)
            folder = run_folder("tournament", config.name, config.seed, root=out)
            try:
                write_config(folder, config, schedule, on_failure_chosen=on_failure_chosen,
                             deck=deck_identity(deck), report=settings,
                             agents=agent_definitions(config))
            except BaseException:  # no game began: the new folder, without its config, goes
                shutil.rmtree(folder, ignore_errors=True)
                raise
            _hold(held, folder)
            stored = read_games(folder, schedule, name=config.name,
                                rules=RunRules.of(config))
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
        # Every new record's seats must describe their labels as the run's records did.
        described = RecordedAgents(stored.lines.values())
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
                described.check(line, folder)
                writer.append(line)
                played += 1
                bar.update()
                if watch is not None:
                    watch.progress()
        elapsed = time.perf_counter() - started

        results: TournamentResults | None = None
        files: dict[str, Any] = {}
        if report and len(stored.lines) + played == len(schedule):
            try:
                results, files = analyse_folder(folder, n_resamples=settings[0],
                                                rating_resamples=settings[1], overwrite=True)
            except NoGameToAnalyse as error:
                raise EveryGameAborted(
                    f"{error}: every game of the schedule is played, so resuming it plays "
                    f"nothing; the failures are recorded in {folder / GAMES_FILE}") from None
        return TournamentRun(folder, config, results, played, len(stored.lines),
                             stored.dropped_bytes, elapsed, files)


class EveryGameAborted(ValueError):
    """A tournament whose every game is played and aborted: no standings, nothing to resume."""


def _hold(held: ExitStack, folder: Path) -> None:
    """Lock ``folder`` (:func:`~dixit_ai.tournament.lock.lock_run`) until ``held`` closes."""
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


