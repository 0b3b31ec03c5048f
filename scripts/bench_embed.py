"""Benchmark embedding throughput per batch size, the harness against the raw towers, the cache,
and the default model's load time as a whole process.

Prints, on this CPU (torch's default threads unless ``--threads``):

* per-image throughput of the default model at batch 1, 8, 32 and 64 (the cards of the default
  deck, 400x600), for three ways of running it, interleaved and best-of-``--repeat``:
  ``tower`` (the image tower's forward on already preprocessed tensors), ``raw`` (preprocessing
  and the tower's forward, the least any caller must do), ``harness``
  (``Embedder.embed_images``: preprocessing, the tower, the head, checks, normalisation) and
  the harness without its limit on numpy's BLAS threads (as it was before);
  the target is harness / raw >= 0.9 at batch 1 and at the default batch;
* the same for texts (the clue vocabulary) through the text tower;
* which batch sizes give the most images and texts per second (the defaults are chosen by
  them: ``models.registry.DEFAULT_IMAGE_BATCH_SIZE`` and ``DEFAULT_BATCH_SIZE``, for texts);
* cold vs warm cache time for embedding the whole default deck;
* the default model's load time in a fresh process, measured from outside the process: from
  starting Python to the first image and text embedded (``import torch`` included).

Writes ``runs/bench_embed__0__<time>/bench.json`` (the folder is made before anything is timed).
The figures come first, then one line per target: met, MISSED, or not judged (``--smoke``, or
fewer interleaved timings than the default 3); exit status 1 if a target was missed
(:mod:`dixit_ai.cli.targets`), 2 on bad input.

    python scripts/bench_embed.py            # about 2 minutes
    python scripts/bench_embed.py --smoke    # a few seconds (CI)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

BATCHES = (1, 8, 32, 64)
TARGET_HARNESS_OVER_RAW = 0.9
"""Images per second of the harness over the raw towers' (preprocessing and forward), at least,
at batch 1 and at the default image batch."""
TARGET_REPEAT = 3
"""The interleaved timings per mode the target is stated for."""
SMOKE = {"repeat": 1}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`); it also
times a few items on an 8-card deck at batches 1 and 4."""

LOAD_CODE = """
import time
start = time.perf_counter()
import torch
torch_s = time.perf_counter() - start
from PIL import Image
import models
embedder = models.load_embedder("default", device="cpu")
embedder.embed_texts(["a whale in the sky"])
embedder.embed_images([Image.new("RGB", (400, 600), (90, 120, 200))])
print(torch_s, time.perf_counter() - start)
"""


