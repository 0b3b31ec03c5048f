"""Deck specs: the strings that name a deck everywhere one is asked for.

Forms:

- ``dream``: the default deck, 84 procedural cards (seed 0);
- ``dream:size=N,seed=S``: another dream deck (either key may be left out);
- ``folder:PATH``: every PNG, JPEG and WebP image in a folder;
- ``SPEC+SPEC+...``: a composite deck, the union of several (base game plus expansions), for
  example ``dream+folder:~/my-cards``. The ``+`` separates specs only where it is followed by a
  deck kind (``dream`` or ``folder:``), so a path may contain ``+`` as long as it does not contain
  ``+dream`` or ``+folder:``; a list of specs avoids the question altogether.

:func:`load_deck` also takes a list of specs (a composite deck) and an existing :class:`Deck`
(returned as is). Deck kinds are a registry (:func:`register_deck_kind`), so a new kind of deck
plugs into every command at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from dixit_ai.decks.base import Deck, DeckError
from dixit_ai.decks.composite import CompositeDeck
from dixit_ai.decks.dream import DEFAULT_DREAM_SEED, DEFAULT_DREAM_SIZE, DreamDeck
from dixit_ai.decks.folder import FolderDeck

#: The spec of the default deck.
DEFAULT_DECK = "dream"

DeckSpec = str | Deck | PathLike[str] | Sequence["str | Deck | PathLike[str]"]


@dataclass(frozen=True)
class DeckKind:
    """One kind of deck spec.

    Attributes:
        name: The spec's prefix (``"dream"``, ``"folder"``).
        forms: How the spec is written, for help and error messages.
        summary: One line on what the deck is.
        load: Builds the deck from the text after ``name:`` (``None`` when there is none).
        needs_argument: Whether ``name:...`` must carry text after the colon.
    """

    name: str
    forms: tuple[str, ...]
    summary: str
    load: Callable[[str | None], Deck]
    needs_argument: bool = False


_KINDS: dict[str, DeckKind] = {}


def register_deck_kind(kind: DeckKind) -> None:
    """Add a kind of deck spec (an existing name is replaced)."""
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", kind.name):
        raise ValueError(f"a deck kind's name must be lower-case letters and digits: {kind.name!r}")
    _KINDS[kind.name] = kind


def deck_kinds() -> tuple[DeckKind, ...]:
    """The registered kinds of deck spec."""
    return tuple(_KINDS.values())


def valid_forms() -> str:
    """The spec forms, for help texts and error messages."""
    forms = ", ".join(repr(form) for kind in _KINDS.values() for form in kind.forms)
    return (
        f"{forms}, or several specs joined with '+' (e.g. 'dream+folder:PATH') or given as a list"
    )


def _parse_dream(argument: str | None) -> Deck:
    values = {"size": DEFAULT_DREAM_SIZE, "seed": DEFAULT_DREAM_SEED}
    if argument is None or not argument.strip():
        return DreamDeck(**values)
    seen: set[str] = set()
    for item in argument.split(","):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in values:
            raise DeckError(
                f"dream deck spec: cannot read {item.strip()!r}; write 'dream:size=N,seed=S' "
                f"(keys: size, seed)"
            )
        if key in seen:
            raise DeckError(f"dream deck spec: {key!r} is given twice")
        seen.add(key)
        try:
            values[key] = int(value)
        except ValueError:
            raise DeckError(f"dream deck spec: {key} must be an integer, not {value!r}") from None
    return DreamDeck(**values)


def _parse_folder(argument: str | None) -> Deck:
    # Spaces around the path are the spec's, as around dream's keys ('folder: ~/cards').
    path = (argument or "").strip()
    if not path:
        raise DeckError("folder deck spec needs a path: 'folder:PATH'")
    return FolderDeck(path)


register_deck_kind(
    DeckKind(
        "dream",
        ("dream", "dream:size=N,seed=S"),
        f"procedural surreal cards from OpenMoji emoji (default size {DEFAULT_DREAM_SIZE}, "
        f"seed {DEFAULT_DREAM_SEED})",
        _parse_dream,
    )
)
register_deck_kind(
    DeckKind(
        "folder",
        ("folder:PATH",),
        "every PNG, JPEG and WebP image in a folder, with optional captions.json and deck.json",
        _parse_folder,
        needs_argument=True,
    )
)


def split_spec(spec: str) -> list[str]:
    """Split a composite spec at each ``+`` that is followed by a deck kind.

    >>> split_spec("dream+folder:/cards/a+b+dream:seed=3")
    ['dream', 'folder:/cards/a+b', 'dream:seed=3']
    """
    names = "|".join(re.escape(name) for name in sorted(_KINDS, key=len, reverse=True))
    pattern = rf"\+(?=\s*(?:{names})(?::|\+|\s*$))"
    return [part.strip() for part in re.split(pattern, spec)]


def _load_one(spec: str) -> Deck:
    text = spec.strip()
    name, colon, argument = text.partition(":")
    kind = _KINDS.get(name.strip())
    if kind is None or (kind.needs_argument and not colon):
        raise DeckError(f"unknown deck spec {spec!r}; valid forms: {valid_forms()}")
    return kind.load(argument if colon else None)


def load_deck(spec: DeckSpec | None = None) -> Deck:
    """Load the deck a spec names.

    Args:
        spec: A spec string (see the module docstring), a list of specs (a composite deck),
            a :class:`Deck` (returned as is), a :class:`pathlib.Path` (a folder deck), or
            ``None`` for the default deck.

    Returns:
        The deck.

    Raises:
        DeckError: (a ``ValueError``) the spec is unknown or malformed, or the deck's files are
            bad; the message names the spec or file and, for an unknown spec, lists the valid
            forms.

    >>> deck = load_deck("dream")
    >>> len(deck), deck.card_ids[:3]
    (84, (0, 1, 2))
    """
    if spec is None:
        spec = DEFAULT_DECK
    if isinstance(spec, Deck):
        return spec
    if isinstance(spec, PathLike):
        return FolderDeck(Path(spec))
    if isinstance(spec, str):
        parts = split_spec(spec)
        if len(parts) == 1:
            return _load_one(parts[0])
        return CompositeDeck([_load_one(part) for part in parts])
    if isinstance(spec, Sequence):
        decks = [load_deck(item) for item in spec]
        if not decks:
            raise DeckError(f"an empty list is not a deck spec; valid forms: {valid_forms()}")
        return decks[0] if len(decks) == 1 else CompositeDeck(decks)
    raise DeckError(
        f"unknown deck spec {spec!r} (a {type(spec).__name__}); valid forms: {valid_forms()}"
    )
