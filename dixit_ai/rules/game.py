"""The game of Dixit as a state machine over an immutable state.

``new_game`` shuffles and deals; ``apply_action(state, action, rng)`` checks an action and returns
the next state, never changing the one it was given. Randomness (the deal, the shuffle of the
board, the reshuffle of the discard pile) comes only from the ``numpy.random.Generator`` passed
in, and is drawn only after an action has been checked, so an illegal action leaves both the state
and the generator untouched. :class:`Game` bundles a state with its generator for callers that
want a mutable handle.

A round runs through three phases. In ``TELL`` the storyteller chooses a hand card and a clue; in
``PLAY`` every guesser gives card(s) face down (in any order: the phase is simultaneous, and
``state.to_act`` proposes clockwise order for sequential callers); when the last card is given
the cards are shuffled onto the board; in ``VOTE`` every voter votes in secret (again in any order).
After the last vote everything is revealed at once: the round is scored, the played cards go to
the discard pile, hands are refilled, and the player to the storyteller's left tells next, unless
the game is over (``OVER``).

Team variant (``rules.teams``): in ``PLAY`` the storyteller's teammate gives a card, and each other
team's *designated* seat (the partner first clockwise after the storyteller) either gives a card
(``Play`` of one card) or passes the giving to its partner (``Play`` of no card), who then gives
one; the partner who did not give votes. The pass is public (partners agree "in front of
everyone"); no partner ever sees the other's hand.

Dixit Party (``rules.mode == "party"``): in ``TELL`` the storyteller announces a clue before
seeing the hand (:class:`Announce`, no card); in ``PLAY`` everyone, storyteller included, gives
one card; in ``VOTE`` everyone votes once (own card allowed); in ``RED`` the storyteller places
the red token (:class:`RedToken`); then the reveal, the refill, and every hand is passed to the
left. Both variants end after each player has told ``rules.rounds_per_player`` times.

>>> import numpy as np
>>> from dixit_ai.rules import RuleSet, Tell
>>> rng = np.random.default_rng(0)
>>> state = new_game(RuleSet.edition("refresh-2021"), 4, range(84), rng)
>>> state.phase, state.storyteller, len(state.hands[0])
(<Phase.TELL: 'tell'>, 0, 6)
>>> tell = Tell(seat=0, card=state.hands[0][0], clue="a lonely lighthouse")
>>> state = apply_action(state, tell, rng)
>>> state.phase, state.to_act
(<Phase.PLAY: 'play'>, 1)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from dixit_ai.rules._fast import build_frozen, is_int
from dixit_ai.rules.errors import IllegalAction
from dixit_ai.rules.ruleset import RuleSet
from dixit_ai.rules.scoring import (
    check_red_token,
    check_vote,
    designated_seats,
    forfeited,
    non_voter_problem,
    score_checked_round,
    voting_seats,
)
from dixit_ai.rules.state import (
    _OVER,
    _PLAY,
    _RED,
    _TELL,
    _VOTE,
    CLUE_KINDS,
    Action,
    Announce,
    GameState,
    Phase,
    Play,
    RedToken,
    RoundResult,
    Tell,
    Vote,
)
from dixit_ai.rules.teams import partner_seat, team_index
from dixit_ai.rules.text import text_problem

# ---------------------------------------------------------------------- setting up


def new_game(
    rules: RuleSet, n_players: int, deck: Iterable[int], rng: np.random.Generator
) -> GameState:
    """Shuffle ``deck`` (card ids), deal the hands and choose the first storyteller.

    Raises:
        ValueError: a player count the rules do not allow, a deck with an id that is not an
            integer (a float, a string or a bool; the message names it), repeated or negative
            ids, or a deck too small to deal every hand (the message says how many are missing).
    """
    given = tuple(deck)
    for card in given:
        if not is_int(card):
            raise ValueError(f"card id {card!r} is not an integer")
    cards = tuple(int(card) for card in given)
    if len(set(cards)) != len(cards):
        raise ValueError("the deck repeats card ids; every card needs its own id")
    if any(card < 0 for card in cards):
        raise ValueError("card ids must be non-negative integers")
    rules.check_deck(n_players, len(cards))
    order = [cards[i] for i in rng.permutation(len(cards))]
    size = rules.hand_size_for(n_players)
    hands = tuple(tuple(order[-size * (seat + 1):len(order) - size * seat])
                  for seat in range(n_players))
    draw_pile = tuple(order[: len(order) - size * n_players])
    storyteller = 0 if rules.first_storyteller == "seat0" else int(rng.integers(n_players))
    return GameState(
        rules=rules,
        n_players=n_players,
        deck=cards,
        draw_pile=draw_pile,
        discard=(),
        hands=hands,
        scores=(0,) * n_players,
        round=0,
        storyteller=storyteller,
        phase=_TELL,
        pending=(storyteller,),
        clue=None,
        clue_kind=None,
        played=((),) * n_players,
        board=(),
        board_owner=(),
        votes=((),) * n_players,
        forfeits=frozenset(),
        results=(),
        voters=voting_seats(rules, n_players, storyteller),
        red_token=None,
    )


# ---------------------------------------------------------------------- checking


_PHASE_OF_ACTION: dict[type, Phase] = {}  # filled below, once the action classes exist


def check_action(state: GameState, action: Action) -> None:
    """Raise :class:`IllegalAction` unless ``action`` is legal in ``state``."""
    expected = _PHASE_OF_ACTION.get(type(action))
    if expected is None:
        raise IllegalAction(
            f"{action!r} is not an action (Tell, Play, Vote, Announce or RedToken)")
    seat = action.seat
    if not is_int(seat):
        raise IllegalAction(f"{seat!r} is not a seat of this {state.n_players}-player game")
    if not 0 <= seat < state.n_players:
        raise IllegalAction(f"{seat!r} is not a seat of this {state.n_players}-player game")
    if state.phase is _OVER:
        raise IllegalAction(f"seat {seat} acted after the game ended")
    if expected is not state.phase:
        if expected is _RED and not state.rules.is_party:
            raise IllegalAction(f"seat {seat}: only Dixit Party has a red token")
        raise IllegalAction(
            f"seat {seat} tried to {_DOING[expected]} in the {state.phase.value} phase of "
            f"round {state.round}"
        )
    if seat not in state.pending:
        raise IllegalAction(_not_pending_problem(state, seat))
    hand = state.hands[seat]
    if expected is _TELL:
        if state.rules.is_party:
            if not isinstance(action, Announce):
                raise IllegalAction(
                    f"seat {seat}: in Dixit Party the storyteller announces a clue before "
                    "looking at the hand (Announce, no card)")
        elif not isinstance(action, Tell):
            raise IllegalAction(f"seat {seat}: only Dixit Party announces a clue without a "
                                "card; tell with a hand card (Tell)")
        else:
            _check_card(action.card, hand, seat)
        check_clue(state.rules, action.clue, action.clue_kind, seat)
    elif expected is _RED:
        assert isinstance(action, RedToken)
        check_red_token(state.board_owner, seat, action.position)
    elif expected is _PLAY:
        assert isinstance(action, Play)
        cards = action.cards
        want = state.rules.cards_per_guesser_for(state.n_players)
        if (state.rules.teams and isinstance(cards, tuple | list) and len(cards) == 0
                and seat in designated_seats(state.rules, state.n_players, state.storyteller)):
            pass  # the team's designated seat passes the giving to its partner
        elif not isinstance(cards, tuple | list) or len(cards) != want:
            raise IllegalAction(
                f"seat {seat} must play exactly {want} card{'s' if want > 1 else ''}, "
                f"not {cards!r}"
            )
        for card in cards:
            _check_card(card, hand, seat)
        if len(set(cards)) != len(cards):
            raise IllegalAction(f"seat {seat} played the same card twice")
    else:
        assert isinstance(action, Vote)
        check_vote(state.rules, n_players=state.n_players, storyteller=state.storyteller,
                   board_owner=state.board_owner, seat=seat, positions=action.positions,
                   voters=state.voters)
    if action.forfeit is not False and action.forfeit is not True:
        raise IllegalAction(f"forfeit must be True or False, not {action.forfeit!r}")


_DOING: dict[Phase, str] = {_TELL: "tell", _PLAY: "play a card", _VOTE: "vote",
                            _RED: "place the red token"}
"""What an action of each phase does, as a verb for the wrong-phase message."""


def _not_pending_problem(state: GameState, seat: int) -> str:
    """Why ``seat``, in the right phase but not pending, may not act (an error message)."""
    phase, storyteller, rules = state.phase, state.storyteller, state.rules
    if phase is _TELL:
        return f"seat {seat} is not the storyteller; seat {storyteller} tells this round"
    if phase is _VOTE and seat not in state.voters:
        return non_voter_problem(rules, state.n_players, storyteller, seat, state.board_owner)
    if phase is _RED:
        return f"seat {seat}: only the storyteller (seat {storyteller}) places the red token"
    if phase is _PLAY and seat == storyteller and not rules.is_party:
        return f"seat {seat} is the storyteller and has already told"
    if phase is _PLAY and rules.teams and seat != storyteller:
        partner = partner_seat(seat, state.n_players)
        designated = designated_seats(rules, state.n_players, storyteller)
        if seat in designated and not state.played[seat]:
            return (f"seat {seat} has already acted in the play phase: it passed the giving to "
                    f"its partner, seat {partner}")
        if partner in designated:  # seat is the partner who gives only if asked
            if partner in state.pending:
                return (f"seat {seat} gives a card only if its partner, seat {partner}, passes "
                        f"the giving to it: seat {partner} decides for their team")
            if state.played[partner]:
                return (f"seat {seat} does not give a card this round: its partner, seat "
                        f"{partner}, gave their team's card")
    return f"seat {seat} has already acted in the {phase.value} phase"


def check_clue(rules: RuleSet, clue: object, kind: object, seat: int) -> None:
    """Raise :class:`IllegalAction` unless ``clue`` (and its ``kind``) may be told."""
    if not isinstance(clue, str):
        raise IllegalAction(f"seat {seat}'s clue must be text, not {type(clue).__name__}")
    problem = text_problem(clue)
    if problem is not None:
        raise IllegalAction(f"seat {seat}'s clue {problem}")
    if len(clue) > rules.max_clue_length:
        raise IllegalAction(
            f"seat {seat}'s clue has {len(clue)} characters; the limit is "
            f"{rules.max_clue_length}"
        )
    if kind is not None and kind not in CLUE_KINDS:
        raise IllegalAction(
            f"seat {seat}'s clue kind {kind!r} is not one of {', '.join(CLUE_KINDS)}"
        )


def _check_card(card: object, hand: Sequence[int], seat: int) -> None:
    if not is_int(card):
        raise IllegalAction(f"seat {seat} named {card!r}, which is not a card id")
    if card not in hand:
        raise IllegalAction(f"seat {seat} does not hold card {card}")


# ---------------------------------------------------------------------- transitions


def apply_action(state: GameState, action: Action, rng: np.random.Generator) -> GameState:
    """The state after ``action``; ``state`` itself is never changed.

    Raises:
        IllegalAction: the action is not legal (out of turn, wrong phase, a card not in hand,
            a vote for one's own card, ...); the state and ``rng`` are left as they were.
    """
    check_action(state, action)
    seat = action.seat
    forfeits = state.forfeits | {seat} if action.forfeit else state.forfeits
    pending = tuple([s for s in state.pending if s != seat])
    if type(action) is Vote:  # the commonest action first
        votes = _replace_at(state.votes, seat, tuple([int(p) for p in action.positions]))
        if pending:
            return _evolve(state, votes=votes, pending=pending, forfeits=forfeits)
        if state.rules.is_party:
            return _evolve(state, votes=votes, forfeits=forfeits, phase=_RED,
                           pending=(state.storyteller,))
        return _reveal(_evolve(state, votes=votes, forfeits=forfeits), rng)
    if isinstance(action, Tell):
        card = int(action.card)
        return _evolve(
            state,
            phase=_PLAY,
            pending=_givers(state.storyteller, state.n_players, _variant(state.rules)),
            clue=action.clue,
            clue_kind=action.clue_kind,
            hands=_replace_at(state.hands, seat, _without(state.hands[seat], (card,))),
            played=_replace_at(state.played, seat, (card,)),
            forfeits=forfeits,
        )
    if isinstance(action, Announce):
        return _evolve(
            state,
            phase=_PLAY,
            pending=_givers(state.storyteller, state.n_players, _variant(state.rules)),
            clue=action.clue,
            clue_kind=action.clue_kind,
            forfeits=forfeits,
        )
    if isinstance(action, Play):
        cards = tuple([int(card) for card in action.cards])
        if not cards:  # team variant: the designated seat passes the giving to its partner
            partner = partner_seat(seat, state.n_players)
            return _evolve(state, pending=(*pending, partner), forfeits=forfeits)
        hands = _replace_at(state.hands, seat, _without(state.hands[seat], cards))
        played = _replace_at(state.played, seat, cards)
        if pending:
            return _evolve(state, hands=hands, played=played, pending=pending,
                                       forfeits=forfeits)
        # The last card is in: shuffle the played cards onto the board, face up.
        laid = [(card, owner) for owner in range(state.n_players) for card in played[owner]]
        order = rng.permutation(len(laid)).tolist()
        board_owner = tuple(laid[i][1] for i in order)
        voters = state.voters
        if state.rules.teams:
            voters = voting_seats(state.rules, state.n_players, state.storyteller, board_owner)
        return _evolve(
            state,
            hands=hands,
            played=played,
            phase=_VOTE,
            pending=voters,
            voters=voters,
            board=tuple(laid[i][0] for i in order),
            board_owner=board_owner,
            forfeits=forfeits,
        )
    if isinstance(action, RedToken):
        return _reveal(_evolve(state, red_token=int(action.position), forfeits=forfeits), rng)
    raise AssertionError(f"unhandled action {action!r}")  # check_action refuses any other


def _reveal(state: GameState, rng: np.random.Generator) -> GameState:
    """Score the round, discard the board, refill the hands and pass the telling on."""
    rules, n = state.rules, state.n_players
    voters = state.voters
    parts, points = score_checked_round(rules, n, state.storyteller, state.board_owner,
                                        {seat: state.votes[seat] for seat in voters}, voters,
                                        state.red_token)
    if state.forfeits:
        lost = {rules.team_of(seat, n) for seat in state.forfeits}
        parts = [forfeited(p) if rules.team_of(seat, n) in lost else p
                 for seat, p in enumerate(parts)]
        points = [0 if rules.team_of(seat, n) in lost else p for seat, p in enumerate(points)]
    scores = tuple(s + p for s, p in zip(state.scores, points, strict=True))

    discard = state.discard + state.board
    draw_pile = state.draw_pile
    hands = list(state.hands)
    size = rules.hand_size_for(n)
    short = False
    reshuffled = False
    for k in range(1, n + 1):
        seat = (state.storyteller + k) % n
        need = size - len(hands[seat])
        if need <= 0:
            continue
        if len(draw_pile) < need and rules.on_deck_exhausted == "reshuffle" and discard:
            # The discard pile is shuffled into a new draw pile beneath what is left.
            order = rng.permutation(len(discard)).tolist()
            draw_pile = tuple(discard[i] for i in order) + draw_pile
            discard = ()
            reshuffled = True
        take = min(need, len(draw_pile))
        if take < need:
            short = True
        if take:
            hands[seat] = hands[seat] + draw_pile[len(draw_pile) - take:][::-1]
            draw_pile = draw_pile[: len(draw_pile) - take]
    if rules.mode == "party":
        # Dixit Party: after refilling, each player passes the hand face down to the left.
        hands = [hands[(seat - 1) % n] for seat in range(n)]

    # Once a round, but on the hot path: built without the frozen dataclass __init__.
    result = build_frozen(RoundResult, dict(
        round=state.round,
        storyteller=state.storyteller,
        clue=state.clue or "",
        clue_kind=state.clue_kind,
        storyteller_card=state.played[state.storyteller][0],
        played=state.played,
        board=state.board,
        board_owner=state.board_owner,
        votes=state.votes,
        points=tuple(points),
        scores=scores,
        forfeits=tuple(sorted(state.forfeits)),
        reshuffled=reshuffled,
        red_token=state.red_token,
        parts=tuple(parts),
    ))
    over = (
        (rules.score_limit is not None and max(scores) >= rules.score_limit)
        or (rules.end_on_last_card and not draw_pile)
        or short
        or (rules.rounds_per_player is not None
            and state.round + 1 >= n * rules.rounds_per_player)
    )
    storyteller = (state.storyteller + 1) % n
    return _evolve(
        state,
        voters=voting_seats(rules, n, storyteller),
        draw_pile=draw_pile,
        discard=discard,
        hands=tuple(hands),
        scores=scores,
        round=state.round + 1,
        storyteller=storyteller,
        phase=_OVER if over else _TELL,
        pending=() if over else (storyteller,),
        clue=None,
        clue_kind=None,
        played=((),) * n,
        board=(),
        board_owner=(),
        votes=((),) * n,
        forfeits=frozenset(),
        results=(*state.results, result),
        red_token=None,
    )


def _variant(rules: RuleSet) -> str:
    return "teams" if rules.teams else rules.mode


@functools.lru_cache(maxsize=1024)
def _givers(storyteller: int, n_players: int, variant: str) -> tuple[int, ...]:
    """Who is asked for a card first in ``PLAY``, clockwise from the storyteller's left.

    Base game: every guesser. Dixit Party: everyone, the storyteller last. Team variant: the
    storyteller's teammate and each other team's designated seat (the first of each team
    clockwise after the storyteller).
    """
    others = tuple((storyteller + k) % n_players for k in range(1, n_players))
    if variant == "party":
        return (*others, storyteller)
    if variant == "teams":
        seen = {team_index(storyteller, n_players)}
        asked = [partner_seat(storyteller, n_players)]
        for seat in others:
            if team_index(seat, n_players) not in seen:
                seen.add(team_index(seat, n_players))
                asked.append(seat)
        return tuple(seat for seat in others if seat in asked)
    return others


def _evolve(state: GameState, **changes: Any) -> GameState:
    """``dataclasses.replace`` without re-running ``__init__``: the hot path of every step."""
    return build_frozen(GameState, {**state.__dict__, **changes})


def _replace_at(items: tuple[tuple[int, ...], ...], index: int,
                value: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    return (*items[:index], value, *items[index + 1:])


def _without(hand: tuple[int, ...], cards: tuple[int, ...]) -> tuple[int, ...]:
    return tuple([card for card in hand if card not in cards])


# ---------------------------------------------------------------------- a mutable handle


_PHASE_OF_ACTION.update({Tell: _TELL, Play: _PLAY, Vote: _VOTE,
                         Announce: _TELL, RedToken: _RED})


class Game:
    """A game state with its random generator, for callers that want a mutable handle.

    Args:
        rules: The edition's rules.
        n_players: Players in the game.
        deck: Card ids (for example ``load_deck("dream").card_ids``).
        seed: An int seed, a ``numpy.random.SeedSequence`` or a ready ``Generator``.
    """

    def __init__(
        self,
        rules: RuleSet,
        n_players: int,
        deck: Iterable[int],
        seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    ) -> None:
        self.rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        self.state = new_game(rules, n_players, deck, self.rng)

    def apply(self, action: Action) -> RoundResult | None:
        """Apply ``action``; return the round's result when it completed a round.

        Raises:
            IllegalAction: the action is not legal; nothing changes.
        """
        before = len(self.state.results)
        self.state = apply_action(self.state, action, self.rng)
        return self.state.results[-1] if len(self.state.results) > before else None

    def copy(self) -> Game:
        """An independent copy (state and random generator)."""
        other = Game.__new__(Game)
        other.state = self.state
        bit_generator = type(self.rng.bit_generator)()
        bit_generator.state = self.rng.bit_generator.state
        other.rng = np.random.Generator(bit_generator)
        return other
