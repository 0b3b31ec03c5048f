"""A phone's large photo is read as a card without Pillow's decompression-bomb warning (it
printed a warning with a site-packages path on every command), and one past Pillow's limit is
refused saying how large it is. Pillow's limit is lowered here, so the pictures stay small."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from PIL import Image

from dixit_ai.decks.folder import load_card_image


def test_large_pictures_are_read_quietly_and_larger_ones_refused_by_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)   # warns past 1000, refuses past 2000
    large, huge = tmp_path / "large.png", tmp_path / "huge.png"
    Image.new("RGB", (30, 50), "red").save(large)    # 1,500 pixels: Pillow would warn
    Image.new("RGB", (50, 60), "blue").save(huge)    # 3,000 pixels: Pillow refuses
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_card_image(large).size == (30, 50)
    with pytest.raises(ValueError, match=r"the picture has 0 megapixels; a card may have at "
                                         r"most 179: scale it down"):
        load_card_image(huge)
