"""``dixit-ai bench``: rank image-text models and agents at Dixit on fixed, seeded items.

Three tasks (:mod:`models.bench.items` builds their items, :mod:`models.bench.reference` defines
the reference population, :mod:`models.bench.analysis` what is measured):

* ``guess``: find the storyteller's card on a board, for clues of increasing difficulty;
* ``decoy``: play a hand card that draws votes from the reference guessers;
* ``tell``: tell a clue that some but not all reference guessers find, and predict how many.

Models are embedders (``default``, ``openclip:...``, ``hf:...``) or registered agents (the
``clip-*`` players, ``random``, models served over HTTP), several per run::

    >>> from models.bench import BenchConfig, run_bench
    >>> run = run_bench(BenchConfig(models=["default", "random"], items=20))  # doctest: +SKIP

Every answer is a record in the run folder; :func:`analyse` recomputes every figure from them.
"""

from __future__ import annotations

from models.bench.analysis import analyse, compute, read_run
from models.bench.config import TASKS, BenchConfig, ModelSpec, load_bench_config, resolve_model
from models.bench.run import BenchAborted, BenchRun, run_bench
from models.bench.timing import InferenceTimer

__all__ = [
    "TASKS",
    "BenchAborted",
    "BenchConfig",
    "BenchRun",
    "InferenceTimer",
    "ModelSpec",
    "analyse",
    "compute",
    "load_bench_config",
    "read_run",
    "resolve_model",
    "run_bench",
]
