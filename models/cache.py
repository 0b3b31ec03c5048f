"""The embedding cache: vectors on disk keyed by (embedder fingerprint, content hash).

A card image is embedded once per model, ever: its vector is stored under the embedder's
fingerprint and the SHA-256 of the image's pixels (:func:`dixit_ai.decks.base.image_content_hash`);
a text under the SHA-256 of its UTF-8 bytes. The layout, under the project's cache root
(``$DIXIT_AI_CACHE_DIR``, else ``$XDG_CACHE_HOME/dixit-ai``, else ``~/.cache/dixit-ai``)::

    embeddings/<fingerprint>/embedder.json          what the embedder is (name, backend, weights)
    embeddings/<fingerprint>/images/<shard>.npz     keys (hex) and float32 vectors
    embeddings/<fingerprint>/texts/<shard>.npz

Shards are written whole to a temporary file and moved into place (:func:`os.replace`), and never
changed afterwards, so any number of processes may read and write the same cache: a reader sees
a shard entirely or not at all. When a folder holds many shards, a writer merges them into one
(the merged shard is written before the old ones are removed; readers that miss a removed shard
rescan). A shard that cannot be read (truncated by a crash, a flipped byte) is skipped: its
vectors are computed again, and the next merge drops it.

Computing what is missing happens under a cross-process lock per (fingerprint, kind)
(:meth:`EmbeddingCache.locked`, a ``flock`` on ``<fingerprint>/<kind>.lock``): a process that
finds vectors missing takes the lock, looks again, and computes only what no other process wrote
meanwhile, so that N workers starting together embed each card once, not N times. Before the disk
cache is consulted for misses, :func:`cached_vectors` also reads the embeddings that ship with the
package (:mod:`models.shipped`), so the default model's vocabulary and dream deck cost nothing.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import threading
import time
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from dixit_ai.decks.base import CARD_SIZE, DeckError, fit_to_size, image_content_hash
from dixit_ai.decks.cache import atomic_write_bytes, atomic_write_json, cache_root
from models.base import Embedder, EmbedderError, l2_normalise, progress_step

KINDS = ("images", "texts")
#: What reading a damaged shard raises (``np.load`` of a truncated ``.npz``, or one whose bytes
#: fail the zip's CRC check, raises :class:`zipfile.BadZipFile`).
_UNREADABLE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error)
#: Merge a folder's shards into one when it holds more than this many.
COMPACT_AFTER = 32


def embeddings_dir() -> Path:
    """``<cache root>/embeddings``."""
    return cache_root() / "embeddings"


def text_key(text: str) -> str:
    """The cache key of a text: SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class _Table:
    """Vectors of one (fingerprint, kind) this process has read, and their shards."""

    rows: dict[str, np.ndarray]
    shards: set[str]


