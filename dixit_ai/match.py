"""The match runner: one agent per seat, one whole game, one record.

All randomness flows from ``seed``: a ``numpy.random.SeedSequence`` is split into one stream for
the rules (deal, board shuffles, reshuffles) and one per seat for its agent. The same seed and
the same agents give the same record, byte for byte; and the rules' stream does not depend on
what the agents do with theirs, which is what lets :mod:`dixit_ai.replay` re-run a record.

An agent that raises, or returns a move the rules refuse, never gets a silent substitute: the
failure is recorded (seat, round, phase, reason) and, by ``on_failure``, the game either stops
(``"abort"``, the default; the record's status is ``"aborted"``) or the rules-defined fallback
move is made in the seat's name and the seat (or its team) scores nothing that round
(``"forfeit"``, recorded in the round's ``forfeits``). A failure's text (its reason, the
``repr`` of what the agent returned) is cut at :data:`FAILURE_CHARACTERS`, saying how long it was.

Ctrl-C while an agent decides stops the game whatever the policy: :func:`play_game` raises
:class:`GameInterrupted` (a ``KeyboardInterrupt``), which carries the record of the game so far
(status ``"aborted"``, the seat's failure with error ``"KeyboardInterrupt"``) for a caller that
keeps it, as ``dixit-ai play`` does.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from dixit_ai.agents import (
    Agent,
    Announcement,
    Choice,
    Story,
    as_choice,
    make_agent,
    make_agent_for_deck,
    missing_party_decisions,
    party_agents,
)
from dixit_ai.agents.checks import RulesChanged, check_rules, described, reset_agent
from dixit_ai.records import RECORD_FORMAT, Failure, GameRecord, RoundRecord, Status
from dixit_ai.rules import (
    Action,
    Announce,
    GameState,
    Phase,
    Play,
    RedToken,
    RuleSet,
    Tell,
    View,
    Vote,
    apply_action,
    new_game,
    observe,
)
from dixit_ai.versions import package_versions

_PLAY, _VOTE, _RED = Phase.PLAY, Phase.VOTE, Phase.RED

FailurePolicy = Literal["abort", "forfeit"]
FORFEIT_CLUE = "(forfeit)"
"""The clue of a storyteller's forfeited turn."""

FAILURE_CHARACTERS = 2_000
"""The most characters of a failure's text a record keeps: its ``reason``, its ``action`` (the
``repr`` of what the agent returned) and the forfeited round's ``failure`` note. Longer text is
cut there and says how long it was (a failed tell with a 5 MB clue made a 14 MB record)."""

NOTES_CHARACTERS = 100_000
"""The most characters (as JSON) of the notes (``info``) one decision may attach to the record;
longer notes are that agent's failure at that decision, like notes strict JSON cannot write."""


def capped(text: str, limit: int = FAILURE_CHARACTERS) -> str:
    """``text``, or its first ``limit`` characters followed by how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text):,} characters, the first {limit:,} kept]"


class StopsTheGame(ValueError):
    """Raised by an agent's decision to stop the game, and the run that plays it, rather than
    fail the seat's decision: :func:`play_game` raises it again, outside the failure policy,
    and no record is made (a tournament's endpoint outage,
    :class:`dixit_ai.tournament.outage.EndpointOutage`)."""


class GameInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a game while an agent decided; :attr:`record` is the game so far.

    A ``KeyboardInterrupt``, so that a caller that stops on Ctrl-C still stops; one that keeps
    partial games reads the record (status ``"aborted"``, whose last failure names the seat,
    round and phase, with error ``"KeyboardInterrupt"``): its rounds replay.
    """

    def __init__(self, record: GameRecord) -> None:
        last = record.failures[-1].reason if record.failures else "interrupted (Ctrl-C)"
        super().__init__(last)
        self.record = record

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (self.record,)


def game_streams(seed: int, n_players: int) -> list[np.random.SeedSequence]:
    """The rules' seed stream (first) and one per seat, all derived from ``seed``."""
    return list(np.random.SeedSequence(seed).spawn(n_players + 1))


def game_seeds(seed: int, n_games: int) -> list[int]:
    """Distinct per-game seeds for a run of ``n_games`` games seeded with ``seed``."""
    words = np.random.SeedSequence(seed).generate_state(n_games, dtype=np.uint64)
    return [int(w >> np.uint64(1)) for w in words]


