"""The embedding cache's store on disk: shards of vectors per (embedder fingerprint, kind).

:class:`EmbeddingCache` reads and writes the vectors that :mod:`models.cache` keys by content
hash. The layout, under the project's cache root (``$DIXIT_AI_CACHE_DIR``, else
``$XDG_CACHE_HOME/dixit-ai``, else ``~/.cache/dixit-ai``)::

    embeddings/<fingerprint>/embedder.json          what the embedder is (name, backend, weights)
    embeddings/<fingerprint>/images/<shard>.npz     keys (hex) and float32 vectors
    embeddings/<fingerprint>/texts/<shard>.npz

Shards are written whole to a temporary file and moved into place (:func:`os.replace`), and never
changed afterwards, so any number of processes may read and write the same cache: a reader sees
a shard entirely or not at all. When a folder holds many shards, a writer merges them into one
(the merged shard is written before the old ones are removed; readers that miss a removed shard
rescan). A shard that cannot be read (truncated by a crash, a flipped byte) is skipped: its
vectors are computed again, and the next merge drops it.

:meth:`EmbeddingCache.locked` is the cross-process lock per (fingerprint, kind) (a ``flock`` on
``<fingerprint>/<kind>.lock``) under which :func:`models.cache.cached_vectors` computes what is
missing.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
import uuid
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.decks.cache import atomic_write_bytes, atomic_write_json, cache_root

__all__ = ["COMPACT_AFTER", "KINDS", "EmbeddingCache", "default_cache", "embeddings_dir"]

KINDS = ("images", "texts")
#: What reading a damaged shard raises (``np.load`` of a truncated ``.npz``, or one whose bytes
#: fail the zip's CRC check, raises :class:`zipfile.BadZipFile`).
_UNREADABLE = (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error)
#: Merge a folder's shards into one when it holds more than this many.
COMPACT_AFTER = 32


def embeddings_dir() -> Path:
    """``<cache root>/embeddings``."""
    return cache_root() / "embeddings"


@dataclass
class _Table:
    """Vectors of one (fingerprint, kind) this process has read, by width (a shard whose
    vectors have another width than the embedder's, written by another tool or by hand, is
    kept apart and never served for it), and their shards."""

    rows: dict[int, dict[str, np.ndarray]]
    shards: set[str]

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        """Remember ``vectors`` (one per key) under their width."""
        width = self.rows.setdefault(int(vectors.shape[1]), {})
        for key, vector in zip(keys, vectors, strict=True):
            width[key] = vector

    def found(self, keys: Sequence[str], dim: int | None) -> dict[str, np.ndarray]:
        """The vectors of ``keys`` it holds (of width ``dim``, when given; else of any width)."""
        widths = [self.rows.get(int(dim), {})] if dim is not None else list(self.rows.values())
        out: dict[str, np.ndarray] = {}
        for key in keys:
            for width in widths:
                if key in width:
                    out[key] = width[key]
                    break
        return out


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

    def lookup(self, fingerprint: str, kind: str, keys: Sequence[str],
               dim: int | None = None) -> dict[str, np.ndarray]:
        """The cached vectors among ``keys`` (missing keys are absent from the result).

        Args:
            dim: The width the vectors must have (the embedder's): a vector of another width
                (a foreign or hand-made shard) counts as missing, so it is computed again
                rather than served. ``None``: any width.
        """
        with self._lock:
            table = self._table(fingerprint, kind)
            found = table.found(keys, dim)
            if len(found) < len(set(keys)):
                self._refresh(fingerprint, kind, table)
                found = table.found(keys, dim)
            return found

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
            table.add(keys, vectors)
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
            # One merged shard per width (vectors of another width are kept apart, as read).
            merged = [(list(rows), np.stack(list(rows.values())))
                      for rows in table.rows.values() if rows]
        names: set[str] = set()
        for keys, vectors in merged:
            buffer = io.BytesIO()
            np.savez(buffer, keys=np.asarray(keys, dtype="<U64"), vectors=vectors)
            name = f"{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:8]}.npz"
            if not atomic_write_bytes(folder / name, buffer.getvalue()):
                return
            names.add(name)
        for shard in old:
            try:
                (folder / shard).unlink()
            except OSError:
                pass
        with self._lock:
            self._table(fingerprint, kind).shards = names

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
            table.add(keys.tolist(), vectors)
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
