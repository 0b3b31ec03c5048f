"""Embeddings that ship with the package: the default model's clue vocabulary and dream deck.

A fresh install would otherwise load torch and the default model and spend about 12 s embedding
the 84 cards and 3,527 clues before a CLIP bot's first move. These vectors are computed once,
by ``scripts/build_shipped_embeddings.py``, and stored (float16) under
``models/data/embeddings/<embedder fingerprint>/``::

    manifest.json   format, the embedder's fingerprint and description, one entry per file
                    (SHA-256, row count), and the decks whose card hashes are known
    texts.npz       keys: (n, 32) uint8 SHA-256 digests of the texts; vectors: (n, dim) float16
    images.npz      keys: (n, 32) uint8 content hashes of the card images; vectors: as above

The manifest and each file are verified when first read: the folder, the manifest and the
embedder asking must have the same fingerprint, and each file must hash to its recorded SHA-256;
a file that fails is not used (a :class:`ShippedEmbeddingsWarning` says so) and the vectors are
computed as if nothing shipped. A deck's card hashes are used in place of drawing its images only
when the deck is the same spec drawn by the same renderer and library versions (the
``environment`` of :mod:`dixit_ai.decks.dream`, which includes the renderer version) and the
hashes combine into the recorded deck fingerprint.

Vectors are stored as float16 and returned as float32, renormalised; that decisions are the same
as with float32 vectors is checked by ``scripts/build_shipped_embeddings.py`` (which records the
check in the manifest) and by ``tests/models/test_shipped.py``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.base import l2_normalise

FORMAT = "dixit-ai shipped embeddings v1"
SHIPPED_DIR = Path(__file__).resolve().parent / "data" / "embeddings"
"""Where the shipped embeddings live (one folder per embedder fingerprint)."""

_lock = threading.Lock()
_tables: dict[tuple[str, str], _ShippedTable | None] = {}
_manifests: dict[str, dict[str, Any] | None] = {}


class ShippedEmbeddingsWarning(UserWarning):
    """A shipped embedding file failed its check and is not used."""


@dataclass
class _ShippedTable:
    index: dict[str, int]
    vectors: np.ndarray  # float16


def _warn(message: str) -> None:
    warnings.warn(message, ShippedEmbeddingsWarning, stacklevel=4)


def manifest(fingerprint: str, root: Path | None = None) -> dict[str, Any] | None:
    """The verified manifest of one fingerprint's shipped embeddings, or ``None`` if none ship."""
    folder = (root or SHIPPED_DIR) / fingerprint
    cache_key = str(folder)
    with _lock:
        if cache_key in _manifests:
            return _manifests[cache_key]
        result: dict[str, Any] | None = None
        path = folder / "manifest.json"
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                _warn(f"{path}: unreadable ({error}); shipped embeddings not used")
                data = None
            if isinstance(data, dict):
                if data.get("format") != FORMAT or data.get("fingerprint") != fingerprint:
                    _warn(f"{path}: not a {FORMAT!r} manifest for {fingerprint}; not used")
                else:
                    result = data
        _manifests[cache_key] = result
        return result


def _table(fingerprint: str, kind: str, root: Path | None = None) -> _ShippedTable | None:
    folder = (root or SHIPPED_DIR) / fingerprint
    key = (str(folder), kind)
    with _lock:
        if key in _tables:
            return _tables[key]
    about = manifest(fingerprint, root)
    table = None
    entry = (about or {}).get("files", {}).get(kind)
    if entry is not None:
        path = folder / str(entry.get("file", ""))
        try:
            payload = path.read_bytes()
        except OSError as error:
            _warn(f"{path}: unreadable ({error}); shipped {kind} embeddings not used")
            payload = None
        if payload is not None and hashlib.sha256(payload).hexdigest() != entry.get("sha256"):
            _warn(f"{path}: SHA-256 differs from the manifest's; shipped {kind} embeddings "
                  "not used (reinstall dixit-ai)")
            payload = None
        if payload is not None:
            import io

            with np.load(io.BytesIO(payload), allow_pickle=False) as data:
                raw, vectors = data["keys"], data["vectors"]
            if raw.shape != (len(vectors), 32) or len(vectors) != entry.get("count"):
                _warn(f"{path}: unexpected shapes; shipped {kind} embeddings not used")
            else:
                index = {bytes(row).hex(): i for i, row in enumerate(raw)}
                table = _ShippedTable(index, vectors)
    with _lock:
        _tables[key] = table
    return table


