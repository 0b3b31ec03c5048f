"""The font text is drawn with in pictures (contact sheets, rendered boards).

DejaVu Sans, as matplotlib (a dependency) ships it: Latin with its accents, Greek, Cyrillic,
dashes and many symbols, where Pillow's built-in font drew a box for every letter outside basic
ASCII (a deck named "Mes cartes été", an attribution "Photos by Zoë"). Scripts it lacks (Chinese,
Japanese, Korean) still show as boxes.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from PIL import ImageFont


@cache
def text_font_path() -> Path | None:
    """DejaVu Sans inside the installed matplotlib, or ``None`` when it is not there."""
    try:
        path = Path(str(resources.files("matplotlib") / "mpl-data" / "fonts" / "ttf"
                        / "DejaVuSans.ttf"))
    except ModuleNotFoundError:   # pragma: no cover - matplotlib is a dependency
        return None
    return path if path.is_file() else None


@lru_cache(maxsize=32)
def text_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A font of ``size`` pixels for text in pictures: DejaVu Sans, else Pillow's own."""
    path = text_font_path()
    if path is not None:
        return ImageFont.truetype(str(path), size)
    try:   # pragma: no cover - only without matplotlib's fonts
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow < 10.1: the bitmap font, one size
        return ImageFont.load_default()
