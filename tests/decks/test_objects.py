"""The curated object list: every object named, drawable, and nothing that the issue leaves out."""

from __future__ import annotations

import json
import unicodedata

import pytest

from dixit_ai.decks.objects import load_objects, objects_path
from dixit_ai.decks.render import font_path, glyph

# Words that mark people, faces, hands, flags, signs, toilets, weapons and the like in Unicode
# names. ZEBRA FACE and GIRAFFE FACE are kept on purpose: OpenMoji draws the whole animal.
BANNED_WORDS = {
    "FACE", "HAND", "PERSON", "MAN", "WOMAN", "BOY", "GIRL", "FLAG", "TOILET", "GUN",
    "PISTOL", "KNIFE", "DAGGER", "SWORD", "BOMB", "BOW AND ARROW", "POO", "SKULL", "FINGER",
    "EYE", "EYES", "MOUTH", "TONGUE", "LIPS", "NOSE", "SQUARED", "LETTER", "DIGIT",
}
WHOLE_ANIMALS_DRAWN = {"U+1F993", "U+1F992"}  # zebra, giraffe
ALLOWED_CATEGORIES = {
    "animal", "plant", "food", "object", "instrument", "weather", "celestial", "place", "vehicle",
}


def test_a_few_hundred_objects_with_names_plurals_and_tags() -> None:
    objects = load_objects()
    assert 250 <= len(objects) <= 600
    assert len({obj.name for obj in objects}) == len(objects)
    assert len({obj.emoji for obj in objects}) == len(objects)
    for obj in objects:
        assert obj.name and obj.name == obj.name.strip() and obj.plural
        assert 2 <= len(obj.tags) <= 6
        assert obj.category in ALLOWED_CATEGORIES
        assert len(obj.emoji) == 1 and obj.codepoint == f"U+{ord(obj.emoji):04X}"
        assert 0.2 < obj.aspect < 4


def test_newer_emoji_have_names_of_their_own() -> None:
    unnamed = [obj for obj in load_objects() if unicodedata.name(obj.emoji, "") == ""]
    # Python's Unicode database may lack the newest emoji; the list names them anyway.
    for obj in unnamed:
        assert obj.name


def test_nothing_the_issue_leaves_out() -> None:
    for obj in load_objects():
        if obj.codepoint in WHOLE_ANIMALS_DRAWN:
            continue
        words = unicodedata.name(obj.emoji, "")
        for banned in BANNED_WORDS:
            assert f" {banned} " not in f" {words} ", (obj.name, words)
    names = {obj.name for obj in load_objects()}
    assert not names & {"pile of poo", "toilet", "pistol", "kitchen knife", "peach", "eggplant"}


def test_the_data_file_is_shipped_in_the_package() -> None:
    document = json.loads(objects_path().read_text(encoding="utf-8"))
    assert document["format"] == 1
    assert "CC BY-SA 4.0" in document["source"]
    assert font_path().name == "glyf_colr0.ttf" and font_path().is_file()


@pytest.mark.parametrize("chunk", range(4))
def test_every_object_is_drawn_in_colour_by_the_font(chunk: int) -> None:
    objects = load_objects()[chunk::4]
    for obj in objects:
        image = glyph(obj.emoji, 48)
        assert max(image.size) in (47, 48), obj.name
        colours = image.convert("RGB").getcolors(1 << 16) or []
        assert len(colours) > 2, f"{obj.name} is not drawn in colour"
        measured = image.width / image.height
        assert measured == pytest.approx(obj.aspect, rel=0.12), obj.name
