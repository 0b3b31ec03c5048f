"""The one deck a set of game records was played with, for the players' scripts that read
``--records`` (``scripts/fit_calibration.py``): every vote is scored on that deck's cards, so a
record of another deck would be read with the wrong card ids."""

from __future__ import annotations

from typing import Any

from dixit_ai import GameRecord


def deck_label(entry: dict[str, Any]) -> str:
    """A record header's deck entry as the messages name it: its spec and fingerprint."""
    fingerprint = entry.get("fingerprint")
    name = entry.get("spec") or entry.get("name") or "an unnamed deck"
    return f"{name} (fingerprint {str(fingerprint)[:12]})" if fingerprint else str(name)


def records_deck(by_file: list[tuple[str, list[GameRecord]]], deck: str, *, played: bool
                 ) -> tuple[str, str | None]:
    """The one deck the records were played with: its spec and fingerprint. ``deck`` (the
    script's ``--deck``) names it where the records give card ids only, and the games played
    besides (``played``: ``--play-games``, on ``deck``) must be of it too.

    Raises:
        ValueError: records of more than one deck (naming each deck and its files), a record
            without a deck, a deck given as card ids that ``deck`` does not match, or a spec
            that no longer loads to the recorded deck.
    """
    from dixit_ai.decks import load_deck

    decks: dict[str, tuple[dict[str, Any], list[str]]] = {}
    for path, found in by_file:
        for record in found:
            entry = record.header.get("deck")
            if not isinstance(entry, dict) or not (entry.get("fingerprint") or entry.get("spec")):
                raise ValueError(f"--records {path}: a record (seed {record.header.get('seed')}) "
                                 "does not say which deck it was played with")
            key = str(entry.get("fingerprint") or entry.get("spec"))
            files = decks.setdefault(key, (entry, []))[1]
            if path not in files:
                files.append(path)
    if played:
        try:
            here = load_deck(deck)
        except (ValueError, OSError) as error:
            raise ValueError(f"--deck {deck}: {error}") from None
        entry = {"spec": here.source, "fingerprint": here.fingerprint}
        decks.setdefault(here.fingerprint, (entry, []))[1].append(
            f"--play-games (--deck {deck})")
    if len(decks) > 1:
        listed = "; ".join(f"{deck_label(entry)} in {', '.join(files)}"
                           for entry, files in decks.values())
        raise ValueError(f"the records are of {len(decks)} decks: {listed}. A guess model is "
                         "fitted on one deck's cards: give the records of one deck (fit each "
                         "deck separately)")
    ((entry, files),) = decks.values()
    fingerprint = entry.get("fingerprint")
    spec = entry.get("spec") or deck
    try:
        loaded = load_deck(spec)
    except (ValueError, OSError) as error:
        raise ValueError(f"--records {files[0]}: the records' deck {spec} does not load: "
                         f"{error}") from None
    if fingerprint and loaded.fingerprint != fingerprint:
        how = ("the records name no deck spec (card ids), and --deck " if not entry.get("spec")
               else "the deck spec ")
        raise ValueError(f"--records {', '.join(files)}: {how}{spec} is deck "
                         f"{loaded.fingerprint[:12]}, not the recorded {fingerprint[:12]}")
    return spec, fingerprint


def load_deck_fingerprint(spec: str) -> str:
    """The fingerprint of the deck ``spec`` loads (the games played here)."""
    from dixit_ai.decks import load_deck

    return load_deck(spec).fingerprint