def resolve_deck(deck: Any) -> tuple[tuple[int, ...], dict[str, Any]]:
    """Card ids and the record's deck entry for a deck spec, a ``Deck`` or a list of ids."""
    if isinstance(deck, str) or hasattr(deck, "card_ids"):
        from dixit_ai.decks import load_deck

        loaded = load_deck(deck)
        ids = tuple(int(card) for card in loaded.card_ids)
        return ids, {
            "spec": loaded.source,
            "name": loaded.name,
            "fingerprint": loaded.fingerprint,
            "size": len(ids),
            "card_ids": list(ids),
        }
    try:
        given = list(deck)
    except TypeError as error:
        raise ValueError(
            f"deck must be a deck spec (e.g. 'dream'), a Deck or a list of card ids, "
            f"not {deck!r}"
        ) from error
    for index, card in enumerate(given):
        # int() would read '7' as 7 and truncate 0.5 to 0 (another card), so only integers.
        if isinstance(card, bool | np.bool_) or not isinstance(card, numbers.Integral):
            raise ValueError(f"card ids must be integers; deck[{index}] is {card!r}")
    ids = tuple(int(card) for card in given)
    digest = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()
    return ids, {"spec": None, "name": "card ids", "fingerprint": digest, "size": len(ids),
                 "card_ids": list(ids)}


def fallback_action(state: GameState, seat: int) -> Action:
    """The rules-defined move made for a failed seat under the ``"forfeit"`` policy.

    The storyteller tells its first hand card with the clue ``"(forfeit)"`` (Dixit Party:
    announces that clue); a guesser plays its first card(s) (a team's designated seat gives
    rather than passes); a voter votes for the first board position it may vote for; the red
    token goes on position 0.
    """
    view = observe(state, seat)
    if state.phase is Phase.TELL:
        if view.is_party:
            return Announce(seat, FORFEIT_CLUE, forfeit=True)
        return Tell(seat, view.hand[0], FORFEIT_CLUE, forfeit=True)
    if state.phase is Phase.PLAY:
        return Play(seat, view.hand[: view.cards_to_play], forfeit=True)
    if state.phase is Phase.RED:
        return RedToken(seat, 0, forfeit=True)
    return Vote(seat, view.legal_vote_positions()[:1], forfeit=True)


def decide(agent: Agent, view: View) -> tuple[Action, dict[str, Any], float | None]:
    """Ask ``agent`` for its decision in ``view``, checking that the record can hold it.

    Raises (as ``TypeError`` or ``ValueError``, the agent's failure) on a predicted guess rate
    that is not a number from 0 to 1 and on notes that are not JSON-ready (a NaN, an object)
    or longer than :data:`NOTES_CHARACTERS` as JSON: either would be found only when the record
    is written, after the game.

    Returns:
        The rules action, the notes the agent attached (JSON-ready), and the storyteller's
        predicted guess rate (``None`` outside the tell phase or when it makes none).

    Raises:
        TypeError: the agent returned something that is not a decision.
        Exception: whatever the agent raised.
    """
    action, notes, guess = _decide(agent, view)
    size = 0
    for key, value in notes.items():
        try:
            size += len(json.dumps(value, allow_nan=False)) + len(str(key))
        except (TypeError, ValueError) as error:
            raise ValueError(f"the agent's info[{key!r}] cannot be written to the game record "
                             f"(strict JSON): {error}") from None
    if size > NOTES_CHARACTERS:
        raise ValueError(f"the agent's info is {size:,} characters as JSON; a record takes at "
                         f"most {NOTES_CHARACTERS:,} per decision (match.NOTES_CHARACTERS)")
    return action, notes, guess


def _decide(agent: Agent, view: View) -> tuple[Action, dict[str, Any], float | None]:
    seat = view.seat
    phase = view.phase
    if phase is _PLAY:
        choice: Choice = as_choice(agent.play(view))
        return Play(seat, choice.items), dict(choice.info), None
    if phase is _VOTE:
        choice = as_choice(agent.vote(view))
        return Vote(seat, choice.items), dict(choice.info), None
    if phase is _RED:
        place = getattr(agent, "red_token", None)
        if place is None:
            raise TypeError(f"agent {agent.name!r} does not play Dixit Party: it has no "
                            "red_token()")
        red = as_choice(place(view))
        if len(red.items) != 1:
            raise TypeError(f"red_token() must choose exactly one board position, not "
                            f"{list(red.items)}")
        return RedToken(seat, red.items[0]), dict(red.info), None
    if view.rules.mode == "party":
        announce = getattr(agent, "announce", None)
        if announce is None:
            raise TypeError(f"agent {agent.name!r} does not play Dixit Party: it has no "
                            "announce() (the storyteller's clue before seeing the hand)")
        said = announce(view)
        if not isinstance(said, Announcement):
            raise TypeError(f"announce() must return an Announcement, not {said!r}")
        return Announce(seat, said.clue, said.clue_kind), dict(said.info), None
    story = agent.tell(view)
    if not isinstance(story, Story):
        raise TypeError(f"tell() must return a Story, not {story!r}")
    notes = dict(story.info)
    rate = story.predicted_guess_rate
    if rate is not None:
        # NaN fails both comparisons: refused with the out-of-range numbers.
        if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 <= rate <= 1:
            raise ValueError(f"tell() returned predicted_guess_rate={rate!r}: it must be None "
                             "or a number from 0 to 1")
        rate = float(rate)
        notes["predicted_guess_rate"] = rate
    return Tell(seat, story.card, story.clue, story.clue_kind), notes, rate


