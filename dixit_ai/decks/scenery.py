"""The scene behind a dream card's objects: sky, stars, sun or moon, lightning, ground and sea.

The soft parts (sky gradient, glows, clouds, aurora, light rays) are painted at a quarter of
the resolution and scaled up. Random details come from the generator :func:`render_card` seeds
with the description's ``detail_seed``, in card-relative coordinates.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from dixit_ai.decks.paint import (
    RGB,
    Canvas,
    aa_shape,
    lit_colour,
    mix_colour,
    scale_colour,
    sky_colour,
)
from dixit_ai.decks.plan import Palette


def paint_sky(
    canvas: Canvas, palette: Palette, description: dict[str, Any], rng: np.random.Generator
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
    dark = scale_colour(cloud, 0.78)
    layer.paste(Image.new("RGB", layer.size, dark), (0, 0), shade.filter(blur))
    layer.paste(Image.new("RGB", layer.size, cloud), (0, 0), mask.filter(blur))


def draw_stars(
    draw: ImageDraw.ImageDraw,
    canvas: Canvas,
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
        sky = sky_colour(palette, fy * limit)
        colour = mix_colour(sky, (255, 252, 235), 0.35 + 0.65 * brightness)
        if kind < 0.8:
            draw.point((x, y), fill=colour)
        elif kind < 0.95:
            draw.rectangle([x, y, x + 1, y + 1], fill=colour)
        else:
            arm = max(2.0, canvas.w(0.012))
            soft = mix_colour(sky, colour, 0.6)
            draw.line([x - arm, y, x + arm, y], fill=soft)
            draw.line([x, y - arm, x, y + arm], fill=soft)
            draw.rectangle([x - 0.5, y - 0.5, x + 0.5, y + 0.5], fill=(255, 255, 245))


def draw_celestial(
    image: Image.Image, canvas: Canvas, palette: Palette, description: dict[str, Any]
) -> None:
    cx, cy = canvas.x(description["celestial_x"]), canvas.y(description["celestial_y"])
    radius = canvas.w(description["celestial_radius"])
    body = palette.celestial_colour
    rim = mix_colour(body, palette.glow_colour, 0.5)

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y, r = (cx - offset[0]) * scale, (cy - offset[1]) * scale, radius * scale
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(*rim, 255))
        inner = r * 0.94
        draw.ellipse([x - inner, y - inner, x + inner, y + inner], fill=(*body, 255))

    aa_shape(image, (cx - radius, cy - radius, cx + radius, cy + radius), paint)


def draw_lightning(
    image: Image.Image, canvas: Canvas, description: dict[str, Any], rng: np.random.Generator
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
    canvas: Canvas, base: float, waves: Sequence[tuple[float, float, float]]
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


def draw_ground(
    image: Image.Image,
    canvas: Canvas,
    palette: Palette,
    description: dict[str, Any],
    rng: np.random.Generator,
) -> None:
    horizon = description["horizon"]
    if horizon == "none":
        return
    level = float(description["horizon_y"])
    haze = sky_colour(palette, level)

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
        near = lit_colour((70, 130, 170), palette)
        top = mix_colour(haze, near, 0.45)
        deep = lit_colour((18, 50, 92), palette)
        _fill_below(image, np.full(canvas.width, level * canvas.height), top, deep)
    elif horizon == "hills":
        layers = [
            (level - 0.07, (128, 170, 128), 0.55),
            (level - 0.03, (96, 150, 96), 0.3),
            (level + 0.01, (66, 122, 76), 0.0),
        ]
        for base, colour, hazy in layers:
            lit = mix_colour(lit_colour(colour, palette), haze, hazy)
            ridge = _ridge(canvas, base, waves(2, 0.035, 0.4, 1.1))
            _fill_below(image, ridge, lit, scale_colour(lit, 0.78))
    elif horizon in ("dunes", "seabed"):
        sand = (236, 198, 138) if horizon == "dunes" else (196, 178, 128)
        for k, (base, hazy) in enumerate([(level - 0.03, 0.45), (level + 0.02, 0.0)]):
            lit = mix_colour(lit_colour(scale_colour(sand, 1.0 - 0.1 * k), palette), haze, hazy)
            ridge = _ridge(canvas, base, waves(2, 0.03, 0.3, 0.8))
            _fill_below(image, ridge, lit, scale_colour(lit, 0.8))
    elif horizon == "clouds":
        for k, (base, hazy) in enumerate([(level - 0.02, 0.35), (level + 0.03, 0.0)]):
            lit = mix_colour(lit_colour((252, 252, 255), palette), haze, hazy)
            ridge = _cloud_ridge(canvas, base, rng, 0.07 + 0.02 * k)
            _fill_below(image, ridge, lit, scale_colour(lit, 0.84))

    if horizon == "sea":
        _draw_sea_shimmer(image, canvas, palette, description, rng)


def _cloud_ridge(
    canvas: Canvas, base: float, rng: np.random.Generator, radius: float
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
    canvas: Canvas,
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


def draw_bubbles(image: Image.Image, canvas: Canvas, rng: np.random.Generator) -> None:
    overlay = Image.new("RGBA", image.size)
    draw = ImageDraw.Draw(overlay)
    for _ in range(int(rng.integers(10, 22))):
        x, y = canvas.x(rng.random()), canvas.y(rng.random() * 0.8)
        r = canvas.w(0.004 + 0.012 * rng.random())
        draw.ellipse([x - r, y - r, x + r, y + r], outline=(220, 245, 255, 150), width=1)
    image.paste(overlay, (0, 0), overlay)
