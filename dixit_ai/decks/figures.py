"""A dream card's objects and how they relate: sprites with halos and shadows, reflections,
bubbles, orbits, rain and speed lines."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from dixit_ai.decks.glyphs import glyph
from dixit_ai.decks.paint import RGB, Canvas, aa_shape, lit_colour, scale_colour
from dixit_ai.decks.plan import Palette


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


def _shadow(image: Image.Image, canvas: Canvas, box: list[float], colour: RGB) -> None:
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


def draw_objects(
    image: Image.Image, canvas: Canvas, palette: Palette, description: dict[str, Any]
) -> None:
    relation = description["relation"]
    detail = description["relation_detail"]
    objects = description["objects"]
    halo_colour = palette.glow_colour if palette.dark else (255, 255, 255)
    halo_strength = float(description["glow"]) * (0.85 if palette.dark else 0.55)
    halo = (halo_colour, halo_strength)
    line_colour = (235, 235, 245) if palette.dark else (70, 70, 84)
    shadow_colour = scale_colour(palette.ambient, 0.25) if palette.dark else (40, 40, 52)
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
    image: Image.Image, canvas: Canvas, palette: Palette, entry: dict[str, Any]
) -> None:
    """A pale disc where the sun or moon would be, behind the object that took its place."""
    cx, cy = canvas.x(entry["x"]), canvas.y(entry["y"])
    radius = canvas.w(entry["size"]) * 0.62

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y, r = (cx - offset[0]) * scale, (cy - offset[1]) * scale, radius * scale
        draw.ellipse([x - r, y - r, x + r, y + r], fill=(*palette.celestial_colour, 120))

    aa_shape(image, (cx - radius, cy - radius, cx + radius, cy + radius), paint)


def _draw_reflection(
    image: Image.Image,
    canvas: Canvas,
    palette: Palette,
    entry: dict[str, Any],
    sprite: Image.Image,
) -> None:
    """An object mirrored in the water: tinted, fading with depth, rippled."""
    pixels = np.asarray(sprite, dtype=np.float64).copy()
    height, width = pixels.shape[:2]
    water = np.array(lit_colour((40, 90, 140), palette), dtype=np.float64)
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
    image: Image.Image, canvas: Canvas, bubble: list[float], tint: RGB, *, back: bool
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

    aa_shape(image, (cx - radius, cy - radius, cx + radius, cy + radius), paint)


def _draw_orbit(
    image: Image.Image, canvas: Canvas, orbit: list[float], colour: RGB, *, front: bool
) -> None:
    cx, cy = canvas.x(orbit[0]), canvas.y(orbit[1])
    rx, ry = canvas.w(orbit[2]), canvas.y(orbit[3])
    width = max(1.0, canvas.w(0.005))

    def paint(draw: ImageDraw.ImageDraw, offset: tuple[int, int], scale: int) -> None:
        x, y = (cx - offset[0]) * scale, (cy - offset[1]) * scale
        bbox = [x - rx * scale, y - ry * scale, x + rx * scale, y + ry * scale]
        start, end = (0, 180) if front else (180, 360)
        draw.arc(bbox, start, end, fill=(*colour, 150), width=round(width * scale))

    aa_shape(image, (cx - rx, cy - ry, cx + rx, cy + ry), paint)


def _draw_rain_streaks(
    image: Image.Image, canvas: Canvas, entry: dict[str, Any], colour: RGB
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
    canvas: Canvas,
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
