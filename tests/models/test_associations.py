"""The hand-written association list: big enough, and never a word of any dream caption."""

from __future__ import annotations

import re

from dixit_ai.decks.captions import captions_from_description
from dixit_ai.decks.objects import objects_by_name
from dixit_ai.decks.plan import plan_deck
from models.evaluation import load_associations


def test_at_least_200_pairs_of_known_objects():
    associations = load_associations()
    pairs = [(name, a) for name, values in associations.items() for a in values]
    assert len(pairs) >= 200
    known = objects_by_name()
    assert set(associations) <= set(known)


def test_no_association_word_occurs_in_a_caption():
    words: set[str] = set()
    for seed in (0, 1, 9001):
        for description in plan_deck(seed, 1200):
            for caption in captions_from_description(description):
                words.update(re.findall(r"[a-zñ'-]+", caption.lower()))
    for name, values in load_associations().items():
        for association in values:
            clash = set(re.findall(r"[a-zñ'-]+", association.lower())) & words
            assert not clash, f"{name} -> {association!r} shares {clash} with captions"
