"""The agent protocol: one method per decision, each given the seat's view.

An agent is asked, in turn, to ``tell`` (when it is the storyteller), to ``play`` (its card(s) for
the clue) and to ``vote`` (board positions). It only ever sees a :class:`~dixit_ai.rules.View`,
which holds what its seat may know. An agent that cannot decide raises; the match runner records
the failure (it never quietly plays a move in the agent's place).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from dixit_ai.rules import View


@dataclass(frozen=True)
class Story:
    """A storyteller's decision: a hand card and a clue.

    Attributes:
        card: The chosen card (an id from the hand).
        clue: The clue, as text.
        clue_kind: ``"word"``, ``"sentence"``, ``"song"`` or ``"mime"``, if the agent says.
        predicted_guess_rate: The agent's prediction of the probability that a guesser finds
            its card, where it makes one; written to the record.
        info: Anything else worth recording (runner-up clues, scores, ...); JSON-ready.
    """

    card: int
    clue: str
    clue_kind: str | None = None
    predicted_guess_rate: float | None = None
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Announcement:
    """Dixit Party: the storyteller's clue, said before looking at the hand (no card).

    Attributes:
        clue: The clue, as text.
        clue_kind: ``"word"``, ``"sentence"``, ``"song"`` or ``"mime"``, if the agent says.
        info: Anything worth recording; JSON-ready.
    """

    clue: str
    clue_kind: str | None = None
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Choice:
    """A guesser's decision: card ids to play, or board positions to vote for.

    Agents may return a plain sequence of ints instead; ``info`` is recorded when given.
    """

    items: tuple[int, ...]
    info: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Agent(Protocol):
    """What the match runner, the environments and the web table ask of a player."""

    name: str

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        """Start a new game in ``seat``; ``rng`` is the agent's own seeded generator."""

    def tell(self, view: View) -> Story:
        """As storyteller: choose a hand card and a clue."""
        ...

    def play(self, view: View) -> Choice | Sequence[int]:
        """As guesser: choose ``view.cards_to_play`` hand card(s) for ``view.clue``."""
        ...

    def vote(self, view: View) -> Choice | Sequence[int]:
        """As voter: choose 1 (or up to ``view.max_votes``) board position(s).

        Dixit Party: every player votes once for the image most players will choose; one's own
        card is allowed (``view.legal_vote_positions()``).
        """
        ...

    def describe(self) -> dict[str, Any]:
        """A JSON-ready description for records: name, parameters, model fingerprints."""
        ...


@runtime_checkable
class PartyAgent(Agent, Protocol):
    """An agent that also plays Dixit Party: its two extra decisions.

    In Party, ``play`` is asked of every player (the storyteller too) and ``vote`` of every
    player; ``tell`` is never asked. In the team variant, ``play`` may be asked of a team's
    designated seat (``view.can_pass``), which may return no card to pass the giving to its
    partner; agents that always give a card play legally.
    """

    def announce(self, view: View) -> Announcement:
        """As Party storyteller: the clue, before seeing the hand (``view.hand`` is empty)."""
        ...

    def red_token(self, view: View) -> Choice | Sequence[int]:
        """As Party storyteller, after the votes: one board position for the red token.

        Voters of that image score nothing; the other votes are not visible yet.
        """
        ...


def as_choice(decision: Choice | Sequence[int]) -> Choice:
    """Normalise what ``play`` or ``vote`` returned into a :class:`Choice`.

    Raises:
        TypeError: the decision is neither a ``Choice`` nor a sequence of ints.
    """
    if isinstance(decision, Choice):
        return decision
    if isinstance(decision, str | bytes) or not isinstance(decision, Sequence | np.ndarray):
        raise TypeError(f"expected a Choice or a sequence of ints, got {decision!r}")
    items = []
    for item in decision:
        if isinstance(item, bool) or not isinstance(item, int | np.integer):
            raise TypeError(f"expected ints, got {item!r} in {decision!r}")
        items.append(int(item))
    return Choice(tuple(items))


def missing_party_decisions(agent: object) -> str | None:
    """The Dixit Party decisions an agent (or an agent class) lacks, as ``"announce() or
    red_token()"``, or ``None`` when it makes both."""
    missing = [m for m in ("announce", "red_token") if not callable(getattr(agent, m, None))]
    return " or ".join(m + "()" for m in missing) if missing else None
