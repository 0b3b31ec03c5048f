"""Folder decks: every image in a folder is a card.

``folder:PATH`` takes every PNG, JPEG and WebP file directly inside ``PATH`` (not in subfolders;
hidden files, whose names start with a dot, are skipped), sorted by name in natural order
(``card2.png`` before ``card10.png``). Card ids are the positions in that order, ``0`` to
``n - 1``: stable across runs as long as the folder's files do not change.

Optional files in the folder:

- ``captions.json``: an object mapping an image's file name to one caption or a list of captions;
- ``descriptions.json``: an object mapping an image's file name to a JSON object (what
  ``dixit-ai deck export`` writes for generated decks);
- ``deck.json``: the deck's ``name``, ``license`` (or ``licence``) and ``attribution``.

Every image is checked when the deck is loaded, so that bad input fails early with an error
naming the file: unreadable or corrupt images, an empty folder, the same picture twice (by
content), an image name that is a broken link. A link to an image elsewhere is read as a card.
Nothing is ever written into the folder. A picture is decoded the first time its file's bytes are
seen; the content hash of what they decoded to is cached by the bytes' SHA-256 (under
``<cache root>/decks/pictures-KEY``, the key naming this decoding and Pillow's version), so that
loading the folder again reads and hashes its files without decoding them.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import warnings
from pathlib import Path
from typing import IO, Any

import PIL
from PIL import Image, ImageOps, UnidentifiedImageError

from dixit_ai.decks.base import CARD_SIZE, Deck, DeckError, check_size, fit_to_size
from dixit_ai.decks.base import image_content_hash as _content_hash
from dixit_ai.decks.cache import atomic_write_bytes, deck_cache_dir

#: File name suffixes (lower case) that a folder deck reads as cards.
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
#: The deck's own files in its folder (not cards).
DECK_FILES = ("captions.json", "descriptions.json", "deck.json")
#: Keys allowed in a folder's ``deck.json``.
DECK_JSON_KEYS = (
    "name", "license", "licence", "attribution", "description", "exported_from",
    "source_fingerprint",
)
_MAX_LISTED_ERRORS = 10


def _natural_key(path: Path) -> tuple[tuple[tuple[int, int | str], ...], str]:
    parts = re.split(r"(\d+)", path.name.lower())
    key = tuple((0, int(part)) if part.isdigit() else (1, part) for part in parts if part)
    return key, path.name


MAX_CARD_PIXELS = 2 * (Image.MAX_IMAGE_PIXELS or 89_478_485)
"""The most pixels a card's picture may have: Pillow's own limit against decompression bombs
(about 179 megapixels), which a phone's 100-megapixel photo is under, and a 200-megapixel one
over."""


def load_card_image(path: Path | IO[bytes]) -> Image.Image:
    """Read an image file as a card: EXIF orientation applied, transparency flattened on white.
    A picture of up to :data:`MAX_CARD_PIXELS` is read without Pillow's warning (a phone's
    photo is not an attack); a larger one is refused, saying how large it is.

    Raises:
        OSError, ValueError: the file cannot be read or decoded (Pillow's ``SyntaxError`` for a
            broken file structure comes as an ``OSError``), or the picture is too large.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as opened:
                opened.load()
                image = ImageOps.exif_transpose(opened)
    except SyntaxError as error:  # Pillow's word for a broken PNG chunk, among others
        raise OSError(f"corrupt image file: {error}") from error
    except Image.DecompressionBombError as error:   # Pillow names the picture's pixels
        found = re.search(r"\((\d+) pixels\)", str(error))
        size = f"{int(found.group(1)) / 1e6:.0f} megapixels" if found else "too many pixels"
        raise ValueError(f"the picture has {size}; a card may have at most "
                         f"{MAX_CARD_PIXELS / 1e6:.0f}: scale it down") from None
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    return image.convert("RGB")


PICTURES_FORMAT = 1
"""The version of what :func:`load_card_image` and the content hash make of a file's bytes: a
change to either bumps it, and the cached hashes of the old one are no longer read."""

_HEX64 = re.compile(r"[0-9a-f]{64}")


def _pictures_dir() -> Path:
    """The cache of decoded pictures' content hashes, one file per file content."""
    key = hashlib.sha256(f"{PICTURES_FORMAT} pillow {PIL.__version__}".encode()).hexdigest()
    return deck_cache_dir() / f"pictures-{key[:16]}"


