"""One table's game as a replayable event log over the pure rules (no I/O, no web framework).

A :class:`Session` starts from the table's seed and seats and applies *events*, each a JSON-ready
dict: ``{"kind": "action", ...}`` (a tell, play or vote by a person or a bot) or
``{"kind": "control", ...}`` (a bot takes a seat over, or its person takes it back). The rules
engine does all the bookkeeping; the session only keeps what the record needs (the notes and
predictions of bots, failures, takeovers).

Randomness: the rules' generator is the first stream of :func:`dixit_ai.match.game_streams`, as in
:func:`dixit_ai.play_game`, and the rules draw from it only on accepted actions; a bot's decision
number ``k`` of seat ``s`` gets its own generator, :func:`bot_generator` ``(seed, s, k)``, and sees
the seat's view at the *start* of the phase. So a bot decision depends on the log alone, never on
timing or on a live generator's history: replaying the persisted events from the seed rebuilds the
state exactly, and a game resumed after a crash ends with the same record as an uninterrupted one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from dixit_ai.agents import Agent
from dixit_ai.match import decide, fallback_action, game_streams, record_header, round_record
from dixit_ai.records import Failure, GameRecord, RoundRecord
from dixit_ai.rules import (
    Action,
    Announce,
    GameState,
    IllegalAction,
    Phase,
    Play,
    RedToken,
    RuleSet,
    Tell,
    Vote,
    apply_action,
    check_action,
    new_game,
    observe,
)

Controller = Literal["human", "bot"]


class BadMessage(ValueError):
    """A message that is not well formed (wrong type, missing field, not JSON)."""


def bot_generator(seed: int, seat: int, decision: int) -> np.random.Generator:
    """The generator of bot decision ``decision`` (0-based) of ``seat`` in game ``seed``.

    It descends from the seat's stream of :func:`dixit_ai.match.game_streams`
    (``SeedSequence(seed).spawn(n + 1)[seat + 1]``), one child per decision.
    """
    sequence = np.random.SeedSequence(seed, spawn_key=(seat + 1, decision))
    return np.random.default_rng(sequence)


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadMessage(f"{what} must be an integer, not {value!r}")
    return value


def _int_list(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise BadMessage(f"{what} must be a list of integers, not {value!r}")
    return tuple(_int(item, what) for item in value)


def action_from_message(seat: int, message: Mapping[str, Any], *,
                        allow_forfeit: bool = False) -> Action:
    """The rules action a client message asks for (``tell``, ``play``, ``vote``; Dixit Party's
    ``announce``, a clue with no card, and ``red``, the storyteller's red token on a position).

    A team's designated seat passes the giving to its partner with ``play`` of no card.

    ``forfeit`` is read only with ``allow_forfeit`` (events of the log: a failed bot's fallback
    move); a person's message cannot mark a move forfeited.

    Raises:
        BadMessage: a missing or mistyped field.
    """
    kind = message.get("type")
    forfeit = allow_forfeit and message.get("forfeit", False) is True
    if kind in ("tell", "announce"):
        clue = message.get("clue")
        if not isinstance(clue, str):
            raise BadMessage(f"the clue must be text, not {clue!r}")
        clue_kind = message.get("clue_kind")
        if clue_kind is not None and not isinstance(clue_kind, str):
            raise BadMessage(f"clue_kind must be text or null, not {clue_kind!r}")
        if kind == "announce":
            if "card" in message:
                raise BadMessage("announce names no card: in Dixit Party the storyteller says "
                                 "the clue before looking at the hand")
            return Announce(seat, clue, clue_kind, forfeit=forfeit)
        return Tell(seat, _int(message.get("card"), "card"), clue, clue_kind, forfeit=forfeit)
    if kind == "red":
        return RedToken(seat, _int(message.get("position"), "position"), forfeit=forfeit)
    if kind == "play":
        return Play(seat, _int_list(message.get("cards"), "cards"), forfeit=forfeit)
    if kind == "vote":
        return Vote(seat, _int_list(message.get("positions"), "positions"), forfeit=forfeit)
    raise BadMessage(f"unknown action type {kind!r}: expected tell, play, vote, "
                     "announce or red")


def action_to_json(action: Action) -> dict[str, Any]:
    """A JSON-ready dict of ``action`` (the inverse of :func:`action_from_message`)."""
    if isinstance(action, Tell):
        return {"type": "tell", "card": int(action.card), "clue": action.clue,
                "clue_kind": action.clue_kind, "forfeit": bool(action.forfeit)}
    if isinstance(action, Play):
        return {"type": "play", "cards": [int(c) for c in action.cards],
                "forfeit": bool(action.forfeit)}
    if isinstance(action, Announce):
        return {"type": "announce", "clue": action.clue, "clue_kind": action.clue_kind,
                "forfeit": bool(action.forfeit)}
    if isinstance(action, RedToken):
        return {"type": "red", "position": int(action.position),
                "forfeit": bool(action.forfeit)}
    return {"type": "vote", "positions": [int(p) for p in action.positions],
            "forfeit": bool(action.forfeit)}


def to_json_ready(value: Any) -> Any:
    """``value`` after a JSON round trip (numpy scalars and arrays become plain numbers).

    Live events go through this before they are applied, so a live session and one replayed
    from the database hold identical data and write identical records.
    """
    def default(item: Any) -> Any:
        if isinstance(item, np.generic):
            return item.item()
        if isinstance(item, np.ndarray):
            return item.tolist()
        if isinstance(item, set | frozenset):
            return sorted(item)
        raise TypeError(f"{type(item).__name__} is not JSON-ready")

    return json.loads(json.dumps(value, default=default))


@dataclass
class SeatPlan:
    """Who sits in a seat when the game starts.

    Attributes:
        name: The person's name, or the bot's display name.
        controller: ``"human"`` or ``"bot"``.
        bot: The registry name of the bot that plays the seat (for a person's seat: the bot that
            takes over if they leave or time out).
    """

    name: str
    controller: Controller
    bot: str


@dataclass
class Prepared:
    """An event checked against a session, ready to commit (nothing has changed yet)."""

    event: dict[str, Any]
    state: GameState
    rng_state: dict[str, Any]


@dataclass
class Session:
    """The game of one table: rules state, random generator and the log that rebuilds them."""

    rules: RuleSet
    seed: int
    seats: list[SeatPlan]
    card_ids: tuple[int, ...]
    deck_entry: dict[str, Any]
    state: GameState = field(init=False)
    rng: np.random.Generator = field(init=False)
    phase_start: GameState = field(init=False)
    controllers: list[Controller] = field(init=False)
    decisions: list[int] = field(init=False)
    events: list[dict[str, Any]] = field(init=False, default_factory=list)
    rounds: list[RoundRecord] = field(init=False, default_factory=list)
    failures: list[Failure] = field(init=False, default_factory=list)
    takeovers: list[dict[str, Any]] = field(init=False, default_factory=list)
    bot_inputs: dict[int, list[tuple[int, GameState]]] = field(init=False, default_factory=dict)
    """Per seat, ``(decision number, state at the phase's start)`` of every bot move in the
    log: what a bot's memory of the game is rebuilt from."""
    _notes: dict[str, Any] = field(init=False, default_factory=dict)
    _prediction: float | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        n = len(self.seats)
        self.rules.check_players(n)
        self.rng = np.random.default_rng(game_streams(self.seed, n)[0])
        self.state = new_game(self.rules, n, self.card_ids, self.rng)
        self.phase_start = self.state
        self.controllers = [seat.controller for seat in self.seats]
        self.decisions = [0] * n

    @property
    def n_players(self) -> int:
        """Players at the table."""
        return len(self.seats)

    # ------------------------------------------------------------------ events

    def prepare(self, event: Mapping[str, Any]) -> Prepared:
        """Check ``event`` and compute the state it leads to, changing nothing.

        Raises:
            IllegalAction: the rules refuse the action (out of turn, card not in hand, ...).
            BadMessage: the event is malformed, or a control event that does not apply.
        """
        data = to_json_ready(dict(event))
        kind = data.get("kind")
        seat = data.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n_players:
            raise BadMessage(f"{seat!r} is not a seat of this {self.n_players}-player table")
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state
        rng = np.random.Generator(bit_generator)
        if kind == "action":
            action = action_from_message(seat, data["action"], allow_forfeit=True)
            state = apply_action(self.state, action, rng)
        elif kind == "control":
            if data.get("to") not in ("human", "bot"):
                raise BadMessage(f"a control event hands a seat to 'human' or 'bot', "
                                 f"not {data.get('to')!r}")
            if self.state.is_over:
                raise BadMessage("the game is over")
            if self.controllers[seat] == data["to"]:
                raise BadMessage(f"seat {seat} is already played by a {data['to']}")
            state = self.state
        else:
            raise BadMessage(f"unknown event kind {kind!r}")
        return Prepared(data, state, dict(rng.bit_generator.state))

    def commit(self, prepared: Prepared) -> None:
        """Apply a prepared event (the caller has persisted it)."""
        event = prepared.event
        seat = int(event["seat"])
        before = self.state
        self.events.append(event)
        if event["kind"] == "control":
            self.controllers[seat] = event["to"]
            self.takeovers.append({"seat": seat, "round": before.round,
                                   "phase": before.phase.value, "to": event["to"],
                                   "reason": event.get("reason", "")})
            return
        if event.get("by") == "bot":
            self.bot_inputs.setdefault(seat, []).append((self.decisions[seat], self.phase_start))
        self.decisions[seat] += 1
        self.rng.bit_generator.state = prepared.rng_state
        self.state = prepared.state
        phase = before.phase
        if phase is Phase.TELL:
            self._prediction = event.get("predicted")
        if event.get("notes"):
            self._notes.setdefault(str(seat), {})[phase.value] = event["notes"]
        if event.get("failure"):
            self.failures.append(Failure(**event["failure"]))
        if len(self.state.results) > len(self.rounds):
            self.rounds.append(round_record(self.state, self._prediction, self._notes))
            self._notes, self._prediction = {}, None
        if ((self.state.phase, self.state.round) != (before.phase, before.round)
                or set(self.state.pending) - set(before.pending)):
            # A new phase, or a seat that now has to act in this one (a team's designated seat
            # passed the giving to its partner): bots decide on this state, in which they can.
            self.phase_start = self.state

    def apply(self, event: Mapping[str, Any]) -> None:
        """Check and commit ``event`` (replaying a log)."""
        self.commit(self.prepare(event))

    # ------------------------------------------------------------------ bots

    def bot_seats_to_act(self) -> list[int]:
        """Seats played by bots that still have to act in this phase, in turn order."""
        return [seat for seat in self.state.pending if self.controllers[seat] == "bot"]

    def human_seats_to_act(self) -> list[int]:
        """Seats played by people that still have to act in this phase."""
        return [seat for seat in self.state.pending if self.controllers[seat] == "human"]

    def bot_event(self, agent: Agent, seat: int) -> dict[str, Any]:
        """Ask ``agent`` for seat ``seat``'s move now (see :func:`decide_bot`)."""
        return decide_bot(agent, self.seed, seat, self.decisions[seat], self.phase_start)

    # ------------------------------------------------------------------ the record

    def record(self, agents: Sequence[dict[str, Any]]) -> GameRecord:
        """The game record so far (``status`` ``"complete"`` once the rules ended the game).

        Args:
            agents: One description per seat (``Agent.describe()`` for bots).
        """
        header = record_header(self.rules, self.n_players, self.seed, self.deck_entry,
                               agents, on_failure="forfeit", max_rounds=None)
        header["web"] = {
            "players": [seat.name for seat in self.seats],
            "controllers": [seat.controller for seat in self.seats],
            "takeovers": list(self.takeovers),
        }
        over = self.state.is_over
        return GameRecord(
            header=header,
            rounds=list(self.rounds),
            final_scores=list(self.state.scores),
            winners=list(self.state.winners) if over else [],
            status="complete" if over else "truncated",
            failures=list(self.failures),
        )


def decide_bot(agent: Agent, seed: int, seat: int, decision: int,
               phase_state: GameState, *, rng: np.random.Generator | None = None
               ) -> dict[str, Any]:
    """The event of a bot's move: ``seat``'s decision number ``decision`` in game ``seed``.

    Deterministic: the agent sees the seat's view of ``phase_state`` (the state at the start of
    the phase, or, in a team game, just after its partner passed it the giving: see
    :meth:`Session.commit`) and gets the generator :func:`bot_generator` of this decision,
    whatever happened since and whenever it is asked. An agent that raises or returns an illegal
    move is recorded as a failure and the rules-defined fallback move is made in its name (the
    seat scores nothing that round). Pure: safe to run in a worker thread.

    With ``rng`` (the generator the agent was reset with, once, for the whole game) the agent
    keeps its memory of the game: ``rng`` is reseeded to :func:`bot_generator` of this decision
    instead of resetting the agent (see :class:`dixit_ai.web.bots.BotMind`).
    """
    if rng is None:
        agent.reset(seat=seat, rng=bot_generator(seed, seat, decision))
    else:
        rng.bit_generator.state = bot_generator(seed, seat, decision).bit_generator.state
    event: dict[str, Any] = {"kind": "action", "seat": seat, "by": "bot"}
    returned: Action | None = None
    try:
        returned, notes, predicted = decide(agent, observe(phase_state, seat))
        check_action(phase_state, returned)
        event.update(action=action_to_json(returned), notes=notes, predicted=predicted)
    except Exception as error:
        return failure_event(seat, phase_state, error, returned)
    result: dict[str, Any] = to_json_ready(event)
    return result


def failure_event(seat: int, phase_state: GameState, error: Exception,
                  returned: Action | None = None) -> dict[str, Any]:
    """The event of a bot that failed (raised, returned an illegal move, or could not be made).

    The failure is recorded and the rules-defined fallback move is made in the seat's name,
    forfeited: the seat (or its team) scores nothing that round.
    """
    fallback = fallback_action(phase_state, seat)
    event = {
        "kind": "action", "seat": seat, "by": "bot", "action": action_to_json(fallback),
        "notes": {"failure": str(error)}, "predicted": None,
        "failure": {"seat": seat, "round": phase_state.round, "phase": phase_state.phase.value,
                    "reason": str(error), "error": type(error).__name__,
                    "action": None if returned is None else repr(returned),
                    "penalty": "forfeit"}}
    result: dict[str, Any] = to_json_ready(event)
    return result


__all__ = [
    "BadMessage",
    "IllegalAction",
    "Prepared",
    "SeatPlan",
    "Session",
    "action_from_message",
    "action_to_json",
    "bot_generator",
    "decide_bot",
    "failure_event",
    "to_json_ready",
]
