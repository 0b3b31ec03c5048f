"""The one door through which hidden information leaves the rules: a seat's view.

A :class:`View` holds what one seat may know: its own hand, its own played cards and votes, and
everything public (the clue, the board once laid, the scores, the discard pile, who has still to
act, the last revealed round). It never holds another seat's hand, the order of the draw pile,
who played which board card before the reveal, or another seat's vote before the reveal.

Team variant: a partner sees of its team exactly what the table sees (who gives the team's card:
a pass is public, as the rulebook has partners agree out loud) plus, once the board is laid, the
position of its partner's card (``team_positions``: it may not vote for it, as one knows one's
own card). It never sees its partner's hand, nor its partner's card before the board is laid.

Dixit Party: the storyteller's view in ``TELL`` holds no hand (the clue comes before looking);
``red_token`` is the storyteller's own red token once placed (hidden from the others until the
reveal, like the votes).
"""

from __future__ import annotations

from dataclasses import dataclass

from dixit_ai.rules._fast import build_frozen, is_int
from dixit_ai.rules.ruleset import RuleSet
from dixit_ai.rules.scoring import designated_seats
from dixit_ai.rules.state import _PLAY, _RED, _TELL, _VOTE, GameState, Phase, RoundResult


@dataclass(frozen=True)
class View:
    """What ``seat`` may know of the game.

    Attributes:
        seat: The seat this view belongs to.
        n_players: Players in the game.
        rules: The edition's rules.
        phase: The current phase.
        round: The current round (0-based).
        storyteller: This round's storyteller.
        pending: Seats still to act in this phase (public: one sees who has not played yet).
        hand: This seat's cards.
        clue: The clue, once told.
        clue_kind: What the clue says it is, if it says.
        board: The board's card ids, once laid (vote phase).
        my_cards: The cards this seat played this round (the storyteller's card included).
        my_positions: Board positions of this seat's own cards (vote phase).
        team_positions: Board positions this seat may not vote for: its own cards and, in the
            team variant, its partner's (partners know each other's cards).
        my_votes: This seat's own vote, once cast.
        scores: Every seat's score (partners share their team's).
        draw_pile_size: Cards left in the draw pile.
        discard: The face-up discard pile.
        last_round: The most recent revealed round.
        can_pass: Team variant, ``PLAY``: this seat decides for its team and may pass the
            giving to its partner (a ``Play`` of no card); it may also give one card.
        red_token: Dixit Party: this seat's red token, once placed (the storyteller only).
    """

    seat: int
    n_players: int
    rules: RuleSet
    phase: Phase
    round: int
    storyteller: int
    pending: tuple[int, ...]
    hand: tuple[int, ...]
    clue: str | None
    clue_kind: str | None
    board: tuple[int, ...]
    my_cards: tuple[int, ...]
    my_positions: tuple[int, ...]
    team_positions: tuple[int, ...]
    my_votes: tuple[int, ...]
    scores: tuple[int, ...]
    draw_pile_size: int
    discard: tuple[int, ...]
    last_round: RoundResult | None
    can_pass: bool = False
    red_token: int | None = None

    @property
    def partner(self) -> int | None:
        """This seat's partner in the team variant (``None`` otherwise)."""
        return self.rules.partner_of(self.seat, self.n_players)

    @property
    def is_party(self) -> bool:
        """Whether this is a Dixit Party game."""
        return self.rules.is_party

    @property
    def is_storyteller(self) -> bool:
        """Whether this seat tells this round."""
        return self.seat == self.storyteller

    @property
    def cards_to_play(self) -> int:
        """How many cards a guesser plays this round."""
        return self.rules.cards_per_guesser_for(self.n_players)

    @property
    def max_votes(self) -> int:
        """How many votes this seat may cast (1, or 2 where a second vote is allowed)."""
        return self.rules.votes_per_guesser(self.n_players)

    def legal_vote_positions(self) -> tuple[int, ...]:
        """Board positions this seat may vote for: every card but its own (or its team's).

        Dixit Party: every card, one's own included.
        """
        if self.phase is not _VOTE:
            return ()
        barred = self.barred_vote_positions
        return tuple(i for i in range(len(self.board)) if i not in barred)

    @property
    def barred_vote_positions(self) -> tuple[int, ...]:
        """Board positions this seat may not vote for in the vote phase: its own card(s) and, in
        the team variant, its partner's (``team_positions``); none in Dixit Party."""
        return () if self.rules.is_party else self.team_positions


    def legal_red_positions(self) -> tuple[int, ...]:
        """Dixit Party, ``RED``: the board positions the storyteller may put the red token on."""
        if self.phase is not _RED or not self.is_storyteller:
            return ()
        return tuple(range(len(self.board)))


def observe(state: GameState, seat: int) -> View:
    """The view of ``state`` that ``seat`` may see.

    Raises:
        ValueError: ``seat`` is not a seat of this game (out of range, or not an int: a bool,
            a string, a float; the message names it).
    """
    if not is_int(seat) or not 0 <= seat < state.n_players:
        raise ValueError(f"seat {seat!r} is not a seat of this {state.n_players}-player game")
    rules = state.rules
    phase = state.phase
    board = state.board if phase is _VOTE or phase is _RED else ()
    my_positions: tuple[int, ...] = ()
    team_positions: tuple[int, ...] = ()
    if board:
        owner = state.board_owner
        my_positions = tuple(i for i, s in enumerate(owner) if s == seat)
        team_positions = my_positions
        if rules.teams:
            n = state.n_players
            team = rules.team_of(seat, n)
            team_positions = tuple(i for i, s in enumerate(owner) if rules.team_of(s, n) == team)
        elif rules.is_party:
            team_positions = ()  # Dixit Party: one may vote for one's own image
    hand = state.hands[seat]
    can_pass = False
    if rules.is_variant:
        if rules.teams:
            can_pass = phase is _PLAY and seat in state.pending and seat in designated_seats(
                rules, state.n_players, state.storyteller)
        elif phase is _TELL and seat == state.storyteller:
            hand = ()  # Dixit Party: the storyteller speaks before looking at the hand
    # observe() is on every decision's path: build the view without the dataclass __init__
    # (and keep it at most 21 fields: a larger dict costs a resize on every call).
    return build_frozen(View, dict(
        seat=seat,
        n_players=state.n_players,
        rules=state.rules,
        phase=state.phase,
        round=state.round,
        storyteller=state.storyteller,
        pending=state.pending,
        hand=hand,
        clue=state.clue,
        clue_kind=state.clue_kind,
        board=board,
        my_cards=state.played[seat],
        my_positions=my_positions,
        team_positions=team_positions,
        my_votes=state.votes[seat],
        scores=state.scores,
        draw_pile_size=len(state.draw_pile),
        discard=state.discard,
        last_round=state.results[-1] if state.results else None,
        can_pass=can_pass,
        red_token=state.red_token if seat == state.storyteller else None,
    ))
