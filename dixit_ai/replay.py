"""Re-run a game record through the rules and fail loudly on any mismatch.

The rules' random stream is derived from the record's seed alone (see :mod:`dixit_ai.match`), so
replaying the recorded moves must reproduce every board, owner, point and score exactly.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from dixit_ai.match import game_streams
from dixit_ai.record_header import check_header
from dixit_ai.records import RECORD_FORMAT, GameRecord, RoundRecord
from dixit_ai.rules import (
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
    new_game,
    parts_dict,
)


class ReplayMismatch(ValueError):
    """A record disagrees with what the rules make of its moves."""


class MalformedRecord(ReplayMismatch):
    """A record whose structure cannot be replayed at all: a header that builds no game, or a
    round field of the wrong type or length. Bad input rather than a disagreement with the rules
    (``dixit-ai replay`` exits 2 on it, 1 on a mismatch)."""


def _expect(what: str, recorded: Any, actual: Any, where: str) -> None:
    if recorded != actual:
        raise ReplayMismatch(f"{where}: {what} differs: record has {recorded!r}, "
                             f"the rules give {actual!r}")


def _rules_of(header: dict[str, Any]) -> dict[str, Any]:
    """The rule parameters a record was played under, read by its format version.

    A format-1 record that does not say ``single_vote_bonus_when`` was scored under the former
    reading (``"some_found"``). A format-1 team record was played by other team rules: it is
    refused.
    """
    rules = dict(header["rules"])
    version = header.get("format")
    if version != RECORD_FORMAT:
        if rules.get("teams") is True:
            raise ReplayMismatch(
                f"header: a team record of format {version!r} cannot be replayed by record "
                f"format {RECORD_FORMAT}: format {RECORD_FORMAT} plays Team Dixit as the Odyssey "
                "rulebook states it (one card per team, the other partner votes once, the game "
                f"ends when each player has told once); format {version!r} team games followed "
                "other rules. Play the game again to get a record of this format.")
        rules.setdefault("single_vote_bonus_when", "some_found")
    return rules


def _integer(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def _check_shape(round_: RoundRecord, n_players: int, where: str) -> None:
    """Refuse a round whose seats and cards are not the lists the rules read
    (:class:`MalformedRecord` naming the field)."""

    def cards(value: Any) -> bool:
        return isinstance(value, (list, tuple)) and all(_integer(item) for item in value)

    for name in ("round", "storyteller", "storyteller_card"):
        value = getattr(round_, name)
        if not _integer(value):
            raise MalformedRecord(f"{where}: '{name}' must be an integer, not {value!r}")
    for name in ("board", "board_owner", "points", "scores"):
        value = getattr(round_, name)
        if not cards(value):
            raise MalformedRecord(f"{where}: '{name}' must be a list of integers, not "
                                  f"{value!r}")
    if round_.red_token is not None and not _integer(round_.red_token):
        raise MalformedRecord(f"{where}: 'red_token' must be null or a board position, not "
                              f"{round_.red_token!r}")
    if not isinstance(round_.reshuffled, bool):
        raise MalformedRecord(f"{where}: 'reshuffled' must be true or false, not "
                              f"{round_.reshuffled!r}")

    if not cards(round_.forfeits):
        raise MalformedRecord(f"{where}: 'forfeits' must be a list of seats, not "
                              f"{round_.forfeits!r}")
    if not isinstance(round_.played, (list, tuple)) or len(round_.played) != n_players:
        count = (f"{len(round_.played)} entries" if isinstance(round_.played, (list, tuple))
                 else repr(round_.played))
        raise MalformedRecord(f"{where}: 'played' must hold one list of cards per seat "
                              f"({n_players}, as the header's n_players says), not {count}")
    for seat, played in enumerate(round_.played):
        if not cards(played):
            raise MalformedRecord(f"{where}: 'played[{seat}]' must be a list of cards, not "
                                  f"{played!r}")
    if not isinstance(round_.votes, dict):
        raise MalformedRecord(f"{where}: 'votes' must map seats to board positions, not "
                              f"{round_.votes!r}")
    for seat, positions in round_.votes.items():
        if not cards(positions):
            raise MalformedRecord(f"{where}: 'votes[{seat}]' must be a list of board "
                                  f"positions, not {positions!r}")


def replay_record(record: GameRecord) -> GameState:
    """Replay ``record`` and return the final state.

    Records of an older format are replayed under the rules of their time (see
    :data:`dixit_ai.records.RECORD_FORMAT`), or refused with a message naming both formats.

    Raises:
        ReplayMismatch: a board, owner, vote, point, score, winner (``[]`` for a truncated or
            aborted game) or the end of the game differs from what the rules give, a
            tournament record's seat labels differ from its header's agent names, a recorded
            move is illegal, or the record is of
            an older format whose rules cannot be replayed (a format-1 team record).
        MalformedRecord: (a :class:`ReplayMismatch`) the header builds no game (a missing
            field or rule parameter, a field of the wrong type or value, a bad seed, player
            count or deck: see :func:`dixit_ai.record_header.check_header`), or a round field
            has the wrong type or length (the message names the round and the field).
    """
    header = record.header
    try:
        # Every header field there, of the right type and value (the message names the field).
        check_header(header, complete=True)
        rules = RuleSet.edition(header["edition"], **_rules_of(header))
        n_players, seed = header["n_players"], header["seed"]
        if not _integer(n_players):
            raise ValueError(f"'n_players' must be an integer, not {n_players!r}")
        try:
            rules.check_players(n_players)
        except ValueError as error:
            raise ValueError(f"'n_players': {error}") from None
        if not _integer(seed) or seed < 0:
            raise ValueError(f"the seed must be a non-negative integer, not {seed!r}")
        card_ids = [int(card) for card in header["deck"]["card_ids"]]
        rng = np.random.default_rng(game_streams(seed, n_players)[0])
        state = new_game(rules, n_players, card_ids, rng)
        _check_tournament(header, n_players)
    except ReplayMismatch:
        raise
    except (KeyError, TypeError, ValueError, OverflowError) as error:
        raise MalformedRecord(f"header: cannot rebuild the game: {error}") from error

    for number, round_ in enumerate(record.rounds):
        where = f"game seed {seed}, round {number}"
        if state.is_over:
            raise ReplayMismatch(f"{where}: the record goes on after the rules ended the game")
        _check_shape(round_, n_players, where)
        _expect("round number", round_.round, state.round, where)
        _expect("storyteller", round_.storyteller, state.storyteller, where)
        forfeits = set(round_.forfeits)
        try:
            teller = round_.storyteller
            if rules.mode == "party":
                state = apply_action(state, Announce(teller, round_.clue, round_.clue_kind,
                                                     forfeit=teller in forfeits), rng)
            else:
                state = apply_action(state, Tell(
                    teller, round_.storyteller_card, round_.clue, round_.clue_kind,
                    forfeit=teller in forfeits), rng)
            while state.phase is Phase.PLAY:
                # A team's designated seat with no recorded card passed the giving on.
                seat = state.pending[0]
                state = apply_action(state, Play(seat, tuple(round_.played[seat]),
                                                 forfeit=seat in forfeits), rng)
            _expect("board", round_.board, list(state.board), where)
            _expect("board owners", round_.board_owner, list(state.board_owner), where)
            _expect("voting seats", sorted(round_.votes), sorted(state.pending), where)
            for seat in state.pending:
                state = apply_action(state, Vote(seat, tuple(round_.votes[seat]),
                                                 forfeit=seat in forfeits), rng)
            if state.phase is Phase.RED:
                if round_.red_token is None:
                    raise ReplayMismatch(f"{where}: the record has no red token")
                state = apply_action(state, RedToken(teller, round_.red_token,
                                                     forfeit=teller in forfeits), rng)
        except IllegalAction as error:
            raise ReplayMismatch(f"{where}: a recorded move is illegal: {error}") from error
        except (TypeError, IndexError, KeyError) as error:  # a field _check_shape does not read
            raise MalformedRecord(f"{where}: a recorded move cannot be read "
                                  f"({type(error).__name__}: {error})") from error
        result = state.results[-1]
        _expect("points", round_.points, list(result.points), where)
        _expect("scores", round_.scores, list(result.scores), where)
        _expect("forfeits", round_.forfeits, list(result.forfeits), where)
        _expect("red token", round_.red_token, result.red_token, where)
        _expect("reshuffled (the discard shuffled into the deck)", round_.reshuffled,
                result.reshuffled, where)
        if round_.parts:  # records written before itemised scoring have none
            _expect("point parts", round_.parts, [parts_dict(p) for p in result.parts], where)

    _check_header(header, n_players, len(card_ids))
    _check_failures(record, n_players, f"game seed {seed}")
    where = f"game seed {seed}, end"
    for name, value in (("final_scores", record.final_scores), ("winners", record.winners)):
        if not all(_integer(item) for item in value):
            raise MalformedRecord(f"{where}: '{name}' must be a list of integers, not {value!r}")
    _expect("final scores", record.final_scores, list(state.scores), where)
    if record.status == "complete":
        if not state.is_over:
            raise ReplayMismatch(f"{where}: the record ends but the rules go on "
                                 f"(phase {state.phase.value})")
        _expect("winners", record.winners, list(state.winners), where)
    else:
        if state.phase is Phase.OVER:
            raise ReplayMismatch(f"{where}: the record is {record.status} but the rules ended "
                                 "the game")
        # A game that did not end has no winners: every writer records [] (the analysis then
        # counts the seats with the top score), so any other list is not the rules'.
        _expect(f"winners (none: the game was {record.status})", record.winners, [], where)
    return state


def _check_tournament(header: dict[str, Any], n_players: int) -> None:
    """A tournament record's ``header.tournament.seats`` name, seat by seat, the agents its
    header describes (the runner records each agent under its tournament label, which the
    analysis ranks by); the game index and deal are non-negative integers."""
    info = header.get("tournament")
    if info is None:
        return
    if not isinstance(info, dict):
        raise MalformedRecord(f"header: 'tournament' must be an object, not {info!r}")
    for key in ("game", "deal"):
        value = info.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise MalformedRecord(f"header: tournament.{key} must be a non-negative integer, "
                                  f"not {value!r}")
    seats = info.get("seats")
    if not isinstance(seats, list) or len(seats) != n_players or not all(
            isinstance(label, str) for label in seats):
        raise MalformedRecord(f"header: tournament.seats must list one label per seat "
                              f"({n_players}), not {seats!r}")
    agents = header.get("agents")
    if not isinstance(agents, list) or len(agents) != n_players:
        raise MalformedRecord(f"header: 'agents' must describe one agent per seat "
                              f"({n_players}), not {agents!r}")
    for seat, (label, agent) in enumerate(zip(seats, agents, strict=True)):
        name = agent.get("name") if isinstance(agent, dict) else None
        if name != label:
            raise ReplayMismatch(f"header: seat {seat}'s tournament label is {label!r} but "
                                 f"header.agents[{seat}] names {name!r}: the record credits "
                                 "another agent than the one that played")


def _check_header(header: dict[str, Any], n_players: int, n_cards: int) -> None:
    """The header's deck size and agents agree with its cards and seats (checked after the
    rounds, so that a tampered player count or deck is named where the rules meet it)."""
    size = header["deck"].get("size", n_cards)
    if size != n_cards:
        raise MalformedRecord(f"header: header.deck.size is {size!r} but header.deck.card_ids "
                              f"holds {n_cards} cards")
    agents = header.get("agents")
    if not isinstance(agents, list):
        raise MalformedRecord(f"header: header.agents must list one agent per seat, not "
                              f"{type(agents).__name__}")
    if len(agents) != n_players:
        raise MalformedRecord(f"header: header.agents describes {len(agents)} agents, but "
                              f"header.n_players is {n_players}: one agent per seat")


_PHASES = frozenset(phase.value for phase in Phase if phase is not Phase.OVER)


def _check_failures(record: GameRecord, n_players: int, game: str) -> None:
    """Each failure names a seat, a phase and a penalty that exist, and a round the game
    reached; an ``abort`` failure is the aborted game's last (its round was not recorded),
    and a ``forfeit`` failure's round, where recorded, lists the seat among its forfeits."""
    played = len(record.rounds)
    aborts = 0
    for number, failure in enumerate(record.failures):
        where = f"{game}, failures[{number}]"
        if not _integer(failure.seat) or not 0 <= failure.seat < n_players:
            raise MalformedRecord(f"{where}: 'seat' must be a seat of this {n_players}-player "
                                  f"game, not {failure.seat!r}")
        if failure.phase not in _PHASES:
            raise MalformedRecord(f"{where}: 'phase' must be one of "
                                  f"{', '.join(sorted(_PHASES))}, not {failure.phase!r}")
        if failure.penalty not in ("abort", "forfeit"):
            raise MalformedRecord(f"{where}: 'penalty' must be 'abort' or 'forfeit', not "
                                  f"{failure.penalty!r}")
        if not _integer(failure.round) or not 0 <= failure.round <= played:
            raise ReplayMismatch(f"{where}: the failure is in round {failure.round!r}, but the "
                                 f"record's game reached round {played} only")
        if failure.penalty == "abort":
            aborts += 1
            if record.status != "aborted" or failure.round != played \
                    or number != len(record.failures) - 1:
                raise ReplayMismatch(
                    f"{where}: an 'abort' failure stops the game in the round it happened "
                    f"(here {failure.round}), so it is the last failure of an aborted record "
                    f"whose rounds end before it; this record is {record.status} with "
                    f"{played} rounds")
        elif failure.round < played and failure.seat not in record.rounds[failure.round].forfeits:
            raise ReplayMismatch(f"{where}: a 'forfeit' failure of seat {failure.seat}, but "
                                 f"round {failure.round} does not list it among its forfeits")
    if record.status == "aborted" and not aborts:
        raise ReplayMismatch(f"{game}: the record is aborted but no failure with penalty "
                             "'abort' says why")
