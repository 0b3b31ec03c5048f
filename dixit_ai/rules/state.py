"""What a game of Dixit is made of: its phases, the actions, a round's result and the immutable
:class:`GameState` (:mod:`dixit_ai.rules.game` runs it).

A state is a frozen dataclass of tuples: transitions build a new one and never change the one
they were given, so a state can be kept, compared, hashed and shared freely.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from dixit_ai.rules.ruleset import RuleSet
from dixit_ai.rules.scoring import Parts

CLUE_KINDS: tuple[str, ...] = ("word", "sentence", "song", "mime")
"""What a clue may say it is; the kind changes no scoring."""


class Phase(str, enum.Enum):  # noqa: UP042 (a StrEnum would change str() of a phase)
    """The phase of the current round."""

    TELL = "tell"
    PLAY = "play"
    VOTE = "vote"
    RED = "red"
    OVER = "over"


# The hot path reads phases from module globals (an enum member through its class costs more).
_TELL, _PLAY, _VOTE, _RED, _OVER = Phase.TELL, Phase.PLAY, Phase.VOTE, Phase.RED, Phase.OVER


@dataclass(frozen=True)
class Tell:
    """The storyteller chooses ``card`` from their hand and says ``clue``.

    ``forfeit`` marks a move that a match runner's penalty policy made for a seat whose agent
    failed: the seat (or its team) scores nothing this round.
    """

    seat: int
    card: int
    clue: str
    clue_kind: str | None = None
    forfeit: bool = False


@dataclass(frozen=True)
class Play:
    """A guesser gives ``cards`` (1, or 2 in a 3-player game) face down for the clue."""

    seat: int
    cards: tuple[int, ...]
    forfeit: bool = False


@dataclass(frozen=True)
class Vote:
    """A voter's secret vote: 1 board position (0-based), or 2 where a second vote is allowed."""

    seat: int
    positions: tuple[int, ...]
    forfeit: bool = False


@dataclass(frozen=True)
class Announce:
    """Dixit Party: the storyteller says ``clue`` before looking at the hand (no card)."""

    seat: int
    clue: str
    clue_kind: str | None = None
    forfeit: bool = False


@dataclass(frozen=True)
class RedToken:
    """Dixit Party: the storyteller's secret red token on board ``position`` (0-based).

    Voters of that image score nothing this round.
    """

    seat: int
    position: int
    forfeit: bool = False


Action = Tell | Play | Vote | Announce | RedToken


@dataclass(frozen=True)
class RoundResult:
    """Everything revealed at the end of a round."""

    round: int
    storyteller: int
    clue: str
    clue_kind: str | None
    storyteller_card: int
    played: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    board_owner: tuple[int, ...]
    votes: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]
    forfeits: tuple[int, ...]
    reshuffled: bool
    red_token: int | None = None
    parts: tuple[Parts, ...] = ()

    def point_parts(self, seat: int) -> dict[str, int]:
        """The nonzero named parts of ``seat``'s points this round (they sum to its points).

        Names as in :data:`dixit_ai.rules.POINT_PARTS`; empty when the round carries no parts
        (a round rebuilt from an old record) or the seat scored nothing.
        """
        return dict(self.parts[seat]) if self.parts else {}

    @property
    def voters(self) -> tuple[int, ...]:
        """The seats that voted this round, in seat order."""
        return tuple(seat for seat, positions in enumerate(self.votes) if positions)

    @property
    def finders(self) -> tuple[int, ...]:
        """The voters with a vote on the storyteller's card, in seat order."""
        mine = {i for i, owner in enumerate(self.board_owner) if owner == self.storyteller}
        return tuple(seat for seat, positions in enumerate(self.votes)
                     if mine.intersection(positions))

    @property
    def outcome(self) -> str:
        """``"none"``, ``"some"`` or ``"all"``: how many voters found the storyteller's card."""
        found = len(self.finders)
        return "none" if found == 0 else "all" if found == len(self.voters) else "some"


@dataclass(frozen=True)
class GameState:
    """The whole state of a game: what every seat knows and what nobody does.

    Card collections are tuples of card ids. ``draw_pile`` is drawn from its end. ``played[s]``
    holds the cards seat ``s`` gave this round (the storyteller's card included); ``votes[s]``
    its secret vote (empty until cast). ``pending`` lists the seats still to act in the current
    phase, in clockwise order; ``voters`` the seats that vote this round.
    """

    rules: RuleSet
    n_players: int
    deck: tuple[int, ...]
    draw_pile: tuple[int, ...]
    discard: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    scores: tuple[int, ...]
    round: int
    storyteller: int
    phase: Phase
    pending: tuple[int, ...]
    clue: str | None
    clue_kind: str | None
    played: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    board_owner: tuple[int, ...]
    votes: tuple[tuple[int, ...], ...]
    forfeits: frozenset[int]
    results: tuple[RoundResult, ...]
    voters: tuple[int, ...]
    red_token: int | None = None

    @property
    def to_act(self) -> int | None:
        """The seat a sequential caller should ask next (``None`` once the game is over)."""
        return self.pending[0] if self.pending else None

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is _OVER

    @property
    def last_round(self) -> RoundResult | None:
        """The most recent revealed round, if any."""
        return self.results[-1] if self.results else None

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats with the most points (ties share the victory; partners win together)."""
        return leaders(self.scores)


def leaders(scores: Sequence[int]) -> tuple[int, ...]:
    """Seats with the most points: the winners once the game is over (ties share)."""
    best = max(scores)
    return tuple(seat for seat, score in enumerate(scores) if score == best)
