"""Bots at web tables: warmed at server start, one mind per seat, moves off the event loop.

**Warm-up.** At start the server calls :func:`dixit_ai.agents.prepare_agents` for every offered
bot and deck (models loaded, card and vocabulary embeddings in the on-disk cache); a bot with such
a prepare step then plays one rehearsal round on each deck (:func:`rehearse`), so that what its
moves load stays in memory. Each step is logged. A bot is offered to new tables only once it is
ready (the create form says "warming up" until then); one whose warm-up fails is not offered and
the form says why. Bots with nothing to prepare (random, scripted) are ready at once.

**Memory.** A seat's bot is made and reset once per game and then keeps what it learnt (the
clues it told, the rounds it saw). Its generator is reseeded for each decision to
:func:`~dixit_ai.web.session.bot_generator` of that decision, and its memory is whatever the
moves of the log showed it: a mind that is missing (a restart) or out of step (a decision thrown
away) is rebuilt by showing a fresh agent every earlier bot move of the seat, in order, from the
event log. So a resumed game is byte-identical to an uninterrupted one.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dixit_ai.agents import Agent, agent_spec, make_agent_for_deck
from dixit_ai.decks import load_deck
from dixit_ai.rules import GameState
from dixit_ai.web.config import WebError
from dixit_ai.web.session import bot_generator, decide_bot, failure_event
from dixit_ai.web.table import Table

log = logging.getLogger("dixit_ai.web")


@dataclass
class BotMind:
    """One seat's bot for one game, with its memory.

    Attributes:
        agent: The agent, reset once for the game.
        rng: The generator it was reset with (reseeded before each decision).
        absorbed: How many of the seat's bot moves in the log the agent has made or been shown.
    """

    agent: Agent
    seed: int
    seat: int
    rng: np.random.Generator = field(init=False)
    absorbed: int = 0

    def __post_init__(self) -> None:
        self.rng = bot_generator(self.seed, self.seat, 0)
        self.agent.reset(seat=self.seat, rng=self.rng)

    def decide(self, history: Sequence[tuple[int, GameState]], decision: int,
               phase_state: GameState) -> dict[str, Any]:
        """The event of decision ``decision`` after catching up on ``history`` (the seat's
        earlier bot moves, from the log). Runs in a worker thread."""
        for number, state in history[self.absorbed:]:
            decide_bot(self.agent, self.seed, self.seat, number, state, rng=self.rng)
        self.absorbed = len(history)
        event = decide_bot(self.agent, self.seed, self.seat, decision, phase_state,
                           rng=self.rng)
        self.absorbed += 1
        return event


def rehearse(agent: Agent, card_ids: Sequence[int], *, party: bool = False) -> None:
    """Walk ``agent`` through one round of a private game on the deck's cards: it tells, plays
    for a clue nobody has embedded before, and votes, so that every model a real move needs
    (a person's new clue needs the text tower) is loaded now rather than at the first move.

    ``party``: a Dixit Party round instead (the bot announces, plays, votes, places the red
    token).
    """
    import secrets

    from dixit_ai.agents import RandomAgent
    from dixit_ai.match import decide
    from dixit_ai.rules import Announce, Phase, RuleSet, Tell, apply_action, new_game, observe

    rules = RuleSet.edition("odyssey-2011", mode="party") if party else RuleSet.edition(
        "refresh-2021")
    n_players = rules.min_party_players if party else 3
    try:
        rules.check_deck(n_players, len(card_ids))
    except ValueError:  # a deck no table can play: nothing to rehearse on it
        return
    rng = np.random.default_rng(0)
    state = new_game(rules, n_players, card_ids, rng)
    others = RandomAgent()
    others.reset(seat=1, rng=np.random.default_rng(1))
    agent.reset(seat=0, rng=np.random.default_rng(2))
    decide(agent, observe(state, state.storyteller))  # as a storyteller (the move is dropped)
    teller = state.storyteller
    clue = f"warming up {secrets.token_hex(6)}"  # a new text: the text model must load
    told = Announce(teller, clue) if party else Tell(teller, state.hands[teller][0], clue)
    state = apply_action(state, told, rng)
    while state.phase is not Phase.OVER and not state.results:
        seat = state.pending[0]
        action, _, _ = decide(agent if seat != teller else others, observe(state, seat))
        state = apply_action(state, action, rng)


class Warmup:
    """The warm-up of the offered bots: each one ``"warming"``, ``"ready"`` or failed, for the
    basic game (``status``) and for Dixit Party (``party_status``).

    A bot with Party decisions (``announce``, ``red_token``) rehearses a Party round too; one
    that plays Party only (party-embedding: its ``tell`` raises) is ready for Party tables only,
    and the basic game's error says why it is not offered there.
    """

    def __init__(self, bots: Sequence[str], decks: Sequence[str]) -> None:
        self.bots = list(bots)
        self.decks = list(decks)
        self.status: dict[str, str] = dict.fromkeys(self.bots, "warming")
        self.errors: dict[str, str] = {}
        self.party_status: dict[str, str] = dict.fromkeys(self.bots, "warming")
        self.party_errors: dict[str, str] = {}
        self.seconds: float | None = None
        self.done = threading.Event()

    def ready(self, name: str, *, party: bool = False) -> bool:
        return (self.party_status if party else self.status).get(name) == "ready"

    def run(self, progress: Callable[[str], None]) -> None:
        """Warm every bot (in a thread). A bot that cannot warm is reported, never offered."""
        started = time.perf_counter()
        try:
            from dixit_ai.agents import prepare_agents
        except ImportError as error:  # an older core: nothing can be prepared
            for name in self.bots:
                self.status[name], self.errors[name] = "failed", str(error)
                self.party_status[name], self.party_errors[name] = "failed", str(error)
            self.done.set()
            raise
        from dixit_ai.web.config import party_problem

        for name in self.bots:
            begun = time.perf_counter()
            try:
                heavy = agent_spec(name).prepare is not None
                for deck in self.decks:
                    prepare_agents([name], deck=deck, progress=progress)
            except Exception as error:  # reported, and the bot is not offered
                log.error("bot %s cannot warm up: %s", name, error)
                reason = f"{type(error).__name__}: {error}"
                self.status[name], self.errors[name] = "failed", reason
                self.party_status[name], self.party_errors[name] = "failed", reason
                continue
            no_party = party_problem(name)
            for party, status, errors in ((False, self.status, self.errors),
                                          (True, self.party_status, self.party_errors)):
                if party and no_party:
                    status[name], errors[name] = "failed", no_party
                    continue
                try:
                    for deck in self.decks:
                        if heavy:  # a bot with models to load: one round loads what moves need
                            rehearse(make_agent_for_deck(name, deck), load_deck(deck).card_ids,
                                     party=party)
                except Exception as error:  # reported, and the bot is not offered for it
                    game = "Dixit Party" if party else "the basic game"
                    log.error("bot %s cannot warm up for %s: %s", name, game, error)
                    status[name], errors[name] = "failed", f"{type(error).__name__}: {error}"
                    continue
                status[name] = "ready"
            progress(f"bot {name} ready ({time.perf_counter() - begun:.1f} s)"
                     if self.status[name] == "ready" else
                     f"bot {name} ready for Dixit Party only "
                     f"({time.perf_counter() - begun:.1f} s)"
                     if self.party_status[name] == "ready" else f"bot {name} failed")
        self.seconds = time.perf_counter() - started
        progress(f"bots warmed in {self.seconds:.1f} s")
        self.done.set()

    def check(self, names: Sequence[str], *, party: bool = False) -> None:
        """Every named bot is ready (for Dixit Party with ``party``).

        Raises:
            WebError: (409) one is still warming up; (503) one failed to warm up.
        """
        statuses, errors = ((self.party_status, self.party_errors) if party
                            else (self.status, self.errors))
        for name in names:
            status = statuses.get(name)
            if status == "warming":
                raise WebError(409, f"bot {name!r} is still warming up; try again in a moment")
            if status == "failed":
                game = " for Dixit Party" if party else ""
                raise WebError(503, f"bot {name!r} is unavailable{game}: {errors.get(name)}")


class BotsMixin:
    """The bots of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    bot_delay: float
    _work: Callable[..., Any]
    _broadcast: Callable[..., None]

    async def _make_agent(self, table: Table, name: str) -> Agent:
        """Make a bot for ``table``; a bot that reads a deck gets the table's deck.

        Raises:
            WebError: the bot cannot be made, whatever the error (a missing file, a model that
                fails to load, ...); the message names the bot and the error.
        """
        try:
            agent: Agent = await self._work(lambda: make_agent_for_deck(name, table.config.deck))
        except Exception as error:  # recorded as the seat's failure by the caller
            raise WebError(400, f"bot {name!r} cannot play: {type(error).__name__}: {error}"
                           ) from None
        return agent

    async def _mind(self, table: Table, seat: int) -> BotMind:
        """The seat's bot mind, made (with its memory empty) if missing.

        Raises:
            WebError: the bot cannot be made or reset (see :meth:`_make_agent`).
        """
        mind = table.minds.get(seat)
        if mind is None:
            assert table.session is not None
            name = table.session.seats[seat].bot
            agent = await self._make_agent(table, name)
            try:
                mind = BotMind(agent, table.seed, seat)
            except Exception as error:  # its reset raised
                raise WebError(400, f"bot {name!r} cannot play: {type(error).__name__}: "
                                    f"{error}") from None
            table.minds[seat] = mind
        return mind

    async def _run_bots(self, table: Table) -> None:
        try:
            while True:
                async with table.lock:
                    session = table.session
                    if session is None or session.state.is_over:
                        return
                    seats = session.bot_seats_to_act()
                    if not seats:
                        return
                    seat = seats[0]
                    phase_state = session.phase_start
                    decision = session.decisions[seat]
                    history = list(session.bot_inputs.get(seat, ()))
                    unmade: WebError | None = None
                    mind: BotMind | None = None
                    try:
                        mind = await self._mind(table, seat)
                    except WebError as error:
                        unmade = error
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                if mind is None:  # recorded as the bot's failure, never skipped
                    assert unmade is not None
                    event = failure_event(seat, phase_state, RuntimeError(unmade.message))
                else:
                    event = await self._work(mind.decide, history, decision, phase_state)
                async with table.lock:
                    if (table.session is not session or session.phase_start is not phase_state
                            or session.decisions[seat] != decision
                            or session.controllers[seat] != "bot"
                            or seat not in session.state.pending):
                        # The decision no longer applies (its person took the seat back, ...):
                        # the mind saw a move the log will not hold, so it is rebuilt.
                        table.minds.pop(seat, None)
                        continue
                    # Other seats' moves since do not change this decision's inputs.
                    prepared = session.prepare(event)
                    await self._commit(table, prepared)  # type: ignore[attr-defined]
        except asyncio.CancelledError:
            raise
        except Exception as error:  # never a table silently stuck: it says why it stopped
            log.exception("table %s: the bots stopped", table.id)
            # Everyone at the table sees this: the error's text stays in the server log, since
            # it can name hidden cards (a rules error about a hand does).
            table.broken = (f"the bots stopped at this table ({type(error).__name__}); the "
                            "game cannot go on. The server log has the details.")
            self._broadcast(table)

    async def _describe_bots(self, table: Table) -> list[dict[str, Any]]:
        """One record description per seat (bots describe themselves). A bot that cannot be
        made or described is named with the error (``describe_error``): the record is written
        all the same."""
        session = table.session
        assert session is not None
        agents = []
        for seat, plan in enumerate(session.seats):
            if plan.controller == "bot":
                try:
                    mind = await self._mind(table, seat)
                    agents.append(await self._work(mind.agent.describe))
                except Exception as error:
                    log.exception("table %s: bot %r in seat %d cannot describe itself",
                                  table.id, plan.bot, seat)
                    reason = (error.message if isinstance(error, WebError)
                              else f"{type(error).__name__}: {error}")
                    agents.append({"name": plan.bot, "describe_error": reason})
            else:
                agents.append({"name": "human", "player": plan.name})
        return agents
