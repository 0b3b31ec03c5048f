"""The :class:`Deck` interface shared by every kind of deck, and its errors.

A deck is an ordered set of cards. Each card has a stable non-negative integer id (the rules engine
deals in plain ids), an image that is loaded lazily at the size a caller asks for, optional
captions and an optional structured description. A deck also carries metadata (name, source spec,
licence, attribution) and a *fingerprint*: a SHA-256 over the content of its card images, in
order, that game records and embedding caches use to tell decks apart.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any

from PIL import Image, ImageOps

#: Width and height, in pixels, of a card image when no size is asked for. Cards are portrait, 2:3.
CARD_SIZE: tuple[int, int] = (400, 600)

_FINGERPRINT_HEADER = b"dixit-ai deck fingerprint v1\n"


class DeckError(ValueError):
    """A deck spec or a deck's files are invalid; the message names the spec or the file."""


def image_content_hash(image: Image.Image) -> str:
    """Hash the pixels of a card image (as RGB), independently of how it was encoded.

    Args:
        image: Any Pillow image; it is converted to RGB first.

    Returns:
        The SHA-256 hex digest of the image's size and RGB pixel bytes.
    """
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    digest = hashlib.sha256(f"{rgb.width}x{rgb.height}:RGB\n".encode())
    digest.update(rgb.tobytes())
    return digest.hexdigest()


def combine_card_hashes(card_hashes: Sequence[str]) -> str:
    """Combine the content hashes of a deck's cards, in order, into the deck's fingerprint.

    Args:
        card_hashes: One :func:`image_content_hash` per card, in card-id order.

    Returns:
        A SHA-256 hex digest. Two decks with the same images in the same order have the same
        fingerprint, whatever their kind (an exported dream deck loaded as a folder deck keeps
        the dream deck's fingerprint).
    """
    digest = hashlib.sha256(_FINGERPRINT_HEADER)
    for card_hash in card_hashes:
        digest.update(card_hash.encode("ascii") + b"\n")
    return digest.hexdigest()


def check_size(size: tuple[int, int] | Sequence[int]) -> tuple[int, int]:
    """Validate an image size given as ``(width, height)`` in pixels."""
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise ValueError(f"an image size must be (width, height) in pixels, not {size!r}") from None
    if width < 1 or height < 1 or width > 8192 or height > 8192:
        raise ValueError(f"an image size must be between 1 and 8192 pixels a side, not {size!r}")
    return width, height


def fit_to_size(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """Scale an image to exactly ``size``, cropping the centre where the aspect ratio differs.

    This is "cover" fitting (what CLIP-style preprocessing does with a resize of the short side and
    a centre crop): no padding is added and nothing is stretched.
    """
    if image.size == size:
        return image
    return ImageOps.fit(image, size, method=Image.Resampling.LANCZOS)


class Deck(ABC):
    """An ordered set of cards with images, optional captions and descriptions, and metadata.

    Subclasses implement :meth:`image`, :meth:`card_hash` and set the metadata attributes;
    they may override :meth:`captions` and :meth:`description`.

    Attributes:
        name: A short human-readable name (``"dream"``, a folder's name, ...).
        source: The canonical deck spec; ``load_deck(deck.source)`` loads the same deck again.
        license: The licence of the card images (for example ``"CC BY-SA 4.0"``).
        attribution: The attribution the licence asks for, ready to print.
    """

    name: str
    source: str
    license: str
    attribution: str

    def __init__(self, card_ids: Sequence[int]) -> None:
        ids = tuple(int(card_id) for card_id in card_ids)
        if not ids:
            raise DeckError("a deck needs at least one card")
        if any(card_id < 0 for card_id in ids):
            raise ValueError("card ids must be non-negative integers")
        if len(set(ids)) != len(ids):
            raise ValueError("card ids must be unique")
        self._card_ids = ids
        self._id_set = frozenset(ids)
        self._fingerprint: str | None = None

    # ----------------------------------------------------------------- cards

    @property
    def card_ids(self) -> tuple[int, ...]:
        """The ids of the cards, in deck order: unique non-negative integers, stable across runs."""
        return self._card_ids

    def __len__(self) -> int:
        return len(self._card_ids)

    def __iter__(self) -> Iterator[int]:
        return iter(self._card_ids)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._id_set

    def _check_card(self, card_id: int) -> int:
        if card_id not in self._id_set:
            raise KeyError(f"no card {card_id!r} in deck {self.name!r} (ids {self._id_range()})")
        return int(card_id)

    def _id_range(self) -> str:
        ids = self._card_ids
        if ids == tuple(range(ids[0], ids[0] + len(ids))):
            return f"{ids[0]}..{ids[-1]}"
        return f"{len(ids)} ids, not contiguous"

    @abstractmethod
    def image(
        self, card_id: int, size: tuple[int, int] | None = CARD_SIZE
    ) -> Image.Image:
        """The card's image as an RGB Pillow image.

        Args:
            card_id: A card id of this deck.
            size: ``(width, height)`` in pixels; the image is scaled to cover it and cropped at
                the centre if the aspect ratio differs from the card's. ``None`` gives the
                card's own size (400x600 for generated decks, the file's size for folders).

        Returns:
            A new image the caller may modify.

        Raises:
            KeyError: ``card_id`` is not in the deck.
        """

    def captions(self, card_id: int) -> list[str]:
        """Captions of the card (ground truth for benchmarks and training), possibly empty."""
        self._check_card(card_id)
        return []

    def description(self, card_id: int) -> dict[str, Any] | None:
        """The card's structured description (JSON-compatible), or ``None`` if the deck has none."""
        self._check_card(card_id)
        return None

    def card_name(self, card_id: int) -> str:
        """A short name for the card besides its id (a file name), or ``""`` if it has none."""
        self._check_card(card_id)
        return ""

    # ------------------------------------------------------------ identity

    @abstractmethod
    def card_hash(self, card_id: int) -> str:
        """The content hash of the card's image (see :func:`image_content_hash`)."""

    @property
    def fingerprint(self) -> str:
        """SHA-256 hex digest of the deck's card images' content and order.

        Computed on first use (which may mean reading or rendering every image once) and
        remembered; generated decks keep it in the on-disk cache so later runs get it cheaply.
        """
        if self._fingerprint is None:
            self._fingerprint = self._compute_fingerprint()
        return self._fingerprint

    def _compute_fingerprint(self) -> str:
        return combine_card_hashes([self.card_hash(card_id) for card_id in self._card_ids])

    def info(self) -> dict[str, Any]:
        """The deck's metadata as a JSON-compatible dict (computes the fingerprint)."""
        return {
            "name": self.name,
            "source": self.source,
            "size": len(self),
            "fingerprint": self.fingerprint,
            "license": self.license,
            "attribution": self.attribution,
        }

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.source!r}: {len(self)} cards>"
