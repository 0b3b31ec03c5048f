"""A tournament's run folder: ``config.json`` and ``games.jsonl``, appended to as games finish.

``config.json`` holds the tournament's config and its schedule's fingerprint; ``games.jsonl`` one
record per line, each keyed by its schedule index (``header["tournament"]["game"]``). One writer
(the parent process) appends, flushes and fsyncs each record, so a crash loses at most the game
being written. Reading a run back:

- a last line with no newline is the game that was being written when the run stopped: it is cut
  off (the file is truncated to its last complete line) and the game is played again;
- any other line that is not a record of this tournament (bad JSON, an index outside the schedule,
  a game whose seed, deal or seats differ from the schedule, a game of a tournament named
  otherwise, a game played under other rules than the config's, an index seen twice) is an
  error: the folder is not resumed, and the message says which line is wrong.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Container
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from dixit_ai import __version__
from dixit_ai.records import GameRecord
from dixit_ai.reporting import write_json
from dixit_ai.tournament.config import TournamentConfig, differences
from dixit_ai.tournament.run_rules import RunRules
from dixit_ai.tournament.schedule import (
    MAX_SCHEDULE_GAMES,
    SCHEDULE_VERSION,
    SCHEDULE_VERSIONS,
    ScheduledGame,
    make_schedule,
    schedule_fingerprint,
)
from dixit_ai.versions import package_versions

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
RUN_KIND = "dixit-ai tournament"


class ResumeError(ValueError):
    """A run folder cannot be resumed (not a tournament, another tournament, corrupt records)."""


@dataclass
class StoredGames:
    """What a run folder's ``games.jsonl`` holds.

    Attributes:
        lines: Record JSON by schedule index.
        dropped_bytes: Bytes of an incomplete last line that were cut off (0 if none).
    """

    lines: dict[int, str]
    dropped_bytes: int = 0


def write_config(folder: Path, config: TournamentConfig, schedule: list[ScheduledGame], *,
                 on_failure_chosen: bool | None = None,
                 version: int = SCHEDULE_VERSION,
                 deck: dict[str, Any] | None = None,
                 report: tuple[int, int] | None = None,
                 agents: dict[str, Any] | None = None,
                 history_entry: dict[str, Any] | None = None) -> Path:
    """Write ``config.json``: the config, the schedule's version and fingerprint, the deck's
    content, the report's bootstrap settings, the versions, when it was created.

    ``history_entry`` (:func:`resume_entry`) rewrites the config of a run extended by a resume:
    its ``created`` and ``versions`` (those that started the run) are kept, and the entry is
    appended to its ``history``.

    ``on_failure_chosen`` records whether the user chose the failure policy (rather than taking
    the default), so that a resumed run exits as the first one would have. ``version`` is the
    schedule's (a run extended keeps the version it was started with). ``deck`` is the deck's
    content (:func:`dixit_ai.tournament.deck_check.deck_identity`), checked on resume.
    ``report`` is ``(resamples, rating resamples)`` chosen for the report, which a resumed run
    (or an analysis of a run that has no report yet) uses unless told otherwise. ``agents`` is
    the agents' definitions (:func:`dixit_ai.tournament.agent_check.agent_definitions`),
    checked on resume.
    """
    data: dict[str, Any] = {
        "kind": RUN_KIND,
        "config": config.to_dict(),
        "schedule": {"version": version, "games": len(schedule),
                     "fingerprint": schedule_fingerprint(schedule, version)},
        **({"deck": deck} if deck is not None else {}),
        **({"agent_definitions": agents} if agents is not None else {}),
        **({"report": {"n_resamples": report[0], "rating_resamples": report[1]}}
           if report is not None else {}),
        "versions": package_versions(),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    if on_failure_chosen is not None:
        data["on_failure_chosen"] = on_failure_chosen
    if history_entry is not None:
        before = _config_data(folder)
        for key in ("created", "versions"):  # the run's start, not this extension's
            if key in before:
                data[key] = before[key]
        data["history"] = [*_history(before), history_entry]
    return write_json(folder / CONFIG_FILE, data)


def resume_entry(event: str, games: int, recorded: int) -> dict[str, Any]:
    """An entry of a run's ``history`` in ``config.json``: ``event`` (``"resumed"``, or
    ``"extended"`` when ``--games`` added games), when (``at``, UTC), the run's scheduled
    ``games`` from then on, the games already ``recorded``, and the package ``versions`` that
    played on."""
    return {"event": event, "at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "games": games, "recorded": recorded, "versions": package_versions()}


def append_history(folder: Path, entry: dict[str, Any]) -> Path:
    """Append ``entry`` (:func:`resume_entry`) to the ``history`` of a run's ``config.json``,
    changing nothing else."""
    data = _config_data(folder)
    data["history"] = [*_history(data), entry]
    return write_json(folder / CONFIG_FILE, data)


def _config_data(folder: Path) -> dict[str, Any]:
    """``config.json`` as written (read and checked by :func:`read_run_config` before)."""
    data = json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def _history(data: dict[str, Any]) -> list[Any]:
    history = data.get("history")
    return history if isinstance(history, list) else []


def on_failure_chosen(folder: str | os.PathLike[str]) -> bool:
    """Whether the user chose the failure policy of the run in ``folder`` (see
    :func:`write_config`; ``False`` when not recorded)."""
    try:
        data = json.loads((Path(folder) / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and data.get("on_failure_chosen") is True


def report_settings(folder: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(resamples, rating resamples)`` that the run in ``folder`` was started with (see
    :func:`write_config`), or ``None`` (a run started before they were kept, or a value that is
    not a valid count)."""
    try:
        data = json.loads((Path(folder) / CONFIG_FILE).read_text(encoding="utf-8"))
        return bootstrap_counts(data["report"]["n_resamples"], data["report"]["rating_resamples"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def bootstrap_counts(resamples: Any, ratings: Any) -> tuple[int, int] | None:
    """``(resamples, ratings)`` as read from a run's file, or ``None`` unless both are valid
    counts (resamples at least 1, rating resamples at least 0)."""
    if (not isinstance(resamples, int) or isinstance(resamples, bool) or resamples < 1
            or not isinstance(ratings, int) or isinstance(ratings, bool) or ratings < 0):
        return None
    return resamples, ratings


def read_config(folder: str | os.PathLike[str]) -> TournamentConfig:
    """The config of a run folder, checked against its schedule fingerprint (see
    :func:`read_run_config`)."""
    return read_run_config(folder)[0]


def schedule_of(config: TournamentConfig, version: int = SCHEDULE_VERSION
                ) -> list[ScheduledGame]:
    """The schedule of ``config``'s games (``version``: a run's own schedule version)."""
    return make_schedule(config.labels, seats=config.players, n_games=config.games,
                         seed=config.seed, version=version, teams=config.ruleset().teams)


def read_run_config(folder: str | os.PathLike[str]) -> tuple[TournamentConfig, int]:
    """The config of a run folder and its schedule's version, checked against its schedule
    fingerprint.

    A run keeps the schedule version it was started with: a run of version 1 (whose tables
    were drawn in the order its agents were listed) is resumed, extended and analysed with
    version 1's schedule, never with games of another schedule.

    Raises:
        ResumeError: no folder, no ``config.json``, not a tournament's, a schedule version this
            version of dixit-ai does not compute, more games than
            :data:`~dixit_ai.tournament.schedule.MAX_SCHEDULE_GAMES`, or a schedule that it
            would compute differently.
    """
    path = Path(folder)
    if path.is_file():
        own = (f"; give its folder: {path.parent}"
               if path.name in (GAMES_FILE, CONFIG_FILE) and (path.parent / CONFIG_FILE).is_file()
               else "")
        raise ResumeError(f"{path} is a file, not a run folder{own}")
    if not path.is_dir():
        raise ResumeError(f"{path}: no such run folder")
    config_path = path / CONFIG_FILE
    if not config_path.is_file():
        raise ResumeError(f"{path}: not a tournament run folder (no {CONFIG_FILE})")
    try:
        data = json.loads(config_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ResumeError(f"{config_path}: not valid JSON ({error})") from error
    if not isinstance(data, dict) or data.get("kind") != RUN_KIND:
        raise ResumeError(f"{config_path}: not a tournament's config")
    config = TournamentConfig.from_dict(data["config"], source=str(config_path))
    schedule_data = data.get("schedule")
    if not isinstance(schedule_data, dict):
        schedule_data = {}
    version = schedule_data.get("version")
    if (not isinstance(version, int) or isinstance(version, bool)
            or version not in SCHEDULE_VERSIONS):
        raise ResumeError(
            f"{config_path}: schedule version {version!r} is not one this version of dixit-ai "
            f"computes ({', '.join(map(str, SCHEDULE_VERSIONS))}); finish the run with the "
            "version that started it")
    for key, least in (("players", 1), ("games", 1), ("seed", 0)):  # before the schedule
        value = getattr(config, key)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ResumeError(f"{config_path}: {key} must be an integer of at least {least}, "
                              f"not {value!r}")
    if config.games > MAX_SCHEDULE_GAMES:  # its schedule would exhaust memory
        raise ResumeError(f"{config_path}: games must be at most {MAX_SCHEDULE_GAMES:,}, not "
                          f"{config.games:,}")
    schedule = schedule_of(config, version)
    if schedule_data.get("fingerprint") != schedule_fingerprint(schedule, version):
        versions = data.get("versions")
        started = versions.get("dixit-ai") if isinstance(versions, dict) else None
        if started == __version__:  # the same code: the config was changed
            why = ("the run was started by this version of dixit-ai, so its config was edited "
                   "after it started (its agents, seed, players, games or rules): restore it")
        else:
            why = (f"its config was edited after the run started, or another version of "
                   f"dixit-ai ({started or 'unknown'}; this is {__version__}) computed its "
                   "schedule: restore the config, or finish the run with the version that "
                   "started it")
        raise ResumeError(
            f"{config_path}: the schedule recorded in it (version {version}) is not the one "
            f"its config gives; {why}")
    return config, version


def check_same_config(stored: TournamentConfig, given: TournamentConfig, folder: Path) -> None:
    """Refuse to resume ``folder`` (run with ``stored``) as another tournament (``given``).

    The agents are compared as a set (the order they are listed in decides nothing: the run
    plays its own schedule), and the decks by what they are (:func:`same_deck`): ``dream`` and
    ``dream:size=84,seed=0`` are one deck.

    Raises:
        ResumeError: the configs differ (the message lists how, a deck by its spec and what
            the spec stands for).
    """
    deck_line = None
    if stored.deck != given.deck:
        same, canonical = same_deck(stored.deck, given.deck)
        if same:
            given = replace(given, deck=stored.deck)
        else:
            deck_line = (f"deck: {stored.deck!r} ({canonical[0]}) != "
                         f"{given.deck!r} ({canonical[1]})")
    diff = [deck_line if line.startswith("deck:") and deck_line else line
            for line in differences(stored, given)]
    if diff:
        raise ResumeError(f"{folder} holds another tournament; differences (stored != given): "
                          + "; ".join(diff))


def same_deck(first: str, second: str) -> tuple[bool, tuple[str, str]]:
    """Whether two deck specs name the same deck, and what each stands for.

    Two specs name the same deck when they load to the same canonical spec (``Deck.source``:
    ``dream`` is ``dream:size=84,seed=0``; a folder is its resolved path); the typed strings
    do not matter. A spec that cannot be loaded is the same deck only as the same string.

    Returns:
        ``(same, (what first is, what second is))``: each a canonical spec, or why it cannot be
        loaded.
    """
    if first == second:
        return True, (first, second)
    from dixit_ai.decks import load_deck

    canonical: list[str | None] = []
    shown: list[str] = []
    for spec in (first, second):
        try:
            source = load_deck(spec).source
        except (ValueError, OSError) as error:  # DeckError is a ValueError
            canonical.append(None)
            shown.append(f"cannot be loaded: {error}")
        else:
            canonical.append(source)
            shown.append(source)
    same = canonical[0] is not None and canonical[0] == canonical[1]
    return same, (shown[0], shown[1])


def read_games(folder: str | os.PathLike[str], schedule: list[ScheduledGame], *,
               repair: bool = False, name: str | None = None,
               rules: RunRules | None = None) -> StoredGames:
    """The records of a run folder, by schedule index, checked against ``schedule``.

    Args:
        folder: The run folder.
        schedule: The tournament's schedule.
        repair: Truncate an incomplete last line off the file (else only skip it).
        name: The tournament's name: a record of a tournament named otherwise is refused
            (``None``: not checked; see :func:`check_scheduled`).
        rules: The run's rules: a record played by others is refused (``None``: not checked).

    Raises:
        ResumeError: a complete line is not a record of this schedule (see the module docstring).
    """
    path = Path(folder) / GAMES_FILE
    if not path.exists():
        return StoredGames({})
    data = path.read_bytes()
    complete = data.rfind(b"\n") + 1
    dropped = len(data) - complete
    if dropped and repair:
        with open(path, "r+b") as handle:
            handle.truncate(complete)
            handle.flush()
            os.fsync(handle.fileno())
    lines: dict[int, str] = {}
    for number, raw in enumerate(data[:complete].split(b"\n")[:-1], start=1):
        text = raw.decode("utf-8", errors="replace")
        if not text.strip():
            continue
        where = f"{path}, line {number}"
        try:
            record = GameRecord.from_json(text)
        except ValueError as error:
            raise ResumeError(f"{where}: {error}") from error
        try:
            index = check_scheduled(record, schedule, lines, name=name, rules=rules)
        except ValueError as error:
            raise ResumeError(f"{where}: {error}") from error
        lines[index] = text
    return StoredGames(lines, dropped)


def check_scheduled(record: GameRecord, schedule: list[ScheduledGame],
                    seen: Container[int], where: str = "", *, name: str | None = None,
                    rules: RunRules | None = None) -> int:
    """The schedule index of ``record``, checked: in the schedule, not in ``seen``, of the
    tournament ``name``, and with the schedule's seed, deal and seats.

    Args:
        record: A tournament's game record.
        schedule: The tournament's schedule.
        seen: The indices of the records before it.
        where: Which schedule, for the message (``" of its run (config.json, seed 0)"``).
        name: The tournament's name (its config's): a record of a tournament named otherwise
            is not one of its games, even where its schedule is the same (the same agents and
            seed); ``None``: not checked.
        rules: The run's edition and rules (its config's): a record of other rules is not one
            of its games (see :mod:`dixit_ai.tournament.run_rules`); ``None``: not checked.

    Raises:
        ValueError: the record is not a game of this tournament and schedule, or one already
            seen (the message says why: each value that differs, the record's and the
            schedule's).
    """
    info = record.header.get("tournament")
    if not isinstance(info, dict) or not isinstance(info.get("game"), int):
        raise ValueError("a game record without a tournament index")
    index: int = info["game"]
    if not 0 <= index < len(schedule):
        raise ValueError(f"game {index} is outside the schedule{where} "
                         f"(0..{len(schedule) - 1})")
    if index in seen:
        raise ValueError(f"game {index} is recorded twice")
    if name is not None and info.get("name") != name:
        tournament = f", the tournament{where}" if where else ""
        raise ValueError(f"game {index} is a record of tournament {info.get('name')!r}, not of "
                         f"{name!r}{tournament}")
    expected = schedule[index]
    found = {"seed": record.seed, "deal": info.get("deal"), "seats": info.get("seats")}
    scheduled = {"seed": expected.seed, "deal": expected.deal, "seats": list(expected.seats)}
    differ = [f"{key}: the record has {found[key]!r}, the schedule gives {scheduled[key]!r}"
              for key in found if found[key] != scheduled[key]]
    if differ:
        raise ValueError(f"game {index} does not match the schedule{where}: "
                         + "; ".join(differ))
    other = None if rules is None else rules.mismatch(record)
    if other is not None:
        raise ValueError(f"game {index} was played under other rules than the run's "
                         f"{CONFIG_FILE} gives{where}: {other}")
    try:
        check_totals(record)
    except ValueError as error:
        raise ValueError(f"game {index}: {error}") from None
    return index


def check_totals(record: GameRecord) -> None:
    """Refuse a record whose totals contradict its own rounds: each round's scores are the
    scores before it (0 before the first) plus its points, the final scores are the last
    round's, and a complete game's winners are the seats with the top final score. (A record
    changed by hand, or a corruption that kept the JSON valid; ``dixit-ai replay`` checks every
    move too.)

    Raises:
        ValueError: the first total that does not add up, with both values.
    """
    scores: list[int] | None = None
    for number, round_ in enumerate(record.rounds, start=1):
        if scores is None:
            scores = [0] * len(round_.points)  # every game starts at 0
        if len(round_.points) == len(scores):
            expected = [before + gained for before, gained in zip(scores, round_.points,
                                                                  strict=True)]
            if list(round_.scores) != expected:
                raise ValueError(f"round {number}'s scores {list(round_.scores)} are not the "
                                 f"scores before it plus its points ({expected}); the record "
                                 "was changed or corrupted")
        scores = list(round_.scores)
    if scores is not None and list(record.final_scores) != scores:
        raise ValueError(f"final scores {list(record.final_scores)} are not the scores after "
                         f"its last round ({scores}); the record was changed or corrupted")
    if record.status == "complete" and record.final_scores:
        top = max(record.final_scores)
        leaders = [seat for seat, score in enumerate(record.final_scores) if score == top]
        if sorted(record.winners) != leaders:
            raise ValueError(f"winners {list(record.winners)} are not the seats with the top "
                             f"final score ({leaders}); the record was changed or corrupted")


def schedule_beside(records: str | os.PathLike[str]
                    ) -> tuple[TournamentConfig, list[ScheduledGame]]:
    """The config and schedule of the tournament run whose records ``records`` is: the
    ``games.jsonl`` of a run folder, whose ``config.json`` holds the tournament's seed (a record
    holds its game's seed, its game index and deal, not the tournament's seed).

    Raises:
        ResumeError: ``records`` is not a run folder's ``games.jsonl``, or the folder's
            ``config.json`` cannot be read or gives another schedule than the one it records
            (the message says which).
    """
    path = Path(records)
    if path.name != GAMES_FILE:
        raise ResumeError(f"{path} is not a run folder's {GAMES_FILE}")
    try:
        config, version = read_run_config(path.parent)  # no config.json: not a run folder
    except ResumeError:
        raise
    except (KeyError, TypeError, ValueError, OSError) as error:  # unreadable, or a broken shape
        raise ResumeError(f"{path.parent / CONFIG_FILE}: not a readable tournament config "
                          f"({type(error).__name__}: {error})") from error
    return config, schedule_of(config, version)


class GamesWriter:
    """Appends records to ``games.jsonl``: one line each, flushed and fsynced."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / GAMES_FILE
        self._handle: IO[str] = open(self.path, "a", encoding="utf-8", newline="\n")

    def append(self, line: str) -> None:
        self._handle.write(line + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> GamesWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
