"""Benchmark a clip bot's start-up: a fresh process's first decision, warm and on a fresh install.

Each case runs in a fresh Python process (``python -c``), which makes a ``clip-greedy`` agent
(or ``--agent``),
deals a 5-player refresh-2021 game and asks the storyteller (the heaviest decision) for its
first clue, then plays one round of a game of five such agents through ``play_game`` (deck
``dream``, which also reads the deck's fingerprint for the record). Printed per case: wall time
from starting the process to the first decision (the interpreter's start-up and every import
included, the process's exit not), the in-process time of that decision, the time of the
``play_game`` round, the process's CPU time up to the first decision (what the wall time would
be on an idle core: start-up is single-threaded), peak RSS of the whole process, and whether
torch was imported.

* ``warm``: the machine's cache as it is (run the script once, or any clip game, to warm it);
* ``fresh install``: an empty cache folder (``DIXIT_AI_CACHE_DIR``): what ships with the package
  is all there is (the dream deck is drawn, the card and clue vectors come from
  ``models/data/embeddings/``);
* ``cold`` (with ``--cold``): an empty cache and shipped embeddings ignored: torch, the model,
  and embedding the deck and the vocabulary.

Targets (issue 17): warm <= 1.0 s and <= 300 MB, torch not imported; fresh install <= 3 s
(the wall time to the first decision, the best of ``--repeat`` runs; the peak RSS, the largest).
The figures come first, then one line per target: met, MISSED, or not judged (another
``--agent`` than ``clip-greedy``, or fewer runs per case than the default 3 for the times);
exit status 1 if a target was missed or a case's process failed (:mod:`dixit_ai.cli.targets`),
2 on bad input.

    python scripts/bench_startup.py [--repeat 3] [--cold]
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

ROOT = Path(__file__).resolve().parents[1]

TARGET_WARM_S = 1.0
"""Warm cache: wall time from starting the process to the first decision, at most (seconds)."""
TARGET_WARM_RSS_MB = 300.0
"""Warm cache: the process's peak RSS, at most (MB)."""
TARGET_FRESH_S = 3.0
"""Fresh install: wall time from starting the process to the first decision, at most (s)."""
TARGET_AGENT = "clip-greedy"
"""The agent the targets are stated for."""
TARGET_REPEAT = 3
"""The runs per case the time targets are stated for (the best of them is judged)."""

CHILD = r"""
import json, resource, sys, time
start = time.perf_counter()
if {no_shipped}:
    import models.shipped
    models.shipped.SHIPPED_DIR = models.shipped.SHIPPED_DIR / "(ignored)"
import numpy as np
from dixit_ai.agents import make_agent
from dixit_ai.match import play_game
from dixit_ai.rules import RuleSet, new_game, observe
rules = RuleSet.edition("refresh-2021")
state = new_game(rules, 5, list(range(84)), np.random.default_rng(7))
agent = make_agent({agent!r})
agent.reset(seat=state.storyteller, rng=np.random.default_rng(1))
view = observe(state, state.storyteller)
decide = time.perf_counter()
story = agent.tell(view)
first = time.perf_counter()
usage = resource.getrusage(resource.RUSAGE_SELF)
cpu = usage.ru_utime + usage.ru_stime
record = play_game([make_agent({agent!r}) for _ in range(5)], edition="refresh-2021",
                   deck="dream", seed=3, max_rounds=1)
done = time.perf_counter()
print(json.dumps({{"import_and_load": decide - start, "first_decision": first - decide,
                  "round": done - first, "cpu_to_first_decision": cpu,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "torch": "torch" in sys.modules, "clue": story.clue}}))
"""


