"""``dixit-ai bench`` where the ``models`` extra is not installed (no torch).

The default embedder (the models under test's and the reference population's) loads without
torch: its card and clue vectors ship with the package, and its towers load the first time a new
text must be embedded. A benchmark that will embed a text neither shipped nor cached (a caption,
an object name outside the vocabulary, a clue an agent tells) is refused before its run folder
is made (exit 2, the extra named, nothing written); one whose texts all ship runs.

Each command runs the ``dixit-ai`` console script in a fresh process where torch and the
packages built on it cannot be imported (a ``sitecustomize`` on ``PYTHONPATH`` hides them), with
a cache folder of its own, empty of embeddings, as after ``pip install -e .``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import dixit, files_in

HIDDEN = ("torch", "torchvision", "timm", "transformers", "open_clip")

SITECUSTOMIZE = f"""\
import sys


class _NotInstalled:
    '''Imports of {HIDDEN} fail as if they were not installed.'''

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {HIDDEN!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
"""

EXTRA = "pip install 'dixit-ai[models]'"


@pytest.fixture(scope="module")
def without_torch(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a process without torch, with a fresh cache (shared by this module's
    commands: without torch none of them can add an embedding to it)."""
    folder = tmp_path_factory.mktemp("no-torch")
    (folder / "hide").mkdir()
    (folder / "hide" / "sitecustomize.py").write_text(SITECUSTOMIZE)
    return {"PYTHONPATH": str(folder / "hide"), "DIXIT_AI_CACHE_DIR": str(folder / "cache")}


def refused(result, tmp_path: Path) -> None:
    assert result.returncode == 2, result.output
    assert EXTRA in result.stderr
    assert "failed" not in result.stderr and "partial" not in result.stderr
    assert not (tmp_path / "runs").exists() or files_in(tmp_path / "runs") == set()


def test_the_hiding_works(tmp_path, without_torch):
    result = dixit("bench", "--models", "oracle:default", "--items", "1", "--out", "runs",
                   cwd=tmp_path, env=without_torch)
    refused(result, tmp_path)


@pytest.mark.parametrize(("models", "who"), [
    ("random", "the reference population (default) must embed"),
    ("default,random", "the model under test 'default' must embed"),
])
def test_a_bench_that_must_embed_new_clues_is_refused_before_its_run_folder(
        tmp_path, without_torch, models, who):
    """The reference embeds the decoy task's clues (object names, not all shipped); the
    default model under test the guess task's (captions): neither can without torch."""
    result = dixit("bench", "--models", models, "--items", "5", "--no-progress",
                   "--out", "runs", cwd=tmp_path, env=without_torch)
    refused(result, tmp_path)
    assert who in result.stderr and "neither shipped nor cached" in result.stderr


def test_agents_stories_need_the_text_tower(tmp_path, without_torch):
    """An agent's clues are known only once told: the reference that scores them must be able
    to embed any text, so the run is refused up front."""
    result = dixit("bench", "--models", "random", "--tasks", "tell", "--items", "2",
                   "--no-progress", "--out", "runs", cwd=tmp_path, env=without_torch)
    refused(result, tmp_path)
    assert "the clues the agents tell" in result.stderr


def shipped_decoy_seed(items: int) -> int:
    """A seed whose decoy clues all ship with the default embedder's vectors."""
    from dixit_ai.decks import load_deck
    from models import shipped
    from models.bench.config import BenchConfig
    from models.bench.items import DeckFacts, ItemSets
    from models.cache import text_key
    from models.registry import load_embedder

    fingerprint = load_embedder("default", device="cpu").fingerprint
    config = BenchConfig()
    facts = DeckFacts.of(load_deck("dream"))
    for seed in range(200):
        items_of = ItemSets(facts, seed=seed, items=items, board_size=config.board_size,
                            reference_deals=config.reference_deals)
        keys = [text_key(item.clue) for item in items_of.decoy_items()]
        if len(shipped.shipped_vectors(fingerprint, "texts", keys)) == len(keys):
            return seed
    raise AssertionError("no seed below 200 gives decoy clues that all ship")


def test_a_bench_whose_clues_all_ship_runs_without_torch(tmp_path, without_torch):
    seed = shipped_decoy_seed(3)
    result = dixit("bench", "--models", "random", "--tasks", "decoy", "--items", "3",
                   "--seed", str(seed), "--no-progress", "--out", "runs", cwd=tmp_path,
                   env=without_torch)
    assert result.returncode == 0, result.output
    (folder,) = (tmp_path / "runs").iterdir()
    assert {"bench.json", "records.jsonl", "results.json"} <= files_in(folder)
