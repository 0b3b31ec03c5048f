"""Text in pictures (contact sheets, rendered boards) is drawn in DejaVu Sans: accented Latin,
Greek and Cyrillic letters, and dashes, are drawn, where Pillow's built-in font drew a box
(a sheet's footer read "Photos by Zo□" for "Photos by Zoë")."""

from __future__ import annotations

import pytest

from dixit_ai.fonts import text_font, text_font_path


def glyph(text: str) -> bytes:
    return bytes(text_font(24).getmask(text))


def test_the_font_is_dejavu_sans_from_matplotlib() -> None:
    path = text_font_path()
    assert path is not None and path.name == "DejaVuSans.ttf"
    assert text_font(12).getname()[0] == "DejaVu Sans"


@pytest.mark.parametrize("letter", ["é", "ë", "Ж", "λ", "\u2013", "\u2014", "…"])
def test_letters_beyond_ascii_have_their_own_glyphs(letter: str) -> None:
    missing = glyph("\U000f0000")   # a private-use code point: the font's "no glyph" box
    assert glyph(letter) != missing
    assert glyph(letter) != glyph("e")
