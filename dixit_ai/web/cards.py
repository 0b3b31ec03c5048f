"""Card images and captions, by card id alone (a URL tells no owner)."""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dixit_ai.web.config import WebError
from dixit_ai.web.table import Table

if TYPE_CHECKING:
    from dixit_ai.decks import Deck

CARD_IMAGE_SIZE = (400, 600)


class CardsMixin:
    """The cards of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    tables: dict[str, Table]
    _images: OrderedDict[tuple[str, int], bytes]
    _captions: dict[str, dict[str, str]]
    _work: Callable[..., Any]
    _deck: Callable[[str], Deck]

    # ------------------------------------------------------------------ cards

    async def card_image(self, table_id: str, card_id: int) -> bytes:
        """The JPEG image of a card of a table's deck (by id alone: the URL tells no owner).

        Raises:
            WebError: (404) no such table or card.
        """
        table = self.tables.get(table_id)
        if table is None or card_id not in set(table.card_ids):
            raise WebError(404, "no such card")
        key = (table.config.deck, card_id)
        if key not in self._images:
            def render() -> bytes:
                image = self._deck(table.config.deck).image(card_id, CARD_IMAGE_SIZE)
                out = io.BytesIO()
                image.convert("RGB").save(out, format="JPEG", quality=88)
                return out.getvalue()

            self._images[key] = await self._work(render)
            if len(self._images) > 2048:
                self._images.popitem(last=False)
        return self._images[key]

    async def captions(self, table_id: str) -> dict[str, str]:
        """Each card's first caption, where the table's deck has them (the cards' alt text).

        Raises:
            WebError: (404) no such table.
        """
        table = self.tables.get(table_id)
        if table is None:
            raise WebError(404, "no such table")
        spec = table.config.deck
        if spec not in self._captions:
            def read() -> dict[str, str]:
                deck = self._deck(spec)
                out = {}
                for card in table.card_ids:
                    captions = deck.captions(card)
                    if captions:
                        out[str(card)] = str(captions[0])
                return out

            self._captions[spec] = await self._work(read)
        return self._captions[spec]

