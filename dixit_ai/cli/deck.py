"""``dixit-ai deck``: inspect, preview and export card decks.

Subcommands:

- ``dixit-ai deck info [SPEC] [--card ID ...] [--json]``: name, size, fingerprint, licence and
  attribution (and, with ``--card``, a card's captions and description);
- ``dixit-ai deck sheet [SPEC] --out sheet.png``: a contact sheet, a grid of thumbnails with ids;
- ``dixit-ai deck export SPEC DIR``: the images plus ``captions.json``, ``descriptions.json`` and
  ``deck.json``, so that a generated deck becomes a folder deck.

``register(subparsers)`` adds the command to the main ``dixit-ai`` parser; each subcommand sets
``func`` on the parsed namespace, which returns the exit status.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import EXIT_USAGE, check_out_file, json_for_stdout, running
from dixit_ai.decks import (
    CompositeDeck,
    Deck,
    contact_sheet,
    export_deck,
    load_deck,
    sheet_layout,
    valid_forms,
)
from dixit_ai.decks.base import check_size
from dixit_ai.decks.sheet import check_not_own_folder
from dixit_ai.reporting import progress_interval
from dixit_ai.rules.text import printable

_SPEC_HELP = "the deck spec (default: %(default)s); forms: "


def register(subparsers: Any) -> None:
    """Add the ``deck`` command (``info``, ``sheet``, ``export``) to ``dixit-ai``'s subparsers.

    Args:
        subparsers: The object ``argparse.ArgumentParser.add_subparsers()`` returned.
    """
    forms = valid_forms()
    parser = subparsers.add_parser(
        "deck",
        help="inspect, preview and export card decks",
        description="Inspect, preview and export card decks. Deck specs: " + forms + ".",
    )
    parser.set_defaults(func=_usage(parser))
    commands = parser.add_subparsers(dest="deck_command", metavar="COMMAND")

    info = commands.add_parser(
        "info",
        help="print a deck's name, size, fingerprint, licence and attribution",
        description="Print a deck's name, size, fingerprint, licence and attribution.",
    )
    info.add_argument("spec", nargs="?", default="dream", help=_SPEC_HELP + forms)
    info.add_argument(
        "--card",
        type=int,
        action="append",
        metavar="ID",
        help="also print this card's captions and description (repeatable)",
    )
    info.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    info.set_defaults(func=run_info)

    sheet = commands.add_parser(
        "sheet",
        help="draw a contact sheet: a grid of thumbnails with their ids",
        description="Draw a contact sheet of a deck: a grid of thumbnails with their ids, the "
        "deck's name and fingerprint, and its licence and attribution.",
    )
    sheet.add_argument("spec", nargs="?", default="dream", help=_SPEC_HELP + forms)
    sheet.add_argument(
        "--out", "-o", type=Path, required=True, help="the image to write (PNG, JPEG or WebP)"
    )
    sheet.add_argument(
        "--columns", type=int, default=None, help="thumbnails per row (default: 12 for 84 cards)"
    )
    sheet.add_argument(
        "--thumb-width", type=int, default=120, help="thumbnail width in pixels (default: 120)"
    )
    sheet.add_argument(
        "--cards", default=None, help="the cards to show, e.g. '0-23' or '1,5,9' (default: all)"
    )
    sheet.set_defaults(func=run_sheet)

    export = commands.add_parser(
        "export",
        help="write a deck's images and captions to a folder (a folder deck)",
        description="Write a deck's images (PNG, named by card id) with captions.json, "
        "descriptions.json and deck.json, so that it loads again as 'folder:DIR'.",
    )
    export.add_argument("spec", help="the deck spec; forms: " + forms)
    export.add_argument("directory", type=Path, help="the folder to write (must be empty)")
    export.add_argument(
        "--size",
        type=_parse_size,
        default=None,
        help="image size WIDTHxHEIGHT, e.g. 800x1200 (default: each card's own size, which "
        "keeps the deck's fingerprint)",
    )
    export.add_argument(
        "--overwrite", action="store_true", help="write into a folder that is not empty"
    )
    export.set_defaults(func=run_export)


def _usage(parser: argparse.ArgumentParser) -> Any:
    def show(_: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    return show


def _parse_size(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"size must be WIDTHxHEIGHT, e.g. 400x600, not {text!r}")
    return int(match.group(1)), int(match.group(2))


def _id_range(deck: Deck) -> str:
    """The deck's card ids for a message: ``"84 cards, ids 0-83"``."""
    ids = deck.card_ids
    contiguous = ids == tuple(range(ids[0], ids[0] + len(ids)))
    span = f"ids {min(ids)}-{max(ids)}" + ("" if contiguous else ", not all of them")
    return f"{len(ids)} cards, {span}"