def shipped_vectors(fingerprint: str, kind: str, keys: Sequence[str],
                    root: Path | None = None) -> dict[str, np.ndarray]:
    """The shipped vectors among ``keys`` (cache keys, as in :mod:`models.cache`), float32."""
    table = _table(fingerprint, kind, root)
    if table is None:
        return {}
    hits = [(key, table.index[key]) for key in keys if key in table.index]
    if not hits:
        return {}
    vectors = l2_normalise(table.vectors[[row for _, row in hits]].astype(np.float32))
    return {key: vector for (key, _), vector in zip(hits, vectors, strict=True)}


def shipped_card_hashes(fingerprint: str, deck: Any,
                        root: Path | None = None) -> dict[int, str] | None:
    """Card id -> content hash of ``deck``'s cards when its vectors ship (see the module
    docstring); ``None`` otherwise (the deck's own hashes must then be read or computed)."""
    about = manifest(fingerprint, root)
    if about is None or not about.get("decks"):
        return None
    source = getattr(deck, "source", None)
    if not isinstance(source, str) or not source.startswith("dream:"):
        return None
    from dixit_ai.decks.base import combine_card_hashes
    from dixit_ai.decks.dream import _environment

    environment = _environment()
    for entry in about["decks"]:
        if entry.get("source") != source or entry.get("environment") != environment:
            continue
        hashes = entry.get("card_hashes")
        if (not isinstance(hashes, list) or len(hashes) != len(deck.card_ids)
                or combine_card_hashes(hashes) != entry.get("fingerprint")):
            _warn(f"shipped card hashes of {source} do not match their deck fingerprint; "
                  "not used")
            return None
        return {int(card): str(h) for card, h in zip(deck.card_ids, hashes, strict=True)}
    return None


def deck_environment(deck: Any) -> dict[str, Any] | None:
    """What a dream deck's images depend on (renderer version, libraries), or ``None``."""
    source = getattr(deck, "source", None)
    if not isinstance(source, str) or not source.startswith("dream:"):
        return None
    from dixit_ai.decks.dream import _environment

    return dict(_environment())


def write_shipped(folder: Path, *, fingerprint: str, embedder: dict[str, Any],
                  texts: dict[str, np.ndarray], images: dict[str, np.ndarray],
                  decks: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> Path:
    """Write a shipped-embeddings folder (``scripts/build_shipped_embeddings.py`` calls it).

    Args:
        folder: ``SHIPPED_DIR / fingerprint`` (or a test folder).
        fingerprint: The embedder's fingerprint.
        embedder: Its description (name, dim, info).
        texts: Cache key (hex SHA-256 of the text) -> vector.
        images: Content hash -> vector.
        decks: ``{"source", "environment", "fingerprint", "card_hashes"}`` per deck.
        extra: More to record in the manifest (how it was built, the decision check).

    Returns:
        The manifest's path.
    """
    import io

    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, Any] = {}
    for kind, rows in (("texts", texts), ("images", images)):
        keys = sorted(rows)
        raw = np.frombuffer(b"".join(bytes.fromhex(k) for k in keys), dtype=np.uint8)
        vectors = np.stack([rows[k] for k in keys]).astype(np.float16)
        buffer = io.BytesIO()
        np.savez_compressed(buffer, keys=raw.reshape(len(keys), 32), vectors=vectors)
        payload = buffer.getvalue()
        (folder / f"{kind}.npz").write_bytes(payload)
        files[kind] = {"file": f"{kind}.npz", "sha256": hashlib.sha256(payload).hexdigest(),
                       "count": len(keys), "dtype": "float16"}
    about = {"format": FORMAT, "fingerprint": fingerprint, "embedder": embedder,
             "files": files, "decks": decks, **(extra or {})}
    path = folder / "manifest.json"
    path.write_text(json.dumps(about, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    forget()
    return path


def forget() -> None:
    """Drop what this process has read (tests, and after :func:`write_shipped`)."""
    with _lock:
        _tables.clear()
        _manifests.clear()
