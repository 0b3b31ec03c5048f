"""What :class:`~dixit_ai.agents.http_agent.HttpAgent` asks a served model, and what it accepts
back: one :class:`Question` per decision (the prompt, the cards shown as numbered images, and the
check that turns the model's JSON answer into a legal move or says why it is not one).

An answer is one JSON object, alone or in one Markdown code fence (:func:`parse_answer`): an
object inside prose is refused, never extracted. Card numbers are the 1-based labels the prompt
shows. Pure functions of the seat's view: no I/O here (the agent sends, retries and records).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from dixit_ai.agents.http_transport import HttpAgentError
from dixit_ai.rules import CLUE_KINDS, IllegalAction, View, check_clue

__all__ = [
    "PARTY_SYSTEM_PROMPT",
    "SYSTEM_PROMPT",
    "InvalidAnswerError",
    "Question",
    "announce_question",
    "parse_answer",
    "play_question",
    "red_token_question",
    "tell_question",
    "vote_question",
]

T = TypeVar("T")

SYSTEM_PROMPT = (
    "You are playing the board game Dixit. Each round the storyteller picks a card from their "
    "hand and says a clue about it; the other players each add a card of theirs that fits the "
    "clue; the cards are shuffled face up and everyone but the storyteller votes for the card "
    "they think is the storyteller's. The storyteller scores only if some, but not all, players "
    "find their card. Cards are shown as numbered images. Always answer with one JSON object "
    "and nothing else."
)

PARTY_SYSTEM_PROMPT = (
    "You are playing Dixit Party, a coordination game. Each round the storyteller says a clue "
    "before looking at their hand; then every player, the storyteller included, plays a card "
    "that fits it; the cards are shuffled face up and everyone votes for the image they think "
    "most players will choose (one's own card allowed). A player scores the number of players "
    "who voted for the same image (at most 5), nothing if alone on it, and nothing if it is the "
    "image the storyteller puts the red token on. Cards are shown as numbered images. Always "
    "answer with one JSON object and nothing else."
)


class InvalidAnswerError(HttpAgentError):
    """The model gave no valid answer within its retries (the match runner records it).

    Attributes:
        attempts: Requests made.
        answers: The raw text of every answer, in order.
        reasons: Why each answer was refused.
    """

    def __init__(self, message: str, *, attempts: int, answers: Sequence[str],
                 reasons: Sequence[str]) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.answers = list(answers)
        self.reasons = list(reasons)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_answer(text: str) -> dict[str, Any]:
    """The JSON object that is a model's whole answer (a Markdown code fence around it, and
    nothing else, is tolerated).

    An object inside other text ("I cannot see the images; I would answer {"card": 1}") is
    refused, never extracted: it is as likely a quoted example or a refusal as a decision.

    Raises:
        ValueError: the answer is not one JSON object alone (the message says why).
    """
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text.strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError as error:
        if body.startswith(("{", "[")):
            raise ValueError(f"the answer is not valid JSON ({error.msg})") from None
        if "{" in body:
            raise ValueError("the answer has a JSON object inside other text; answer with the "
                             "JSON object alone") from None
        raise ValueError("the answer is not a JSON object") from None
    if not isinstance(data, dict):
        raise ValueError(f"the answer must be a JSON object, not {type(data).__name__}")
    return data


@dataclass(frozen=True)
class Question(Generic[T]):
    """One decision put to the model.

    Attributes:
        prompt: The instruction, with the JSON form of the answer.
        cards: ``(caption, card id)`` for each image shown, labelled 1, 2, ... in order.
        check: The answer's JSON object to the decision; raises ``ValueError`` saying why an
            answer is not a legal one (sent back to the model).
        party: Dixit Party's system prompt instead of Dixit's.
    """

    prompt: str
    cards: Sequence[tuple[str, int]]
    check: Callable[[dict[str, Any]], T]
    party: bool = False

    @property
    def system_prompt(self) -> str:
        return PARTY_SYSTEM_PROMPT if self.party else SYSTEM_PROMPT


def checked_clue(view: View, data: dict[str, Any]) -> tuple[str, str | None]:
    """The answer's clue (stripped) and kind, checked by the rules; an unknown kind is dropped."""
    clue = data.get("clue")
    kind = data.get("clue_kind")
    if kind is not None and kind not in CLUE_KINDS:
        kind = None
    try:
        check_clue(view.rules, clue, kind, view.seat)
    except IllegalAction as error:
        raise ValueError(str(error)) from None
    assert isinstance(clue, str)
    return clue.strip(), kind


QUOTED_CHARACTERS = 60
"""How much of an answer's bad value a refusal quotes (an answer under the response cap can
still be megabytes of garbage: the reason goes into the game record and back to the model)."""


def quoted(value: Any) -> str:
    """``repr(value)``, cut to :data:`QUOTED_CHARACTERS` with its full length said."""
    text = repr(value)
    if len(text) <= QUOTED_CHARACTERS:
        return text
    return f"{text[:QUOTED_CHARACTERS]}... ({len(text):,} characters)"