class EmbeddingCache:
    """Reads and writes cached vectors.

    Args:
        root: The folder holding one sub-folder per fingerprint; defaults to
            :func:`embeddings_dir` (evaluated when the cache is created).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else embeddings_dir()
        self._tables: dict[tuple[str, str], _Table] = {}
        self._lock = threading.Lock()
        self._compute_lock = threading.RLock()
        self._held = threading.local()

    def folder(self, fingerprint: str, kind: str) -> Path:
        """Where the shards of one fingerprint and kind live."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        if not fingerprint or "/" in fingerprint or fingerprint.startswith("."):
            raise ValueError(f"invalid fingerprint {fingerprint!r}")
        return self.root / fingerprint / kind

    def lookup(self, fingerprint: str, kind: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys`` (missing keys are absent from the result)."""
        with self._lock:
            table = self._table(fingerprint, kind)
            if any(key not in table.rows for key in keys):
                self._refresh(fingerprint, kind, table)
            return {key: table.rows[key] for key in keys if key in table.rows}

    def store(
        self,
        fingerprint: str,
        kind: str,
        keys: Sequence[str],
        vectors: np.ndarray,
        *,
        about: dict[str, Any] | None = None,
    ) -> bool:
        """Add vectors to the cache (one new shard); returns whether it was written."""
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys for {len(vectors)} vectors")
        if not len(keys):
            return True
        folder = self.folder(fingerprint, kind)
        if about is not None and not (folder.parent / "embedder.json").exists():
            atomic_write_json(folder.parent / "embedder.json", about)
        buffer = io.BytesIO()
        np.savez(buffer, keys=np.asarray(list(keys), dtype="<U64"), vectors=vectors)
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.npz"
        written = atomic_write_bytes(folder / name, buffer.getvalue())
        with self._lock:
            table = self._table(fingerprint, kind)
            for key, vector in zip(keys, vectors, strict=True):
                table.rows[key] = vector
            if written:
                table.shards.add(name)
        if written and len(list(folder.glob("*.npz"))) > COMPACT_AFTER:
            self.compact(fingerprint, kind)
        return written

    def compact(self, fingerprint: str, kind: str) -> None:
        """Merge the shards of one folder into one (safe alongside other processes)."""
        folder = self.folder(fingerprint, kind)
        with self._lock:
            table = self._table(fingerprint, kind)
            self._refresh(fingerprint, kind, table)
            old = sorted(p.name for p in folder.glob("*.npz"))
            if len(old) <= 1:
                return
            keys = list(table.rows)
            vectors = np.stack([table.rows[k] for k in keys])
        buffer = io.BytesIO()
        np.savez(buffer, keys=np.asarray(keys, dtype="<U64"), vectors=vectors)
        name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.npz"
        if not atomic_write_bytes(folder / name, buffer.getvalue()):
            return
        for shard in old:
            try:
                (folder / shard).unlink()
            except OSError:
                pass
        with self._lock:
            self._table(fingerprint, kind).shards = {name}

    @contextmanager
    def locked(self, fingerprint: str, kind: str) -> Iterator[None]:
        """Hold the cross-process lock of one fingerprint and kind (blocking).

        Works across threads and processes of one machine (an advisory ``flock``, or
        ``msvcrt.locking`` on Windows); where the cache folder cannot be written, it only
        serialises this process's threads.
        """
        folder = self.folder(fingerprint, kind)
        held = self._held.__dict__.setdefault("keys", set())
        with self._compute_lock:
            if (fingerprint, kind) in held:  # re-entered by this thread: it holds the file lock
                yield
                return
            try:
                folder.parent.mkdir(parents=True, exist_ok=True)
                handle = open(folder.parent / f"{kind}.lock", "a+b")
            except OSError:
                yield
                return
            try:
                _lock_file(handle)
                held.add((fingerprint, kind))
                try:
                    yield
                finally:
                    held.discard((fingerprint, kind))
                    _unlock_file(handle)
            finally:
                handle.close()

    def _table(self, fingerprint: str, kind: str) -> _Table:
        return self._tables.setdefault((fingerprint, kind), _Table({}, set()))

    def _refresh(self, fingerprint: str, kind: str, table: _Table) -> None:
        folder = self.folder(fingerprint, kind)
        try:
            names = sorted(p.name for p in folder.glob("*.npz"))
        except OSError:
            return
        for name in names:
            if name in table.shards:
                continue
            read = _read_shard(folder / name)
            if read is None:
                continue  # removed by a compaction, or unreadable: it will be recomputed
            keys, vectors = read
            for key, vector in zip(keys.tolist(), vectors, strict=True):
                table.rows[key] = vector
            table.shards.add(name)

    # ---------------------------------------------------------------- info and clearing

    def summary(self) -> list[dict[str, Any]]:
        """One entry per fingerprint: name, backend, number of vectors per kind, bytes on disk."""
        entries: list[dict[str, Any]] = []
        if not self.root.is_dir():
            return entries
        for folder in sorted(p for p in self.root.iterdir() if p.is_dir()):
            about: dict[str, Any] = {}
            try:
                about = json.loads((folder / "embedder.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                pass
            entry: dict[str, Any] = {
                "fingerprint": folder.name,
                "name": about.get("name", "?"),
                "backend": about.get("backend", "?"),
                "bytes": _folder_bytes(folder),
            }
            for kind in KINDS:
                count = 0
                for shard in (folder / kind).glob("*.npz"):
                    read = _read_shard(shard)
                    if read is not None:
                        count += len(read[0])
                entry[kind] = count
            entries.append(entry)
        return entries

    def clear(self, fingerprint: str | None = None) -> int:
        """Remove one fingerprint's vectors, or all of them; returns the bytes freed.

        Raises:
            OSError: Something could not be removed (the message names it; see :meth:`remove`).
        """
        freed, failures = self.remove(fingerprint)
        if failures:
            path, error = failures[0]
            more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
            raise OSError(f"could not remove {path}{more}: {error}; {freed} bytes were freed")
        return freed

    def remove(self, fingerprint: str | None = None) -> tuple[int, list[tuple[Path, OSError]]]:
        """Remove one fingerprint's vectors, or all of them, as far as possible: the bytes really
        freed, and what could not be removed with why
        (:func:`dixit_ai.decks.cache.remove_tree`)."""
        from dixit_ai.decks.cache import remove_tree

        target = self.root / fingerprint if fingerprint else self.root
        if fingerprint is not None:
            self.folder(fingerprint, "images")  # validates the fingerprint
        result = remove_tree(target)
        with self._lock:
            if fingerprint is None:
                self._tables.clear()
            else:
                for kind in KINDS:
                    self._tables.pop((fingerprint, kind), None)
        return result


def _read_shard(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """A shard's keys and vectors, or ``None`` when it is gone or damaged (truncated, a byte
    flipped, not an ``.npz``, arrays of the wrong kind): such a shard is skipped, its vectors
    are computed again, and the next compaction drops it."""
    try:
        with np.load(path, allow_pickle=False) as data:
            keys, vectors = data["keys"], data["vectors"]
    except _UNREADABLE:
        return None
    if keys.ndim != 1 or vectors.ndim != 2 or len(keys) != len(vectors):
        return None
    if not np.isfinite(vectors).all():  # never served: its vectors are computed again
        return None
    return keys, vectors


def _lock_file(handle: Any) -> None:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        handle.seek(0)
        while True:
            try:
                msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
                return
            except OSError:
                time.sleep(0.05)
    import fcntl

    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)


def _unlock_file(handle: Any) -> None:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _folder_bytes(folder: Path) -> int:
    total = 0
    for path in folder.rglob("*"):
        try:
            if path.is_file():
                total += path.stat().st_size
        except OSError:
            continue
    return total


_default_caches: dict[Path, EmbeddingCache] = {}


def default_cache() -> EmbeddingCache:
    """The process-wide cache for the current cache root (re-read from the environment)."""
    root = embeddings_dir()
    if root not in _default_caches:
        _default_caches[root] = EmbeddingCache(root)
    return _default_caches[root]


def _about(embedder: Embedder) -> dict[str, Any]:
    return {"name": embedder.name, "dim": embedder.dim, **embedder.info}


def cached_vectors(
    embedder: Embedder,
    kind: str,
    keys: Sequence[str],
    compute: Callable[[list[int]], np.ndarray],
    cache: EmbeddingCache | None = None,
    *,
    what: str | None = None,
    shipped: bool | None = None,
) -> np.ndarray:
    """Vectors for ``keys``, computing (``compute(missing_indices) -> vectors``) only the misses.

    Misses are computed under the cache's cross-process lock (:meth:`EmbeddingCache.locked`),
    after looking again, so concurrent processes compute each vector once. Computing is a
    one-time step reported as a progress line (``"embedding 84 cards ... 6.2 s"``, see
    :func:`models.base.progress_to`).

    Args:
        embedder: Gives the fingerprint and dimension.
        kind: ``"images"`` or ``"texts"``.
        keys: Content hashes, one per item.
        compute: Called once with the indices of the items not cached, in order (one index
            per distinct key: an item listed twice is computed once).
        cache: Defaults to :func:`default_cache`.
        what: What the items are, for the progress line (default: ``kind``).
        shipped: Also read the embeddings shipped with the package (:mod:`models.shipped`);
            ``None``: when ``cache`` is the default cache (an explicit cache stands alone).

    Returns:
        ``(len(keys), dim)`` float32, normalised rows.
    """
    if shipped is None:
        shipped = cache is None
    cache = cache or default_cache()
    out = np.empty((len(keys), embedder.dim), dtype=np.float32)
    found = _known(cache, embedder, kind, keys, shipped)
    missing = [i for i, key in enumerate(keys) if key not in found]
    if missing:
        with cache.locked(embedder.fingerprint, kind):
            found.update(cache.lookup(embedder.fingerprint, kind, [keys[i] for i in missing]))
            missing = [i for i in missing if keys[i] not in found]
            if missing:
                first: list[int] = []
                distinct: set[str] = set()
                for i in missing:
                    if keys[i] not in distinct:
                        distinct.add(keys[i])
                        first.append(i)
                warm = getattr(embedder, "warm", None)
                if warm is not None:
                    warm(kind)
                with progress_step(f"embedding {len(first)} {what or kind}"):
                    vectors = l2_normalise(compute(first))  # each distinct item once
                bad = ~np.isfinite(vectors).all(axis=1)
                if bad.any():  # a broken model: raised, never cached, never served
                    raise EmbedderError(
                        f"{embedder.fingerprint}: the embedding of {int(bad.sum())} of "
                        f"{len(first)} {what or kind} is not finite (NaN or infinity); nothing "
                        "was cached")
                unique = {keys[i]: vector for i, vector in zip(first, vectors, strict=True)}
                cache.store(embedder.fingerprint, kind, list(unique),
                            np.stack(list(unique.values())), about=_about(embedder))
                found.update(unique)
    for i, key in enumerate(keys):
        out[i] = found[key]
    return out


def _known(cache: EmbeddingCache, embedder: Embedder, kind: str, keys: Sequence[str],
           shipped: bool) -> dict[str, np.ndarray]:
    """Vectors of ``keys`` found in the shipped embeddings, then in the disk cache."""
    found: dict[str, np.ndarray] = {}
    if shipped:
        from models.shipped import shipped_vectors

        found = shipped_vectors(embedder.fingerprint, kind, keys)
    rest = [key for key in keys if key not in found]
    if rest:
        found.update(cache.lookup(embedder.fingerprint, kind, rest))
    return found


def known_texts(embedder: Embedder, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors of those ``texts`` that the shipped embeddings or the default cache already
    hold, by text (a lookup: nothing is embedded)."""
    keys = {text_key(t): t for t in texts}
    found = _known(default_cache(), embedder, "texts", list(keys), True)
    return {keys[k]: vector for k, vector in found.items()}


