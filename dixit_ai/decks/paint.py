"""What every layer of a dream card is painted with: colours under a palette's light, the card's
coordinates, and anti-aliased shapes."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from dixit_ai.decks.plan import Palette

RGB = tuple[int, int, int]
SUPERSAMPLE = 4  # anti-aliasing factor for discs, rims and orbits


def mix_colour(a: Sequence[float], b: Sequence[float], t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def scale_colour(colour: Sequence[float], factor: float) -> RGB:
    return (
        min(255, round(colour[0] * factor)),
        min(255, round(colour[1] * factor)),
        min(255, round(colour[2] * factor)),
    )


def lit_colour(colour: RGB, palette: Palette) -> RGB:
    """A ground colour under the palette's light."""
    mixed = mix_colour(colour, palette.ambient, palette.ambient_mix)
    return scale_colour(mixed, palette.brightness)


def sky_colour(palette: Palette, t: float) -> RGB:
    stops = palette.sky
    if t <= stops[0][0]:
        return stops[0][1]
    for (p0, c0), (p1, c1) in itertools.pairwise(stops):
        if t <= p1:
            return mix_colour(c0, c1, (t - p0) / (p1 - p0))
    return stops[-1][1]


class Canvas:
    """Sizes and coordinate conversions for one card being drawn."""

    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height

    def x(self, fraction: float) -> float:
        return fraction * self.width

    def y(self, fraction: float) -> float:
        return fraction * self.height

    def w(self, fraction_of_width: float) -> float:
        return fraction_of_width * self.width


def aa_shape(
    image: Image.Image,
    box: tuple[float, float, float, float],
    paint: Any,
    *,
    pad: int = 2,
) -> None:
    """Draw an anti-aliased RGBA shape: ``paint(draw, offset, scale)`` draws it supersampled."""
    left, top = math.floor(box[0]) - pad, math.floor(box[1]) - pad
    right, bottom = math.ceil(box[2]) + pad, math.ceil(box[3]) + pad
    size = (max(1, right - left), max(1, bottom - top))
    patch = Image.new("RGBA", (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE))
    paint(ImageDraw.Draw(patch), (left, top), SUPERSAMPLE)
    patch = patch.reduce(SUPERSAMPLE)
    image.paste(patch, (left, top), patch)
