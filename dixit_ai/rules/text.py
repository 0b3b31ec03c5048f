"""What a line of text shown to other players may hold: clues, and at web tables names and
titles.

Text that other players read must be what it looks like: valid Unicode (no lone surrogate, which
no UTF-8 page or record can carry), one line (no control character), something visible (not only
spaces and invisible format characters such as zero-width spaces), and no bidirectional override
or isolate, which reorder the characters after them on screen, and no tower of combining marks
stacked on one character, which draws over the lines around it. Joiners stay allowed: emoji
sequences need them.
"""

from __future__ import annotations

import unicodedata

__all__ = ["BIDI_CONTROLS", "MAX_COMBINING_MARKS", "printable", "text_problem"]

BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI)."""

MAX_COMBINING_MARKS = 6
"""The most combining marks (Unicode categories Mn and Me) in a row: accents, vowel signs and
emoji keycaps need two or three; dozens stacked on one letter draw over the text above and below
it (a clue of "x" and 199 marks covered the web table's header)."""


def text_problem(text: str) -> str | None:
    """What is wrong with ``text`` as a line shown to other players, or ``None``.

    >>> text_problem("a quiet storm") is None
    True
    >>> text_problem("\\u200b\\u200b")
    'is empty (it has no visible character)'
    >>> text_problem("two\\nlines")
    'holds a control character (U+000A at position 3): it must be one line of text'
    """
    marks = 0
    for position, char in enumerate(text):
        marks = marks + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if marks > MAX_COMBINING_MARKS:
            return (f"stacks more than {MAX_COMBINING_MARKS} combining marks on one character "
                    f"(at position {position}), which draws over the text around it")
        if 0xD800 <= ord(char) <= 0xDFFF:
            return (f"is not valid Unicode text (a lone surrogate U+{ord(char):04X} at position "
                    f"{position})")
        if unicodedata.category(char) == "Cc":
            return (f"holds a control character (U+{ord(char):04X} at position {position}): it "
                    f"must be one line of text")
        if char in BIDI_CONTROLS:
            return (f"holds a bidirectional control (U+{ord(char):04X} at position {position}), "
                    f"which reorders the text on screen")
    if not any(not char.isspace() and unicodedata.category(char) != "Cf" for char in text):
        return "is empty (it has no visible character)"
    return None


def printable(text: str) -> str:
    r"""``text`` with every character a terminal would act on (escape sequences, newlines,
    bidirectional overrides) written as its escape, for printing text that comes from files
    (a deck's captions and names).

    >>> printable("red\x1b[31m sky")
    'red\\x1b[31m sky'
    """
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)
