"""One scheduled game played: a tournament's agents made once and reused, each decision timed.

A :class:`GamePlayer` is what every backend of :mod:`dixit_ai.tournament.runner` runs; it plays
a :class:`~dixit_ai.tournament.schedule.ScheduledGame` and returns its record as one line of
JSON. With a decision limit, each agent is wrapped in a :class:`TimedAgent`, whose decision runs
in a thread that the limit stops waiting for.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dixit_ai.agents import Agent, make_agent_for_deck
from dixit_ai.match import play_game
from dixit_ai.tournament.config import TournamentConfig
from dixit_ai.tournament.outage import (
    MAX_ENDPOINT_FAILURES,
    OutageCount,
    check_endpoint_failures,
)
from dixit_ai.tournament.schedule import ScheduledGame

DECISIONS = ("tell", "play", "vote", "announce", "red_token")
"""An agent's decision methods: what a decision limit times."""

MAX_STUCK_DECISIONS = 3
"""The most decisions of one entrant that may still run, past the decision limit, in one process
(a worker process, or the one process of ``workers=1``, across runs). A thread cannot be
stopped: a decision stuck in C code runs on, holding its memory and perhaps a core, and an
entrant that hangs in every game would leave one more such thread per game. At this many, the
entrant's decisions fail at once (recorded as ``DecisionTimeout``, naming the count) until one
of them ends."""

_STUCK: dict[tuple[str, str], list[threading.Thread]] = {}
"""By entrant (label, registry name): the threads of its decisions that passed the limit in
this process (see :data:`MAX_STUCK_DECISIONS`)."""


class DecisionTimeout(Exception):
    """An agent took longer than the tournament's ``decision_timeout`` over one decision (or
    its seat was set aside after such a decision)."""


class WatchedAgent:
    """An agent whose decisions are counted by a run's :class:`OutageCount` (``outage``) under
    its entrant ``label``: the decision that makes the count of endpoint failures in a row
    reach the limit raises :class:`~dixit_ai.tournament.outage.EndpointOutage` instead of
    failing. Everything else (``name``, ``reset``, ``describe``) is the agent's own."""

    _OWN: tuple[str, ...] = ("agent", "label", "outage")

    def __init__(self, agent: Agent, label: str = "", outage: OutageCount | None = None) -> None:
        self.agent = agent
        self.label = label
        self.outage = outage

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self.agent, attribute)  # AttributeError for a decision it lacks
        if attribute in DECISIONS and callable(value):
            return lambda view: self._watched(attribute, value, view)
        return value

    def __setattr__(self, attribute: str, value: Any) -> None:
        if attribute in self._OWN:
            object.__setattr__(self, attribute, value)
        else:
            setattr(self.agent, attribute, value)

    def _watched(self, method: str, decide: Callable[[Any], Any], view: Any) -> Any:
        try:
            answer = self._decide(method, decide, view)
        except BaseException as error:
            if self.outage is not None:
                self.outage.ended(self.label, error)
            raise
        if self.outage is not None:
            self.outage.ended(self.label, None)
        return answer

    def _decide(self, method: str, decide: Callable[[Any], Any], view: Any) -> Any:
        return decide(view)


class TimedAgent(WatchedAgent):
    """An agent whose decisions each run in a helper thread, waited for at most ``limit``
    seconds.

    A decision past the limit raises :class:`DecisionTimeout` (the match runner records it as
    the seat's failure, with its round and phase); the thread cannot be stopped, so the agent is
    *spent*: its later decisions raise at once, and :class:`GamePlayer` makes a new instance
    for the next game. Everything else (``name``, ``reset``, ``describe``) is the agent's own.

    ``stuck`` (shared by the instances of one entrant) keeps the threads of its decisions that
    passed the limit; while ``max_stuck`` of them still run, a decision raises at once, without
    a thread: an entrant that hangs in every game holds at most ``max_stuck`` threads.
    """

    _OWN = ("agent", "label", "outage", "limit", "spent", "stuck", "max_stuck")

    def __init__(self, agent: Agent, limit: float, stuck: list[threading.Thread] | None = None,
                 max_stuck: int = MAX_STUCK_DECISIONS, *, label: str = "",
                 outage: OutageCount | None = None) -> None:
        super().__init__(agent, label, outage)
        self.limit = limit
        self.spent: str | None = None  # the decision that timed out
        self.stuck = [] if stuck is None else stuck
        self.max_stuck = max_stuck

    def _decide(self, method: str, decide: Callable[[Any], Any], view: Any) -> Any:
        name = getattr(self.agent, "name", type(self.agent).__name__)
        if self.spent is not None:
            raise DecisionTimeout(f"seat {view.seat}: {name} was set aside for this game after "
                                  f"its {self.spent} took longer than {self.limit:g} s")
        self.stuck[:] = [thread for thread in self.stuck if thread.is_alive()]
        if len(self.stuck) >= self.max_stuck:
            raise DecisionTimeout(
                f"seat {view.seat}: {name}: {len(self.stuck)} of its decisions that passed the "
                f"decision limit of {self.limit:g} s are still running in this process (at "
                f"most {self.max_stuck} may be: a decision cannot be stopped), so its "
                f"{method}() fails at once, until one of them ends")
        answer: list[Any] = []
        failure: list[BaseException] = []

        def run() -> None:
            try:
                answer.append(decide(view))
            except BaseException as error:  # SystemExit too: the caller records it
                failure.append(error)

        thread = threading.Thread(target=run, name=f"decision-{name}-{method}", daemon=True)
        started = time.monotonic()
        thread.start()
        thread.join(self.limit)
        if thread.is_alive():
            self.spent = f"{method}() in round {view.round + 1}"
            self.stuck.append(thread)
            raise DecisionTimeout(
                f"seat {view.seat}: {name}'s {method}() took longer than the decision limit "
                f"of {self.limit:g} s (decision_timeout; waited "
                f"{time.monotonic() - started:.1f} s); the agent is set aside for the rest of "
                "this game")
        if failure:
            raise failure[0]
        return answer[0]


