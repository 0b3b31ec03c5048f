"""Where dixit-ai keeps its on-disk caches, and atomic writes into them.

The cache root is, in order of precedence:

1. ``$DIXIT_AI_CACHE_DIR`` if set and non-empty;
2. ``$XDG_CACHE_HOME/dixit-ai`` if ``XDG_CACHE_HOME`` is set and non-empty;
3. ``~/.cache/dixit-ai``.

Decks keep their files under ``<root>/decks`` (so by default ``~/.cache/dixit-ai/decks``).
Every write goes to a temporary file in the target folder, synced to disk, and is then moved into
place with :func:`os.replace`, so concurrent processes never see a half-written file. If the cache
cannot be written (a read-only home, a full disk), dixit-ai warns once and carries on without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from pathlib import Path
from typing import Any

from dixit_ai.files import atomic_writer

CACHE_DIR_ENV = "DIXIT_AI_CACHE_DIR"

_warned = False


def cache_root() -> Path:
    """The root folder of dixit-ai's caches (see the module docstring for the precedence)."""
    return cache_root_chosen()[0]


def cache_root_chosen() -> tuple[Path, str]:
    """The root folder of dixit-ai's caches, and which setting chose it (for a message)."""
    explicit = os.environ.get(CACHE_DIR_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser(), f"${CACHE_DIR_ENV}"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    if xdg:
        return Path(xdg).expanduser() / "dixit-ai", f"$XDG_CACHE_HOME (no ${CACHE_DIR_ENV} is set)"
    return (Path.home() / ".cache" / "dixit-ai",
            f"the default, ~/.cache/dixit-ai (neither ${CACHE_DIR_ENV} nor $XDG_CACHE_HOME is "
            "set)")


def deck_cache_dir() -> Path:
    """The folder where decks cache rendered images and fingerprints: ``<cache root>/decks``."""
    return cache_root() / "decks"


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The hex SHA-256 of a file's bytes, read afresh in blocks (no memo).

    Raises:
        OSError: The file cannot be read.
    """
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, or raise: a temporary file in the same folder,
    flushed and synced to disk (:func:`os.fsync`) before :func:`os.replace` moves it into place,
    so that neither a killed process nor a power loss leaves a partial ``path``. The temporary
    file is removed when anything fails; missing parent folders are created.

    Raises:
        OSError: The folder or the file cannot be written.
    """
    with atomic_writer(path, "wb") as handle:
        handle.write(data)


def atomic_write_bytes(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically (:func:`write_atomically`: temporary file, fsync,
    then :func:`os.replace`), for caches: a failure is a warning, not an error.

    Args:
        path: The destination; missing parent folders are created.
        data: The bytes to write.

    Returns:
        ``True`` if the file was written; ``False`` if the cache is not writable (a warning is
        issued the first time).
    """
    try:
        write_atomically(path, data)
    except OSError as error:
        _warn_unwritable(path, error)
        return False
    return True


def atomic_write_json(path: Path, payload: Any) -> bool:
    """Write ``payload`` as JSON to ``path`` atomically; see :func:`atomic_write_bytes`."""
    data = json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return atomic_write_bytes(path, data + b"\n")


def read_json(path: Path) -> Any | None:
    """Read a JSON cache file; ``None`` if it is missing or unreadable (it will be rebuilt)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def remove_tree(path: Path) -> tuple[int, list[tuple[Path, OSError]]]:
    """Remove ``path`` and everything under it, as far as possible.

    Returns:
        The bytes really freed (the sizes of the files that were removed), and each file or
        folder that could not be removed with the error (a folder left only because something
        under it could not be removed is not listed again).
    """
    failures: list[tuple[Path, OSError]] = []
    freed = 0

    def unlink(item: Path) -> None:
        nonlocal freed
        try:
            size = item.lstat().st_size
            os.unlink(item)
        except FileNotFoundError:
            return
        except OSError as error:
            failures.append((item, error))
            return
        freed += size

    def rmdir(item: Path) -> None:
        try:
            os.rmdir(item)
        except FileNotFoundError:
            return
        except OSError as error:
            inside = str(item) + os.sep
            if not any(str(f).startswith(inside) for f, _ in failures):
                failures.append((item, error))

    if path.is_symlink() or path.is_file():
        unlink(path)
        return freed, failures
    if not path.is_dir():
        return 0, []

    def unreadable(error: OSError) -> None:
        failures.append((Path(error.filename or path), error))

    for folder, folders, files in os.walk(path, topdown=False, onerror=unreadable):
        for name in files:
            unlink(Path(folder) / name)
        for name in folders:
            item = Path(folder) / name
            if item.is_symlink():
                unlink(item)
            else:
                rmdir(item)
    rmdir(path)
    return freed, failures


CACHE_ENTRY = re.compile(r"\.?[A-Za-z0-9][A-Za-z0-9_.+-]*-[0-9a-f]{12,64}(\.lock)?|\..+\.tmp")
"""The names dixit-ai gives the entries of a cache part (``decks/``, ``embeddings/``,
``towers/``): a name ending in a hex key (``dream-seed0-2c0e...``, ``default-64db...``,
``all-mpnet-base-v2-eb8d...``), its lock file (``.NAME.lock``), or a staging file or folder
(``.NAME....tmp``)."""


def clear_part(folder: Path) -> tuple[int, list[tuple[Path, OSError]], list[Path]]:
    """Remove the cache entries in one part folder of the cache (see :data:`CACHE_ENTRY`), and
    the folder once it is empty; anything else in it is left where it is.

    The cache root is the user's to choose (``$DIXIT_AI_CACHE_DIR``): it may be a project
    folder with a ``decks/`` of the user's own, and emptying the cache must never remove it.

    Returns:
        The bytes freed, what could not be removed with why (:func:`remove_tree`), and the
        entries left because dixit-ai does not name its entries so.
    """
    if folder.is_symlink() or not folder.is_dir():
        return (0, [], [folder]) if folder.exists() or folder.is_symlink() else (0, [], [])
    freed, failures, left = 0, [], []
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        return 0, [(folder, error)], []
    for entry in entries:
        if not CACHE_ENTRY.fullmatch(entry.name):
            left.append(entry)
            continue
        size, failed = remove_tree(entry)
        freed += size
        failures += failed
    if not left and not failures:
        try:
            folder.rmdir()
        except FileNotFoundError:
            pass
        except OSError as error:
            failures.append((folder, error))
    return freed, failures, left


def _warn_unwritable(path: Path, error: OSError) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(
            f"dixit-ai cannot write its cache ({path}: {error}); carrying on without it. "
            f"Set {CACHE_DIR_ENV} to a writable folder to cache rendered decks.",
            RuntimeWarning,
            stacklevel=3,
        )
