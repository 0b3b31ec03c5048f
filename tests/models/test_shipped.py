"""Shipped embeddings and the torch-free warm path of the clip players.

Each start-up case runs in a fresh interpreter (``python -c``) with an empty cache folder of
its own, so that what it imports and reads is what a user's first process would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dixit_ai.agents import agent_spec
from models import shipped
from models.cache import EmbeddingCache, text_key

ROOT = Path(__file__).resolve().parents[2]

GAME = """
import json, sys
from dixit_ai.agents import make_agent
from dixit_ai.match import play_game
agents = [make_agent(name) for name in ("clip-greedy", "clip-expected-self", "clip-greedy")]
record = play_game(agents, edition="refresh-2021", deck=list(range(84)), seed=5, max_rounds=2)
loaded = sorted(m for m in ("torch", "timm", "transformers", "torchvision") if m in sys.modules)
out = {"rounds": len(record.rounds), "clues": [r.clue for r in record.rounds], "loaded": loaded}
"""


def run_child(code: str, cache: Path, *, no_shipped: bool = False) -> dict:
    prelude = ""
    if no_shipped:
        prelude = ("import models.shipped as s\n"
                   "s.SHIPPED_DIR = s.SHIPPED_DIR / 'ignored'\n")
    env = dict(os.environ, DIXIT_AI_CACHE_DIR=str(cache), HF_HUB_OFFLINE="1")
    result = subprocess.run([sys.executable, "-c", prelude + code + "\nprint(json.dumps(out))"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
                            check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


POPULATION = sorted({m for agent in ("clip-expected", "clip-expected-wide")
                     for m in agent_spec(agent).kwargs["population"].split(",")
                     if m not in ("self", "copy")})
"""The minds the registry's population storytellers simulate besides themselves: their
dream-deck vectors ship too."""


def default_fingerprint() -> str:
    from models.registry import load_embedder

    return load_embedder("default", device="cpu").fingerprint


def test_shipped_embeddings_are_for_the_default_embedder_and_cover_its_players() -> None:
    fingerprint = default_fingerprint()
    about = shipped.manifest(fingerprint)
    assert about is not None, (
        f"no shipped embeddings for the default embedder {fingerprint}: rebuild them with "
        "python scripts/build_shipped_embeddings.py")
    assert about["fingerprint"] == fingerprint
    from models.players.vocabulary import load_vocabulary

    vocabulary = load_vocabulary("default")
    keys = [text_key(t) for t in vocabulary.texts]
    found = shipped.shipped_vectors(fingerprint, "texts", keys)
    assert len(found) == len(keys), "the shipped vocabulary is not the current one: rebuild it"
    vectors = np.stack([found[k] for k in keys])
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    entry = about["decks"][0]
    assert entry["source"] == "dream:size=84,seed=0"
    images = shipped.shipped_vectors(fingerprint, "images", entry["card_hashes"])
    assert len(images) == 84


def test_every_clue_a_random_storyteller_tells_is_shipped() -> None:
    """The quick start's tournament seats a random player beside clip bots: its clues must be
    in the shipped vectors, or a fresh install loads the model to embed one ("ashes" did)."""
    from dixit_ai.agents.random_agent import CLUE_WORDS

    keys = [text_key(w) for w in CLUE_WORDS]
    found = shipped.shipped_vectors(default_fingerprint(), "texts", keys)
    assert [w for w, k in zip(CLUE_WORDS, keys, strict=True) if k not in found] == []


def test_a_damaged_shipped_file_is_refused_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "fake-fp"
    vector = np.ones(4, dtype=np.float32) / 2
    shipped.write_shipped(folder, fingerprint="fake-fp", embedder={"name": "fake"},
                          texts={text_key("whale"): vector}, images={"ab" * 32: vector},
                          decks=[])
    assert shipped.shipped_vectors("fake-fp", "texts", [text_key("whale")], root=tmp_path)
    shipped.forget()
    payload = bytearray((folder / "texts.npz").read_bytes())
    payload[-1] ^= 1
    (folder / "texts.npz").write_bytes(bytes(payload))
    with pytest.warns(shipped.ShippedEmbeddingsWarning, match="SHA-256"):
        assert shipped.shipped_vectors("fake-fp", "texts", [text_key("whale")],
                                       root=tmp_path) == {}
    # Another fingerprint asking never reads this folder's files.
    assert shipped.manifest("other-fp", root=tmp_path) is None
    shipped.forget()


def test_an_identical_file_is_written_once_and_checked_where_it_is_read(tmp_path: Path) -> None:
    vector = np.ones(4, dtype=np.float32) / 2
    texts = {text_key("whale"): vector}
    for name, image in (("a-fp", vector), ("b-fp", -vector)):
        shipped.write_shipped(tmp_path / name, fingerprint=name, embedder={"name": name},
                              texts=texts, images={"ab" * 32: image}, decks=[])
    b = json.loads((tmp_path / "b-fp" / "manifest.json").read_text())["files"]
    assert b["texts"]["file"] == "../a-fp/texts.npz" and b["images"]["file"] == "images.npz"
    assert not (tmp_path / "b-fp" / "texts.npz").exists()
    for name in ("a-fp", "b-fp"):
        found = shipped.shipped_vectors(name, "texts", [text_key("whale")], root=tmp_path)
        np.testing.assert_array_equal(found[text_key("whale")], vector)
    np.testing.assert_array_equal(
        shipped.shipped_vectors("b-fp", "images", ["ab" * 32], root=tmp_path)["ab" * 32], -vector)
    # The shared file is read once, for both folders.
    assert shipped._table("a-fp", "texts", tmp_path) is shipped._table("b-fp", "texts", tmp_path)
    shipped.forget()
    # Damaging the one file refuses it for both; a manifest may not point outside its siblings.
    payload = bytearray((tmp_path / "a-fp" / "texts.npz").read_bytes())
    payload[-1] ^= 1
    (tmp_path / "a-fp" / "texts.npz").write_bytes(bytes(payload))
    with pytest.warns(shipped.ShippedEmbeddingsWarning, match="SHA-256"):
        assert shipped.shipped_vectors("b-fp", "texts", [text_key("whale")], root=tmp_path) == {}
    shipped.forget()
    about = json.loads((tmp_path / "b-fp" / "manifest.json").read_text())
    about["files"]["texts"]["file"] = "../../a-fp/texts.npz"
    (tmp_path / "b-fp" / "manifest.json").write_text(json.dumps(about))
    with pytest.warns(shipped.ShippedEmbeddingsWarning, match="unreadable"):
        assert shipped.shipped_vectors("b-fp", "texts", [text_key("whale")], root=tmp_path) == {}
    shipped.forget()


def test_fresh_install_plays_clip_bots_without_torch(tmp_path: Path) -> None:
    out = run_child(GAME, tmp_path / "cache")
    assert out["rounds"] == 2 and all(out["clues"])
    assert out["loaded"] == []
    # Nothing was computed: no vectors were written to the cache.
    assert EmbeddingCache(tmp_path / "cache" / "embeddings").summary() == []


@pytest.mark.slow
def test_a_warm_disk_cache_plays_without_torch(tmp_path: Path) -> None:
    """Without shipped vectors, vectors cached on disk are enough (the deck is drawn once)."""
    cache_dir = tmp_path / "cache"
    fingerprint = default_fingerprint()
    about = shipped.manifest(fingerprint)
    assert about is not None
    cache = EmbeddingCache(cache_dir / "embeddings")
    for kind in ("texts", "images"):
        with np.load(shipped.SHIPPED_DIR / fingerprint / f"{kind}.npz") as data:
            keys = [bytes(row).hex() for row in data["keys"]]
            cache.store(fingerprint, kind, keys, data["vectors"])
    out = run_child(GAME.replace("deck=list(range(84))", 'deck="dream"'), cache_dir,
                    no_shipped=True)
    assert out["rounds"] == 2 and out["loaded"] == []


@pytest.mark.slow
def test_an_unknown_clue_loads_the_model_lazily(tmp_path: Path) -> None:
    code = GAME + """
