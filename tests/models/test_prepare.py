"""prepare_agents, the cache's cross-process lock, and one embedding per card per machine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.agents import load_agent_configs, prepare_agents, register_agent
from dixit_ai.agents.registry import _REGISTRY
from models.cache import EmbeddingCache

ROOT = Path(__file__).resolve().parents[2]
CALLS: list[dict[str, Any]] = []


def record_prepare(*, progress: Any = None, **options: Any) -> None:
    """A prepare step that records how it was called."""
    CALLS.append(options)
    if progress is not None:
        progress(f"prepared {options.get('deck')}")


@pytest.fixture
def fake_entries() -> Any:
    CALLS.clear()
    names = ["prep-reader", "prep-plain"]
    register_agent("prep-reader", "dixit_ai.agents.random_agent:RandomAgent",
                   prepare="tests.models.test_prepare:record_prepare", deck="dream", size=1)
    register_agent("prep-plain", "dixit_ai.agents.random_agent:RandomAgent",
                   prepare="tests.models.test_prepare:record_prepare", size=2)
    yield names
    for name in names:
        _REGISTRY.pop(name, None)


def test_prepare_agents_runs_each_declared_step_once_with_the_game_deck(fake_entries) -> None:
    lines: list[str] = []
    prepare_agents(["random", "prep-reader", ("prep-reader", {"size": 3}), "prep-reader",
                    "prep-plain"], deck="dream:size=12,seed=1", progress=lines.append)
    assert CALLS == [
        {"deck": "dream:size=12,seed=1", "size": 1},
        {"deck": "dream:size=12,seed=1", "size": 3},
        {"size": 2},  # an agent that reads no deck is not given one
    ]
    assert lines == ["prepared dream:size=12,seed=1", "prepared dream:size=12,seed=1",
                     "prepared None"]
    # An explicit deck override wins over the game's deck.
    CALLS.clear()
    prepare_agents([("prep-reader", {"deck": "dream"})], deck="dream:size=12,seed=1")
    assert CALLS == [{"deck": "dream", "size": 1}]


def test_prepare_agents_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no agent named 'nobody'"):
        prepare_agents(["nobody"], deck="dream")
    with pytest.raises(ValueError, match="prepare 'nocolon' must look like"):
        register_agent("prep-bad", "dixit_ai.agents.random_agent:RandomAgent", prepare="nocolon")
    (tmp_path / "a.yaml").write_text(
        "name: prep-yaml\nentry_point: dixit_ai.agents.random_agent:RandomAgent\n"
        "prepare: tests.models.test_prepare:missing_function\n", encoding="utf-8")
    try:
        [spec] = load_agent_configs(tmp_path)
        assert spec.prepare == "tests.models.test_prepare:missing_function"
        with pytest.raises(ImportError, match="has no attribute 'missing_function'"):
            prepare_agents(["prep-yaml"], deck="dream")
    finally:
        _REGISTRY.pop("prep-yaml", None)


def test_clip_entries_declare_the_resources_prepare_step() -> None:
    from dixit_ai.agents import agent_spec

    for name in ("clip-greedy", "clip-expected-self", "clip-obvious", "clip-cryptic"):
        assert agent_spec(name).prepare == "models.players.resources:prepare"
    # The population storytellers also prepare their simulated minds' vectors.
    for name in ("clip-expected", "clip-population"):
        assert agent_spec(name).prepare == "models.players.population:prepare"


def run(code: str, cache: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, DIXIT_AI_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1")
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen[str]) -> str:
    try:
        out, err = process.communicate(timeout=600)
    finally:
        process.kill()
    assert process.returncode == 0, err[-3000:]
    return out


SLOW_EMBEDDER = """
import json, sys, time
sys.path.insert(0, ".")
from tests.models.fakes import CountingEmbedder
from models.cache import embed_texts_cached

class Slow(CountingEmbedder):
    def _encode_text_batch(self, texts):
        time.sleep(0.5)  # long enough for the other process to arrive meanwhile
        return super()._encode_text_batch(texts)