def needs_party_methods(agents: Sequence[Agent], rules: RuleSet) -> None:
    """Raise ``ValueError`` before a Dixit Party game if an agent lacks its two decisions."""
    if rules.mode != "party":
        return
    for seat, agent in enumerate(agents):
        missing = missing_party_decisions(agent)
        if missing:
            raise ValueError(
                f"seat {seat}: agent {getattr(agent, 'name', agent)!r} cannot play Dixit Party "
                f"(no {missing}); Party agents: {', '.join(party_agents())}")


def play_game(
    agents: Sequence[Agent | str],
    *,
    edition: str,
    deck: Any = "dream",
    seed: int,
    on_failure: FailurePolicy = "abort",
    max_rounds: int | None = None,
    writable: bool = False,
    **rule_overrides: Any,
) -> GameRecord:
    """Play one whole game, one agent per seat, and return its record.

    Args:
        agents: One agent (or registry name) per seat; their number is the player count.
        edition: ``"original-2008"``, ``"refresh-2021"``, ``"odyssey-2011"`` or
            ``"odyssey-2024"``.
        deck: A deck spec (``"dream"``, ``"folder:PATH"``, ...), a ``Deck``, or card ids.
        seed: The game's seed; everything random derives from it.
        on_failure: ``"abort"`` (stop the game) or ``"forfeit"`` (fallback move, no points that
            round) when an agent raises or returns an illegal move. Always recorded.
        max_rounds: Stop after this many rounds (status ``"truncated"``); ``None``: no limit.
        writable: The record will be written: each agent's ``describe()`` is checked, before
            anything is played, to be what strict JSON can write (otherwise only
            :meth:`GameRecord.to_json` finds it, after the game, naming the field).
        **rule_overrides: Rule parameters, as :meth:`RuleSet.edition` takes them.

    Raises:
        ValueError: bad rules, player count, deck, seed or policy (nothing is played).
        AgentSetupError: an agent's ``reset()`` or ``describe()`` failed, or its description
            cannot be recorded (a ``ValueError`` naming the seat, agent, method and field;
            nothing is played).
        GameInterrupted: Ctrl-C while an agent decided; it carries the record so far.
    """
    if on_failure not in ("abort", "forfeit"):
        raise ValueError(f"on_failure must be 'abort' or 'forfeit', not {on_failure!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    if max_rounds is not None and (isinstance(max_rounds, bool)
                                   or not isinstance(max_rounds, int | np.integer)
                                   or max_rounds < 1):
        raise ValueError(f"max_rounds must be None or an int of at least 1, not {max_rounds!r}")
    rules = RuleSet.edition(edition, **rule_overrides)
    # What every agent's constructor, reset(), describe() and decisions are checked against:
    # the shared rules as the edition makes them (see dixit_ai.agents.checks.check_rules).
    rules_fields = dict(vars(rules))
    n_players = len(agents)
    rules.check_players(n_players)
    card_ids, deck_entry = resolve_deck(deck)
    # Agents named by string are made for this game's deck where it is given as a spec or a
    # loaded Deck (given card ids alone, there are no pictures to give them).
    given_deck = isinstance(deck, str) or hasattr(deck, "card_ids")
    players: list[Agent] = []
    for seat, named in enumerate(agents):
        if not isinstance(named, str):
            players.append(named)
            continue
        players.append(make_agent_for_deck(named, deck) if given_deck else make_agent(named))
        check_rules(rules, rules_fields, players[-1], seat, "constructor")

    first_seat: dict[int, int] = {}
    for seat, agent in enumerate(players):
        other = first_seat.setdefault(id(agent), seat)
        if other != seat:
            # reset() gives an agent its seat and its stream: one object in two seats would
            # play both as the last seat it was given, on one stream.
            raise ValueError(f"seats {other} and {seat} are the same agent object "
                             f"({getattr(agent, 'name', type(agent).__name__)!r}); give "
                             "one agent per seat, e.g. [RandomAgent() for _ in range(4)], "
                             "not [RandomAgent()] * 4")
    needs_party_methods(players, rules)
    streams = game_streams(int(seed), n_players)
    rng = np.random.default_rng(streams[0])
    state = new_game(rules, n_players, card_ids, rng)
    # Outside the decisions' failure policy: a reset() or describe() that fails is named
    # (seat, agent, method, field) before anything is played (see dixit_ai.agents.checks).
    for seat, agent in enumerate(players):
        reset_agent(agent, seat, np.random.default_rng(streams[seat + 1]))
        check_rules(rules, rules_fields, agent, seat, "reset()")
    described_agents = []
    for seat, agent in enumerate(players):
        described_agents.append(described(agent, seat, writable=writable))
        check_rules(rules, rules_fields, agent, seat, "describe()")

    header = record_header(rules, n_players, int(seed), deck_entry, described_agents,
                           on_failure=on_failure, max_rounds=max_rounds)
    rounds: list[RoundRecord] = []
    failures: list[Failure] = []
    status: Status = "complete"
    notes: dict[str, Any] = {}
    prediction: float | None = None

    def game_record(status: Status) -> GameRecord:
        return GameRecord(
            header=header,
            rounds=rounds,
            final_scores=list(state.scores),
            winners=list(state.winners) if status == "complete" else [],
            status=status,
            failures=failures,
        )

    while not state.is_over:
        if max_rounds is not None and state.round >= max_rounds:
            status = "truncated"
            break
        seat = state.pending[0]
        phase = state.phase
        returned: Action | None = None
        try:
            returned, seat_notes, guess = decide(players[seat], observe(state, seat))
            check_rules(rules, rules_fields, players[seat], seat, f"{phase.value} decision")
            next_state = apply_action(state, returned, rng)
        except (RulesChanged, StopsTheGame):
            # Not a failed decision: the game cannot go on under rules an agent wrote, or the
            # run is to stop (and play this game again when resumed).
            raise
        except KeyboardInterrupt as interrupt:
            # ``state`` is still the one before this decision, consistent with ``rounds``.
            name = getattr(players[seat], "name", type(players[seat]).__name__)
            failures.append(Failure(
                seat=seat, round=state.round, phase=phase.value,
                reason=capped(f"seat {seat}: interrupted (Ctrl-C) while {name} decided"),
                error="KeyboardInterrupt",
                action=None if returned is None else capped(repr(returned)), penalty="abort",
            ))
            raise GameInterrupted(game_record("aborted")) from interrupt
        except (Exception, SystemExit) as error:
            check_rules(rules, rules_fields, players[seat], seat, f"{phase.value} decision")
            # An agent that calls sys.exit() fails its decision like one that raises: it must
            # not end the run that plays it (a tournament stopped at once with exit status 0).
            reason = (f"the agent called sys.exit({error.code!r})"
                      if isinstance(error, SystemExit) else str(error))
            failures.append(Failure(
                seat=seat, round=state.round, phase=phase.value, reason=capped(reason),
                error=type(error).__name__,
                action=None if returned is None else capped(repr(returned)),
                penalty=on_failure,
            ))
            if on_failure == "abort":
                status = "aborted"
                break
            next_state = apply_action(state, fallback_action(state, seat), rng)
            seat_notes, guess = {"failure": capped(str(error))}, None
        if phase is Phase.TELL:
            prediction = guess
        if seat_notes:
            notes.setdefault(str(seat), {})[phase.value] = seat_notes
        state = next_state
        if len(state.results) > len(rounds):
            rounds.append(round_record(state, prediction, notes))
            notes, prediction = {}, None

    return game_record(status)


