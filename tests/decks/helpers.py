"""Small helpers for deck tests: distinct test pictures and folders of them."""

from __future__ import annotations

from pathlib import Path

from PIL import Image


def picture(index: int, size: tuple[int, int] = (60, 90)) -> Image.Image:
    """A small picture, different for every ``index``."""
    colour = ((40 + 37 * index) % 256, (200 - 23 * index) % 256, (90 + 51 * index) % 256)
    image = Image.new("RGB", size, colour)
    for i in range(min(size)):
        image.putpixel((i, (i * (index + 1)) % size[1]), (255 - colour[0], 0, 255 - colour[2]))
    return image


def write_folder(folder: Path, names: list[str], start: int = 0) -> list[Path]:
    """Write one distinct picture per name (format from the suffix) into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for offset, name in enumerate(names):
        path = folder / name
        image = picture(start + offset)
        if path.suffix == ".webp":
            image.save(path, lossless=True)
        else:
            image.save(path)
        paths.append(path)
    return paths


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under ``folder`` with its size and modification time."""
    return {
        str(path.relative_to(folder)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
    }