def _no_card(card_id: int, deck: Deck) -> ValueError:
    return ValueError(f"no card {card_id} in deck {deck.name!r} ({_id_range(deck)})")


def _card_range(low: int, high: int, deck: Deck) -> list[int]:
    """The ids ``low`` to ``high`` of ``deck``: its ends are checked against the deck first, so a
    range that runs past the deck is refused without building it."""
    for end in (low, high):
        if end not in deck:
            raise _no_card(end, deck)
    if low > high:
        raise ValueError(f"the card range {low}-{high} runs backwards; write e.g. '0-23'")
    ids: list[int] = []
    for card_id in range(low, high + 1):  # stops at the first id the deck lacks
        if card_id not in deck:
            raise _no_card(card_id, deck)
        ids.append(card_id)
    return ids


def _parse_cards(text: str, deck: Deck) -> list[int]:
    """``--cards``: ids and ranges (``'0-23'``, ``'1,5,9'``), each checked against the deck."""
    ids: list[int] = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        low, dash, high = item.partition("-")
        try:
            bounds = (int(low), int(high)) if dash else (int(item), int(item))
        except ValueError:
            message = f"cannot read card ids {text!r}; write e.g. '0-23' or '1,5,9'"
            raise ValueError(message) from None
        ids.extend(_card_range(*bounds, deck))
    if not ids:
        raise ValueError(f"--cards {text!r} names no card; write e.g. '0-23' or '1,5,9', or "
                         "leave --cards out for every card")
    return ids


SHEET_EXTENSIONS = (".png", ".jpg", ".jpeg", ".webp")
"""The image files ``deck sheet --out`` writes (the extension chooses the format)."""