def timed(function: Any, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def best_of(modes: dict[str, Any], repeat: int) -> dict[str, float]:
    """Best time of each mode, the modes interleaved ``repeat`` times (a burst of load from
    another process then lands on all of them, not on one)."""
    best = dict.fromkeys(modes, float("inf"))
    for _ in range(repeat):
        for mode, function in modes.items():
            best[mode] = min(best[mode], timed(function))
    return best


@contextlib.contextmanager
def _no_limit(limit: int) -> Iterator[None]:
    yield


def harness_without_blas_limit(embedder: Any, chunks: list, batch: int) -> None:
    """The harness as it was: numpy's BLAS threads left at one per core."""
    import models.base

    limited = models.base.numpy_blas_threads
    models.base.numpy_blas_threads = _no_limit
    try:
        for chunk in chunks:
            embedder.embed_images(chunk, batch_size=batch)
    finally:
        models.base.numpy_blas_threads = limited


def bench_images(embedder: Any, images: list, batch: int, repeat: int) -> dict[str, float]:
    chunks = [images[i : i + batch] for i in range(0, len(images), batch)]
    tower = embedder.image_tower
    embedder.embed_images(chunks[0], batch_size=batch)  # warm-up
    prepared = [embedder.preprocess_images(c) for c in chunks]

    def forward(batches: Any) -> None:
        for groups in batches:
            for _, pixels in groups:
                tower.forward(pixels)

    best = best_of({
        "tower": lambda: forward(prepared),
        "raw": lambda: forward(embedder.preprocess_images(c) for c in chunks),
        "harness": lambda: [embedder.embed_images(c, batch_size=batch) for c in chunks],
        "unlimited": lambda: harness_without_blas_limit(embedder, chunks, batch),
    }, repeat)
    n = len(images)
    return {"batch": batch, "items": n, **{f"{k}_per_s": n / v for k, v in best.items()},
            "harness_over_raw": best["raw"] / best["harness"],
            "unlimited_over_raw": best["raw"] / best["unlimited"],
            "harness_over_tower": best["tower"] / best["harness"]}


def bench_texts(embedder: Any, texts: list[str], batch: int, repeat: int) -> dict[str, float]:
    chunks = [texts[i : i + batch] for i in range(0, len(texts), batch)]
    tower = embedder.text_tower
    embedder.embed_texts(chunks[0], batch_size=batch)  # warm-up
    best = best_of({
        "raw": lambda: [tower.encode(c) for c in chunks],
        "harness": lambda: [embedder.embed_texts(c, batch_size=batch) for c in chunks],
    }, repeat)
    n = len(texts)
    return {"batch": batch, "items": n, **{f"{k}_per_s": n / v for k, v in best.items()},
            "harness_over_raw": best["raw"] / best["harness"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None,
                        help="torch threads (default: torch's, one per core)")
    parser.add_argument("--repeat", type=int, default=TARGET_REPEAT,
                        help="interleaved timings per mode")
    parser.add_argument("--runs-dir", default="runs", help="folder of run records")
    parser.add_argument("--smoke", action="store_true", help="tiny run for CI")
    args = parser.parse_args(argv)
    from dixit_ai.cli.common import check_at_least
    from dixit_ai.reporting import new_run_dir
    from models.players.cli import apply_smoke, given_options

    if args.smoke:  # what the command line gave stays as given
        apply_smoke(args, SMOKE, given_options(parser, argv))

    try:  # refused before anything is made or measured (--repeat 0 timed nothing: NaN ratios)
        check_at_least(args, (("repeat", 1),) if args.threads is None
                       else (("repeat", 1), ("threads", 1)))
    except ValueError as error:
        parser.error(str(error))

    try:  # made first, so a --runs-dir that cannot hold it stops the run before it measures
        run_dir = new_run_dir(args.runs_dir, "bench_embed", 0)
    except ValueError as error:
        parser.error(f"--runs-dir {error}")
    print(f"run folder: {run_dir}")
    results = measure(args)
    (run_dir / "bench.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"record: {run_dir}")

    from dixit_ai.cli.targets import Targets, too_small

    unjudged = ("--smoke: a few items per batch; judged on the defaults" if args.smoke
                else too_small("interleaved timings", args.repeat, TARGET_REPEAT))
    targets = Targets()
    rows = {row["batch"]: row for row in results["images"]}
    for batch in sorted({1, results["default_image_batch_size"]}):
        name = (f"images, harness / raw (preprocessing and forward), batch {batch}"
                + (" (the default)" if batch == results["default_image_batch_size"] else ""))
        if batch not in rows:
            targets.not_judged(name, unjudged or f"batch {batch} not timed")
            continue
        targets.at_least(name, rows[batch]["harness_over_raw"], TARGET_HARNESS_OVER_RAW,
                         unjudged=unjudged)
    return targets.report()


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Every figure, printed as it comes; ``bench.json``'s contents."""
    import torch

    from dixit_ai.decks import load_deck
    from models import EmbeddingCache, embed_deck, load_embedder
    from models.players.vocabulary import load_vocabulary
    from models.registry import DEFAULT_BATCH_SIZE, DEFAULT_IMAGE_BATCH_SIZE

    if args.threads is not None:
        torch.set_num_threads(args.threads)
    deck = load_deck("dream" if not args.smoke else "dream:size=8,seed=0")
    cards = [deck.image(c) for c in deck.card_ids]
    texts = list(load_vocabulary("default").texts)
    batches = BATCHES if not args.smoke else (1, 4)
    repeat = args.repeat
    embedder = load_embedder("default", device="cpu")
    results: dict[str, Any] = {"threads": torch.get_num_threads(), "cores": os.cpu_count(),
                               "deck": deck.source, "default_batch_size": DEFAULT_BATCH_SIZE,
                               "default_image_batch_size": DEFAULT_IMAGE_BATCH_SIZE,
                               "images": [], "texts": []}
    print(f"default model, {torch.get_num_threads()} torch threads, {os.cpu_count()} cores, "
          f"best of {repeat} interleaved timings, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for batch in batches:
        count = 8 if batch == 1 else max(batch, 32) if not args.smoke else batch
        images = (cards * (count // len(cards) + 1))[:count]
        row = bench_images(embedder, images, batch, repeat)
        results["images"].append(row)
        print(f"images batch {batch:>2}: harness {row['harness_per_s']:6.1f}/s, raw "
              f"{row['raw_per_s']:6.1f}/s (harness/raw {row['harness_over_raw']:.2f}; without "
              f"the BLAS limit {row['unlimited_over_raw']:.2f}), tower forward alone "
              f"{row['tower_per_s']:6.1f}/s", flush=True)
    for batch in batches:
        count = 32 if batch == 1 else 4 * batch if not args.smoke else batch
        row = bench_texts(embedder, texts[:count], batch, repeat)
        results["texts"].append(row)
        print(f"texts  batch {batch:>2}: harness {row['harness_per_s']:6.1f}/s, raw "
              f"{row['raw_per_s']:6.1f}/s (harness/raw {row['harness_over_raw']:.2f})",
              flush=True)
    fastest = max(results["images"], key=lambda r: r["harness_per_s"])
    fastest_texts = max(results["texts"], key=lambda r: r["harness_per_s"])
    results["fastest_image_batch"] = fastest["batch"]
    results["fastest_text_batch"] = fastest_texts["batch"]
    print(f"most images per second at batch {fastest['batch']} (default: "
          f"{DEFAULT_IMAGE_BATCH_SIZE}); most texts per second at batch "
          f"{fastest_texts['batch']} (default: {DEFAULT_BATCH_SIZE})")

    with tempfile.TemporaryDirectory() as folder:
        cold = timed(lambda: embed_deck(embedder, deck, cache=EmbeddingCache(folder)))
        warm = timed(lambda: embed_deck(embedder, deck, cache=EmbeddingCache(folder)), repeat=5)
    results["cache"] = {"cards": len(deck), "cold_s": cold, "warm_s": warm, "speedup": cold / warm}
    print(f"default deck ({len(deck)} cards): cold {cold:.2f} s, warm {warm * 1000:.1f} ms, "
          f"{cold / warm:.0f}x faster warm")

    if not args.smoke:
        start = time.perf_counter()
        output = subprocess.run([sys.executable, "-c", LOAD_CODE], check=True,
                                capture_output=True, text=True, env=dict(os.environ)).stdout
        wall = time.perf_counter() - start
        torch_s, inside = (float(x) for x in output.strip().splitlines()[-1].split())
        results["load"] = {"wall_s": wall, "import_torch_s": torch_s, "in_process_s": inside}
        print(f"default model, fresh process to the first image and text embedded: {wall:.2f} s "
              f"wall (import torch {torch_s:.2f} s; Python's start and exit are the rest of "
              f"{wall - inside:.2f} s)")
    return results


if __name__ == "__main__":
    raise SystemExit(main())