def picture_hash(path: Path) -> str:
    """The content hash of the card picture in ``path``: read from the cache when these bytes
    were decoded before, else decoded (and cached). The bytes are read once, so the hash cached
    is always that of the bytes it is filed under.

    Raises:
        OSError, ValueError: as :func:`load_card_image`.
    """
    data = path.read_bytes()
    entry = _pictures_dir() / hashlib.sha256(data).hexdigest()
    try:
        cached = entry.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        cached = ""
    if _HEX64.fullmatch(cached):
        return cached
    try:
        image = load_card_image(io.BytesIO(data))
    except UnidentifiedImageError:  # Pillow names what it read: a buffer here, not the file
        raise UnidentifiedImageError(f"cannot identify image file {str(path)!r}") from None
    digest = _content_hash(image)
    atomic_write_bytes(entry, digest.encode("ascii") + b"\n")
    return digest


class FolderDeck(Deck):
    """A deck made of the image files in a folder.

    Args:
        path: The folder (``~`` is expanded; relative paths are taken from the working folder).

    Raises:
        DeckError: The folder is missing or empty, an image is unreadable or corrupt, two images
            have the same content, or ``captions.json`` / ``descriptions.json`` / ``deck.json``
            is malformed. The message names the file.
    """

    def __init__(self, path: str | Path) -> None:
        folder = Path(path).expanduser()
        if not folder.exists():
            raise DeckError(f"folder deck: {folder} does not exist")
        if not folder.is_dir():
            raise DeckError(f"folder deck: {folder} is not a folder")
        folder = folder.resolve()
        entries = [entry for entry in folder.iterdir() if not entry.name.startswith(".")]
        named = [entry for entry in entries if entry.suffix.lower() in IMAGE_SUFFIXES]
        broken = sorted((entry for entry in named if entry.is_symlink() and not entry.exists()),
                        key=_natural_key)
        if broken:  # a card meant to be there: never dropped in silence
            listed = ", ".join(entry.name for entry in broken[:_MAX_LISTED_ERRORS])
            more = len(broken) - _MAX_LISTED_ERRORS
            raise DeckError(
                f"folder deck {folder}: broken link{'s' if len(broken) > 1 else ''} (the "
                f"file linked to does not exist): {listed}"
                + (f" and {more} more" if more > 0 else "")
            )
        files = sorted((entry for entry in named if entry.is_file()), key=_natural_key)
        if not files:
            raise DeckError(
                f"folder deck: {folder} has no image files (PNG, JPEG or WebP: "
                f"{', '.join(IMAGE_SUFFIXES)})"
            )
        self.folder = folder
        self.files = tuple(files)
        # What the folder holds besides its cards and the deck's own files (hidden ones
        # aside): another kind of picture (GIF, HEIC, TIFF), a subfolder, notes.
        kept = {entry.name for entry in files} | set(DECK_FILES)
        self.skipped = tuple(entry.name + ("/" if entry.is_dir() else "")
                             for entry in sorted(entries, key=_natural_key)
                             if entry.name not in kept)
        self._hashes = self._read_all()
        names = [file.name for file in files]
        self._captions = self._read_mapping("captions.json", names, _caption_list)
        self._descriptions = self._read_mapping("descriptions.json", names, _description)
        metadata = self._read_metadata()
        super().__init__(range(len(files)))
        self.name = metadata.get("name") or folder.name
        self.source = f"folder:{folder}"
        self.license = metadata.get("license") or "unknown"
        self.attribution = metadata.get("attribution") or ""

    # ---------------------------------------------------------------- loading

    def _read_all(self) -> tuple[str, ...]:
        errors: list[str] = []
        hashes: list[str] = []
        seen: dict[str, Path] = {}
        for file in self.files:
            try:
                digest = picture_hash(file)
            except (OSError, ValueError, UnidentifiedImageError, Image.DecompressionBombError) as e:
                errors.append(f"{file}: cannot read this image ({_reason(e)})")
                hashes.append("")
                continue
            if digest in seen:
                errors.append(
                    f"{file}: duplicate image, the same picture as {seen[digest].name}"
                )
            seen.setdefault(digest, file)
            hashes.append(digest)
        if errors:
            more = len(errors) - _MAX_LISTED_ERRORS
            listed = errors[:_MAX_LISTED_ERRORS] + ([f"... and {more} more"] if more > 0 else [])
            raise DeckError(f"folder deck {self.folder}: bad images:\n  " + "\n  ".join(listed))
        return tuple(hashes)

    def _read_json(self, file_name: str) -> Any | None:
        path = self.folder / file_name
        if not path.is_file():
            return None
        try:
            with open(path, encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, UnicodeDecodeError) as error:
            raise DeckError(f"{path}: cannot read this file ({_reason(error)})") from None
        except json.JSONDecodeError as error:
            raise DeckError(f"{path}: invalid JSON ({error})") from None

    def _read_mapping(
        self, file_name: str, names: list[str], convert: Any
    ) -> dict[int, Any]:
        document = self._read_json(file_name)
        if document is None:
            return {}
        path = self.folder / file_name
        if not isinstance(document, dict):
            raise DeckError(f"{path}: must be a JSON object mapping image file names to entries")
        index = {name: position for position, name in enumerate(names)}
        unknown = sorted(key for key in document if key not in index)
        if unknown:
            raise DeckError(
                f"{path}: names files that are not images of this deck: "
                + ", ".join(repr(name) for name in unknown[:_MAX_LISTED_ERRORS])
            )
        result: dict[int, Any] = {}
        for name, value in document.items():
            try:
                result[index[name]] = convert(value)
            except ValueError as error:
                raise DeckError(f"{path}: entry {name!r}: {error}") from None
        return result

    def _read_metadata(self) -> dict[str, str]:
        document = self._read_json("deck.json")
        if document is None:
            return {}
        path = self.folder / "deck.json"
        if not isinstance(document, dict):
            raise DeckError(f"{path}: must be a JSON object")
        unknown = sorted(set(document) - set(DECK_JSON_KEYS))
        if unknown:
            raise DeckError(
                f"{path}: unknown keys {', '.join(map(repr, unknown))}; "
                f"allowed: {', '.join(DECK_JSON_KEYS)}"
            )
        if "license" in document and "licence" in document:
            raise DeckError(f"{path}: give 'license' or 'licence', not both")
        for key, value in document.items():
            if not isinstance(value, str):
                raise DeckError(f"{path}: {key!r} must be a string, not {type(value).__name__}")
        metadata = dict(document)
        if "licence" in metadata:
            metadata["license"] = metadata.pop("licence")
        return metadata

    # ------------------------------------------------------------------ cards

    def path(self, card_id: int) -> Path:
        """The image file of a card."""
        return self.files[self._check_card(card_id)]

    def image(
        self, card_id: int, size: tuple[int, int] | None = CARD_SIZE
    ) -> Image.Image:
        """The card's image file, scaled to cover ``size`` and centre-cropped (``None``: as is).

        Raises:
            DeckError: the file cannot be read, or its picture is not the one the deck was
                loaded with (the file changed since: the deck's fingerprint, and every vector
                computed from it, are of the old picture).
        """
        path = self.path(card_id)
        try:
            image = load_card_image(path)
        except (OSError, ValueError) as error:
            raise DeckError(f"{path}: cannot read this image ({_reason(error)})") from None
        if _content_hash(image) != self._hashes[card_id]:
            raise DeckError(f"{path}: its picture changed since the deck was loaded (the deck's "
                            "fingerprint and its cards' vectors are of the old one): load the "
                            "deck again")
        return image if size is None else fit_to_size(image, check_size(size))

    def captions(self, card_id: int) -> list[str]:
        """Captions from the folder's ``captions.json`` (empty if it has none for this card)."""
        return list(self._captions.get(self._check_card(card_id), []))

    def description(self, card_id: int) -> dict[str, Any] | None:
        """The card's entry in the folder's ``descriptions.json``, or ``None``."""
        entry = self._descriptions.get(self._check_card(card_id))
        return json.loads(json.dumps(entry)) if entry is not None else None

    def card_name(self, card_id: int) -> str:
        """The card's file name."""
        return self.path(card_id).name

    def card_hash(self, card_id: int) -> str:
        """Content hash of the decoded image (computed when the deck was loaded)."""
        return self._hashes[self._check_card(card_id)]


def _caption_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return list(value)
    raise ValueError("a caption must be a string or a list of strings")


def _description(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    raise ValueError("a description must be a JSON object")


def _reason(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