def _fail(error: BaseException) -> int:
    message = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    print(f"dixit-ai deck: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def skipped_line(skipped: list[str], shown: int = 8) -> str:
    """``deck info``'s line naming what a folder holds that is not a card."""
    names = ", ".join(printable(name) for name in skipped[:shown])
    more = f" and {len(skipped) - shown} more" if len(skipped) > shown else ""
    heic = any(name.lower().endswith((".heic", ".heif")) for name in skipped)
    return (f"not cards:    {len(skipped)} in the folder (only PNG, JPEG and WebP files are "
            f"cards): {names}{more}"
            + ("; convert HEIC photos to JPEG to make them cards" if heic else ""))


def deck_info(deck: Deck, cards: list[int] | None = None) -> dict[str, Any]:
    """The metadata ``dixit-ai deck info`` prints, as a JSON-compatible dict."""
    info = deck.info()
    if isinstance(deck, CompositeDeck):
        info["parts"] = [
            {
                "first_id": offset,
                "last_id": offset + len(part) - 1,
                "name": part.name,
                "source": part.source,
                "size": len(part),
                "license": part.license,
            }
            for offset, part in zip(deck.offsets, deck.parts, strict=True)
        ]
    skipped = [name for part in (deck.parts if isinstance(deck, CompositeDeck) else [deck])
               for name in getattr(part, "skipped", ())]
    if skipped:
        info["skipped"] = skipped
    if cards:
        info["cards"] = [
            {
                "id": card_id,
                "name": deck.card_name(card_id),
                "captions": deck.captions(card_id),
                "description": deck.description(card_id),
            }
            for card_id in cards
        ]
    return info


PROGRESS_AFTER_SECONDS = 0.5
"""A one-time step that took longer than this gets a line on stderr saying what it did."""


def hash_cards(deck: Deck) -> float:
    """Read (or render) every card once to fingerprint the deck, with a progress bar on stderr
    when it takes more than a second and a line with the count and the time when it took more
    than :data:`PROGRESS_AFTER_SECONDS`; returns the seconds spent (cached decks: about 0)."""
    from tqdm import tqdm

    started = time.perf_counter()
    ids = list(deck.card_ids)
    for card_id in tqdm(ids, desc=f"reading the {len(ids)} cards of {deck.name}", unit="card",
                        file=sys.stderr, delay=1.0, leave=False,
                        mininterval=progress_interval(sys.stderr)):
        deck.card_hash(card_id)
    _ = deck.fingerprint
    elapsed = time.perf_counter() - started
    if elapsed > PROGRESS_AFTER_SECONDS:
        print(f"read {len(ids)} cards of {deck.name} to fingerprint the deck (once: later runs "
              f"read it from the cache) ... {elapsed:.1f} s", file=sys.stderr, flush=True)
    return elapsed


def run_info(args: argparse.Namespace) -> int:
    """``dixit-ai deck info``."""
    try:
        deck = load_deck(args.spec)
        hash_cards(deck)
        cards = args.card or []
        for card_id in cards:
            if card_id not in deck:
                raise _no_card(card_id, deck)
        info = deck_info(deck, cards)
    except (ValueError, KeyError, OSError) as error:
        return _fail(error)
    if args.json:
        print(json_for_stdout(info, indent=2))
        return 0
    size = info["size"]
    lines = [
        f"name:         {printable(info['name'])}",
        f"source:       {printable(info['source'])}",
        f"size:         {size} card{'s' if size != 1 else ''}",
        f"fingerprint:  {info['fingerprint']}",
        f"license:      {printable(info['license'])}",
    ]
    if info.get("skipped"):
        lines.append(skipped_line(info["skipped"]))
    attribution = [printable(line) for line in info["attribution"].splitlines()] or ["(none)"]
    lines.append(f"attribution:  {attribution[0]}")
    lines.extend(f"              {line}" for line in attribution[1:])
    for part in info.get("parts", []):
        lines.append(
            f"part:         ids {part['first_id']}-{part['last_id']}: {part['name']} "
            f"({part['source']}, {part['license']})"
        )
    for card in info.get("cards", []):
        lines.append("")
        title = f"card {card['id']}" + (f" ({printable(card['name'])})" if card["name"] else "")
        lines.append(f"{title}:")
        for caption in card["captions"] or ["(no captions)"]:
            lines.append(f"  caption:    {printable(caption)}")
        if card["description"] is not None:
            text = json.dumps(card["description"], indent=2, ensure_ascii=False)
            lines.append("  description:")
            lines.extend(f"    {printable(line)}" for line in text.splitlines())
    print("\n".join(lines))
    return 0


MAX_SHEET_PIXELS = 100_000_000
"""The most pixels a contact sheet may have (300 MB drawn in memory): a larger one (a huge
``--thumb-width``, thousands of cards) would exhaust memory before it is written."""

MAX_SHEET_SIDE = {".webp": 16383, ".jpg": 65535, ".jpeg": 65535}
"""The longest side each image format can store, in pixels (PNG's is beyond the pixel limit)."""


def check_sheet_size(out: Path, deck: Deck, shown: int, *, columns: int | None,
                     thumb_width: int) -> None:
    """Refuse the sheet options (``--columns``, ``--thumb-width``) where they are invalid, or
    where the sheet would be more than :data:`MAX_SHEET_PIXELS` or longer a side than ``out``'s
    format stores, before anything is drawn.

    Raises:
        ValueError: naming the sheet's size, the limit and the options to change.
    """
    attribution = f"Licence: {deck.license}\n{deck.attribution}".strip()  # as contact_sheet
    layout = sheet_layout(shown, columns=columns, thumb_width=thumb_width,
                          attribution=attribution)
    side = MAX_SHEET_SIDE.get(out.suffix.lower())
    sheet = (f"a contact sheet of {shown} cards, {layout.columns} a row, "
             f"--thumb-width {thumb_width}, is {layout.width}x{layout.height} pixels")
    change = "give a smaller --thumb-width, fewer --columns or fewer --cards"
    if layout.width * layout.height > MAX_SHEET_PIXELS:
        raise ValueError(f"{sheet}: more than the {MAX_SHEET_PIXELS:,} pixels a sheet may have; "
                         f"{change}")
    if side is not None and max(layout.size) > side:
        raise ValueError(f"{sheet}: a {out.suffix} image is at most {side} pixels a side; "
                         f"{change}, or write a .png")


def run_sheet(args: argparse.Namespace) -> int:
    """``dixit-ai deck sheet``."""
    out: Path = args.out.expanduser()
    try:
        if out.suffix.lower() not in SHEET_EXTENSIONS:
            found = f"unknown image file extension {out.suffix!r}" if out.suffix else (
                "no file extension")
            raise ValueError(f"--out {out}: {found}; use {', '.join(SHEET_EXTENSIONS)}")
        if out.is_dir():
            raise ValueError(f"--out {out} is a folder; give the name of an image file")
        deck = load_deck(args.spec)
        card_ids = _parse_cards(args.cards, deck) if args.cards is not None else None
        shown = len(card_ids) if card_ids is not None else len(deck)
        check_sheet_size(out, deck, shown, columns=args.columns, thumb_width=args.thumb_width)
        out.parent.mkdir(parents=True, exist_ok=True)  # only once everything is checked
        check_out_file(out)
    except (ValueError, KeyError, OSError) as error:
        return _fail(error)
    # Everything is checked: an error from here on is a failure to draw or write the sheet.
    with running(f"drawing the contact sheet to {out}"):
        sheet = contact_sheet(
            deck, columns=args.columns, thumb_width=args.thumb_width, card_ids=card_ids
        )
        if out.suffix.lower() == ".png":
            sheet.save(out, optimize=True)
        else:
            sheet.save(out)
    print(f"wrote {out} ({sheet.width}x{sheet.height}, {shown} cards of {deck.name})")
    return 0


def check_export_folder(folder: Path, *, overwrite: bool) -> None:
    """Refuse a folder ``deck export`` cannot write, before anything is written.

    Raises:
        ValueError: ``folder`` is a file, or is not empty (unless ``overwrite``).
    """
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"cannot export to {folder}: it is a file")
    if folder.is_dir() and any(folder.iterdir()) and not overwrite:
        raise ValueError(f"cannot export to {folder}: the folder is not empty; pass "
                         "--overwrite to write into it")


def make_export_folder(folder: Path) -> None:
    """Make the export folder (and its parents), once everything else is checked.

    Raises:
        ValueError: it cannot be made, or cannot be written.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ValueError(f"cannot export to {folder}: cannot make the folder "
                         f"({error.strerror or error})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"cannot export to {folder}: cannot write there (permission denied)")


def run_export(args: argparse.Namespace) -> int:
    """``dixit-ai deck export``."""
    folder: Path = args.directory.expanduser()
    try:
        check_export_folder(folder, overwrite=args.overwrite)
        if args.size is not None:
            check_size(args.size)
        deck = load_deck(args.spec)
        check_not_own_folder(deck, folder)
        make_export_folder(folder)  # only once everything is checked
    except (ValueError, KeyError, OSError) as error:
        return _fail(error)
    # Everything is checked: an error from here on is a failure to write the folder.
    with running(f"exporting {deck.name} to {folder}",
                 then="the folder may hold some of the cards; export again with --overwrite"):
        written = export_deck(deck, folder, size=args.size, overwrite=args.overwrite)
    print(
        f"wrote {len(written)} cards of {deck.name} to {args.directory}; "
        f"load them with 'folder:{args.directory}'"
    )
    return 0