def time_decisions(agents: Sequence[Agent], entrants: Sequence[tuple[str, str]],
                   limit: float, outage: OutageCount | None = None) -> list[Any]:
    """``agents`` (one per seat) each wrapped in a :class:`TimedAgent` of ``limit`` seconds;
    ``entrants`` gives each seat's ``(label, registry name)``, whose stuck decisions this
    process counts together (:data:`MAX_STUCK_DECISIONS`), and ``outage`` (if given) its
    endpoint failures in a row."""
    return [TimedAgent(agent, float(limit), _STUCK.setdefault(entrant, []), label=entrant[0],
                       outage=outage)
            for agent, entrant in zip(agents, entrants, strict=True)]


@dataclass
class InPlay:
    """The games being played now (by schedule index), with when each started and where, for a
    run that stalls to say which games it waits for."""

    games: dict[int, tuple[float, str]] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def started(self, index: int, where: str, at: float | None = None) -> None:
        with self.lock:
            if index not in self.done:  # a worker's notice may come after the game's end
                self.games[index] = (time.time() if at is None else at, where)

    def finished(self, index: int) -> None:
        with self.lock:
            self.games.pop(index, None)
            self.done.add(index)

    def now(self) -> list[tuple[int, float, str]]:
        """``(game index, seconds in play, where)`` of each game in play, longest first."""
        clock = time.time()
        with self.lock:
            held = sorted(self.games.items(), key=lambda item: item[1][0])
        return [(index, clock - since, where) for index, (since, where) in held]


@dataclass
class GamePlayer:
    """Plays scheduled games of one tournament, making each agent once.

    Picklable (it holds the config, not the agents, until the first game), so that it can be
    sent to a worker process or become a Ray actor.
    """

    config: TournamentConfig
    endpoint_failures: int = MAX_ENDPOINT_FAILURES
    """An entrant's decisions in a row that failed to reach its endpoint at which a game stops
    the run (see :mod:`dixit_ai.tournament.outage`)."""
    _agents: dict[str, list[Agent]] = field(default_factory=dict, repr=False)
    _deck: Any = field(default=None, repr=False)
    _outage: OutageCount | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        check_endpoint_failures(self.endpoint_failures)

    def warm_up(self) -> None:
        """Make one instance of every agent and load the deck (models load here, once)."""
        self._load_deck()
        for entry in self.config.agents:
            agent = self._agent(entry.label, 0)
            agent.describe()  # embedding players load their model and vectors here

    def _load_deck(self) -> Any:
        if self._deck is None:
            from dixit_ai.decks import load_deck

            self._deck = load_deck(self.config.deck)
        return self._deck

    def _agent(self, label: str, copy: int) -> Agent:
        instances = self._agents.setdefault(label, [])
        while len(instances) <= copy:
            instances.append(self._new_agent(label))
        return instances[copy]

    def _new_agent(self, label: str) -> Agent:
        entry = self.config.entry(label)
        agent = make_agent_for_deck(entry.agent, self.config.deck, **entry.kwargs)
        agent.name = label  # ranked, and recorded, under its tournament label
        return agent

    def play(self, game: ScheduledGame) -> str:
        """Play one scheduled game; return its record as one line of JSON (no newline).

        The record's header gains a ``"tournament"`` entry: the game's schedule index, deal,
        seat labels and the tournament's name.
        """
        copies: dict[str, int] = {}
        agents: list[Any] = []
        seats: list[tuple[str, int]] = []
        for label in game.seats:
            seats.append((label, copies.get(label, 0)))
            agents.append(self._agent(label, copies.get(label, 0)))
            copies[label] = copies.get(label, 0) + 1
        config = self.config
        limit = config.decision_timeout
        if self._outage is None:
            self._outage = OutageCount(self.endpoint_failures)
        if limit is not None:
            agents = time_decisions(
                agents, [(label, config.entry(label).agent) for label, _ in seats], limit,
                self._outage)
        else:
            agents = [WatchedAgent(agent, label, self._outage)
                      for agent, (label, _) in zip(agents, seats, strict=True)]
        try:
            record = play_game(agents, edition=config.edition, deck=self._load_deck(),
                               seed=game.seed, on_failure=config.on_failure,
                               max_rounds=config.max_rounds, writable=True, **config.rules)
        finally:
            # An instance whose decision still runs in its thread is never used again: the
            # next game gets a new one.
            for (label, copy), agent in zip(seats, agents, strict=True):
                if isinstance(agent, TimedAgent) and agent.spent is not None:
                    self._agents[label][copy] = self._new_agent(label)
        record.header["tournament"] = {"name": config.name, "game": game.index,
                                       "deal": game.deal, "seats": list(game.seats)}
        return record.to_json()

    def play_many(self, games: Sequence[ScheduledGame]) -> list[str]:
        """Play several games in order (one round trip for a batch)."""
        return [self.play(game) for game in games]