before = "torch" in sys.modules
agents[0].resources.texts(["a clue that ships nowhere, 7421"])
out.update(before=before, after="torch" in sys.modules)
"""
    out = run_child(code, tmp_path / "cache")
    assert out["before"] is False and out["after"] is True
    summary = EmbeddingCache(tmp_path / "cache" / "embeddings").summary()
    assert [(entry["texts"], entry["images"]) for entry in summary] == [(1, 0)]


@pytest.mark.slow
def test_a_population_storyteller_plays_a_fresh_install_without_torch(tmp_path: Path) -> None:
    """Its simulated minds' (lite1-minilm, lite1-mpnet, lite1-zeroshot) vectors ship too."""
    code = GAME.replace('("clip-greedy", "clip-expected-self", "clip-greedy")',
                        '("clip-expected", "clip-expected-wide", "clip-population")')
    out = run_child(code, tmp_path / "cache")
    assert out["rounds"] == 2 and all(out["clues"])
    assert out["loaded"] == []
    assert EmbeddingCache(tmp_path / "cache" / "embeddings").summary() == []


def test_every_held_out_panel_member_ships_and_shares_a_texts_file() -> None:
    from models.players.panel import PANELS, member
    from models.players.panel_models import reads_ground_truth, resolve_embedder
    from models.players.vocabulary import load_vocabulary

    keys = [text_key(t) for t in load_vocabulary("default").texts]
    for name in PANELS["panel-heldout"]:
        embedder = resolve_embedder(member(name).embedder)
        about = shipped.manifest(embedder.fingerprint)
        assert about is not None, f"{name}: nothing ships (scripts/build_shipped_embeddings.py)"
        assert about["files"]["texts"]["file"].startswith("../"), name  # one file per tower
        assert len(shipped.shipped_vectors(embedder.fingerprint, "texts", keys)) == len(keys)
        assert ("images" in about["files"]) != reads_ground_truth(embedder), name


