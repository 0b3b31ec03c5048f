"""The deck a tournament run was started on, by content: kept in ``config.json``, checked on resume.

A deck spec names a deck, but a folder deck (``folder:PATH``) is only its path: images changed,
added or removed between a run's start and its resume would make the resumed games deal other
cards under the same spec. So a run's ``config.json`` keeps the deck's content
(:func:`deck_identity`) and a resume is refused when the deck now differs
(:func:`check_run_deck`), naming the deck and the cards that changed:

- ``fingerprint``: the deck's own fingerprint (:attr:`dixit_ai.decks.Deck.fingerprint`, a SHA-256
  over its card images' content in card-id order, what game records carry);
- ``text_fingerprint``: a SHA-256 over every card's captions and description (agents such as the
  caption baselines tell clues from them);
- ``cards``: per card, by file name (``#ID`` for a card without one), the first 16 hex digits of
  its image hash and of its text hash: only to say which cards changed; the fingerprints decide.

Runs started before dixit-ai kept the deck in ``config.json`` are checked against the deck
fingerprint in their game records; with no records nothing was dealt yet, and records without a
fingerprint cannot be checked (the resume goes on, with a warning).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from dixit_ai.decks import Deck
from dixit_ai.tournament.store import CONFIG_FILE, ResumeError

DECK_KEY = "deck"
"""The key of the deck's content in a run's ``config.json``."""

_SHORT = 16
_LISTED = 8


def card_text_hash(deck: Deck, card_id: int) -> str:
    """SHA-256 hex digest of a card's captions and description."""
    text = json.dumps([deck.captions(card_id), deck.description(card_id)], sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def deck_identity(deck: Deck) -> dict[str, Any]:
    """What ``config.json`` keeps of a run's deck (see the module docstring).

    >>> from dixit_ai.decks import load_deck
    >>> identity = deck_identity(load_deck("dream:size=30"))
    >>> identity["spec"], identity["size"], identity["cards"]["#0"] == identity["cards"]["#1"]
    ('dream:size=30,seed=0', 30, False)
    """
    cards: dict[str, str] = {}
    text_digest = hashlib.sha256(b"dixit-ai deck text v1\n")
    for card_id in deck.card_ids:
        text = card_text_hash(deck, card_id)
        text_digest.update(text.encode("ascii") + b"\n")
        key = deck.card_name(card_id) or f"#{card_id}"
        if key in cards:  # the same file name in two parts of a composite deck
            key = f"{key}#{card_id}"
        cards[key] = f"{deck.card_hash(card_id)[:_SHORT]} {text[:_SHORT]}"
    return {"spec": deck.source, "name": deck.name, "size": len(deck),
            "fingerprint": deck.fingerprint, "text_fingerprint": text_digest.hexdigest(),
            "cards": cards}


def read_run_deck(folder: str | Path) -> dict[str, Any] | None:
    """The deck kept in a run folder's ``config.json``, or ``None`` for a run started before
    dixit-ai kept it (the folder is read by :func:`~dixit_ai.tournament.store.read_run_config`
    first, which refuses what is not a run folder).

    Raises:
        ResumeError: a deck entry that is not what :func:`deck_identity` writes.
    """
    path = Path(folder) / CONFIG_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
    entry = data.get(DECK_KEY)
    if entry is None:
        return None
    if (not isinstance(entry, dict)
            or not all(isinstance(entry.get(key), str)
                       for key in ("spec", "fingerprint", "text_fingerprint"))
            or not isinstance(entry.get("size"), int)
            or not isinstance(entry.get("cards"), dict)
            or not all(isinstance(value, str) for value in entry["cards"].values())):
        raise ResumeError(f"{path}: its {DECK_KEY!r} entry is not a deck's content (spec, size, "
                          "fingerprint, text_fingerprint, cards)")
    return entry


def check_run_deck(folder: str | Path, recorded: dict[str, Any] | None, deck: Deck, *,
                   records: Iterable[str] = ()) -> str | None:
    """Refuse to resume the run in ``folder`` on ``deck`` when its content is not the deck the
    run was started on.

    Args:
        folder: The run folder (for messages).
        recorded: The run's deck (:func:`read_run_deck`), or ``None`` for an older run.
        deck: The deck the resumed games would be played on.
        records: The run's game records as JSON lines (read only when ``recorded`` is
            ``None``: their deck fingerprints are then what is checked).

    Returns:
        A warning to show when the deck could not be checked (an older run whose records carry
        no deck fingerprint), else ``None``.

    Raises:
        ResumeError: the deck's content differs (the message names the deck and says what
            changed).
    """
    where = f"{folder}: the deck {deck.source!r}"
    advice = ("restore the deck's files as they were, or start a new run "
              "(without --resume) on the deck as it is now")
    if recorded is not None:
        now = deck_identity(deck)
        if (recorded["fingerprint"] == now["fingerprint"]
                and recorded["text_fingerprint"] == now["text_fingerprint"]):
            return None
        change = describe_change(recorded, now)
        raise ResumeError(f"{where} is not the deck this run was started on: {change}; "
                          f"{advice}")
    seen: dict[str, int] = {}
    unknown = 0
    for line in records:
        entry = json.loads(line).get("header", {}).get("deck")
        fingerprint = entry.get("fingerprint") if isinstance(entry, dict) else None
        if isinstance(fingerprint, str):
            seen[fingerprint] = seen.get(fingerprint, 0) + 1
        else:
            unknown += 1
    other = {fingerprint: count for fingerprint, count in seen.items()
             if fingerprint != deck.fingerprint}
    if other:
        shown = ", ".join(f"{count} on {fingerprint[:_SHORT]}" for fingerprint, count
                          in other.items())
        raise ResumeError(
            f"{where} is not the deck this run's games were played on: its images have "
            f"fingerprint {deck.fingerprint[:_SHORT]} now, and of the recorded games {shown} "
            f"(its images were changed, added or removed since); {advice}")
    if unknown:
        return (f"warning: {folder} was started before dixit-ai kept the deck's content in "
                f"{CONFIG_FILE}, and {unknown} of its game records carry no deck fingerprint: "
                f"the deck {deck.source!r} could not be checked against the one its games were "
                "played on")
    return None


def describe_change(before: dict[str, Any], after: dict[str, Any]) -> str:
    """What changed between two :func:`deck_identity` entries, in words."""
    old, new = before["cards"], after["cards"]
    added = [name for name in new if name not in old]
    removed = [name for name in old if name not in new]
    images = [name for name in new if name in old and old[name].split()[0] != new[name].split()[0]]
    texts = [name for name in new if name in old and old[name].split()[0] == new[name].split()[0]
             and old[name] != new[name]]
    parts = [f"{before['size']} cards then, {after['size']} now"] if (
        before["size"] != after["size"]) else []
    for what, names in (("added", added), ("removed", removed),
                        ("with another image", images),
                        ("with other captions or description", texts)):
        if names:
            parts.append(f"{len(names)} {'card' if len(names) == 1 else 'cards'} {what} "
                         f"({_listed(names)})")
    if not (added or removed or images or texts):
        parts.append("the same cards in another order" if before["fingerprint"]
                     != after["fingerprint"] else "its cards' content differs")
    return (f"{'; '.join(parts)} (image fingerprint {before['fingerprint'][:_SHORT]} then, "
            f"{after['fingerprint'][:_SHORT]} now)")


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED])
    return shown + (f", ... ({len(names)} in all)" if len(names) > _LISTED else "")
