"""A PNG whose chunk structure is broken (Pillow raises ``SyntaxError`` for it, not ``OSError``)
is a bad image named in the folder deck's error, not a traceback."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest

from dixit_ai.decks import DeckError, load_deck
from tests.decks.helpers import picture, write_folder


def _png_with_a_broken_chunk() -> bytes:
    """A PNG whose image data is split over two IDAT chunks, the second one's type mangled."""
    buffer = io.BytesIO()
    picture(3).save(buffer, format="PNG")
    data = buffer.getvalue()
    chunks, position = [], 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        chunks.append((kind, data[position + 8 : position + 8 + length]))
        position += 12 + length

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body))

    out = data[:8]
    for kind, body in chunks:
        if kind == b"IDAT":
            half = len(body) // 2
            out += chunk(b"IDAT", body[:half]) + chunk(b"T\t\xe8\x99", body[half:])
        else:
            out += chunk(kind, body)
    return out


def test_a_png_with_a_broken_chunk_is_a_bad_image_naming_it(tmp_path: Path) -> None:
    write_folder(tmp_path, ["a.png"])
    (tmp_path / "b.png").write_bytes(_png_with_a_broken_chunk())
    with pytest.raises(DeckError, match=r"b\.png: cannot read this image"):
        load_deck(f"folder:{tmp_path}")