def embed_images_cached(
    embedder: Embedder,
    images: Sequence[Image.Image],
    *,
    keys: Sequence[str] | None = None,
    cache: EmbeddingCache | None = None,
    progress: bool | None = None,
) -> np.ndarray:
    """:meth:`Embedder.embed_images` through the cache.

    Args:
        embedder: Any embedder.
        images: Pillow images.
        keys: Their content hashes if known (else computed with ``image_content_hash``).
        cache: Defaults to :func:`default_cache`.
        progress: Progress bar for the misses (see :meth:`Embedder.embed_images`).
    """
    images = list(images)
    keys = list(keys) if keys is not None else [image_content_hash(im) for im in images]
    return cached_vectors(
        embedder,
        "images",
        keys,
        lambda idx: embedder.embed_images([images[i] for i in idx], progress=progress),
        cache,
        what="images",
    )


def embed_texts_cached(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    cache: EmbeddingCache | None = None,
    progress: bool | None = None,
    what: str = "texts",
) -> np.ndarray:
    """:meth:`Embedder.embed_texts` through the cache (clue vocabularies, captions).

    ``what`` names the texts in the progress line (``"clues"``, ``"captions"``).
    """
    texts = list(texts)
    return cached_vectors(
        embedder,
        "texts",
        [text_key(t) for t in texts],
        lambda idx: embedder.embed_texts([texts[i] for i in idx], progress=progress),
        cache,
        what=what,
    )


