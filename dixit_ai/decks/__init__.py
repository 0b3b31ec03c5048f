"""Card decks: the dream deck (procedural, the default), folder decks and composite decks.

Load a deck from a spec string (see :mod:`dixit_ai.decks.specs`)::

    >>> from dixit_ai.decks import load_deck
    >>> deck = load_deck("dream")
    >>> len(deck), deck.license
    (84, 'CC BY-SA 4.0')
    >>> [entry["role"] for entry in deck.description(0)["objects"]]
    ['subject', 'object']

A :class:`Deck` has ``card_ids`` (unique non-negative ints), ``image(card_id, size)`` (a Pillow
image, loaded lazily), ``captions(card_id)``, ``description(card_id)``, ``fingerprint`` (a hash of
the card images' content and order), ``name``, ``source`` (the canonical spec), ``license`` and
``attribution``.

The dream deck's cards are adaptations of OpenMoji emojis, licensed under CC BY-SA 4.0; see
:data:`OPENMOJI_ATTRIBUTION` (OpenMoji's attribution, verbatim) and
:data:`DREAM_ADAPTATION_NOTICE`.
"""

from __future__ import annotations

from dixit_ai.decks.base import (
    CARD_SIZE,
    Deck,
    DeckError,
    combine_card_hashes,
    image_content_hash,
)
from dixit_ai.decks.cache import cache_root, deck_cache_dir
from dixit_ai.decks.composite import CompositeDeck
from dixit_ai.decks.dream import (
    DEFAULT_DREAM_SEED,
    DEFAULT_DREAM_SIZE,
    DREAM_ADAPTATION_NOTICE,
    DREAM_ATTRIBUTION,
    DREAM_LICENSE,
    OPENMOJI_ATTRIBUTION,
    DreamDeck,
)
from dixit_ai.decks.folder import FolderDeck
from dixit_ai.decks.sheet import contact_sheet, export_deck, sheet_layout
from dixit_ai.decks.specs import (
    DEFAULT_DECK,
    DeckKind,
    deck_kinds,
    load_deck,
    register_deck_kind,
    split_spec,
    valid_forms,
)

__all__ = [
    "CARD_SIZE",
    "DEFAULT_DECK",
    "DEFAULT_DREAM_SEED",
    "DEFAULT_DREAM_SIZE",
    "DREAM_ADAPTATION_NOTICE",
    "DREAM_ATTRIBUTION",
    "DREAM_LICENSE",
    "OPENMOJI_ATTRIBUTION",
    "CompositeDeck",
    "Deck",
    "DeckError",
    "DeckKind",
    "DreamDeck",
    "FolderDeck",
    "cache_root",
    "combine_card_hashes",
    "contact_sheet",
    "deck_cache_dir",
    "deck_kinds",
    "export_deck",
    "image_content_hash",
    "load_deck",
    "register_deck_kind",
    "sheet_layout",
    "split_spec",
    "valid_forms",
]