def card_label(value: Any, count: int, what: str) -> int:
    """A 1-based card label from an answer field, checked to be in ``1..count``."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{what} must be an integer from 1 to {count}, not {quoted(value)}")
    if isinstance(value, str) and not value.strip().isdigit():
        raise ValueError(f"{what} must be an integer from 1 to {count}, not {quoted(value)}")
    label = int(value)
    if not 1 <= label <= count:
        raise ValueError(f"{what} {quoted(label)} is not between 1 and {count}")
    return label


def tell_question(view: View) -> Question[tuple[int, str, str | None]]:
    """The storyteller's card and clue: ``(card, clue, clue_kind)``."""
    hand = list(view.hand)
    prompt = (
        "You are the storyteller. Your hand is shown below. Choose one card and give a "
        "clue (a word, a phrase or a sentence) so that some, but not all, of the other "
        "players find it. Answer as JSON: "
        '{"card": <the number of your card>, "clue": "<your clue>"}.'
    )

    def check(data: dict[str, Any]) -> tuple[int, str, str | None]:
        label = card_label(data.get("card"), len(hand), "card")
        clue, kind = checked_clue(view, data)
        return hand[label - 1], clue, kind

    return Question(prompt, [("Your card", c) for c in hand], check)


def play_question(view: View) -> Question[tuple[int, ...]]:
    """A guesser's (or, in Party, any player's) ``view.cards_to_play`` hand card ids."""
    if view.clue is None:
        raise ValueError("play() needs the clue")
    hand, count = list(view.hand), view.cards_to_play
    if count == 1:
        ask = 'Answer as JSON: {"card": <the number of the card you play>}.'
    else:
        ask = (f'Answer as JSON: {{"cards": [<{count} different card numbers>]}}.')
    prompt = (f"The storyteller's clue is: \"{view.clue}\". Your hand is shown below. Play "
              f"{count} card{'s' if count > 1 else ''} from your hand that the other "
              f"players may mistake for the storyteller's. {ask}")
    if view.is_party:
        prompt = (f"The clue is: \"{view.clue}\". Your hand is shown below. Play the card "
                  f"you think most players will see in the clue. {ask}")

    def check(data: dict[str, Any]) -> tuple[int, ...]:
        if count == 1:
            return (hand[card_label(data.get("card"), len(hand), "card") - 1],)
        labels = data.get("cards")
        if not isinstance(labels, list) or len(labels) != count:
            raise ValueError(f"'cards' must be a list of {count} card numbers")
        picked = [card_label(v, len(hand), "card") for v in labels]
        if len(set(picked)) != count:
            raise ValueError("the same card was named twice")
        return tuple(hand[k - 1] for k in picked)

    return Question(prompt, [("Your card", c) for c in hand], check, party=view.is_party)


def vote_question(view: View) -> Question[tuple[int, ...]]:
    """A voter's board positions (0-based), one or up to ``view.max_votes``."""
    if view.clue is None or not view.board:
        raise ValueError("vote() needs the clue and the board")
    board = list(view.board)
    own = set(view.team_positions)
    legal = view.legal_vote_positions()
    notes = ""
    if own:
        mine = ", ".join(str(p + 1) for p in sorted(own))
        notes = f" Card(s) {mine} are yours (or your team's): you may not vote for them."
    ask = 'Answer as JSON: {"card": <the number of the card you vote for>}.'
    if view.max_votes > 1:
        ask = ('Answer as JSON: {"card": <number>} for one vote, or {"cards": [<number>, '
               '<number>]} to vote for two different cards.')
    prompt = (f"The storyteller's clue is: \"{view.clue}\". The board is shown below. Vote "
              f"for the card you think is the storyteller's.{notes} {ask}")
    if view.is_party:
        prompt = (f"The clue is: \"{view.clue}\". The board is shown below. Vote for the "
                  "image you think most players will vote for (your own card is allowed). "
                  f"{ask}")

    def check(data: dict[str, Any]) -> tuple[int, ...]:
        if "cards" in data and view.max_votes > 1:
            values = data["cards"]
            if not isinstance(values, list) or not 1 <= len(values) <= view.max_votes:
                raise ValueError(f"'cards' must list 1 to {view.max_votes} card numbers")
        else:
            values = [data.get("card")]
        positions = [card_label(v, len(board), "card") - 1 for v in values]
        if len(set(positions)) != len(positions):
            raise ValueError("the same card was named twice")
        for position in positions:
            if position not in legal:
                raise ValueError(f"card {position + 1} is your own: you may not vote for it")
        return tuple(positions)

    return Question(prompt, [("Card", c) for c in board], check, party=view.is_party)


def announce_question(view: View) -> Question[tuple[str, str | None]]:
    """Dixit Party: the storyteller's clue and kind, asked before any card is shown."""
    if not view.is_party:
        raise ValueError("announce() is a Dixit Party decision; this game is not Party")
    prompt = (
        "You are the storyteller. Say a clue now, before looking at your hand (no card is "
        "shown): a word, a phrase or a sentence that most players will picture the same "
        'way. Answer as JSON: {"clue": "<your clue>"}.'
    )

    def check(data: dict[str, Any]) -> tuple[str, str | None]:
        return checked_clue(view, data)

    return Question(prompt, [], check, party=True)


def red_token_question(view: View) -> Question[tuple[int, ...]]:
    """Dixit Party: the board position the storyteller puts the red token on."""
    legal = view.legal_red_positions()
    if not legal:
        raise ValueError("red_token() needs the red phase and the storyteller's seat")
    board = list(view.board)
    mine = ", ".join(str(p + 1) for p in view.my_positions)
    yours = f" (card {mine} is yours)" if mine else ""
    prompt = (
        f"The clue was: \"{view.clue}\". The board is shown below{yours}. "
        "As the storyteller, put the red token on one image: whoever voted for it scores "
        "nothing this round. Answer as JSON: "
        '{"card": <the number of the image>}.'
    )

    def check(data: dict[str, Any]) -> tuple[int, ...]:
        position = card_label(data.get("card"), len(board), "card") - 1
        if position not in legal:
            raise ValueError(f"card {position + 1} may not take the red token")
        return (position,)

    return Question(prompt, [("Card", c) for c in board], check, party=True)