def embed_deck(
    embedder: Embedder,
    deck: Any,
    card_ids: Sequence[int] | None = None,
    *,
    cache: EmbeddingCache | None = None,
    progress: bool | None = None,
) -> np.ndarray:
    """Embeddings of a deck's cards (at the deck's own card size), through the cache.

    Cards are keyed by ``deck.card_hash(card_id)``, which decks remember on disk, so a warm call
    reads neither images nor the model: it is a lookup. A card that is embedded is read once and
    its pixels hashed again: a card whose picture is no longer the one hashed when the deck was
    loaded (its file replaced since) is a :class:`~dixit_ai.decks.base.DeckError` naming it,
    and nothing is cached. For a deck whose embeddings ship with the
    package (the default dream deck, drawn by the same renderer and libraries), the shipped card
    hashes are used, so that not even the images are drawn.

    Args:
        embedder: Any embedder.
        deck: A :class:`dixit_ai.decks.Deck`.
        card_ids: Which cards, in which order (default: all, in deck order).
        cache: Defaults to :func:`default_cache`.
        progress: Progress bar for the misses.

    Returns:
        ``(len(card_ids), dim)`` float32, normalised rows, in the order of ``card_ids``.

    Raises:
        DeckError: A card's image changed since the deck was loaded (see above).
    """
    ids = list(deck.card_ids if card_ids is None else card_ids)
    known = None
    if cache is None:
        from models.shipped import shipped_card_hashes

        known = shipped_card_hashes(embedder.fingerprint, deck)
    keys = ([known[int(card_id)] for card_id in ids] if known is not None
            else [deck.card_hash(card_id) for card_id in ids])
    return cached_vectors(
        embedder,
        "images",
        keys,
        lambda idx: embedder.embed_images([_card_as_hashed(deck, ids[i], keys[i]) for i in idx],
                                          progress=progress),
        cache,
        what="cards",
    )


def _card_as_hashed(deck: Any, card_id: int, key: str) -> Image.Image:
    """The card's image at the deck's card size, checked to be the picture ``key`` names.

    The image is read once, at its own size, and the hash is taken of the very pixels that are
    then embedded, so a vector is stored only under the hash of what was embedded: a card file
    replaced after the deck was loaded (whose hash was taken then) would otherwise be embedded
    and cached under the old picture's hash, and served for it to every later process.

    Raises:
        DeckError: The image is not the one hashed when the deck was loaded (nothing is
            embedded or cached).
    """
    image = deck.image(card_id, None)
    if image_content_hash(image) != key:
        name = deck.card_name(card_id) if hasattr(deck, "card_name") else ""
        where = getattr(deck, "source", None) or getattr(deck, "name", "the deck")
        raise DeckError(
            f"{where}: card {card_id}{f' ({name})' if name else ''} changed since the deck "
            "was loaded (its picture is no longer the one hashed then); load the deck again. "
            "Nothing was embedded or cached")
    return fit_to_size(image, CARD_SIZE)
