"""Captions of dream cards, derived from their descriptions.

Every dream card gets four captions, in this order:

0. the full sentence: the relation, any companion, and the scene
   (``"a giant whale looming over a tiny cat, with a lantern drifting by, under a starry night sky
   above the sea"``);
1. the relation alone (``"a giant whale looming over a tiny cat"``);
2. the list of objects (``"whale, cat, lantern"``);
3. the objects with the scene (``"a whale, a cat and a lantern under a starry night sky above the
   sea"``).

In every relation sentence the card's ``subject`` comes first and its ``object`` second, in the
word order the relation needs (the giant is the one looming, the one on top is the one balancing,
the reflection is what the subject is reflected *as*).
"""

from __future__ import annotations

from typing import Any

from dixit_ai.decks.plan import HORIZONS

_NUMBERS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)
_AN_PREFIXES = ("hour", "honest", "heir")
_A_PREFIXES = ("uni", "use", "usu", "eu", "one", "ufo")


def with_article(phrase: str) -> str:
    """Prefix ``phrase`` with "a" or "an" by its first sound.

    >>> with_article("owl"), with_article("upside-down whale"), with_article("hourglass")
    ('an owl', 'an upside-down whale', 'an hourglass')
    """
    lower = phrase.lower()
    if lower.startswith(_AN_PREFIXES):
        return f"an {phrase}"
    if lower.startswith(_A_PREFIXES):
        return f"a {phrase}"
    return f"{'an' if lower[:1] in 'aeiou' else 'a'} {phrase}"


def number_word(count: int) -> str:
    """English word for a small count (digits above twenty)."""
    return _NUMBERS[count] if 0 <= count < len(_NUMBERS) else str(count)


def join_and(items: list[str]) -> str:
    """``["a", "b", "c"]`` -> ``"a, b and c"``."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _role(description: dict[str, Any], role: str) -> dict[str, Any] | None:
    entry: dict[str, Any]
    for entry in description["objects"]:
        if entry["role"] == role:
            return entry
    return None


def relation_sentence(description: dict[str, Any]) -> str:
    """The sentence that says how the card's subject and object are related.

    Args:
        description: A dream card description.

    Returns:
        A lower-case noun phrase such as ``"a tiny owl balancing on top of a teapot"``.
    """
    relation = description["relation"]
    subject = _role(description, "subject")
    obj = _role(description, "object")
    if subject is None or obj is None:
        raise ValueError("a dream card description needs a subject and an object")
    s, o = subject["name"], obj["name"]
    if relation == "giant_over_tiny":
        return f"{with_article('giant ' + s)} looming over {with_article('tiny ' + o)}"
    if relation == "floating_above":
        return f"{with_article(s)} floating above {with_article(o)}"
    if relation == "reflected":
        return f"{with_article(s)} reflected in the water as {with_article(o)}"
    if relation == "replacing_moon":
        body = description.get("celestial") or "moon"
        return f"{with_article(s)} shining in place of the {body} above {with_article(o)}"
    if relation == "raining_down":
        return f"{subject['plural']} raining down on {with_article(o)}"
    if relation == "inside_bubble":
        return f"{with_article(s)} inside a bubble floating above {with_article(o)}"
    if relation == "upside_down":
        return f"{with_article('upside-down ' + s)} hanging above {with_article(o)}"
    if relation == "side_by_side":
        return f"{with_article(s)} and {with_article(o)} side by side"
    if relation == "orbiting":
        second = _role(description, "subject2")
        movers = with_article(s)
        if second is not None:
            movers = f"{movers} and {with_article(second['name'])}"
        return f"{movers} orbiting {with_article(o)}"
    if relation == "balancing":
        return f"{with_article(s)} balancing on top of {with_article(o)}"
    if relation == "chasing":
        deep = description["palette"] == "deep_sea"
        where = "through the deep water" if deep else "across the sky"
        return f"{with_article(s)} chasing {with_article(o)} {where}"
    if relation == "procession":
        count = number_word(int(obj.get("count", 1)))
        return f"{with_article(s)} leading a procession of {count} {obj['plural']}"
    raise ValueError(f"unknown relation {relation!r}")


def scene_phrase(description: dict[str, Any]) -> str:
    """Where the card happens: ``"under a starry night sky above the sea"``."""
    if description["palette"] == "deep_sea":
        scene = f"in {description['sky']}"
    else:
        scene = f"under {description['sky']}"
    horizon = HORIZONS.get(description["horizon"], "")
    return f"{scene} {horizon}" if horizon else scene


def _counted(entry: dict[str, Any]) -> str:
    count = int(entry.get("count", 1))
    if count > 1:
        return f"{number_word(count)} {entry['plural']}"
    return with_article(entry["name"])


def captions_from_description(description: dict[str, Any]) -> list[str]:
    """The four captions of a dream card (see the module docstring).

    Args:
        description: A dream card description.

    Returns:
        ``[full sentence, relation sentence, object list, objects with scene]``.
    """
    sentence = relation_sentence(description)
    scene = scene_phrase(description)
    companion = _role(description, "companion")
    full = sentence
    if companion is not None:
        action = description["relation_detail"].get("companion_action", "floating nearby")
        full = f"{full}, with {with_article(companion['name'])} {action}"
    full = f"{full}, {scene}"
    names = [entry["name"] for entry in description["objects"]]
    objects_with_scene = f"{join_and([_counted(e) for e in description['objects']])} {scene}"
    return [full, sentence, ", ".join(names), objects_with_scene]