PANEL_EMBEDDERS = ["panel:sibling", "panel:default-zeroshot", "lite2-mpnet", "imagenet-zeroshot"]
"""The panel members whose card vectors ship (the caption reader's cards are its captions)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", ["default", *POPULATION, *PANEL_EMBEDDERS])
def test_shipped_vectors_are_the_models(tmp_path: Path, name: str) -> None:
    from dixit_ai.decks import load_deck
    from models.cache import embed_deck, embed_texts_cached
    from models.players.panel_models import resolve_embedder as load_embedder
    from models.players.vocabulary import load_vocabulary

    embedder = load_embedder(name, device="cpu")
    assert shipped.manifest(embedder.fingerprint) is not None, name
    cache = EmbeddingCache(tmp_path)  # an explicit cache: computed by the model
    texts = list(load_vocabulary("default").texts[::400])
    computed = embed_texts_cached(embedder, texts, cache=cache)
    found = shipped.shipped_vectors(embedder.fingerprint, "texts", [text_key(t) for t in texts])
    np.testing.assert_allclose(np.stack([found[text_key(t)] for t in texts]), computed,
                               atol=2e-6)
    deck = load_deck("dream")
    cards = embed_deck(embedder, deck, [0, 41, 83], cache=cache)
    images = shipped.shipped_vectors(embedder.fingerprint, "images",
                                     [deck.card_hash(c) for c in (0, 41, 83)])
    np.testing.assert_allclose(np.stack(list(images.values())), cards, atol=2e-6)


def test_the_builder_takes_the_texts_a_member_with_the_same_text_tower_ships() -> None:
    import runpy
    import tempfile
    from types import SimpleNamespace

    build = runpy.run_path(str(ROOT / "scripts" / "build_shipped_embeddings.py"))
    info = {"backend": "family", "weights": {"text_tower_sha256": "ab"}, "dtype": "float32",
            "preprocess": {"text_max_tokens": 384, "text_pooling": "mean, l2"}}
    vector = np.ones(4, dtype=np.float32) / 2
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        shipped.write_shipped(root / "first-fp", fingerprint="first-fp",
                              embedder={"name": "first", **info},
                              texts={text_key("whale"): vector}, images={"ab" * 32: vector},
                              decks=[])
        same = SimpleNamespace(info=info, fingerprint="second-fp")
        name, texts = build["same_tower_texts"](same, ["whale"], root)
        assert name == "first"
        np.testing.assert_array_equal(texts["whale"], vector)
        assert build["same_tower_texts"](same, ["whale", "unknown"], root) is None  # not all
        other = SimpleNamespace(info={**info, "weights": {"text_tower_sha256": "cd"}},
                                fingerprint="third-fp")
        assert build["same_tower_texts"](other, ["whale"], root) is None  # another tower
        itself = SimpleNamespace(info=info, fingerprint="first-fp")
        assert build["same_tower_texts"](itself, ["whale"], root) is None  # not its own folder
        assert build["text_identity"]({"backend": "openclip"}) is None
        # The default model's head variants share its texts, never a family member's (another
        # text tower code), even on the same text tower weights.
        default = {**info, "backend": "default"}
        assert build["text_identity"]({**default, "backend": "panel"}) \
            == build["text_identity"](default) != build["text_identity"](info)
        shipped.forget()