embedder = Slow()
vectors = embed_texts_cached(embedder, [f"clue {i}" for i in range(20)])
print(json.dumps({"encoded": embedder.encoded, "sum": float(vectors.sum())}))
"""


def test_concurrent_processes_embed_each_item_once(tmp_path: Path) -> None:
    processes = [run(SLOW_EMBEDDER, tmp_path) for _ in range(3)]
    results = [json.loads(finish(p).strip().splitlines()[-1]) for p in processes]
    assert sorted(r["encoded"] for r in results) == [0, 0, 20]
    assert len({round(r["sum"], 4) for r in results}) == 1
    [entry] = EmbeddingCache(tmp_path / "embeddings").summary()
    assert entry["texts"] == 20


def test_prepare_on_a_fresh_install_reads_only_what_ships(tmp_path: Path) -> None:
    out = finish(run("""
        import sys
        from dixit_ai.agents import prepare_agents
        lines = []
        prepare_agents(["clip-greedy", "random", "clip-expected", "clip-expected-self"],
                       deck="dream",
                       progress=lines.append)
        print(lines, "torch" in sys.modules)
        """, tmp_path))
    assert out.strip() == "[] False"
    assert EmbeddingCache(tmp_path / "embeddings").summary() == []


@pytest.mark.slow
def test_a_tournament_embeds_each_card_once_with_two_workers(tmp_path: Path) -> None:
    """A deck whose vectors do not ship: prepared once (progress lines), workers only read."""
    out = finish(run("""
        import logging, sys
        logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
        from dixit_ai.tournament import TournamentConfig, run_tournament
        config = TournamentConfig(agents=("clip-greedy", "clip-obvious"), players=4, games=4,
                                  deck="dream:size=40,seed=5", max_rounds=2)
        run = run_tournament(config, out=sys.argv[1] if len(sys.argv) > 1 else "runs_tmp",
                             workers=2, progress=False, report=False)
        """.replace('"runs_tmp"', repr(str(tmp_path / "runs"))), tmp_path / "cache"))
    assert "embedding 40 cards" in out
    assert "loading model default (image tower)" in out
    [entry] = EmbeddingCache(tmp_path / "cache" / "embeddings").summary()
    assert entry["images"] == 40


def test_the_lock_is_reentrant_within_a_thread(tmp_path: Path) -> None:
    """An embedding step that embeds more of the same kind (a caption reader) must not wait
    for itself."""
    cache = EmbeddingCache(tmp_path)
    with cache.locked("fp-1", "texts"), cache.locked("fp-1", "texts"), \
            cache.locked("fp-1", "images"):
        pass
    assert (tmp_path / "fp-1" / "texts.lock").exists()


def test_one_time_steps_report_progress_lines(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from models.base import progress_to
    from models.cache import embed_texts_cached
    from tests.models.fakes import CountingEmbedder

    lines: list[str] = []
    embedder = CountingEmbedder()
    cache = EmbeddingCache(tmp_path)
    with progress_to(lines.append):
        embed_texts_cached(embedder, ["owl", "moon", "owl"], cache=cache, what="clues")
        embed_texts_cached(embedder, ["owl", "moon"], cache=cache, what="clues")  # cached
    embed_texts_cached(embedder, ["sun"], cache=cache)  # outside the block: logger only
    assert len(lines) == 1 and lines[0].startswith("embedding 2 clues with ")
    assert lines[0].endswith(" s") and embedder.encoded == 3  # owl, moon; then sun


def test_a_single_quick_vector_gets_no_progress_line(tmp_path: Path, monkeypatch) -> None:
    """A clue embedded in passing (one at a time, as a benchmark's told clues are) is not a
    step worth a line; a slow one (the model's first use) still is."""
    sys.path.insert(0, str(ROOT))
    import models.cache
    from models.base import progress_to
    from models.cache import embed_texts_cached
    from tests.models.fakes import CountingEmbedder

    lines: list[str] = []
    embedder = CountingEmbedder()
    cache = EmbeddingCache(tmp_path)
    with progress_to(lines.append):
        embed_texts_cached(embedder, ["owl"], cache=cache, what="clues")
        assert lines == [] and embedder.encoded == 1
        monkeypatch.setattr(models.cache, "SINGLE_ITEM_QUIET_S", 0.0)
        embed_texts_cached(embedder, ["moon"], cache=cache, what="clues")
    assert len(lines) == 1 and lines[0].startswith("embedding 1 clues with ")
