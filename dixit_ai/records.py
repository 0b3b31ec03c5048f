"""Game records: one JSON document per game, JSON Lines for many.

A record holds a header (edition, every rule parameter, seed, deck, agents, versions), then every
round (storyteller, clue, the storyteller's predicted guess rate, board, owners, votes, points,
scores), then the result. Everything a benchmark or a tournament reports is computed from records,
and :func:`dixit_ai.replay.replay_record` re-runs one through the rules to check it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from dixit_ai.files import atomic_writer
from dixit_ai.jsonl import json_lines_hint, json_object
from dixit_ai.record_header import READABLE_FORMATS, BrokenHeader, check_header
from dixit_ai.rules import POINT_PARTS, RoundResult

RECORD_FORMAT = 2
"""Version of the record format; bumped when a field changes meaning.

1. The first format.
2. Rounds carry ``parts`` (each seat's named point parts) and ``red_token`` (Dixit Party); the
   header's rules carry ``mode``, ``rounds_per_player`` and ``single_vote_bonus_when``; and
   ``teams`` means Team Dixit as the Odyssey rulebook states it (one card per team, the other
   partner votes once, the game ends when each player has told once). Format 1 had no Party,
   scored the single-vote point only when some but not all found the card, and played teams by
   other rules: :func:`dixit_ai.replay.replay_record` replays a format-1 record under the
   former reading, and refuses a format-1 team record.
"""


Status = Literal["complete", "aborted", "truncated"]


@dataclass
class Failure:
    """An agent that raised or returned an illegal move.

    Attributes:
        seat: The failing seat.
        round: The round (0-based).
        phase: ``"tell"``, ``"play"`` or ``"vote"``.
        reason: What went wrong (the exception's message).
        error: The exception's type name.
        action: What the agent returned, if it returned something (as text).
        penalty: What the runner did: ``"abort"`` (the game stopped) or ``"forfeit"`` (a
            rules-defined fallback move was made and the seat scored nothing that round).
    """

    seat: int
    round: int
    phase: str
    reason: str
    error: str
    action: str | None
    penalty: str


@dataclass
class RoundRecord:
    """One revealed round.

    ``votes`` maps each voting seat to its board positions (0-based); ``played`` lists each
    seat's card(s) (the storyteller's card included; in the team variant a seat that did not
    give its team's card has none); ``notes`` holds what agents chose to record with their
    decisions (by seat, then phase). ``parts`` holds each seat's points as named parts (the
    nonzero ones, see :data:`dixit_ai.rules.POINT_PARTS`), which sum to ``points``;
    ``red_token`` is the board position of the storyteller's red token (Dixit Party).
    """

    round: int
    storyteller: int
    clue: str
    clue_kind: str | None
    predicted_guess_rate: float | None
    storyteller_card: int
    played: list[list[int]]
    board: list[int]
    board_owner: list[int]
    votes: dict[int, list[int]]
    points: list[int]
    scores: list[int]
    forfeits: list[int] = field(default_factory=list)
    reshuffled: bool = False
    notes: dict[str, Any] = field(default_factory=dict)
    parts: list[dict[str, int]] = field(default_factory=list)
    red_token: int | None = None

    @property
    def finders(self) -> list[int]:
        """Voting seats with a vote on the storyteller's card."""
        target = self.board.index(self.storyteller_card)
        return [seat for seat, positions in self.votes.items() if target in positions]

    @property
    def guess_rate(self) -> float:
        """The fraction of voting seats that found the storyteller's card."""
        return len(self.finders) / len(self.votes) if self.votes else 0.0

    def to_result(self) -> RoundResult:
        """The round as the rules revealed it (what a seat's ``view.last_round`` holds)."""
        n = len(self.points)
        order = {name: i for i, name in enumerate(POINT_PARTS)}
        parts = tuple(tuple(sorted(named.items(), key=lambda item: order[item[0]]))
                      for named in self.parts) if self.parts else ()
        return RoundResult(
            round=self.round, storyteller=self.storyteller, clue=self.clue,
            clue_kind=self.clue_kind, storyteller_card=self.storyteller_card,
            played=tuple(tuple(cards) for cards in self.played), board=tuple(self.board),
            board_owner=tuple(self.board_owner),
            votes=tuple(tuple(self.votes.get(seat, ())) for seat in range(n)),
            points=tuple(self.points), scores=tuple(self.scores),
            forfeits=tuple(self.forfeits), reshuffled=self.reshuffled,
            red_token=self.red_token, parts=parts)


@dataclass
class GameRecord:
    """A whole game: header, rounds and result."""

    header: dict[str, Any]
    rounds: list[RoundRecord]
    final_scores: list[int]
    winners: list[int]
    status: Status = "complete"
    failures: list[Failure] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (seat keys of ``votes`` become strings)."""
        data = asdict(self)
        for round_ in data["rounds"]:
            round_["votes"] = {str(seat): positions for seat, positions in round_["votes"].items()}
        return data

    def to_json(self) -> str:
        """One line of strict JSON; the same game always gives the same bytes.

        Raises:
            ValueError: a number in the record is NaN or infinite; the message names the field
                (``rounds[3].notes['1']['vote']['beliefs']['0'] is nan``). Strict JSON has no
                such value, and writing ``null`` instead would let a reader take it for a value
                that was never there. Or a value JSON cannot hold (a numpy scalar, a set, an
                object: the message names the field, ``header['agents'][1]['temp']``).
        """
        data = self.to_dict()
        try:
            return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                              allow_nan=False)
        except TypeError:
            from dixit_ai.json_fields import json_problem

            where = json_problem(data["header"], "header") or json_problem(
                {key: value for key, value in data.items() if key != "header"}, "record")
            if where is None:
                raise
            raise ValueError(f"the game record cannot be written: {where}") from None
        except ValueError:
            where = _non_finite_field(data)
            if where is None:
                raise
            raise ValueError(f"the game record cannot be written: {where} (not finite: strict "
                             "JSON has no NaN or Infinity)") from None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameRecord:
        """Rebuild a record from :meth:`to_dict` output.

        Raises:
            ValueError: the format version is unknown, or a field is missing, unknown, of the
                wrong type, or a NaN or infinite number; the message names the field
                (``rounds[2].votes``).
        """
        return cls._parse(data, check_finite=True)

    @classmethod
    def _parse(cls, data: dict[str, Any], *, check_finite: bool) -> GameRecord:
        try:
            return cls._from_dict(data, check_finite=check_finite)
        except (_Broken, BrokenHeader) as error:
            raise ValueError(f"not a dixit-ai game record: {error}") from None
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise ValueError(f"not a dixit-ai game record: {type(error).__name__}: "
                             f"{error}") from error

    @classmethod
    def _from_dict(cls, data: dict[str, Any], *, check_finite: bool) -> GameRecord:
        if not isinstance(data, dict):
            raise _Broken(f"a record is a JSON object, not {type(data).__name__}")
        for key in ("header", "rounds", "final_scores", "winners"):
            if key not in data:
                raise _Broken(f"no {key!r} field")
        unknown = sorted(set(data) - _RECORD_FIELDS, key=str)
        if unknown:
            raise _Broken(f"unknown field(s) {', '.join(map(repr, unknown))} (a record has "
                          f"{', '.join(sorted(_RECORD_FIELDS))})")
        header = data["header"]
        if not isinstance(header, dict):
            raise _Broken(f"'header' must be an object, not {type(header).__name__}")
        version = header.get("format")
        if isinstance(version, bool) or not isinstance(version, int) \
                or version not in READABLE_FORMATS:
            raise ValueError(f"record format {version!r} is not one this version reads "
                             f"({', '.join(map(str, READABLE_FORMATS))})")
        where = _non_finite_field(data) if check_finite else None
        if where is not None:
            raise _Broken(f"{where} (not finite: strict JSON has no NaN or Infinity)")
        check_header(header)
        for key in ("rounds", "final_scores", "winners", "failures"):
            if key in data and not isinstance(data[key], list):
                raise _Broken(f"{key!r} must be a list, not {type(data[key]).__name__}")
        status = data.get("status", "complete")
        if status not in ("complete", "aborted", "truncated"):
            raise _Broken(f"'status' must be 'complete', 'aborted' or 'truncated', not "
                          f"{status!r}")
        rounds = [_round_from_dict(item, f"rounds[{number}]")
                  for number, item in enumerate(data["rounds"])]
        failures = []
        for number, item in enumerate(data.get("failures", [])):
            where = f"failures[{number}]"
            _check_fields(item, where, _FAILURE_FIELDS, _FAILURE_FIELDS)
            failures.append(Failure(**item))
        return cls(header=header, rounds=rounds, final_scores=list(data["final_scores"]),
                   winners=list(data["winners"]), status=status, failures=failures)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Parse one record written by :meth:`to_json`.

        Raises:
            ValueError: see :meth:`from_dict`; also for a ``NaN`` or ``Infinity`` (or a number
                too large for a float, which reads as infinite), naming the field.
        """
        data = json_object(text, "game record")
        # The costly walk for a non-finite number runs only where the text may hold one.
        return cls._parse(data, check_finite=_MAY_NOT_BE_FINITE.search(text) is not None)

    @property
    def n_players(self) -> int:
        """Players in the game."""
        return int(self.header["n_players"])

    @property
    def seed(self) -> int:
        """The game's seed."""
        return int(self.header["seed"])


_MAY_NOT_BE_FINITE = re.compile(r"NaN|Infinity|\d[eE]\+?\d{3}")
"""Text that may hold a float that is not finite: the literals json reads as NaN or infinite,
or an exponent of three digits or more (``1e999`` reads as ``inf``)."""


class _Broken(ValueError):
    """A record's structure is broken (the message names the field)."""


_ROUND_FIELDS = frozenset(f.name for f in fields(RoundRecord))
_ROUND_REQUIRED = frozenset(f.name for f in fields(RoundRecord)
                            if f.default is MISSING and f.default_factory is MISSING)
_FAILURE_FIELDS = frozenset(f.name for f in fields(Failure))
_RECORD_FIELDS = frozenset(f.name for f in fields(GameRecord))


def _check_fields(item: Any, where: str, known: frozenset[str], required: frozenset[str]) -> None:
    if not isinstance(item, dict):
        raise _Broken(f"{where} must be an object, not {type(item).__name__}")
    unknown = sorted(set(item) - known)
    if unknown:
        raise _Broken(f"{where} has unknown field(s) {', '.join(map(repr, unknown))}")
    missing = sorted(required - set(item))
    if missing:
        raise _Broken(f"{where} lacks field(s) {', '.join(map(repr, missing))}")


def _round_from_dict(item: Any, where: str) -> RoundRecord:
    """One round of :meth:`GameRecord.to_dict` output, checked field by field."""
    _check_fields(item, where, _ROUND_FIELDS, _ROUND_REQUIRED)
    item = dict(item)
    votes = item["votes"]
    if not isinstance(votes, dict):
        raise _Broken(f"{where}.votes must map seats to lists of board positions, not "
                      f"{type(votes).__name__}")
    item["votes"] = {}
    for seat, positions in votes.items():
        if isinstance(seat, bool) or not (isinstance(seat, int) or (
                isinstance(seat, str) and seat.isascii() and seat.isdigit())):
            raise _Broken(f"{where}.votes has the key {seat!r}, which is not a seat number")
        if not isinstance(positions, list):
            raise _Broken(f"{where}.votes[{seat!r}] must be a list of board positions, not "
                          f"{positions!r}")
        item["votes"][int(seat)] = list(positions)
    # (played and forfeits are read, and named, by replay_record's shape check)
    for name, kind, form in (("notes", dict, "an object"), ("parts", list, "a list")):
        if name in item and not isinstance(item[name], kind):
            raise _Broken(f"{where}.{name} must be {form}, not {item[name]!r}")
    rate = item["predicted_guess_rate"]
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, int | float)
                             or not 0 <= rate <= 1):
        raise _Broken(f"{where}.predicted_guess_rate must be null or a number from 0 to 1, "
                      f"not {rate!r}")
    return RoundRecord(**item)


