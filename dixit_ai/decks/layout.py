"""Where a dream card's objects go: their boxes on the card, and the layouts of the surreal
relations (stacked, orbiting, reflected, ...), decided by the plan's seeded generator.

Units are card widths: ``x`` runs from 0 to 1 and ``y`` from 0 to :data:`ASPECT`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dixit_ai.decks.objects import DreamObject

#: Height over width of a card.
ASPECT = 1.5

_MARGIN = 0.05  # keep every object this far (in card widths) from the card's edges


def uniform(rng: np.random.Generator, low: float, high: float) -> float:
    """A draw from ``[low, high)`` (one ``rng.random()``: the plan's stream depends on it)."""
    return float(low + (high - low) * rng.random())


@dataclass
class Placed:
    """An object placed on a card, in card-width units (y runs from 0 to ASPECT)."""

    obj: DreamObject
    role: str
    size: float  # largest side
    cx: float
    cy: float
    rotation: float = 0.0
    mirrored: bool = False
    upside_down: bool = False
    count: int = 1
    instances: list[tuple[float, float, float, float]] | None = None  # cx, cy, size, rotation
    opacity: float = 1.0
    grounded: bool = False  # standing on the ground line

    @property
    def width(self) -> float:
        return self.size if self.obj.aspect >= 1 else self.size * self.obj.aspect

    @property
    def height(self) -> float:
        return self.size / self.obj.aspect if self.obj.aspect >= 1 else self.size

    def box(self) -> tuple[float, float, float, float]:
        return (
            self.cx - self.width / 2,
            self.cy - self.height / 2,
            self.cx + self.width / 2,
            self.cy + self.height / 2,
        )

    def clamp(self, margin: float = _MARGIN) -> None:
        """Shift the object (not resize it) so that it lies inside the card's margins."""
        half_w, half_h = self.width / 2, self.height / 2
        self.cx = min(max(self.cx, margin + half_w), 1 - margin - half_w)
        self.cy = min(max(self.cy, margin + half_h), ASPECT - margin - half_h)


def _size_for_height(obj: DreamObject, height: float, cap: float) -> float:
    """The ``size`` (largest side) that gives ``obj`` at most ``height`` and at most ``cap``."""
    size = height * obj.aspect if obj.aspect >= 1 else height
    return min(size, cap)


def _overlaps(a: tuple[float, ...], b: tuple[float, ...], pad: float) -> bool:
    return not (
        a[2] + pad <= b[0] or b[2] + pad <= a[0] or a[3] + pad <= b[1] or b[3] + pad <= a[1]
    )


def fraction_box(box: tuple[float, float, float, float]) -> list[float]:
    left, top, right, bottom = box
    return [round(left, 4), round(top / ASPECT, 4), round(right, 4), round(bottom / ASPECT, 4)]


def _standing(obj: DreamObject, role: str, size: float, cx: float, ground: float) -> Placed:
    """An object standing on the ground line (its bottom on ``ground``), kept inside the card."""
    item = Placed(obj, role, size, cx, 0.0, grounded=True)
    item.cy = ground - item.height / 2
    item.clamp()
    return item


def layout(
    relation: str,
    subject: DreamObject,
    obj: DreamObject,
    rng: np.random.Generator,
    horizon: float,
    ground: float,
) -> tuple[list[Placed], dict[str, Any]]:
    """Place the subject and the object of ``relation``; return them and the relation's details.

    ``horizon`` and ``ground`` (where standing objects stand) are in card-width units.
    """

    def u(low: float, high: float) -> float:
        return uniform(rng, low, high)

    if relation == "giant_over_tiny":
        tiny = _standing(obj, "object", u(0.15, 0.19), 0.5 + u(-0.22, 0.22), ground)
        top = u(0.10, 0.16)
        room = tiny.box()[1] - 0.04 - top  # from the top to just above the tiny one
        size = _size_for_height(subject, room, u(0.66, 0.8))
        giant = Placed(subject, "subject", size, 0.5 + u(-0.05, 0.05), 0.0)
        giant.cy = top + giant.height / 2
        giant.clamp()
        return [giant, tiny], {}
    if relation == "floating_above":
        below = _standing(obj, "object", u(0.40, 0.48), 0.5 + u(-0.12, 0.12), ground)
        gap = u(0.08, 0.12)
        top_of_below = below.box()[1]
        size = _size_for_height(subject, top_of_below - gap - _MARGIN - 0.04, u(0.30, 0.38))
        above = Placed(subject, "subject", size, below.cx + u(-0.06, 0.06), 0.0)
        above.cy = top_of_below - gap - above.height / 2
        above.clamp()
        return [above, below], {}
    if relation == "reflected":
        waterline = horizon + 0.012
        standing = Placed(subject, "subject", u(0.36, 0.44), 0.5 + u(-0.08, 0.08), 0.0)
        standing.cy = waterline - standing.height / 2
        standing.clamp()
        room = ASPECT - _MARGIN - waterline - 0.01
        size = _size_for_height(obj, room, standing.size * u(0.9, 1.0))
        reflection = Placed(obj, "object", size, standing.cx, 0.0)
        reflection.cy = waterline + 0.01 + reflection.height / 2
        reflection.upside_down = True
        reflection.opacity = 0.75
        return [standing, reflection], {"waterline": round(waterline / ASPECT, 4)}
    if relation == "replacing_moon":
        in_sky = Placed(subject, "subject", u(0.30, 0.36), 0.5 + u(-0.16, 0.16), u(0.30, 0.40))
        in_sky.clamp()
        below = _standing(obj, "object", u(0.38, 0.46), 0.5 + u(-0.12, 0.12), ground)
        if below.box()[1] < in_sky.box()[3] + 0.06:  # keep the sky clear above the object
            size = _size_for_height(obj, ground - in_sky.box()[3] - 0.06, below.size)
            below = _standing(obj, "object", size, below.cx, ground)
        return [in_sky, below], {}
    if relation == "raining_down":
        below = _standing(obj, "object", u(0.38, 0.46), 0.5 + u(-0.1, 0.1), ground)
        ceiling = below.box()[1] - 0.05
        drops: list[tuple[float, float, float, float]] = []
        target = int(rng.integers(6, 10))
        for _ in range(400):
            if len(drops) >= target:
                break
            size = u(0.11, 0.14)
            cx = u(_MARGIN + size / 2, 1 - _MARGIN - size / 2)
            cy = u(_MARGIN + size / 2 + 0.05, ceiling - size / 2)
            if all(math.hypot(cx - x, cy - y) > (size + s) * 0.62 for x, y, s, _ in drops):
                drops.append((cx, cy, size, u(-25, 25)))
        drops.sort(key=lambda drop: (drop[1], drop[0]))
        rain = Placed(subject, "subject", max(d[2] for d in drops), 0.5, 0.0)
        rain.count = len(drops)
        rain.instances = drops
        rain.cx = sum(d[0] for d in drops) / len(drops)
        rain.cy = sum(d[1] for d in drops) / len(drops)
        return [rain, below], {}
    if relation == "inside_bubble":
        below = _standing(obj, "object", u(0.34, 0.42), 0.5 + u(-0.14, 0.14), ground)
        size = u(0.24, 0.28)
        radius = size * 0.5 * 1.45
        inner = Placed(subject, "subject", size, 0.5 + u(-0.1, 0.1), 0.0)
        inner.cy = max(min(u(0.36, 0.5), below.box()[1] - 0.05 - radius), _MARGIN + radius)
        inner.cx = min(max(inner.cx, _MARGIN + radius), 1 - _MARGIN - radius)
        bubble = [round(inner.cx, 4), round(inner.cy / ASPECT, 4), round(radius, 4)]
        return [inner, below], {"bubble": bubble}
    if relation == "upside_down":
        below = _standing(obj, "object", u(0.38, 0.46), 0.5 + u(-0.12, 0.12), ground)
        top = u(0.16, 0.24)
        size = _size_for_height(subject, below.box()[1] - 0.08 - top, u(0.32, 0.4))
        hanging = Placed(subject, "subject", size, below.cx + u(-0.08, 0.08), 0.0)
        hanging.cy = top + hanging.height / 2
        hanging.upside_down = True
        hanging.clamp()
        return [hanging, below], {"thread": True}
    if relation == "side_by_side":
        left = _standing(subject, "subject", u(0.34, 0.40), u(0.26, 0.30), ground)
        right = _standing(obj, "object", u(0.34, 0.40), u(0.70, 0.74), ground)
        return [left, right], {}
    if relation == "orbiting":
        centre = Placed(obj, "object", u(0.36, 0.42), 0.5, 0.0)
        centre.cy = min(ground - centre.height / 2 - 0.2, u(0.62, 0.72))
        size = u(0.16, 0.2)
        radius_x = 0.5 - _MARGIN - size / 2 - 0.01
        radius_y = max(radius_x * u(0.3, 0.4), centre.height / 2 + size * 0.2)
        side = u(8, 40)
        angle = [side, 180 - side, 180 + side, 360 - side][int(rng.integers(4))]
        orbiter = _on_orbit(subject, "subject", size, centre, radius_x, radius_y, angle)
        orbit = [
            round(centre.cx, 4),
            round(centre.cy / ASPECT, 4),
            round(radius_x, 4),
            round(radius_y / ASPECT, 4),
        ]
        return [orbiter, centre], {"orbit": orbit, "angles": [round(angle, 2)]}
    if relation == "balancing":
        base = _standing(obj, "object", u(0.42, 0.50), 0.5 + u(-0.08, 0.08), ground)
        on_top = Placed(subject, "subject", u(0.24, 0.30), base.cx + u(-0.03, 0.03), 0.0)
        on_top.rotation = u(-8, 8)
        on_top.cy = base.box()[1] + 0.012 - on_top.height / 2
        if on_top.box()[1] < _MARGIN:  # too tall: shrink the base
            base = _standing(obj, "object", base.size * 0.8, base.cx, ground)
            on_top.cy = base.box()[1] + 0.012 - on_top.height / 2
        return [on_top, base], {}
    if relation == "chasing":
        direction = 1 if rng.random() < 0.5 else -1
        height = u(0.45, 0.75)
        rise = u(-0.08, 0.08)
        chaser = Placed(subject, "subject", u(0.30, 0.35), 0.5 - direction * 0.23, height + rise)
        chased = Placed(obj, "object", u(0.27, 0.32), 0.5 + direction * 0.23, height - rise)
        for item in (chaser, chased):
            item.rotation = direction * rise * 60
            item.clamp()
        return [chaser, chased], {"direction": "right" if direction > 0 else "left"}
    if relation == "procession":
        direction = 1 if rng.random() < 0.5 else -1
        leader = _standing(subject, "subject", u(0.30, 0.34), 0.5 + direction * 0.27, ground)
        count = 3 if rng.random() < 0.7 else 4
        gap = 0.02
        back = leader.cx - direction * (leader.width / 2 + 0.03)  # nearest follower's front
        room = abs(back - (0.5 - direction * (0.5 - _MARGIN)))
        size = min(u(0.15, 0.18), (room - (count - 1) * gap) / count)
        followers: list[tuple[float, float, float, float]] = []
        for k in range(count):
            cx = back - direction * (size / 2 + k * (size + gap))
            follower = Placed(obj, "object", size, cx, 0.0, grounded=True)
            follower.cy = ground - follower.height / 2 - (0.012 if k % 2 else 0.0)
            followers.append((follower.cx, follower.cy, size, u(-6, 6)))
        group = Placed(obj, "object", size, 0.5, 0.0, grounded=True)
        group.count = count
        group.instances = followers
        group.cx = sum(f[0] for f in followers) / count
        group.cy = sum(f[1] for f in followers) / count
        return [leader, group], {"direction": "right" if direction > 0 else "left"}
    raise ValueError(f"unknown relation {relation!r}")


def _on_orbit(
    obj: DreamObject,
    role: str,
    size: float,
    centre: Placed,
    radius_x: float,
    radius_y: float,
    angle: float,
) -> Placed:
    ox = centre.cx + radius_x * math.cos(math.radians(angle))
    oy = centre.cy + radius_y * math.sin(math.radians(angle))
    return Placed(obj, role, size, ox, oy)


def second_orbiter(
    obj: DreamObject, placed: list[Placed], detail: dict[str, Any], rng: np.random.Generator
) -> Placed:
    first, centre = placed[0], placed[1]
    _, _, radius_x, radius_y = detail["orbit"]
    angle = (detail["angles"][0] + 180 + uniform(rng, -25, 25)) % 360
    detail["angles"].append(round(angle, 2))
    size = first.size * uniform(rng, 0.85, 1.0)
    return _on_orbit(obj, "subject2", size, centre, radius_x, radius_y * ASPECT, angle)


def companion(
    obj: DreamObject,
    placed: list[Placed],
    rng: np.random.Generator,
    ground: float,
    celestial: tuple[float, float, float] | None,
) -> Placed | None:
    """A small third object floating in a free part of the sky, or ``None`` if none is free."""
    size = uniform(rng, 0.13, 0.16)
    boxes: list[tuple[float, float, float, float]] = []
    for item in placed:
        if item.instances:
            boxes.extend(
                (x - s / 2, y - s / 2, x + s / 2, y + s / 2) for x, y, s, _ in item.instances
            )
        else:
            boxes.append(item.box())
    if celestial is not None:
        x, y, r = celestial
        boxes.append((x - r * 1.4, y - r * 1.4, x + r * 1.4, y + r * 1.4))
    low = _MARGIN + size / 2
    high = min(ground - 0.25, 0.85)
    for _ in range(80):
        cx = uniform(rng, low, 1 - low)
        cy = uniform(rng, low, max(high, low + 0.01))
        candidate = Placed(obj, "companion", size, cx, cy, rotation=uniform(rng, -12, 12))
        if not any(_overlaps(candidate.box(), box, 0.05) for box in boxes):
            return candidate
    return None
