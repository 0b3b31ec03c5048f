"""Writing a file so that a failure never leaves it half-written, and reading the files people
write (UTF-8 text, YAML settings) strictly, for every layer above the rules.

:func:`atomic_writer` is the one way the project replaces a file it may already hold (records,
reports, fits, caches): the bytes go to a temporary file in the same folder, which is flushed and
synced to disk, given the permissions a plain ``open(path, "w")`` would give (``0o666`` less the
process's umask; :func:`tempfile.mkstemp` alone makes it owner-only), and only then renamed over
``path`` (:func:`os.replace`, atomic on one file system). Anything that goes wrong inside the
block (an error, Ctrl-C, a full disk) removes the temporary file and leaves ``path`` as it was.
A ``path`` that is a symbolic link is written through: the file it points to is replaced and the
link kept, as ``open(path, "w")`` would do. A ``path`` that is not a regular file (a named pipe,
a device such as ``/dev/stdout``) is refused, never replaced.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any


def _file_mode() -> int:
    """``0o666`` less the umask, read once (reading it means setting it, which is not safe
    while other threads create files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_FILE_MODE = _file_mode()


@contextmanager
def atomic_writer(path: str | os.PathLike[str], mode: str = "w") -> Iterator[IO[Any]]:
    """A handle to write ``path`` in full; the file appears only when the block ends cleanly.

    Args:
        path: The file to write or replace (through a symbolic link, the file it points to);
            missing parent folders are created.
        mode: ``"w"`` (text, UTF-8, newlines as written) or ``"wb"`` (bytes).

    Raises:
        ValueError: Another mode.
        OSError: The folder or the file cannot be written, or ``path`` is not a regular file
            (nothing is changed).
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_writer writes whole files: mode 'w' or 'wb', not {mode!r}")
    target = Path(os.path.realpath(path))  # a link is written through, not replaced
    problem = not_a_regular_file(target)
    if problem:
        raise OSError(errno.EINVAL, f"{path}: {problem}; give the name of a file")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, _FILE_MODE)
        handle: IO[Any] = (os.fdopen(fd, "wb") if mode == "wb"
                           else os.fdopen(fd, "w", encoding="utf-8", newline=""))
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(name, target)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def not_a_regular_file(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` is when it exists and is neither a regular file nor a link to one (``"a
    named pipe"``, ``"a device"``, ...), which a file written whole must not replace; else
    ``None`` (a regular file, or nothing there yet)."""
    try:
        kind = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(kind):
        return None
    if stat.S_ISDIR(kind):
        return "a folder"
    if stat.S_ISFIFO(kind):
        return "a named pipe, not a regular file"
    if stat.S_ISCHR(kind) or stat.S_ISBLK(kind):
        return "a device, not a regular file"
    return "not a regular file"


def read_utf8(path: str | os.PathLike[str]) -> str:
    """The text of the file ``path``, read strictly as UTF-8.

    Raises:
        OSError: the file cannot be read.
        ValueError: it is not UTF-8 text; the message names the file and the first bad byte.
    """
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})"
                         ) from None


def read_yaml(path: str | os.PathLike[str]) -> Any:
    """The data of the YAML file ``path`` (settings people write: tournaments, agents, bench
    configs), read strictly: UTF-8 text, and a key given twice in one mapping is refused (YAML
    would keep the last silently, so ``players: 3`` then ``players: 4`` played 4).

    Raises:
        FileNotFoundError: no such file (the message names it).
        OSError: it cannot be read.
        ValueError: not UTF-8 text, not valid YAML, or a key given twice; the message names the
            file (and the line).
    """
    import importlib

    yaml = importlib.import_module("yaml")  # PyYAML, a core dependency, ships no type stubs
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    text = read_utf8(path)

    class StrictLoader(yaml.SafeLoader):  # type: ignore[misc,name-defined]
        """SafeLoader, refusing a key given twice in one mapping."""

    def mapping(loader: Any, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = loader.construct_object(key_node, deep=deep)
            try:
                line = seen.get(key)
            except TypeError:  # an unhashable key: SafeLoader refuses it below
                continue
            if line is not None:
                raise ValueError(f"{path}, line {key_node.start_mark.line + 1}: the key {key!r} "
                                 f"is given twice (first on line {line}); give it once")
            seen[key] = key_node.start_mark.line + 1
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    try:
        return yaml.load(text, Loader=StrictLoader)  # a SafeLoader: no object is built
    except yaml.YAMLError as error:
        raise ValueError(f"{path}: not valid YAML: {error}") from None
