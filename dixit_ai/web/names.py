"""People's names at a table: how a name shows, when two names show alike, and which names are
refused (those of the form bots are named by, and those that mix alphabets).

Two names "show alike" when a reader could not tell them apart: the same letters whatever their
case, width or compatibility form, with invisible format characters dropped, runs of spaces as
one, and the Cyrillic and Greek letters drawn like Latin ones read as those (``Alice`` written
with a Cyrillic capital A shows as ``Alice``). A name whose letters come from more than one
alphabet is refused, as Unicode's *highly restrictive* identifier profile (UTS #39, section
5.2) refuses it: one script, or Latin with the scripts that Japanese, Chinese or Korean writing
mixes with it. That stops look-alikes made by swapping a letter or two; a whole name spelt in
look-alike letters of one other alphabet is caught at the table by :func:`same_name`.
"""

from __future__ import annotations

import re
import unicodedata

from dixit_ai.web.config import WebError
from dixit_ai.web.table_config import MAX_NAME_LENGTH, text_field

_LOOK_ALIKE_LETTERS = {  # by Unicode name: the letter's name -> the Latin letter it shows as
    "CYRILLIC CAPITAL LETTER": {
        "A": "A", "VE": "B", "IE": "E", "KA": "K", "EM": "M", "EN": "H", "O": "O", "ER": "P",
        "ES": "C", "TE": "T", "U": "Y", "HA": "X", "DZE": "S", "JE": "J", "STRAIGHT U": "Y",
        "BYELORUSSIAN-UKRAINIAN I": "I", "SHHA": "H", "QA": "Q", "WE": "W"},
    "CYRILLIC LETTER": {"PALOCHKA": "I"},
    "CYRILLIC SMALL LETTER": {
        "A": "a", "IE": "e", "O": "o", "ER": "p", "ES": "c", "U": "y", "HA": "x", "DZE": "s",
        "BYELORUSSIAN-UKRAINIAN I": "i", "JE": "j", "SHHA": "h", "KOMI DE": "d", "QA": "q",
        "WE": "w", "STRAIGHT U": "y", "PALOCHKA": "l"},
    "GREEK CAPITAL LETTER": {
        "ALPHA": "A", "BETA": "B", "EPSILON": "E", "ZETA": "Z", "ETA": "H", "IOTA": "I",
        "KAPPA": "K", "MU": "M", "NU": "N", "OMICRON": "O", "RHO": "P", "TAU": "T",
        "UPSILON": "Y", "CHI": "X"},
    "GREEK SMALL LETTER": {
        "OMICRON": "o", "NU": "v", "RHO": "p", "IOTA": "i", "KAPPA": "k", "ALPHA": "a",
        "UPSILON": "u", "CHI": "x"},
}

LOOK_ALIKES = str.maketrans({unicodedata.lookup(f"{group} {letter}"): latin
                              for group, letters in _LOOK_ALIKE_LETTERS.items()
                              for letter, latin in letters.items()})
"""Cyrillic and Greek letters a reader takes for Latin ones, as they are drawn in common fonts
(a subset of Unicode's confusables, UTS #39: the letters of the alphabets most often mixed
with Latin)."""

MIXABLE_WITH_LATIN = (frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
                      frozenset({"LATIN", "HAN", "BOPOMOFO"}),
                      frozenset({"LATIN", "HAN", "HANGUL"}))
"""The mixes of scripts a name may hold (UTS #39's highly restrictive level): Japanese,
Chinese and Korean writing, each with Latin."""

_SCRIPT_WORDS = {"CJK": "HAN", "IDEOGRAPHIC": "HAN", "KATAKANA-HIRAGANA": None}


def _shown_key(name: str) -> str:
    """A name as it shows: compatibility forms folded, look-alike letters read as Latin, case
    folded, invisible format characters (zero-width spaces) dropped, runs of spaces as one."""
    folded = unicodedata.normalize("NFKC", name).translate(LOOK_ALIKES).casefold()
    return " ".join("".join(c for c in folded if unicodedata.category(c) != "Cf").split())


def same_name(one: str, other: str) -> bool:
    """Whether two names would show alike (see the module docstring).

    >>> same_name("Ann", " ann\u200b"), same_name("Ann", "Anna"), same_name("Ann", "\u0410nn")
    (True, False, True)
    """
    return _shown_key(one) == _shown_key(other)


def script_of(char: str) -> str | None:
    """The script of a letter (``"LATIN"``, ``"CYRILLIC"``, ``"HAN"``...), read from its Unicode
    name; ``None`` for anything else (digits, punctuation, marks, spaces), which any script
    uses."""
    if not unicodedata.category(char).startswith("L"):
        return None
    word = unicodedata.name(char, "").split(" ", 1)[0]
    return _SCRIPT_WORDS.get(word, word) or None


def mixed_scripts(name: str) -> dict[str, str] | None:
    """The scripts of a name's letters, each with its letters, when they mix more than a name
    may (:data:`MIXABLE_WITH_LATIN`); ``None`` for a name of one script or an allowed mix.

    >>> mixed_scripts("Zoë"), mixed_scripts("山田 Taro たろう"), mixed_scripts("\u0410lice")
    (None, None, {'CYRILLIC': '\u0410', 'LATIN': 'lice'})
    """
    letters: dict[str, str] = {}
    for char in unicodedata.normalize("NFKC", name):
        script = script_of(char)
        if script is not None:
            letters[script] = letters.get(script, "") + char
    scripts = set(letters)
    if len(scripts) <= 1 or any(scripts <= allowed for allowed in MIXABLE_WITH_LATIN):
        return None
    return letters


BOT_NAME = re.compile(r".+ bot [0-9]+")
"""The form of the names bots are given at the start (``"random bot 1"``: the bot's name,
``bot`` and its number among the table's bots of that name), as a name shows
(:func:`same_name`'s folding)."""


def bot_name(bot: str, number: int) -> str:
    """The name of the ``number``-th bot ``bot`` seated at the start of a game."""
    return f"{bot} bot {number}"


def person_name(value: object) -> str:
    """A person's name at a table (the creator's, or a newcomer's), checked: text a page can
    show, within :data:`~dixit_ai.web.table_config.MAX_NAME_LENGTH`, of one alphabet
    (:func:`mixed_scripts`), and not of the form bots are named by (:data:`BOT_NAME`), which
    would pass them for a bot, or give two seats one name.

    >>> person_name(" Ann ")
    'Ann'

    Raises:
        WebError: (400) a bad name (the message says why).
    """
    name = text_field(value, "your name", limit=MAX_NAME_LENGTH)
    mixed = mixed_scripts(name)
    if mixed is not None:
        parts = ", ".join(f"{script.title()} {letters!r}" for script, letters in mixed.items())
        raise WebError(400, f"your name {name!r} mixes the letters of {len(mixed)} alphabets "
                            f"({parts}), so it could pass for another name: write it in one "
                            "alphabet (Latin may go with Chinese, Japanese or Korean writing)")
    if BOT_NAME.fullmatch(_shown_key(name)):
        raise WebError(400, f"your name {name!r} is of the form bots are named by ('<bot> bot "
                            "<number>', like 'random bot 1'): choose another name, so that "
                            "nobody is taken for a bot")
    return name
