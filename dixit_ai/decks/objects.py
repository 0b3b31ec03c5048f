"""The curated objects of the dream deck: emoji from the OpenMoji font with names and tags.

The list is data (``dixit_ai/decks/data/objects.json``): a few hundred evocative single-code-point
emoji (animals, plants, food, objects, instruments, weather, celestial things, places, vehicles),
each with an English name, a plural, a category, a few tags and the aspect ratio of its drawn
glyph. People, faces, hands, flags, signs, text-like symbols, toilets, weapons and anything crude
are left out. Every object has a name of its own, including emoji newer than the Unicode database
of the running Python.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

_OBJECTS_RESOURCE = "objects.json"


@dataclass(frozen=True)
class DreamObject:
    """One object that dream cards may show.

    Attributes:
        emoji: The emoji, one code point (drawn from OpenMoji's colour font).
        codepoint: The code point written ``U+1F40B``.
        name: English name, singular, without article (``"whale"``, ``"pair of glasses"``).
        plural: English plural (``"whales"``, ``"pairs of glasses"``).
        category: One of ``animal``, ``plant``, ``food``, ``object``, ``instrument``,
            ``weather``, ``celestial``, ``place``, ``vehicle``.
        tags: A few evocative words.
        aspect: Width over height of the drawn glyph.
    """

    emoji: str
    codepoint: str
    name: str
    plural: str
    category: str
    tags: tuple[str, ...]
    aspect: float


def objects_path() -> Path:
    """Path of the packaged object list (``objects.json``)."""
    return Path(str(resources.files("dixit_ai.decks") / "data" / _OBJECTS_RESOURCE))


@cache
def _objects_bytes() -> bytes:
    return (resources.files("dixit_ai.decks") / "data" / _OBJECTS_RESOURCE).read_bytes()


@cache
def load_objects() -> tuple[DreamObject, ...]:
    """The curated objects, in the order of the data file.

    Returns:
        A tuple of :class:`DreamObject` (loaded once per process).
    """
    document = json.loads(_objects_bytes().decode("utf-8"))
    return tuple(
        DreamObject(
            emoji=entry["emoji"],
            codepoint=entry["codepoint"],
            name=entry["name"],
            plural=entry["plural"],
            category=entry["category"],
            tags=tuple(entry["tags"]),
            aspect=float(entry["aspect"]),
        )
        for entry in document["objects"]
    )


@cache
def objects_by_name() -> dict[str, DreamObject]:
    """The curated objects keyed by name."""
    return {obj.name: obj for obj in load_objects()}


@cache
def objects_digest() -> str:
    """A short hash of the object list, part of the dream deck's cache key."""
    return hashlib.sha256(_objects_bytes()).hexdigest()[:16]
