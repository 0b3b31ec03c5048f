"""A game's record does not depend on the thread count of the process that plays it.

numpy's multithreaded BLAS product gives the card-clue similarities in other last bits with
another thread count; the storyteller's notes (and, at a near-tie, its move) are made of them.
Tournament workers run with one thread and ``--workers 1`` / ``simulate`` with every core: the
same game must give the same bytes in both.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import make_agent
from models.players.resources import PlayerResources, load_resources, single_threaded

threadpoolctl = pytest.importorskip("threadpoolctl")


def fresh_resources() -> PlayerResources:
    """The shipped default vectors, in new resources (whose similarity table is computed anew,
    under the caller's thread limits)."""
    shipped = load_resources("default", "dream")
    return PlayerResources(shipped.card_ids, shipped.card_vectors.copy(), shipped.vocabulary,
                           shipped.vocabulary_vectors.copy(), shipped.embedder,
                           shipped.fingerprint, shipped.deck_name)


def record_under(threads: int, seed: int) -> str:
    with threadpoolctl.threadpool_limits(threads):
        resources = fresh_resources()
        agents = [make_agent(name, deck=resources)
                  for name in ("clip-greedy", "clip-obvious", "clip-cryptic", "clip-greedy")]
        record = play_game(agents, edition="refresh-2021", seed=seed)
    return json.dumps(record.to_dict(), sort_keys=True)


@pytest.mark.parametrize("seed", [1, 2])
def test_records_are_identical_under_one_and_two_threads(seed):
    # Seeds 1 and 2 gave other notes (4-decimal guess rates, expected points) under 2 threads.
    assert record_under(1, seed) == record_under(2, seed)


def test_the_similarity_table_is_the_single_threaded_product():
    shipped = load_resources("default", "dream")
    with threadpoolctl.threadpool_limits(1):
        expected = shipped.card_vectors @ shipped.vocabulary_vectors.T
    with threadpoolctl.threadpool_limits(2):
        table = fresh_resources().card_vocabulary_sims
    assert np.array_equal(table, expected)


def test_single_threaded_restores_the_limits_and_nests():
    before = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
              if lib["user_api"] == "blas"]
    with single_threaded():
        with single_threaded():
            inside = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                      if lib["user_api"] == "blas"]
        still = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
                 if lib["user_api"] == "blas"]
    after = [lib["num_threads"] for lib in threadpoolctl.threadpool_info()
             if lib["user_api"] == "blas"]
    assert set(inside) <= {1} and set(still) <= {1}
    assert after == before


def test_new_texts_are_embedded_one_at_a_time(monkeypatch, tmp_path):
    """A text's vector depends on the text only: never on the other texts of its batch (the
    text tower pads a batch to its longest text)."""
    from tests.players.conftest import vector_resources

    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path))
    resources = vector_resources()
    embedder = resources.embedder
    sizes: list[int] = []
    real = embedder.embed_texts

    def spy(texts, *, batch_size=None, progress=None):
        sizes.append(int(batch_size or embedder.batch_size))
        return real(texts, batch_size=batch_size, progress=progress)

    monkeypatch.setattr(embedder, "embed_texts", spy)
    resources.texts(["a first new clue", "another quite a lot longer new clue"])
    assert sizes == [1]


def test_a_blas_loaded_after_the_first_limit_is_limited_too():
    """scipy brings its own OpenBLAS; loaded after a first ``single_threaded`` block (as when
    another test module imported scipy later), it was left at every core."""
    import subprocess
    import sys

    pytest.importorskip("scipy.linalg")
    program = (
        "import threadpoolctl\n"
        "from models.players.resources import single_threaded\n"
        "with single_threaded():\n"
        "    pass\n"
        "import scipy.linalg\n"
        "with single_threaded():\n"
        "    inside = [lib['num_threads'] for lib in threadpoolctl.threadpool_info()\n"
        "              if lib['user_api'] == 'blas' and '/torch/' not in lib['filepath']]\n"
        "print(len(inside), sorted(set(inside)))\n"
    )
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                         check=True, env={**__import__("os").environ, "OMP_NUM_THREADS": "2"})
    count, threads = out.stdout.split(" ", 1)
    assert int(count) >= 2 and threads.strip() == "[1]"
