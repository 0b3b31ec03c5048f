"""Composite decks: the union of several decks (a base game plus expansions).

Card ids stay distinct by offsetting each part's cards: the first part's cards keep positions
``0 .. n0 - 1``, the second part's follow at ``n0 .. n0 + n1 - 1``, and so on, in each part's own
order. ``part_of(card_id)`` gives a card's part and its id within that part. A composite deck
refuses the same deck twice and any picture that appears in two parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from dixit_ai.decks.base import CARD_SIZE, Deck, DeckError


class CompositeDeck(Deck):
    """Several decks played as one.

    Args:
        parts: The decks, in order (at least one).

    Raises:
        DeckError: A deck is given twice, or two parts share a picture (this computes every
            part's fingerprint, which generated decks cache on disk).
    """

    def __init__(self, parts: Sequence[Deck]) -> None:
        if not parts:
            raise DeckError("a composite deck needs at least one part")
        sources = [part.source for part in parts]
        for position, source in enumerate(sources):
            if source in sources[:position]:
                raise DeckError(f"composite deck: {source!r} is given twice")
        self.parts: tuple[Deck, ...] = tuple(parts)
        self._where: list[tuple[int, int]] = [
            (index, local_id) for index, part in enumerate(self.parts) for local_id in part.card_ids
        ]
        self.offsets: tuple[int, ...] = tuple(
            sum(len(part) for part in self.parts[:index]) for index in range(len(self.parts))
        )
        super().__init__(range(len(self._where)))
        self.name = " + ".join(part.name for part in self.parts)
        self.source = "+".join(sources)
        licenses = {part.license for part in self.parts}
        if len(licenses) == 1:
            self.license = licenses.pop()
        else:
            self.license = "; ".join(f"{part.name}: {part.license}" for part in self.parts)
        attributions: list[str] = []
        for part in self.parts:
            if part.attribution and part.attribution not in attributions:
                attributions.append(part.attribution)
        self.attribution = "\n".join(attributions)
        self._check_duplicates()

    def _check_duplicates(self) -> None:
        seen: dict[str, int] = {}
        for card_id in self.card_ids:
            digest = self.card_hash(card_id)
            if digest in seen:
                first = seen[digest]
                raise DeckError(
                    f"composite deck: card {self._describe(card_id)} is the same picture as "
                    f"card {self._describe(first)}"
                )
            seen[digest] = card_id

    def _describe(self, card_id: int) -> str:
        index, local_id = self._where[card_id]
        name = self.parts[index].card_name(local_id)
        label = f"{local_id} ({name})" if name else str(local_id)
        return f"{label} of part {index} ({self.parts[index].source})"

    def part_of(self, card_id: int) -> tuple[int, int]:
        """The index of the card's part in :attr:`parts`, and the card's id within that part."""
        return self._where[self._check_card(card_id)]

    def part(self, card_id: int) -> Deck:
        """The deck the card comes from."""
        return self.parts[self.part_of(card_id)[0]]

    def image(
        self, card_id: int, size: tuple[int, int] | None = CARD_SIZE
    ) -> Image.Image:
        """The card's image, from its part."""
        index, local_id = self.part_of(card_id)
        return self.parts[index].image(local_id, size)

    def captions(self, card_id: int) -> list[str]:
        """The card's captions, from its part."""
        index, local_id = self.part_of(card_id)
        return self.parts[index].captions(local_id)

    def description(self, card_id: int) -> dict[str, Any] | None:
        """The card's description, from its part."""
        index, local_id = self.part_of(card_id)
        return self.parts[index].description(local_id)

    def card_name(self, card_id: int) -> str:
        """The card's name in its part, or ``PART#ID`` if its part names no cards."""
        index, local_id = self.part_of(card_id)
        name = self.parts[index].card_name(local_id)
        return name or f"{self.parts[index].name}#{local_id}"

    def card_hash(self, card_id: int) -> str:
        """The card's content hash, from its part."""
        index, local_id = self.part_of(card_id)
        return self.parts[index].card_hash(local_id)
