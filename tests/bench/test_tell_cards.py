"""Tell items dealt from one half of the deck (``tell_cards``): held-out stories.

Items of two seeds tell mostly the same cards (a hand of 6 from one deck); a storyteller developed
on one seed's items is not held out on another seed's stories. With ``tell_cards`` the
storyteller's hands come from one fixed half of the deck, so the stories of ``half-a`` and
``half-b`` share no card.
"""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.decks import load_deck
from models.bench.config import BenchConfig
from models.bench.items import HAND_SIZE, TELL_TABLE, DeckFacts, ItemSets, card_half
from tests.bench.helpers import BENCH_DECK


@pytest.fixture(scope="module")
def facts() -> DeckFacts:
    return DeckFacts.of(load_deck(BENCH_DECK))


def items(facts: DeckFacts, seed: int, tell_cards: str = "all", n: int = 40) -> list:
    return ItemSets(facts, seed=seed, items=n, board_size=6, reference_deals=2,
                    tell_cards=tell_cards).tell_items()


def test_the_halves_split_the_deck_the_same_way_for_every_run(facts):
    ids = list(facts.card_ids)
    a, b = card_half(ids, "half-a"), card_half(ids, "half-b")
    assert sorted(a + b) == sorted(ids) and not set(a) & set(b)
    assert len(a) == len(ids) // 2
    assert a == [c for c in ids if c in set(a)]  # in deck order
    assert card_half(ids, "half-a") == a  # no seed: every run and every process agree
    with pytest.raises(ValueError, match="'half-a' or 'half-b', not 'half-c'"):
        card_half(ids, "half-c")


def test_hands_come_from_the_half_and_the_other_hands_from_every_other_card(facts):
    half = set(card_half(list(facts.card_ids), "half-b"))
    told = items(facts, seed=5000, tell_cards="half-b")
    others: set[int] = set()
    for item in told:
        assert len(item.hand) == HAND_SIZE and set(item.hand) <= half
        for deal in item.deals:
            dealt = [c for hand in deal for c in hand]
            assert len(deal) == TELL_TABLE - 1 and len(set(dealt)) == len(dealt)
            assert not set(dealt) & set(item.hand)
            others |= set(dealt)
    assert others & half and others - half  # the reference players' cards are not split


def test_stories_of_the_two_halves_share_no_card_while_two_seeds_share_most(facts):
    def cards(told: list) -> set[int]:
        return {c for item in told for c in item.hand}

    dev, held = cards(items(facts, 5000, "half-a")), cards(items(facts, 1000, "half-b"))
    assert not dev & held
    # without the split, another seed deals (almost) every card again
    again = cards(items(facts, 5000)) & cards(items(facts, 1000))
    assert len(again) >= 0.9 * len(facts.card_ids)


def test_all_deals_the_items_the_bench_always_dealt(facts):
    """``tell_cards="all"`` keeps every earlier run's items (and so its records)."""
    ids = list(facts.card_ids)
    rng = np.random.default_rng(np.random.SeedSequence([1000, 13]))
    for item in items(facts, 1000, n=10):
        picked = rng.choice(len(ids), size=HAND_SIZE, replace=False)
        assert item.hand == tuple(ids[int(k)] for k in picked)
        pool = [c for c in ids if c not in item.hand]
        for deal in item.deals:
            drawn = rng.choice(len(pool), size=(TELL_TABLE - 1) * HAND_SIZE, replace=False)
            cards = [pool[int(k)] for k in drawn]
            assert [c for hand in deal for c in hand] == cards


def test_an_unknown_choice_is_refused_naming_the_choices(facts):
    with pytest.raises(ValueError, match="tell_cards must be one of all, half-a, half-b, "
                                         "not 'odd'"):
        ItemSets(facts, seed=1, items=2, board_size=6, reference_deals=1, tell_cards="odd")
    with pytest.raises(ValueError, match="tell_cards must be one of all, half-a, half-b"):
        BenchConfig(models=["random"], tell_cards="odd").validate()


def test_the_bench_command_takes_the_half_and_records_it(tmp_path, monkeypatch):
    import json

    from dixit_ai.cli import main

    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["bench", "--models", "random", "--tasks", "tell", "--items", "3",
                 "--deck", BENCH_DECK, "--tell-cards", "half-a", "--bootstrap", "50",
                 "--out", str(tmp_path), "--no-progress"]) == 0
    (run,) = tmp_path.glob("bench__*")
    assert json.loads((run / "bench.json").read_text())["config"]["tell_cards"] == "half-a"
    half = set(card_half(list(DeckFacts.of(load_deck(BENCH_DECK)).card_ids), "half-a"))
    told = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    cards = [r["card"] for r in told if r.get("card") is not None]
    assert len(cards) == 3 and set(cards) <= half
