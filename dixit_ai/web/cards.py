"""Card images and captions, by card id alone (a URL tells no owner)."""

from __future__ import annotations

import asyncio
import io
import logging
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from dixit_ai.decks import DeckError
from dixit_ai.web.config import WebError
from dixit_ai.web.table import Table

log = logging.getLogger("dixit_ai.web")

if TYPE_CHECKING:
    from dixit_ai.decks import Deck

CARD_IMAGE_SIZE = (400, 600)
MAX_CACHED_IMAGES = 2048
"""Rendered card images kept, over all decks (a deck is kept or dropped whole)."""


class CardsMixin:
    """The cards of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    tables: dict[str, Table]
    _images: OrderedDict[str, dict[int, bytes]]
    _rendering: dict[str, asyncio.Future[dict[int, bytes]]]
    _captions: dict[str, dict[str, str]]
    _work: Callable[..., Any]
    _deck: Callable[[str], Deck]
    count_request: Callable[..., None]

    # ------------------------------------------------------------------ cards

    async def card_image(self, table_id: str, card_id: int, *,
                         client: str | None = None) -> bytes:
        """The JPEG image of a card of a table's deck (by id alone: the URL tells no owner).

        The first image asked of a deck renders the whole deck, and a deck's images are kept or
        dropped together: how fast a card's image comes back tells nothing of whether anyone
        asked for it before (a hand's cards, loaded by its holder's page, would otherwise come
        back faster than the others).

        A request that renders a deck (none of its images kept: a deck's first card, or one
        dropped from :data:`MAX_CACHED_IMAGES` for others) counts against ``client``'s (an
        address's) ``tables_per_minute``, apart: each render takes one of the threads the
        bots decide in, and asking cards of decks that do not fit together in turn would
        render them again and again.

        Raises:
            WebError: (404) no such table or card; (429) ``client`` made too many renders this
                minute.
        """
        table = self.tables.get(table_id)
        if table is None or card_id not in set(table.card_ids):
            raise WebError(404, "no such card")
        images = await self._deck_images(table.config.deck, table.card_ids, client)
        return images[card_id]

    async def _deck_images(self, spec: str, card_ids: tuple[int, ...],
                           client: str | None = None) -> dict[int, bytes]:
        if spec in self._images:
            self._images.move_to_end(spec)
            return self._images[spec]
        if spec not in self._rendering:   # one render per deck, however many ask at once
            self.count_request(client, "renders")
            def render() -> dict[int, bytes]:
                deck = self._deck(spec)
                out = {}
                for card in card_ids:
                    buffer = io.BytesIO()
                    deck.image(card, CARD_IMAGE_SIZE).convert("RGB").save(
                        buffer, format="JPEG", quality=88)
                    out[card] = buffer.getvalue()
                return out

            self._rendering[spec] = asyncio.ensure_future(self._work(render))
        try:
            images = await asyncio.shield(self._rendering[spec])
        except DeckError as error:   # the details (the host's paths) go to the log only
            log.error("deck %s cannot be shown: %s", spec, error)
            raise WebError(503, "this deck's pictures cannot be shown: its files changed or "
                                "cannot be read since the server loaded it (the server log "
                                "says which); the host can restart the server") from None
        finally:
            if self._rendering.get(spec) is not None and self._rendering[spec].done():
                self._rendering.pop(spec, None)
        self._images[spec] = images
        while len(self._images) > 1 and sum(map(len, self._images.values())) > MAX_CACHED_IMAGES:
            self._images.popitem(last=False)
        return images

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