def _non_finite_field(value: Any, path: str = "", fields: bool = True) -> str | None:
    """``"<path> is <value>"`` for the first NaN or infinite float in ``value`` (a
    :meth:`GameRecord.to_dict`), else None. ``fields``: the keys of ``value`` are a record's
    or a round's fields (``rounds[2].notes``), not data (``header['agents']``)."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{path} is {value!r}"
    if isinstance(value, dict):
        for key in sorted(value, key=str):
            step = (f".{key}" if path else str(key)) if fields else f"[{key!r}]"
            found = _non_finite_field(value[key], path + step,
                                      fields and not path and key in ("rounds", "failures"))
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _non_finite_field(item, f"{path}[{index}]", fields)
            if found is not None:
                return found
    return None


def write_records(path: str | Path, records: Iterable[GameRecord], *, append: bool = False) -> int:
    """Write records as JSON Lines; return how many were written.

    Without ``append`` the file is replaced atomically (:func:`dixit_ai.files.atomic_writer`):
    a record that cannot be written (:meth:`GameRecord.to_json` refuses a non-finite number)
    leaves an existing file as it was. With ``append``, each record is serialised before its
    line is added, so a refused record adds nothing.
    """
    count = 0
    if append:
        with open(path, "a", encoding="utf-8") as out:
            for record in records:
                out.write(record.to_json() + "\n")
                count += 1
        return count
    with atomic_writer(path) as out:
        for record in records:
            out.write(record.to_json() + "\n")
            count += 1
    return count


def read_records(path: str | Path) -> Iterator[GameRecord]:
    """Read a JSON Lines file of records (or a single JSON record).

    Raises:
        ValueError: a line is not UTF-8 text or not a record; the message names the file and
            line.
    """
    for _, record in read_numbered_records(path):
        yield record


def read_numbered_records(path: str | Path) -> Iterator[tuple[int, GameRecord]]:
    """:func:`read_records`, each record with the number of its line (from 1)."""
    first = True
    with open(path, "rb") as source:
        for number, raw in enumerate(source, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise ValueError(f"{path}, line {number}: not UTF-8 text ({error})") from None
            if not line.strip():
                continue
            try:
                record = GameRecord.from_json(line)
            except ValueError as error:
                # A pretty-printed record fails on its first line: say what the format is.
                hint = json_lines_hint(path, line) if first else ""
                raise ValueError(f"{path}, line {number}: {error}{hint}") from error
            first = False
            yield number, record


def transcript(record: GameRecord) -> str:
    """A human-readable transcript of a game, one block per round (used for golden files)."""
    header = record.header
    lines = [
        f"# {header['edition']}, {record.n_players} players, seed {record.seed}, "
        f"deck {header['deck']['name']} ({header['deck']['size']} cards)",
        "# agents: " + ", ".join(str(a.get("name", "?")) for a in header["agents"]),
    ]
    party = header.get("rules", {}).get("mode") == "party"
    for r in record.rounds:
        if party:
            lines.append(f"round {r.round}: storyteller {r.storyteller} announces {r.clue!r}")
        else:
            lines.append(f"round {r.round}: storyteller {r.storyteller} tells {r.clue!r} "
                         f"with card {r.storyteller_card}")
        lines.append("  played: " + "; ".join(
            f"{seat}: {' '.join(map(str, cards))}" for seat, cards in enumerate(r.played)))
        lines.append("  board:  " + " ".join(
            f"{pos}={card}({owner})" for pos, (card, owner) in
            enumerate(zip(r.board, r.board_owner, strict=True))))
        lines.append("  votes:  " + "; ".join(
            f"{seat}->{','.join(map(str, pos))}" for seat, pos in sorted(r.votes.items()))
            + (f"; red token {r.red_token}" if r.red_token is not None else ""))
        if r.parts:
            lines.append("  parts:  " + "; ".join(
                f"{seat}: " + (" ".join(f"{k}{v:+d}" for k, v in named.items()) or "-")
                for seat, named in enumerate(r.parts)))
        lines.append(f"  points: {r.points}  scores: {r.scores}"
                     + (f"  forfeits: {r.forfeits}" if r.forfeits else "")
                     + ("  (discard reshuffled)" if r.reshuffled else ""))
    lines.append(f"result: {record.status}; final scores {record.final_scores}; "
                 f"winners {record.winners}")
    for failure in record.failures:
        lines.append(f"failure: seat {failure.seat}, round {failure.round}, {failure.phase}: "
                     f"{failure.error}: {failure.reason} ({failure.penalty})")
    return "\n".join(lines) + "\n"
