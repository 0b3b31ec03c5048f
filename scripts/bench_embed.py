"""Benchmark embedding throughput, the harness's overhead, the embedding cache and load time.

Prints, on this CPU (``--threads`` torch threads, 2 by default):

* images per second of the default model and of a random-init open_clip ``ViT-B-32`` at batch 1
  and batch 64 (the cards of the default deck, 400x600);
* the harness's throughput (``embed_images``) as a ratio of the raw model forward on the same,
  already preprocessed batches (target >= 0.9), and of preprocessing + forward;
* cold vs warm cache time for embedding the whole default deck (warm must be >= 100x faster);
* the default model's load time (in a fresh process).

Writes ``runs/bench_embed__0__<time>/bench.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def timed(function: Any, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def bench_model(
    embedder: Any, images: list, batch: int, batches: int, repeat: int = 3
) -> dict[str, float]:
    """Time the raw forward, preprocessing + forward, and the harness on the same batches.

    The three are interleaved ``repeat`` times and the best time of each is kept, so that a burst
    of load from other processes on a shared machine does not land on one of them only.
    """
    chunks = [images[i * batch : (i + 1) * batch] for i in range(batches)]
    chunks = [c for c in chunks if c]
    n = sum(len(c) for c in chunks)
    embedder.embed_images(chunks[0], batch_size=batch)  # warm-up
    prepared = [embedder.preprocess_images(c) for c in chunks]
    modes = {
        "raw": lambda: [embedder.forward_images(p) for p in prepared],
        "raw_pre": lambda: [embedder.forward_images(embedder.preprocess_images(c)) for c in chunks],
        "harness": lambda: [embedder.embed_images(c, batch_size=batch) for c in chunks],
    }
    best = dict.fromkeys(modes, float("inf"))
    for _ in range(repeat):
        for mode, function in modes.items():
            best[mode] = min(best[mode], timed(function))
    raw, raw_pre, harness = best["raw"], best["raw_pre"], best["harness"]
    return {
        "batch": batch,
        "images": n,
        "images_per_s": n / harness,
        "raw_forward_images_per_s": n / raw,
        "ratio_to_raw_forward": raw / harness,
        "ratio_to_preprocess_and_forward": raw_pre / harness,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--batches", type=int, default=2, help="batches of 64 timed")
    parser.add_argument("--skip-vit", action="store_true", help="skip the ViT-B-32")
    parser.add_argument("--runs-dir", default="runs", help="folder of run records")
    parser.add_argument("--smoke", action="store_true", help="tiny run for CI")
    args = parser.parse_args(argv)

    import torch

    from dixit_ai.decks import load_deck
    from models import EmbeddingCache, embed_deck, load_embedder

    torch.set_num_threads(args.threads)
    deck = load_deck("dream" if not args.smoke else "dream:size=8,seed=0")
    images = [deck.image(c) for c in deck.card_ids]
    n64 = max(1, args.batches) * 64
    images = (images * (n64 // len(images) + 1))[:n64] if not args.smoke else images
    results: dict[str, Any] = {"threads": args.threads, "deck": deck.source}

    names = ["default"]
    vit_dir = None
    if not args.skip_vit and not args.smoke:
        import open_clip

        vit_dir = tempfile.TemporaryDirectory()
        torch.manual_seed(0)
        path = Path(vit_dir.name) / "vit.bin"
        torch.save(open_clip.create_model("ViT-B-32").state_dict(), path)
        names.append(f"openclip:ViT-B-32@{path}")
    for name in names:
        embedder = load_embedder(name, device="cpu")
        label = "default" if name == "default" else "ViT-B-32 (random init)"
        rows = []
        for batch in (1, 64) if not args.smoke else (1, 4):
            count = 8 if batch == 1 else len(images) // batch * batch
            rows.append(bench_model(embedder, images[: max(count, batch)], batch,
                                    max(1, count // batch)))
        results[label] = rows
        for row in rows:
            print(
                f"{label:<24} batch {row['batch']:>2}: {row['images_per_s']:7.1f} images/s  "
                f"(raw forward {row['raw_forward_images_per_s']:7.1f}/s; harness/raw "
                f"{row['ratio_to_raw_forward']:.2f}; harness/(preprocess+forward) "
                f"{row['ratio_to_preprocess_and_forward']:.2f})"
            )

    embedder = load_embedder("default", device="cpu")
    with tempfile.TemporaryDirectory() as folder:
        cold = timed(lambda: embed_deck(embedder, deck, cache=EmbeddingCache(folder)))
        warm = timed(lambda: embed_deck(embedder, deck, cache=EmbeddingCache(folder)), repeat=5)
    results["cache"] = {"cards": len(deck), "cold_s": cold, "warm_s": warm, "speedup": cold / warm}
    print(f"default deck ({len(deck)} cards): cold {cold:.2f} s, warm {warm * 1000:.1f} ms, "
          f"{cold / warm:.0f}x faster warm")

    code = (
        f"import time, torch; torch.set_num_threads({args.threads}); t=time.perf_counter();"
        "import models; models.load_embedder('default', device='cpu');"
        "print(time.perf_counter()-t)"
    )
    load = float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True, env=dict(os.environ)).stdout.strip().splitlines()[-1])
    results["default_load_s"] = load
    print(f"default model load time (fresh process, imports included): {load:.2f} s")
    run_dir = Path(args.runs_dir) / f"bench_embed__0__{int(time.time())}"
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "bench.json").write_text(json.dumps(results, indent=1))
    print(f"record: {run_dir}")
    if vit_dir is not None:
        vit_dir.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
