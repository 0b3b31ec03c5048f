"""Captions: subject and object in the right order for every relation, agreeing with the layout."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dixit_ai.decks.captions import (
    captions_from_description,
    join_and,
    relation_sentence,
    with_article,
)
from dixit_ai.decks.plan import RELATIONS, plan_deck


def entry(role: str, name: str, plural: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"role": role, "name": name, "plural": plural or name + "s", "count": 1, **extra}


def card(relation: str, *objects: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "relation": relation,
        "relation_detail": extra.pop("relation_detail", {}),
        "palette": extra.pop("palette", "night"),
        "sky": "a starry night sky",
        "horizon": extra.pop("horizon", "sea"),
        "celestial": extra.pop("celestial", "moon"),
        "objects": list(objects),
        **extra,
    }


# The exact sentence for each relation, with "owl" as the subject and "elephant" as the object.
EXPECTED = {
    "giant_over_tiny": "a giant owl looming over a tiny elephant",
    "floating_above": "an owl floating above an elephant",
    "reflected": "an owl reflected in the water as an elephant",
    "replacing_moon": "an owl shining in place of the moon above an elephant",
    "raining_down": "owls raining down on an elephant",
    "inside_bubble": "an owl inside a bubble floating above an elephant",
    "upside_down": "an upside-down owl hanging above an elephant",
    "side_by_side": "an owl and an elephant side by side",
    "orbiting": "an owl orbiting an elephant",
    "balancing": "an owl balancing on top of an elephant",
    "chasing": "an owl chasing an elephant across the sky",
    "procession": "an owl leading a procession of three elephants",
}


def test_every_relation_has_an_expected_sentence() -> None:
    assert set(EXPECTED) == set(RELATIONS)


@pytest.mark.parametrize("relation", sorted(EXPECTED))
def test_subject_and_object_in_the_right_order(relation: str) -> None:
    description = card(relation, entry("subject", "owl"), entry("object", "elephant", count=3))
    assert relation_sentence(description) == EXPECTED[relation]
    # Swapping the roles swaps the words.
    swapped = card(relation, entry("subject", "elephant"), entry("object", "owl", count=3))
    assert relation_sentence(swapped) != relation_sentence(description)


def test_second_orbiter_and_the_sun() -> None:
    description = card(
        "orbiting", entry("subject", "owl"), entry("object", "elephant"), entry("subject2", "kite")
    )
    assert relation_sentence(description) == "an owl and a kite orbiting an elephant"
    sunny = card("replacing_moon", entry("subject", "owl"), entry("object", "cat"),
                 celestial="sun")
    assert relation_sentence(sunny) == "an owl shining in place of the sun above a cat"


def test_the_four_captions() -> None:
    description = card(
        "giant_over_tiny",
        entry("subject", "whale"),
        entry("object", "cat"),
        entry("companion", "lantern"),
        relation_detail={"companion_action": "drifting by"},
    )
    assert captions_from_description(description) == [
        "a giant whale looming over a tiny cat, with a lantern drifting by, "
        "under a starry night sky above the sea",
        "a giant whale looming over a tiny cat",
        "whale, cat, lantern",
        "a whale, a cat and a lantern under a starry night sky above the sea",
    ]


def test_articles_and_lists() -> None:
    assert with_article("owl") == "an owl"
    assert with_article("hourglass") == "an hourglass"
    assert with_article("unicycle") == "a unicycle"
    assert with_article("upside-down kite") == "an upside-down kite"
    assert with_article("pair of glasses") == "a pair of glasses"
    assert join_and(["a", "b", "c"]) == "a, b and c"
    assert join_and(["a"]) == "a"


# Patterns with the subject and object captured, checked against the layout of real cards.
PATTERNS = {
    "giant_over_tiny": r"an? giant (?P<s>.+) looming over an? tiny (?P<o>.+)",
    "floating_above": r"an? (?P<s>.+) floating above an? (?P<o>.+)",
    "reflected": r"an? (?P<s>.+) reflected in the water as an? (?P<o>.+)",
    "replacing_moon": r"an? (?P<s>.+) shining in place of the (moon|sun) above an? (?P<o>.+)",
    "raining_down": r"(?P<s>.+) raining down on an? (?P<o>.+)",
    "inside_bubble": r"an? (?P<s>.+) inside a bubble floating above an? (?P<o>.+)",
    "upside_down": r"an upside-down (?P<s>.+) hanging above an? (?P<o>.+)",
    "side_by_side": r"an? (?P<s>.+) and an? (?P<o>.+) side by side",
    "orbiting": r"an? (?P<s>.+?)(?: and an? .+)? orbiting an? (?P<o>.+)",
    "balancing": r"an? (?P<s>.+) balancing on top of an? (?P<o>.+)",
    "chasing": r"an? (?P<s>.+) chasing an? (?P<o>.+) (across the sky|through the deep water)",
    "procession": r"an? (?P<s>.+) leading a procession of \w+ (?P<o>.+)",
}


def _check_layout(
    description: dict[str, Any], subject: dict[str, Any], obj: dict[str, Any]
) -> None:
    relation = description["relation"]
    s_box, o_box = subject["box"], obj["box"]
    if relation == "giant_over_tiny":
        assert subject["size"] > 2 * obj["size"] and s_box[3] < o_box[1]
    elif relation in ("floating_above", "inside_bubble", "upside_down", "replacing_moon"):
        assert s_box[3] < o_box[1] and obj["grounded"]
    elif relation == "raining_down":
        assert all(i["y"] < o_box[1] for i in subject["instances"]) and subject["count"] >= 5
    elif relation == "reflected":
        waterline = description["relation_detail"]["waterline"]
        assert s_box[3] <= waterline + 1e-3 <= o_box[1] + 2e-3 and obj["upside_down"]
    elif relation == "side_by_side":
        assert s_box[2] < o_box[0]
    elif relation == "orbiting":
        x, y = description["relation_detail"]["orbit"][:2]
        assert (obj["x"], obj["y"]) == pytest.approx((x, y), abs=1e-3)
    elif relation == "balancing":
        assert s_box[3] == pytest.approx(o_box[1], abs=0.02) and s_box[1] < o_box[1]
    elif relation == "chasing":
        ahead = description["relation_detail"]["direction"] == "right"
        assert (obj["x"] > subject["x"]) == ahead
    elif relation == "procession":
        ahead = description["relation_detail"]["direction"] == "right"
        xs = [instance["x"] for instance in obj["instances"]]
        assert all((subject["x"] > x) == ahead for x in xs)


def test_captions_of_real_cards_match_their_layout() -> None:
    seen = set()
    for description in plan_deck(2, 240):
        relation = description["relation"]
        sentence = captions_from_description(description)[1]
        match = re.fullmatch(PATTERNS[relation], sentence)
        assert match, (relation, sentence)
        subject = next(e for e in description["objects"] if e["role"] == "subject")
        obj = next(e for e in description["objects"] if e["role"] == "object")
        expected_subject = subject["plural"] if relation == "raining_down" else subject["name"]
        assert match["s"] == expected_subject, sentence
        assert match["o"] == (obj["plural"] if relation == "procession" else obj["name"])
        _check_layout(description, subject, obj)
        seen.add(relation)
    assert seen == set(RELATIONS)


def test_captions_name_every_object_of_the_card() -> None:
    for description in plan_deck(0, 84):
        captions = captions_from_description(description)
        assert len(captions) == 4
        for item in description["objects"]:
            assert item["name"] in captions[2]
            name = item["plural"] if item["count"] > 1 else item["name"]
            assert name in captions[0] and name in captions[3]
