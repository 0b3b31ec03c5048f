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

from collections.abc import Callable
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
        self._deck_checked = False

    needs = ""
    """What the rule reads of every card (``"the caption"``), or nothing."""
    registry_name = ""
    """The registry's name of the rule (errors name it: an instance is often just "clip")."""

    def _deck(self) -> Any:
        if self._deck_obj is None:
            from dixit_ai.decks import load_deck

            deck = self.deck
            loaded = load_deck(deck) if isinstance(deck, str) else deck
            if not hasattr(loaded, "captions"):
                raise ValueError(f"{self.name}: needs a deck with captions, not {deck!r}")
            self._deck_obj = loaded
        return self._deck_obj

    def has_clue(self, card: int) -> bool:
        """Whether the rule has a clue for ``card`` (the deck holds what it reads)."""
        return True

    def check_deck(self) -> None:
        """Refuse a deck some of whose cards the rule has no clue for, before any game.

        Raises:
            ValueError: naming the deck, how many of its cards lack what the rule reads, and
                the first of them.
        """
        deck = self._deck()
        missing = [int(card) for card in deck.card_ids if not self.has_clue(int(card))]
        if missing:
            raise ValueError(
                f"{self.registry_name} tells {self.needs} of its card, and deck {deck.name!r} "
                f"has none for {len(missing)} of its {len(deck.card_ids)} cards (card {missing[0]} "
                "first): give the deck's folder a captions.json and descriptions.json, or "
                "choose another storyteller")

    def clue_for(self, card: int, view: View) -> str:
        raise NotImplementedError

    def tell(self, view: View) -> Story:
        if not self._deck_checked:   # once: every card, rather than a failure per tell
            self.check_deck()
            self._deck_checked = True
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
    needs = "the caption"
    registry_name = "caption-teller"

    def has_clue(self, card: int) -> bool:
        return bool(self._deck_obj.captions(card))

    def clue_for(self, card: int, view: View) -> str:
        captions = self._deck().captions(card)
        if not captions:
            raise ValueError(f"{self.name}: card {card} has no caption")
        fitting = [c for c in captions if len(c) <= view.rules.max_clue_length]
        return fitting[0] if fitting else captions[0]


class ObjectTeller(_RuleTeller):
    """Tells the name of a random hand card's main object (ground truth)."""

    kind = "object"
    needs = "the main object's name"
    registry_name = "object-teller"

    def has_clue(self, card: int) -> bool:
        description = self._deck_obj.description(card)
        return bool((description or {}).get("objects"))

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
    registry_name = "random-teller"

    def clue_for(self, card: int, view: View) -> str:
        texts = self.resources.vocabulary.texts
        fitting = [t for t in texts if len(t) <= view.rules.max_clue_length]
        return str(fitting[int(self._generator().integers(len(fitting)))])


def _prepare(teller: type[_RuleTeller]) -> Callable[..., Any]:
    def prepare(*, progress: Callable[[str], None] | None = None, **agent_options: Any) -> Any:
        """The registry's prepare step: the deck checked for what the rule reads (refused
        before any game, rather than a failure at every one of its tells), then the clip
        player's vectors (:func:`models.players.resources.prepare`)."""
        from dixit_ai.decks import load_deck
        from models.players.resources import prepare as prepare_resources

        # The deck is read once for both (a folder deck decodes every picture as it loads).
        deck = agent_options.get("deck", "dream")
        options = {**agent_options, "deck": load_deck(deck) if isinstance(deck, str) else deck}
        teller(**options).check_deck()
        return prepare_resources(progress=progress, **options)

    return prepare


prepare_caption_teller = _prepare(CaptionTeller)
prepare_object_teller = _prepare(ObjectTeller)
prepare_random_teller = _prepare(RandomTeller)
