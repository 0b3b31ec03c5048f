"""Cold vs warm: how much of a benchmark's time is model inference, and what the cache saves.

Runs the same ``dixit-ai bench`` twice, each in its own process, on one embedding cache that
starts empty (a temporary folder unless ``--cache-dir`` is given): the first run embeds the deck's
cards, the agents' clue vocabularies and every clue; the second finds them all in the cache.
Inference time is the time spent inside the embedders' forward passes
(:class:`models.bench.InferenceTimer`), apart from loading, rendering and deciding. The issue asks
that the warm run spend under 10% of the cold run's inference time.

The figures come first, then the target's line (met or MISSED; :mod:`dixit_ai.cli.targets`).
Exit status 1 if it was missed, if either run failed, if the two runs' results differ, or if the
cold run did no inference (its cache already held every embedding, as a ``--cache-dir`` of an
earlier run does, or the models embed nothing): then there is no share to report, and none is
printed. Exit status 2 on bad input.

Examples::

    python scripts/bench_bench.py                                  # default,clip-greedy, 20 items
    python scripts/bench_bench.py --models default,random --items 5 --tasks guess   # seconds
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from dixit_ai.cli.common import check_at_least
from dixit_ai.cli.targets import Targets

TARGET_WARM_SHARE = 0.10
"""The warm run's inference time over the cold run's, below."""


def run_once(args: argparse.Namespace, cache_dir: str, out: Path, label: str) -> dict:
    """One ``dixit-ai bench`` in a fresh process; its ``timing.json``."""
    before = set(out.glob("bench__*")) if out.exists() else set()
    command = [sys.executable, "-m", "dixit_ai.cli", "bench", "--models", args.models,
               "--tasks", args.tasks, "--items", str(args.items), "--seed", str(args.seed),
               "--deck", args.deck, "--out", str(out), "--name", "bench-bench",
               "--no-progress"]
    env = {**os.environ, "DIXIT_AI_CACHE_DIR": cache_dir, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"FAILED: the {label} run failed:\n{result.stdout}\n{result.stderr}")
    (folder,) = set(out.glob("bench__*")) - before
    timing = json.loads((folder / "timing.json").read_text())
    timing["folder"] = str(folder)
    return timing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="default,clip-greedy", help="models under test")
    parser.add_argument("--tasks", default="guess,decoy,tell", help="tasks")
    parser.add_argument("--items", type=int, default=20, help="items per task and clue kind")
    parser.add_argument("--seed", type=int, default=0, help="seed of both runs")
    parser.add_argument("--deck", default="dream", help="deck spec")
    parser.add_argument("--cache-dir", default=None,
                        help="embedding cache to start from; it must not hold these models' "
                        "embeddings yet, or the cold run is not cold (default: a new empty "
                        "folder)")
    parser.add_argument("--out", type=Path, default=Path("runs"), help="folder of run folders")
    args = parser.parse_args(argv)
    try:  # before the cold run: a bad count would fail both runs, after the cache was made
        check_at_least(args, (("items", 1),))
    except ValueError as error:
        parser.error(str(error))

    with tempfile.TemporaryDirectory(prefix="dixit-bench-cache-") as fresh:
        cache_dir = args.cache_dir or fresh
        cold = run_once(args, cache_dir, args.out, "cold")
        warm = run_once(args, cache_dir, args.out, "warm")
    print(f"models {args.models}, tasks {args.tasks}, {args.items} items, deck {args.deck}")
    for label, timing in (("cold", cold), ("warm", warm)):
        print(f"  {label}: inference {timing['inference_s']:8.2f} s "
              f"({timing['items_encoded']:5d} images/texts encoded), loading "
              f"{timing['load_s']:6.2f} s, whole run {timing['total_s']:7.2f} s")
    targets = Targets()
    if cold["items_encoded"] > 0 and cold["inference_s"] > 0:
        share = warm["inference_s"] / cold["inference_s"]
        print(f"  warm inference / cold inference = {share:.4f}")
        targets.below("warm inference / cold inference", share, TARGET_WARM_SHARE, digits=4)
    else:
        targets.fail(f"the cold run did no inference ({cold['items_encoded']} images/texts "
                     f"encoded in {cold['inference_s']:.4f} s), so there is no warm/cold share "
                     "to report: its cache already held the embeddings (a --cache-dir that was "
                     "not empty), or the models embed nothing")
    same = (Path(cold["folder"]) / "results.json").read_text() == (
        Path(warm["folder"]) / "results.json").read_text()
    print(f"  same results from both runs: {same}")
    if not same:
        targets.fail("the cold and warm runs' results.json differ")
    return targets.report()


if __name__ == "__main__":
    raise SystemExit(main())