def record_header(rules: RuleSet, n_players: int, seed: int, deck_entry: dict[str, Any],
                  agents: Sequence[dict[str, Any]], *, on_failure: FailurePolicy,
                  max_rounds: int | None) -> dict[str, Any]:
    """A game record's header: edition, rules, seed, deck, agents and versions."""
    return {
        "format": RECORD_FORMAT,
        "edition": rules.name,
        "rules": rules.parameters(),
        "n_players": n_players,
        "seed": seed,
        "deck": deck_entry,
        "agents": list(agents),
        "on_failure": on_failure,
        "max_rounds": max_rounds,
        "versions": package_versions(),
    }


def round_record(state: GameState, prediction: float | None,
                 notes: dict[str, Any]) -> RoundRecord:
    """The record of the round ``state`` has just revealed (its last result)."""
    result = state.results[-1]
    return RoundRecord(
        round=result.round,
        storyteller=result.storyteller,
        clue=result.clue,
        clue_kind=result.clue_kind,
        predicted_guess_rate=prediction,
        storyteller_card=result.storyteller_card,
        played=[list(cards) for cards in result.played],
        board=list(result.board),
        board_owner=list(result.board_owner),
        votes={seat: list(result.votes[seat]) for seat in range(state.n_players)
               if result.votes[seat]},
        points=list(result.points),
        scores=list(result.scores),
        forfeits=list(result.forfeits),
        reshuffled=result.reshuffled,
        notes=notes,
        parts=[dict(p) for p in result.parts],
        red_token=result.red_token,
    )
