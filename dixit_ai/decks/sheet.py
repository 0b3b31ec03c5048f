"""Look at a deck and take it away: contact sheets and export to a folder deck.

:func:`contact_sheet` draws a grid of thumbnails with their ids (the way a person checks a deck at
a glance), a header with the deck's name, size and fingerprint, and a footer with its licence and
attribution. :func:`export_deck` writes a deck's images as PNG files with ``captions.json``,
``descriptions.json`` and ``deck.json``, so that a generated deck becomes a folder deck (with the
same fingerprint when exported at the deck's own size).
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from dixit_ai.decks.base import CARD_SIZE, Deck, DeckError, check_size
from dixit_ai.fonts import text_font

_BACKGROUND = (24, 24, 30)
_TEXT = (236, 236, 240)
_MUTED = (160, 160, 172)


@dataclass(frozen=True)
class SheetLayout:
    """Sizes of a contact sheet, in pixels.

    The sheet is ``gap + columns * (thumb_width + gap)`` wide and
    ``header + rows * (thumb_height + label + gap) + footer`` high.
    """

    columns: int
    rows: int
    thumb_width: int
    thumb_height: int
    gap: int
    label: int
    header: int
    footer: int
    font_size: int
    footer_lines: tuple[str, ...]

    @property
    def width(self) -> int:
        return self.gap + self.columns * (self.thumb_width + self.gap)

    @property
    def height(self) -> int:
        cell = self.thumb_height + self.label + self.gap
        return self.header + self.rows * cell + self.footer

    @property
    def size(self) -> tuple[int, int]:
        return self.width, self.height


def default_columns(count: int) -> int:
    """Columns for ``count`` thumbnails so that the sheet is roughly landscape (12 for 84)."""
    return max(1, min(count, round(math.sqrt(count * 1.75))))


def sheet_layout(
    count: int, *, columns: int | None = None, thumb_width: int = 120, attribution: str = ""
) -> SheetLayout:
    """The layout of a contact sheet of ``count`` cards.

    Args:
        count: Number of thumbnails.
        columns: Thumbnails per row (default :func:`default_columns`).
        thumb_width: Width of a thumbnail; thumbnails are 2:3.
        attribution: Text of the footer (wrapped to the sheet's width).
    """
    if count < 1:
        raise ValueError("a contact sheet needs at least one card")
    if thumb_width < 16:
        raise ValueError(f"thumbnails must be at least 16 pixels wide, not {thumb_width}")
    columns = default_columns(count) if columns is None else columns
    if columns < 1:
        raise ValueError(f"a contact sheet needs at least one column, not {columns}")
    columns = min(columns, count)
    rows = math.ceil(count / columns)
    gap = max(4, thumb_width // 20)
    font_size = max(11, min(18, thumb_width // 9))
    width = gap + columns * (thumb_width + gap)
    chars = max(20, int(width / (font_size * 0.55)))
    footer_lines: list[str] = []
    for paragraph in attribution.splitlines():
        footer_lines.extend(textwrap.wrap(paragraph, chars) or [""])
    footer = (len(footer_lines) * (font_size + 4) + gap * 2) if footer_lines else gap
    return SheetLayout(
        columns=columns,
        rows=rows,
        thumb_width=thumb_width,
        thumb_height=round(thumb_width * 1.5),
        gap=gap,
        label=font_size + 6,
        header=2 * (font_size + 8) + gap * 2,
        footer=footer,
        font_size=font_size,
        footer_lines=tuple(footer_lines),
    )


def _fit_text(draw: ImageDraw.ImageDraw, text: str, font: Any, width: float) -> str:
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "…", font=font) > width:
        text = text[:-1]
    return text + "…"


def contact_sheet(
    deck: Deck,
    *,
    columns: int | None = None,
    thumb_width: int = 120,
    card_ids: Sequence[int] | None = None,
) -> Image.Image:
    """A contact sheet of a deck: thumbnails in a grid, each with its id.

    Args:
        deck: The deck.
        columns: Thumbnails per row (default: a roughly landscape sheet, 12 for 84 cards).
        thumb_width: Width of each 2:3 thumbnail in pixels.
        card_ids: The cards to show (default: all, in deck order).

    Returns:
        An RGB image of :func:`sheet_layout`'s size.
    """
    ids = list(deck.card_ids if card_ids is None else card_ids)
    for card_id in ids:
        if card_id not in deck:
            raise KeyError(f"no card {card_id!r} in deck {deck.name!r}")
    attribution = f"Licence: {deck.license}\n{deck.attribution}".strip()
    layout = sheet_layout(
        len(ids), columns=columns, thumb_width=thumb_width, attribution=attribution
    )
    sheet = Image.new("RGB", layout.size, _BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    font = text_font(layout.font_size)
    title_font = text_font(layout.font_size + 4)
    gap = layout.gap

    draw.text((gap, gap), _fit_text(draw, deck.name, title_font, layout.width - 2 * gap),
              font=title_font, fill=_TEXT)
    shown = f"{len(ids)} of {len(deck)} cards" if len(ids) != len(deck) else f"{len(deck)} cards"
    summary = f"{shown} · {deck.source} · fingerprint {deck.fingerprint[:16]}"
    draw.text((gap, gap + layout.font_size + 10),
              _fit_text(draw, summary, font, layout.width - 2 * gap), font=font, fill=_MUTED)

    cell_height = layout.thumb_height + layout.label + gap
    thumb_size = (layout.thumb_width, layout.thumb_height)
    for position, card_id in enumerate(ids):
        row, column = divmod(position, layout.columns)
        x = gap + column * (layout.thumb_width + gap)
        y = layout.header + row * cell_height
        # Thumbnails come from the cards at their usual size (cached for generated decks).
        source_size = CARD_SIZE if layout.thumb_width <= CARD_SIZE[0] else thumb_size
        thumbnail = deck.image(card_id, source_size)
        if thumbnail.size != thumb_size:
            thumbnail = thumbnail.resize(thumb_size, Image.Resampling.LANCZOS)
        sheet.paste(thumbnail, (x, y))
        name = deck.card_name(card_id)
        label = f"{card_id}  {name}" if name else str(card_id)
        draw.text((x + 1, y + layout.thumb_height + 3),
                  _fit_text(draw, label, font, layout.thumb_width - 2), font=font, fill=_TEXT)

    y = layout.height - layout.footer + gap
    for line in layout.footer_lines:
        draw.text((gap, y), line, font=font, fill=_MUTED)
        y += layout.font_size + 4
    return sheet


def _source_folders(deck: Deck) -> list[Path]:
    """The folders whose files ``deck`` reads (a folder deck's, a composite's parts')."""
    folders: list[Path] = []
    own = getattr(deck, "folder", None)
    if isinstance(own, Path):
        folders.append(own)
    for part in getattr(deck, "parts", ()):
        folders.extend(_source_folders(part))
    return folders


def check_not_own_folder(deck: Deck, directory: str | Path) -> None:
    """Refuse to export ``deck`` into a folder it reads its cards from (a folder deck's own,
    even reached by another path): the copies would land among the originals, and the folder
    would no longer load as a deck (every card twice).

    Raises:
        DeckError: naming the folder and the deck.
    """
    target = Path(directory).expanduser().resolve()
    for source in _source_folders(deck):
        if source.resolve() == target:
            raise DeckError(
                f"cannot export to {directory}: it is the folder of the deck being exported "
                f"(its own cards, folder:{source}); the copies would land among the originals. "
                "Export to another folder"
            )


def export_deck(
    deck: Deck,
    directory: str | Path,
    *,
    size: tuple[int, int] | None = None,
    overwrite: bool = False,
) -> list[Path]:
    """Write a deck as a folder deck: one PNG per card plus JSON side files.

    Files are named by card id, zero-padded (``0000.png``, ``0001.png``, ...), so that the folder
    deck lists them in the same order, with the same ids. ``captions.json`` and
    ``descriptions.json`` hold the cards' captions and descriptions where the deck has them;
    ``deck.json`` keeps the name, licence and attribution (which CC BY-SA asks to travel with
    the images) and the spec and fingerprint of the deck it came from.

    Args:
        deck: The deck to export.
        directory: The folder to write; created if missing; it must be empty unless
            ``overwrite`` is true.
        size: ``(width, height)`` of the written images; ``None`` writes each card at its own
            size (then the folder deck has the same fingerprint as ``deck``).
        overwrite: Write into a non-empty folder, replacing files of the same names.

    Returns:
        The paths of the image files written, in card order.

    Raises:
        DeckError: ``directory`` is a file, or is not empty and ``overwrite`` is false, or is
            the folder of a folder deck in ``deck`` (:func:`check_not_own_folder`).
    """
    folder = Path(directory).expanduser()
    if folder.exists() and not folder.is_dir():
        raise DeckError(f"cannot export to {folder}: it is a file")
    check_not_own_folder(deck, folder)
    if folder.is_dir() and any(folder.iterdir()) and not overwrite:
        raise DeckError(f"cannot export to {folder}: the folder is not empty (use overwrite)")
    wanted = None if size is None else check_size(size)
    folder.mkdir(parents=True, exist_ok=True)
    digits = max(4, len(str(max(deck.card_ids))))
    written: list[Path] = []
    captions: dict[str, list[str]] = {}
    descriptions: dict[str, Any] = {}
    for card_id in deck.card_ids:
        name = f"{card_id:0{digits}d}.png"
        path = folder / name
        deck.image(card_id, wanted).save(path, format="PNG", optimize=False)
        written.append(path)
        card_captions = deck.captions(card_id)
        if card_captions:
            captions[name] = card_captions
        description = deck.description(card_id)
        if description is not None:
            descriptions[name] = description
    if captions:
        _write_json(folder / "captions.json", captions)
    if descriptions:
        _write_json(folder / "descriptions.json", descriptions)
    metadata = {
        "name": deck.name,
        "license": deck.license,
        "attribution": deck.attribution,
        "exported_from": deck.source,
        "source_fingerprint": deck.fingerprint,
    }
    _write_json(folder / "deck.json", metadata)
    return written


def _write_json(path: Path, payload: Any) -> None:
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
