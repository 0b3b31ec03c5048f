"""Running a tournament end to end: schedule, play (resumably), analyse, report."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from dixit_ai.records import GameRecord
from dixit_ai.reporting import DEFAULT_RESAMPLES, run_folder
from dixit_ai.tournament.analysis import RATING_RESAMPLES, TournamentResults, analyse
from dixit_ai.tournament.config import TournamentConfig
from dixit_ai.tournament.report import write_report
from dixit_ai.tournament.runner import Backend, GamePlayer, check_backend, play_games
from dixit_ai.tournament.schedule import ScheduledGame, make_schedule
from dixit_ai.tournament.store import (
    GAMES_FILE,
    GamesWriter,
    check_same_config,
    read_config,
    read_games,
    write_config,
)


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


def schedule_of(config: TournamentConfig) -> list[ScheduledGame]:
    """The schedule of ``config``'s games."""
    return make_schedule(config.labels, seats=config.players, n_games=config.games,
                         seed=config.seed)


def check_ready(config: TournamentConfig) -> None:
    """Validate ``config`` and its deck before any game (no model is loaded).

    Raises:
        ValueError: see :meth:`TournamentConfig.validate`; or a deck too small for the table.
    """
    config.validate()
    from dixit_ai.decks import load_deck

    deck = load_deck(config.deck)
    config.ruleset().check_deck(config.players, len(deck.card_ids))


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
    n_resamples: int = DEFAULT_RESAMPLES,
    rating_resamples: int = RATING_RESAMPLES,
    player: GamePlayer | None = None,
    stop_after: int | None = None,
    announce: Callable[[Path, int, int], None] | None = None,
) -> TournamentRun:
    """Play a tournament (or the rest of one) and write its records and report.

    Args:
        config: The tournament.
        out: The folder under which a new run folder is made.
        resume: A run folder to continue instead (its config must equal ``config``).
        workers: Worker processes (local) or actors (Ray); 1 plays in this process.
        backend: ``"local"`` or ``"ray"``.
        address: The Ray cluster to join (``--backend ray`` only).
        progress: Show a progress bar (on stderr).
        report: Analyse the records and write the report when all games are played.
        n_resamples: Bootstrap resamples of the figures other than ratings.
        rating_resamples: Bootstrap resamples of the ratings.
        player: A ready :class:`GamePlayer` for ``workers=1`` (reuses its loaded agents).
        stop_after: Play at most this many games, then stop as if interrupted (for tests and
            for running a tournament in slices).
        announce: Called with (run folder, games already recorded, games in the schedule)
            before any game is played.

    Raises:
        ValueError: a bad config, or a folder that cannot be resumed
            (:class:`~dixit_ai.tournament.store.ResumeError`).
    """
    check_ready(config)
    check_backend(backend, workers, address)
    schedule = schedule_of(config)
    if resume is not None:
        folder = Path(resume)
        check_same_config(read_config(folder), config, folder)
        stored = read_games(folder, schedule, repair=True)
    else:
        folder = run_folder("tournament", config.name, config.seed, root=out)
        write_config(folder, config, schedule)
        stored = read_games(folder, schedule)
    pending = [game for game in schedule if game.index not in stored.lines]
    if stop_after is not None:
        pending = pending[:max(stop_after, 0)]
    if announce is not None:
        announce(folder, len(stored.lines), len(schedule))

    started = time.perf_counter()
    played = 0
    with GamesWriter(folder) as writer, tqdm(
            total=len(schedule), initial=len(stored.lines), desc="games", unit="game",
            disable=not progress, file=sys.stderr, dynamic_ncols=True) as bar:
        for line in play_games(config, pending, backend=backend, workers=workers,
                               address=address, player=player):
            writer.append(line)
            played += 1
            bar.update()
    elapsed = time.perf_counter() - started

    results: TournamentResults | None = None
    files: dict[str, Any] = {}
    if report and len(stored.lines) + played == len(schedule):
        results, files = analyse_folder(folder, n_resamples=n_resamples,
                                        rating_resamples=rating_resamples)
    return TournamentRun(folder, config, results, played, len(stored.lines),
                         stored.dropped_bytes, elapsed, files)


def load_run_records(folder: str | Path) -> tuple[TournamentConfig, list[GameRecord]]:
    """A run folder's config and its records in schedule order (checked as for a resume)."""
    config = read_config(folder)
    stored = read_games(folder, schedule_of(config))
    return config, [GameRecord.from_json(stored.lines[i]) for i in sorted(stored.lines)]


def analyse_folder(folder: str | Path, *, out: str | Path | None = None,
                   n_resamples: int = DEFAULT_RESAMPLES,
                   rating_resamples: int = RATING_RESAMPLES
                   ) -> tuple[TournamentResults, dict[str, Any]]:
    """Recompute a run folder's results from its ``games.jsonl`` and write the report.

    ``folder`` is a tournament run folder, or any ``.jsonl`` file of game records (then the
    report goes next to it unless ``out`` is given). Returns the results and the written files.

    Raises:
        ValueError: not a run folder or a records file, or no game to analyse.
    """
    from dixit_ai.records import read_records
    from dixit_ai.tournament.store import CONFIG_FILE

    path = Path(folder)
    if path.is_file() and path.name == GAMES_FILE and (path.parent / CONFIG_FILE).exists():
        path = path.parent  # a run folder's own records: its config names the agents
    config_data: dict[str, Any] | None = None
    title = "Tournament"
    seed = 0
    if path.is_dir() and (path / CONFIG_FILE).exists():
        config, records = load_run_records(path)
        config_data, title, seed = config.to_dict(), f"Tournament {config.name}", config.seed
        target = Path(out) if out else path
    elif path.is_file():
        records = list(read_records(path))
        target = Path(out) if out else path.parent
        title = f"Games of {path.name}"
    else:
        raise ValueError(f"{path}: neither a tournament run folder nor a records file")
    results = analyse(records, n_resamples=n_resamples, rating_resamples=rating_resamples,
                      seed=seed)
    files = write_report(target, results, config=config_data, title=title)
    return results, files
