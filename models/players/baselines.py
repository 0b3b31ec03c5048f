"""Baseline storytellers that every storyteller claim is compared with.

Each is a :class:`~models.players.ClipAgent` (it guesses and plays decoys as ``clip-greedy``
does) whose storytelling is replaced by a fixed rule; none predicts a guess rate:

* :class:`CaptionTeller` (``caption-teller``): a random hand card and its full caption. It reads
  the deck's captions, i.e. **knows the ground truth**;
* :class:`ObjectTeller` (``object-teller``): a random hand card and the name of its main object
  (from the deck's description: ground truth too);
* :class:`RandomTeller` (``random-teller``): a random hand card and a random clue of the
  vocabulary. (The ``random`` agent is random in every phase.)

The card is drawn with the agent's generator, so games stay reproducible.
"""

from __future__ import annotations

from typing import Any

from dixit_ai.agents import Story
from dixit_ai.rules import View
from models.players.agent import ClipAgent


class _RuleTeller(ClipAgent):
    """A ClipAgent whose ``tell`` follows a rule (subclasses give the clue)."""

    kind = "rule"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._deck_obj: Any = None

    def _deck(self) -> Any:
        if self._deck_obj is None:
            from dixit_ai.decks import load_deck

            deck = self.deck
            self._deck_obj = load_deck(deck) if isinstance(deck, str) else deck
            if not hasattr(self._deck_obj, "captions"):
                raise ValueError(f"{self.name}: needs a deck with captions, not {deck!r}")
        return self._deck_obj

    def clue_for(self, card: int, view: View) -> str:
        raise NotImplementedError

    def tell(self, view: View) -> Story:
        self._remember(view)
        card = int(view.hand[int(self._generator().integers(len(view.hand)))])
        clue = self.clue_for(card, view)[: view.rules.max_clue_length].strip()
        if not clue:
            raise ValueError(f"{self.name}: no clue for card {card}")
        self._told.add(clue)
        return Story(card=card, clue=clue, clue_kind="word" if " " not in clue else "sentence",
                     predicted_guess_rate=None, info={"mode": self.kind})

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out.update(storyteller=self.kind, mode=self.kind, target_guess_rate=None,
                   simulation_embedders=[], simulation_fits=[])
        return out


class CaptionTeller(_RuleTeller):
    """Tells a random hand card's full caption (ground truth)."""

    kind = "caption"

    def clue_for(self, card: int, view: View) -> str:
        captions = self._deck().captions(card)
        if not captions:
            raise ValueError(f"{self.name}: card {card} has no caption")
        fitting = [c for c in captions if len(c) <= view.rules.max_clue_length]
        return fitting[0] if fitting else captions[0]


class ObjectTeller(_RuleTeller):
    """Tells the name of a random hand card's main object (ground truth)."""

    kind = "object"

    def clue_for(self, card: int, view: View) -> str:
        description = self._deck().description(card)
        objects = (description or {}).get("objects") or []
        if not objects:
            raise ValueError(f"{self.name}: card {card} has no described object")
        main = next((o for o in objects if o.get("role") == "subject"), objects[0])
        return str(main["name"])


class RandomTeller(_RuleTeller):
    """Tells a random hand card with a random clue of its vocabulary."""

    kind = "random"

    def clue_for(self, card: int, view: View) -> str:
        texts = self.resources.vocabulary.texts
        fitting = [t for t in texts if len(t) <= view.rules.max_clue_length]
        return str(fitting[int(self._generator().integers(len(fitting)))])
