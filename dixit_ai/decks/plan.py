"""The seeded layout plan of the dream deck: what each card shows, decided without drawing.

A plan turns ``(seed, size)`` into one *description* per card: a JSON-compatible dict that says
everything the renderer needs (palette, horizon, sky details, the surreal relation, each object's
role, box, rotation, ...) plus a ``detail_seed`` for the small random details (star positions,
the shape of hills). Descriptions are the ground truth that captions, benchmarks and training use,
and planning a deck costs milliseconds, so ``card_ids``, descriptions and captions never need an
image.

Decks are *prefix-stable*: card ``k`` of ``dream:size=168,seed=7`` is card ``k`` of
``dream:seed=7``. Objects are dealt from successive seeded permutations of the object list, so no
object repeats within a deck until the list runs out (the default 84-card deck uses each object at
most once), and no object appears twice on one card.

Coordinates in descriptions are fractions of the card: ``x`` of the width, ``y`` of the height,
``box`` is ``[left, top, right, bottom]`` in those fractions, and ``size`` is an object's largest
side as a fraction of the card's width.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any

import numpy as np

from dixit_ai.decks.layout import (
    ASPECT,
    Placed,
    companion,
    fraction_box,
    layout,
    second_orbiter,
    uniform,
)
from dixit_ai.decks.objects import DreamObject, load_objects

#: Bumped whenever a change to the plan or the renderer changes any card; part of the cache key.
RENDERER_VERSION = "dream-1"

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Palette:
    """A sky palette: colours and what the sky may hold.

    Attributes:
        name: Identifier used in descriptions.
        phrase: How captions name the sky (``"a starry night sky"``).
        sky: Gradient stops ``(position, colour)`` from the top (0) to the bottom (1) of the card.
        celestial: Celestial bodies this sky may show (``"moon"``, ``"sun"``); empty for none.
        celestial_colour: Colour of the sun or moon disc.
        glow_colour: Colour of glows (celestial body, objects' halo).
        stars: Range of the number of stars.
        clouds: Range of the number of clouds.
        cloud_colour: Colour of clouds.
        ambient: The light's colour; ground colours are mixed towards it.
        ambient_mix: How much ground colours mix towards ``ambient``.
        brightness: Multiplier of ground colours.
        dark: Whether the sky is dark (objects get a light halo).
        horizons: Horizons that suit this sky, with relative weights.
    """

    name: str
    phrase: str
    sky: tuple[tuple[float, RGB], ...]
    celestial: tuple[str, ...]
    celestial_colour: RGB
    glow_colour: RGB
    stars: tuple[int, int]
    clouds: tuple[int, int]
    cloud_colour: RGB
    ambient: RGB
    ambient_mix: float
    brightness: float
    dark: bool
    horizons: tuple[tuple[str, float], ...]


PALETTES: dict[str, Palette] = {
    p.name: p
    for p in (
        Palette(
            "night", "a starry night sky",
            ((0.0, (10, 14, 44)), (0.55, (28, 40, 98)), (1.0, (62, 76, 144))),
            ("moon",), (250, 244, 214), (255, 238, 190), (70, 120), (0, 2), (120, 132, 190),
            (40, 56, 124), 0.55, 0.62, True,
            (("sea", 3), ("hills", 3), ("clouds", 2), ("dunes", 1), ("none", 1)),
        ),
        Palette(
            "dusk", "a violet dusk sky",
            ((0.0, (40, 34, 94)), (0.45, (134, 70, 130)), (0.8, (236, 122, 98)),
             (1.0, (250, 172, 112))),
            ("moon", "sun"), (255, 214, 150), (255, 190, 140), (10, 30), (1, 3), (250, 164, 150),
            (120, 62, 112), 0.45, 0.78, True,
            (("sea", 3), ("hills", 2), ("dunes", 2), ("clouds", 1), ("none", 1)),
        ),
        Palette(
            "dawn", "a rosy dawn sky",
            ((0.0, (84, 104, 172)), (0.5, (238, 164, 172)), (1.0, (255, 222, 172))),
            ("sun",), (255, 238, 180), (255, 222, 176), (0, 6), (1, 3), (255, 206, 206),
            (232, 152, 160), 0.25, 0.95, False,
            (("sea", 2), ("hills", 3), ("clouds", 2), ("none", 1)),
        ),
        Palette(
            "noon", "a bright blue noon sky",
            ((0.0, (62, 132, 222)), (0.6, (132, 192, 240)), (1.0, (212, 236, 250))),
            ("sun",), (255, 246, 196), (255, 250, 222), (0, 0), (2, 4), (255, 255, 255),
            (255, 255, 255), 0.0, 1.0, False,
            (("sea", 2), ("hills", 3), ("clouds", 1), ("none", 1)),
        ),
        Palette(
            "storm", "a stormy sky",
            ((0.0, (46, 50, 68)), (0.5, (92, 100, 120)), (1.0, (150, 156, 162))),
            (), (222, 228, 234), (206, 216, 236), (0, 0), (3, 5), (70, 74, 94),
            (86, 96, 118), 0.4, 0.85, True,
            (("sea", 3), ("hills", 2), ("none", 1)),
        ),
        Palette(
            "deep_sea", "the deep sea",
            ((0.0, (18, 104, 146)), (0.5, (10, 58, 100)), (1.0, (6, 26, 56))),
            (), (200, 240, 255), (170, 230, 255), (0, 0), (0, 0), (255, 255, 255),
            (22, 96, 136), 0.45, 0.72, True,
            (("seabed", 3), ("none", 1)),
        ),
        Palette(
            "mist", "a misty morning sky",
            ((0.0, (158, 170, 186)), (0.6, (204, 210, 214)), (1.0, (234, 232, 226))),
            ("sun",), (255, 250, 236), (255, 255, 246), (0, 0), (2, 4), (250, 250, 250),
            (214, 218, 222), 0.45, 1.0, False,
            (("hills", 3), ("sea", 2), ("none", 1)),
        ),
        Palette(
            "desert", "a hot desert sky",
            ((0.0, (72, 132, 202)), (0.55, (204, 194, 172)), (1.0, (250, 216, 162))),
            ("sun",), (255, 242, 184), (255, 230, 162), (0, 0), (0, 2), (255, 246, 234),
            (250, 202, 142), 0.2, 1.0, False,
            (("dunes", 5), ("sea", 1), ("none", 1)),
        ),
        Palette(
            "aurora", "a sky of northern lights",
            ((0.0, (6, 16, 36)), (0.6, (14, 40, 68)), (1.0, (28, 72, 92))),
            ("moon",), (240, 246, 236), (190, 255, 220), (60, 100), (0, 1), (90, 120, 140),
            (30, 82, 94), 0.55, 0.62, True,
            (("hills", 3), ("sea", 2), ("clouds", 1), ("none", 1)),
        ),
        Palette(
            "twilight", "a lavender twilight sky",
            ((0.0, (56, 64, 132)), (0.5, (152, 132, 198)), (1.0, (246, 198, 208))),
            ("moon",), (252, 246, 230), (255, 232, 240), (15, 35), (1, 3), (232, 204, 232),
            (142, 122, 182), 0.35, 0.85, True,
            (("sea", 2), ("hills", 2), ("clouds", 2), ("dunes", 1), ("none", 1)),
        ),
        Palette(
            "amber", "an amber evening sky",
            ((0.0, (112, 58, 64)), (0.5, (224, 132, 72)), (1.0, (252, 208, 122))),
            ("sun",), (255, 232, 152), (255, 204, 124), (0, 4), (1, 3), (252, 184, 126),
            (202, 112, 62), 0.3, 0.9, False,
            (("dunes", 2), ("hills", 2), ("sea", 2), ("none", 1)),
        ),
        Palette(
            "spring", "a fresh morning sky",
            ((0.0, (112, 190, 204)), (0.6, (192, 230, 216)), (1.0, (248, 244, 220))),
            ("sun",), (255, 248, 206), (255, 252, 226), (0, 0), (1, 3), (255, 255, 255),
            (202, 240, 222), 0.15, 1.0, False,
            (("hills", 3), ("sea", 2), ("none", 1)),
        ),
    )
}

#: Horizons and how captions name them ("" for none).
HORIZONS: dict[str, str] = {
    "none": "",
    "sea": "above the sea",
    "hills": "over rolling hills",
    "dunes": "over sand dunes",
    "clouds": "above a sea of clouds",
    "seabed": "above the sandy seabed",
}


@dataclass(frozen=True)
class Relation:
    """A surreal relation between a card's objects.

    Attributes:
        name: Identifier used in descriptions.
        roles: The roles of the objects the relation places, in caption order.
        third: Probability that a card with this relation shows a third object.
        needs_sea: Whether the relation needs a sea horizon.
        needs_sky_body: Whether the relation needs a sky that may hold a sun or moon.
    """

    name: str
    roles: tuple[str, ...]
    third: float
    needs_sea: bool = False
    needs_sky_body: bool = False


RELATIONS: dict[str, Relation] = {
    r.name: r
    for r in (
        Relation("giant_over_tiny", ("subject", "object"), 0.4),
        Relation("floating_above", ("subject", "object"), 0.4),
        Relation("reflected", ("subject", "object"), 0.35, needs_sea=True),
        Relation("replacing_moon", ("subject", "object"), 0.35, needs_sky_body=True),
        Relation("raining_down", ("subject", "object"), 0.0),
        Relation("inside_bubble", ("subject", "object"), 0.35),
        Relation("upside_down", ("subject", "object"), 0.4),
        Relation("side_by_side", ("subject", "object"), 0.4),
        Relation("orbiting", ("subject", "object"), 0.5),
        Relation("balancing", ("subject", "object"), 0.4),
        Relation("chasing", ("subject", "object"), 0.3),
        Relation("procession", ("subject", "object"), 0.0),
    )
}

#: What a companion (a small third object) does, as captions say it.
COMPANION_ACTIONS = ("drifting by", "watching from the sky", "floating nearby", "passing overhead")


# --------------------------------------------------------------------------- dealing


class _Dealer:
    """Deals objects from successive seeded permutations of the object list."""

    def __init__(self, objects: tuple[DreamObject, ...], rng: np.random.Generator) -> None:
        self._objects = objects
        self._rng = rng
        self._queue: deque[int] = deque()

    def deal(self, count: int) -> list[DreamObject]:
        chosen: list[int] = []
        skipped: list[int] = []
        while len(chosen) < count:
            if not self._queue:
                self._queue.extend(int(i) for i in self._rng.permutation(len(self._objects)))
            index = self._queue.popleft()
            if index in chosen:
                skipped.append(index)
            else:
                chosen.append(index)
        self._queue.extendleft(reversed(skipped))
        return [self._objects[i] for i in chosen]

    def give_back(self, obj: DreamObject) -> None:
        self._queue.appendleft(self._objects.index(obj))


class _Cycle:
    """Deals names from successive seeded shuffles, so each appears about equally often."""

    def __init__(self, names: list[str], rng: np.random.Generator) -> None:
        self._names = names
        self._rng = rng
        self._queue: deque[str] = deque()

    def next(self, accept: Callable[[str], bool] | None = None) -> str:
        """The next name ``accept`` allows (the ones skipped stay first in line)."""
        skipped: list[str] = []
        while True:
            if not self._queue:
                self._queue.extend(self._names[i] for i in self._rng.permutation(len(self._names)))
            name = self._queue.popleft()
            if accept is None or accept(name):
                self._queue.extendleft(reversed(skipped))
                return name
            skipped.append(name)


def _palette_suits(palette_name: str, relation: Relation) -> bool:
    palette = PALETTES[palette_name]
    if relation.needs_sea and "sea" not in dict(palette.horizons):
        return False
    return not (relation.needs_sky_body and palette.name == "deep_sea")


# --------------------------------------------------------------------------- the plan


def iter_plan(seed: int) -> Iterator[dict[str, Any]]:
    """Describe the cards of ``dream:seed=SEED`` one by one, without end.

    Args:
        seed: The deck's seed (a non-negative integer).

    Yields:
        One description per card, in card order (card ``k`` is the ``k``-th item).
    """
    objects = load_objects()
    deck_rng = np.random.default_rng(np.random.SeedSequence([seed, 0xD1C7]))
    dealer = _Dealer(objects, deck_rng)
    relations = _Cycle(list(RELATIONS), deck_rng)
    palettes = _Cycle(list(PALETTES), deck_rng)
    index = 0
    while True:
        rng = np.random.default_rng(np.random.SeedSequence([seed, 0xCA2D, index]))
        relation = RELATIONS[relations.next()]
        palette = PALETTES[palettes.next(partial(_palette_suits, relation=relation))]
        yield _plan_card(index, seed, relation, palette, dealer, rng)
        index += 1


@lru_cache(maxsize=16)
def plan_deck(seed: int, size: int) -> tuple[dict[str, Any], ...]:
    """The descriptions of the ``size`` cards of ``dream:size=SIZE,seed=SEED``.

    Treat the result as read-only (it is shared); :class:`DreamDeck` hands out copies.
    """
    plan = iter_plan(seed)
    return tuple(next(plan) for _ in range(size))


def _choose(rng: np.random.Generator, options: tuple[tuple[str, float], ...]) -> str:
    weights = np.array([weight for _, weight in options], dtype=float)
    return options[int(rng.choice(len(options), p=weights / weights.sum()))][0]





def _plan_card(
    index: int,
    seed: int,
    relation: Relation,
    palette: Palette,
    dealer: _Dealer,
    rng: np.random.Generator,
) -> dict[str, Any]:
    # The scene.
    horizon = "sea" if relation.needs_sea else _choose(rng, palette.horizons)
    if relation.name == "reflected":
        horizon_y = uniform(rng, 0.50, 0.56)
    else:
        horizon_y = {
            "none": 0.86,
            "sea": uniform(rng, 0.60, 0.68),
            "hills": uniform(rng, 0.60, 0.68),
            "dunes": uniform(rng, 0.62, 0.70),
            "clouds": uniform(rng, 0.64, 0.72),
            "seabed": uniform(rng, 0.66, 0.72),
        }[horizon]
    ground_y = horizon_y + {
        "none": 0.0,
        "sea": 0.08,
        "hills": 0.11,
        "dunes": 0.10,
        "clouds": 0.07,
        "seabed": 0.10,
    }[horizon]
    ground = min(ground_y, 0.9) * ASPECT  # where standing objects stand, in width units

    celestial: str | None = None
    if palette.celestial:
        celestial = palette.celestial[int(rng.integers(len(palette.celestial)))]
    elif relation.needs_sky_body:
        celestial = "moon"
    side = -1 if rng.random() < 0.5 else 1
    celestial_x = 0.5 + side * uniform(rng, 0.2, 0.3)
    celestial_y = uniform(rng, 0.14, 0.26)
    celestial_radius = uniform(rng, 0.07, 0.1)
    stars = int(rng.integers(palette.stars[0], palette.stars[1] + 1))
    clouds = int(rng.integers(palette.clouds[0], palette.clouds[1] + 1))

    # The objects.
    with_third = rng.random() < relation.third
    dealt = dealer.deal(3 if with_third else 2)
    placed, detail = layout(relation.name, dealt[0], dealt[1], rng, horizon_y * ASPECT, ground)
    if relation.name == "replacing_moon":
        celestial_x, celestial_y = placed[0].cx, placed[0].cy
    if with_third:
        third = dealt[2]
        extra: Placed | None
        if relation.name == "orbiting":
            extra = second_orbiter(third, placed, detail, rng)
        else:
            sky_body = (celestial_x, celestial_y, celestial_radius) if celestial else None
            extra = companion(third, placed, rng, ground, sky_body)
            if extra is not None:
                action = COMPANION_ACTIONS[int(rng.integers(len(COMPANION_ACTIONS)))]
                detail["companion_action"] = action
        if extra is None:
            dealer.give_back(third)
        else:
            placed.append(extra)

    if relation.name not in ("reflected", "chasing", "procession"):
        for item in placed:
            if item.obj.category in ("animal", "vehicle") and rng.random() < 0.5:
                item.mirrored = True

    return {
        "id": index,
        "deck": f"dream:seed={seed}",
        "renderer": RENDERER_VERSION,
        "palette": palette.name,
        "sky": palette.phrase,
        "horizon": horizon,
        "horizon_y": round(horizon_y, 4) if horizon != "none" else None,
        "ground_y": round(ground / ASPECT, 4),
        "celestial": celestial,
        "celestial_replaced": relation.name == "replacing_moon",
        "celestial_x": round(celestial_x, 4) if celestial else None,
        "celestial_y": round(celestial_y / ASPECT, 4) if celestial else None,
        "celestial_radius": round(celestial_radius, 4) if celestial else None,
        "stars": stars,
        "clouds": clouds,
        "relation": relation.name,
        "relation_detail": detail,
        "objects": [_object_description(item) for item in placed],
        "glow": round(uniform(rng, 0.45, 0.8), 3),
        "vignette": round(uniform(rng, 0.25, 0.45), 3),
        "detail_seed": int(rng.integers(2**31)),
    }


def _object_description(item: Placed) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "role": item.role,
        "name": item.obj.name,
        "plural": item.obj.plural,
        "emoji": item.obj.emoji,
        "codepoint": item.obj.codepoint,
        "category": item.obj.category,
        "tags": list(item.obj.tags),
        "x": round(item.cx, 4),
        "y": round(item.cy / ASPECT, 4),
        "size": round(item.size, 4),
        "box": fraction_box(item.box()),
        "rotation": round(item.rotation, 2),
        "mirrored": item.mirrored,
        "upside_down": item.upside_down,
        "count": item.count,
        "grounded": item.grounded,
        "opacity": round(item.opacity, 3),
    }
    if item.instances is not None:
        entry["instances"] = [
            {
                "x": round(cx, 4),
                "y": round(cy / ASPECT, 4),
                "size": round(size, 4),
                "rotation": round(rotation, 2),
            }
            for cx, cy, size, rotation in item.instances
        ]
        left = min(cx - size / 2 for cx, _, size, _ in item.instances)
        top = min(cy - size / 2 for _, cy, size, _ in item.instances)
        right = max(cx + size / 2 for cx, _, size, _ in item.instances)
        bottom = max(cy + size / 2 for _, cy, size, _ in item.instances)
        entry["box"] = fraction_box((left, top, right, bottom))
    return entry
