"""Benchmark the dream deck's renderer: cards per second at 400x600 on one core.

Reads top to bottom:

1. limit numpy and friends to one thread and pin the process to one CPU core (where the OS lets
   us), before importing anything heavy;
2. plan the deck (descriptions only, no drawing) and time it;
3. draw every card once cold (the font is opened at each size), then draw every card several
   times, straight from the renderer (no disk cache, emoji glyphs drawn and measured afresh in
   each pass, as for a new deck), and report the best pass;
4. also time PNG encoding, which a first ``deck.fingerprint`` pays on top of drawing.

The issue asks for at least 20 cards per second at 400x600 on one core. The figures come first,
then the target's line: met, MISSED, or not judged (another width than 400, or fewer cards or
passes than the defaults); exit status 1 if it was missed (:mod:`dixit_ai.cli.targets`), 2 on
bad input.

Examples::

    python scripts/bench_decks.py                     # the default deck, 84 cards
    python scripts/bench_decks.py --cards 300 --seed 7 --repeats 1
"""

from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import io  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

TARGET_CARDS_PER_SECOND = 20.0
"""Cards drawn per second at 400x600 on one core, at least."""
TARGET_WIDTH = 400
"""The width the target is stated for."""


@dataclass
class Args:
    cards: int = 84
    """number of cards to draw per pass (the deck ``dream:size=CARDS,seed=SEED``)"""
    seed: int = 0
    """the deck's seed"""
    width: int = 400
    """card width in pixels (height is 1.5 times it)"""
    repeats: int = 3
    """timed passes over the deck; the best one is reported"""
    core: int = 0
    """the CPU core to pin the process to (where supported)"""


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name}", type=int, default=default)
    args = Args(**vars(parser.parse_args(argv)))
    # Refused here (exit 2, the flag and its limit named), not as a traceback part-way or a
    # count quietly taken as another.
    from dixit_ai.cli.common import check_at_least

    try:
        check_at_least(args, (("cards", 1), ("width", 1), ("repeats", 1), ("seed", 0)))
    except ValueError as error:
        parser.error(str(error))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pinned = "no (not supported here)"
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {args.core})
            pinned = f"core {args.core}"
        except OSError as error:
            pinned = f"no ({error})"

    from dixit_ai.decks.dream import PNG_COMPRESS_LEVEL
    from dixit_ai.decks.glyphs import glyph, glyph_scale
    from dixit_ai.decks.plan import plan_deck
    from dixit_ai.decks.render import render_card

    size = (args.width, round(args.width * 1.5))

    # 2. The plan alone.
    plan_deck.cache_clear()
    started = time.perf_counter()
    plan = plan_deck(args.seed, args.cards)
    plan_seconds = time.perf_counter() - started

    # 3. Drawing: a cold pass (each emoji measured once per process), then timed passes.
    started = time.perf_counter()
    for description in plan:
        render_card(description, size)
    cold = time.perf_counter() - started
    passes = []
    for _ in range(args.repeats):
        glyph.cache_clear()  # every pass draws and measures each emoji afresh, as a new deck does
        glyph_scale.cache_clear()
        started = time.perf_counter()
        images = [render_card(description, size) for description in plan]
        passes.append(time.perf_counter() - started)
    best = min(passes)
    cards_per_second = len(plan) / best

    # 4. PNG encoding, as the disk cache does it.
    started = time.perf_counter()
    for image in images:
        image.save(io.BytesIO(), format="PNG", compress_level=PNG_COMPRESS_LEVEL)
    png_seconds = (time.perf_counter() - started) / len(images)

    print(f"dream deck renderer, {len(plan)} cards (seed {args.seed}) at {size[0]}x{size[1]}")
    print(f"python {platform.python_version()} on {platform.machine()}, pinned to {pinned}")
    print(f"plan (descriptions, no drawing): {plan_seconds * 1000:.1f} ms for the deck")
    print(f"drawing, first pass in this process: {cold / len(plan) * 1000:.1f} ms per card")
    print(f"drawing: {best / len(plan) * 1000:.1f} ms per card (best of {len(passes)} passes)")
    print(f"PNG encoding for the cache: {png_seconds * 1000:.1f} ms per card")
    print(f"rendering speed: {cards_per_second:.1f} cards/second on one core")
    from dixit_ai.cli.targets import Targets, too_small

    defaults = Args()
    unjudged = (f"width {args.width}; the target is for {TARGET_WIDTH}x{TARGET_WIDTH * 1.5:g}"
                if args.width != TARGET_WIDTH else
                too_small("cards", args.cards, defaults.cards)
                or too_small("timed passes", args.repeats, defaults.repeats))
    targets = Targets()
    targets.at_least(f"rendering speed at {TARGET_WIDTH}x{TARGET_WIDTH * 1.5:g}, one core",
                     cards_per_second, TARGET_CARDS_PER_SECOND, unit=" cards/s", digits=1,
                     unjudged=unjudged)
    return targets.report()


if __name__ == "__main__":
    raise SystemExit(main())