def run_case(cache_dir: str | None, no_shipped: bool = False,
             agent: str = "clip-greedy") -> dict[str, float]:
    """One case in a fresh process: its figures (``CHILD``'s, and the wall times).

    Raises:
        SystemExit: the process failed (``FAILED:``, its stderr's end; exit status 1).
    """
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    if cache_dir is not None:
        env["DIXIT_AI_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", CHILD.format(no_shipped=no_shipped, agent=agent)], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=600, check=False)
    wall = time.perf_counter() - start
    if result.returncode:
        where = "the machine's cache" if cache_dir is None else f"cache folder {cache_dir}"
        raise SystemExit(f"FAILED: a case's process ({where}) exited with {result.returncode}:\n"
                         f"{result.stderr[-3000:]}")
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    figures["wall_to_first_decision"] = wall - figures["round"]
    figures["wall"] = wall
    return figures


def show(name: str, runs: list[dict[str, float]]) -> dict[str, float]:
    """Print a case's figures; return its best run's, with the largest peak RSS and whether any
    run imported torch."""
    best = min(runs, key=lambda r: r["wall_to_first_decision"])
    walls = ", ".join(f"{r['wall_to_first_decision']:.2f}" for r in runs)
    print(f"{name:>14}: first decision {best['wall_to_first_decision']:.2f} s wall (runs: "
          f"{walls}); in process {best['first_decision']:.3f} s; then a play_game round "
          f"{best['round']:.2f} s; CPU time to the first decision "
          f"{best['cpu_to_first_decision']:.2f} s; peak RSS "
          f"{max(r['peak_rss_mb'] for r in runs):.0f} MB; torch imported: "
          f"{any(r['torch'] for r in runs)}")
    return {**best, "peak_rss_mb": max(r["peak_rss_mb"] for r in runs),
            "torch": any(r["torch"] for r in runs)}


def load_average() -> str:
    try:
        return ", load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=TARGET_REPEAT,
                        help="runs per case (best wall shown)")
    parser.add_argument("--cold", action="store_true", help="also the cold case (about 25 s)")
    parser.add_argument("--agent", default=TARGET_AGENT,
                        help=f"the registry storyteller (default {TARGET_AGENT})")
    args = parser.parse_args(argv)
    from dixit_ai.cli.common import check_at_least
    from dixit_ai.cli.targets import Targets, too_small

    try:
        check_at_least(args, (("repeat", 1),))
    except ValueError as error:
        parser.error(str(error))
    from dixit_ai.agents.registry import agent_spec

    try:  # before any process is started (a child's traceback said it, exit 1)
        agent_spec(args.agent)
    except ValueError as error:
        parser.error(f"--agent {args.agent}: {error}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores{load_average()}; "
          f"{args.agent} storyteller, 5 players, refresh-2021")
    run_case(None, agent=args.agent)  # warms the machine's cache (and the OS's file cache)
    warm = show("warm", [run_case(None, agent=args.agent) for _ in range(args.repeat)])
    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="dixit-fresh-") as folder:
            runs.append(run_case(folder, agent=args.agent))
    fresh = show("fresh install", runs)
    if args.cold:
        with tempfile.TemporaryDirectory(prefix="dixit-cold-") as folder:
            show("cold", [run_case(folder, no_shipped=True, agent=args.agent)])

    other = (f"--agent {args.agent}; the targets are for {TARGET_AGENT}"
             if args.agent != TARGET_AGENT else None)
    few = other or too_small("runs per case", args.repeat, TARGET_REPEAT)
    targets = Targets()
    targets.at_most("warm, wall time to the first decision", warm["wall_to_first_decision"],
                    TARGET_WARM_S, unit=" s", unjudged=few)
    targets.at_most("warm, peak RSS", warm["peak_rss_mb"], TARGET_WARM_RSS_MB, unit=" MB",
                    digits=0, unjudged=other)
    targets.judge("warm, torch imported", not warm["torch"],
                  "imported" if warm["torch"] else "not imported", "not imported", other)
    targets.at_most("fresh install, wall time to the first decision",
                    fresh["wall_to_first_decision"], TARGET_FRESH_S, unit=" s", unjudged=few)
    return targets.report()


if __name__ == "__main__":
    raise SystemExit(main())
