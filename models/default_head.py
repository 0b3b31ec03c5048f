"""The alignment head of the default model (:mod:`models.default_model`) and its numpy math.

:class:`AlignmentHead` is the trained part (plain numpy, saved as ``.npz``, no pickle); the
functions compute an image's embedding from the frozen image tower's features and ImageNet logits:
the trained path (standardise, optional hidden layer, linear map), its pull towards object names,
the gate by feature distance, and the ImageNet zero-shot path. The formula is in
:mod:`models.default_model`'s docstring. Of third-party libraries, this module imports numpy
only. The family's heads (:mod:`models.family`) are :class:`AlignmentHead` too.
"""

from __future__ import annotations

import io
import json
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.base import EmbedderLoadError

#: Widths of the default model's towers, which the committed head's shapes follow: the image
#: tower's pooled feature, the text space, the ImageNet classes.
FEATURE_DIM = 1280
TEXT_DIM = 384
N_CLASSES = 1000

HEAD_FORMAT = "dixit-ai default head v1"

#: What reading a damaged or foreign head file raises (numpy, zipfile, json, the conversions).
_UNREADABLE = (OSError, ValueError, KeyError, EOFError, TypeError, AttributeError,
               zipfile.BadZipFile, zlib.error)


@dataclass(frozen=True)
class AlignmentHead:
    """The trained part of the default model (plain numpy; saved as ``.npz``).

    Attributes:
        weight: ``(384, 1280)`` linear map from standardised image features to the text space.
        bias: ``(384,)``.
        feature_mean: ``(1280,)`` mean of the training features.
        feature_std: ``(1280,)`` standard deviation of the training features.
        class_embeddings: ``(1000, 384)`` MiniLM embeddings of the ImageNet class names.
        blend: Weight of the zero-shot path in the final embedding.
        zero_shot_temperature: Temperature of the softmax over ImageNet logits.
        metadata: Training record: data, seeds, figures (JSON-compatible).
        hidden_weight: ``(h, 1280)`` first layer of a two-layer head (``weight`` is then
            ``(384, h)``), or ``None`` for a linear head.
        hidden_bias: ``(h,)``, or ``None``.
        gate_low: Feature distance (root-mean-square of the standardised feature) up to which
            the trained path has full weight; ``inf``: no gate.
        gate_high: Distance from which the trained path has no weight (the embedding is then
            the ImageNet zero-shot one); the weight falls linearly in between.
        name_embeddings: ``(k, 384)`` MiniLM embeddings of the training cards' object names, or
            ``None``; the trained path is pulled towards the names it is near (see
            :func:`snap_to_names`).
        snap_weight: Weight of that pull (0: none).
        snap_scale: Inverse temperature of the softmax over the names.
    """

    weight: np.ndarray
    bias: np.ndarray
    feature_mean: np.ndarray
    feature_std: np.ndarray
    class_embeddings: np.ndarray
    blend: float
    zero_shot_temperature: float
    metadata: dict[str, Any]
    hidden_weight: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None
    gate_low: float = float("inf")
    gate_high: float = float("inf")
    name_embeddings: np.ndarray | None = None
    snap_weight: float = 0.0
    snap_scale: float = 30.0

    def save(self, path: str | Path) -> None:
        """Write the head as a compressed ``.npz`` (float16 matrices, float32 vectors), atomically:
        an interrupted write leaves the file that was there (:func:`write_head_file`).

        Raises:
            ValueError: A part of the head is not finite (see :meth:`to_arrays`); the message
                names the file, which is left as it was.
        """
        try:
            arrays = self.to_arrays(dict(self.metadata, format=HEAD_FORMAT))
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
        write_head_file(path, arrays)

    def to_arrays(self, metadata: dict[str, Any]) -> dict[str, Any]:
        """The named arrays of a head file (float16 matrices, float32 vectors, ``metadata`` as
        JSON bytes; optional parts only when present), as :meth:`from_arrays` reads them.

        Raises:
            ValueError: A part holds NaN or infinity (as stored: a weight beyond float16's range
                is infinite), which would make every embedding NaN; the message names the parts.
                Only the gate may be infinite (no gate).
        """
        with np.errstate(over="ignore"):  # a weight beyond float16 is infinite: refused below
            arrays = self._arrays(metadata)
        bad = non_finite_parts(arrays)
        if bad:
            raise ValueError(f"refusing to write a head whose {', '.join(bad)} "
                             f"{'holds' if len(bad) == 1 else 'hold'} NaN or infinity (it would "
                             "embed every image as NaN); nothing was written")
        return arrays

    def _arrays(self, metadata: dict[str, Any]) -> dict[str, Any]:
        arrays: dict[str, Any] = {
            "weight": self.weight.astype(np.float16),
            "bias": self.bias.astype(np.float32),
            "feature_mean": self.feature_mean.astype(np.float32),
            "feature_std": self.feature_std.astype(np.float32),
            "class_embeddings": self.class_embeddings.astype(np.float16),
            "blend": np.float32(self.blend),
            "zero_shot_temperature": np.float32(self.zero_shot_temperature),
            "gate": np.array([self.gate_low, self.gate_high], dtype=np.float32),
            "snap": np.array([self.snap_weight, self.snap_scale], dtype=np.float32),
            "metadata": np.frombuffer(json.dumps(metadata, sort_keys=True).encode(),
                                      dtype=np.uint8),
        }
        if self.name_embeddings is not None:
            arrays["name_embeddings"] = self.name_embeddings.astype(np.float16)
        if self.hidden_weight is not None and self.hidden_bias is not None:
            arrays["hidden_weight"] = self.hidden_weight.astype(np.float16)
            arrays["hidden_bias"] = self.hidden_bias.astype(np.float32)
        return arrays

    @classmethod
    def from_arrays(cls, data: Any, metadata: dict[str, Any]) -> AlignmentHead:
        """A head from the arrays of a head file (an ``np.load`` mapping); optional parts a
        file lacks (hidden layer, names, gate, snap) get their neutral values. Shapes are the
        caller's to check: the default model's and the family's towers differ."""
        def optional(key: str) -> np.ndarray | None:
            return data[key].astype(np.float32) if key in data else None

        return cls(
            weight=data["weight"].astype(np.float32),
            bias=data["bias"].astype(np.float32),
            feature_mean=data["feature_mean"].astype(np.float32),
            feature_std=data["feature_std"].astype(np.float32),
            class_embeddings=data["class_embeddings"].astype(np.float32),
            blend=float(data["blend"]),
            zero_shot_temperature=float(data["zero_shot_temperature"]),
            metadata=metadata,
            hidden_weight=optional("hidden_weight"),
            hidden_bias=optional("hidden_bias"),
            gate_low=float(data["gate"][0]) if "gate" in data else float("inf"),
            gate_high=float(data["gate"][1]) if "gate" in data else float("inf"),
            name_embeddings=optional("name_embeddings"),
            snap_weight=float(data["snap"][0]) if "snap" in data else 0.0,
            snap_scale=float(data["snap"][1]) if "snap" in data else 30.0,
        )

    @classmethod
    def load(cls, path: str | Path) -> AlignmentHead:
        """Read a head written by :meth:`save` (no pickle is involved); the shipped head is
        checked against its pinned SHA-256 (:func:`read_head_file`).

        Raises:
            WeightsChecksumError: The shipped head differs from its pin.
            EmbedderLoadError: The file is missing, unreadable (truncated, empty, not an
                ``.npz``, pickled arrays), not a default head, or of the wrong shapes.
        """
        path = Path(path)
        if not path.is_file():
            raise EmbedderLoadError(
                f"the default model's head {path} is missing; it ships with dixit-ai "
                "(reinstall it) or is written by scripts/train_default_model.py"
            )
        head = read_head_file(path, HEAD_FORMAT)
        inner = FEATURE_DIM if head.hidden_weight is None else head.hidden_weight.shape[0]
        shapes_ok = head.weight.shape == (TEXT_DIM, inner) and head.class_embeddings.shape == (
            N_CLASSES,
            TEXT_DIM,
        )
        if head.hidden_weight is not None:
            shapes_ok = shapes_ok and head.hidden_weight.shape == (inner, FEATURE_DIM)
        if not shapes_ok:
            raise EmbedderLoadError(f"{path}: unexpected head shapes {head.weight.shape}")
        return head

    def apply(self, features: np.ndarray, logits: np.ndarray) -> np.ndarray:
        """Image embeddings (normalised, ``(n, 384)``) from tower features and logits."""
        return embed_from_features(
            features,
            logits,
            weight=self.weight,
            bias=self.bias,
            feature_mean=self.feature_mean,
            feature_std=self.feature_std,
            class_embeddings=self.class_embeddings,
            blend=self.blend,
            temperature=self.zero_shot_temperature,
            hidden_weight=self.hidden_weight,
            hidden_bias=self.hidden_bias,
            gate_low=self.gate_low,
            gate_high=self.gate_high,
            name_embeddings=self.name_embeddings,
            snap_weight=self.snap_weight,
            snap_scale=self.snap_scale,
        )


def write_head_file(path: str | Path, arrays: dict[str, Any]) -> None:
    """Write a head's arrays as a compressed ``.npz`` atomically (built in memory, then a
    temporary file in the same folder, synced, moved into place), so that an interrupted
    ``--write-head`` leaves the committed head whole."""
    from dixit_ai.decks.cache import write_atomically

    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    write_atomically(Path(path), buffer.getvalue())


def _why_unreadable(error: BaseException) -> str:
    text = str(error)
    # numpy's advice to load such a file unsafely (allow_pickle=) is not passed on
    if "object arrays" in text.lower():
        return "it holds object arrays (pickled data), which dixit-ai never loads"
    if "pickle" in text.lower():
        return "it is not an .npz archive (and dixit-ai never unpickles a file)"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def read_head_file(path: str | Path, expected_format: str) -> AlignmentHead:
    """The head in ``path`` if it is a readable head file of ``expected_format`` (its shapes
    are the caller's to check).

    A shipped head (one of ``models/weights/``) is checked against its pinned SHA-256 first
    (:func:`models.weight_files.read_head_bytes`); a head of the user's own is not pinned.

    Raises:
        WeightsChecksumError: A shipped head differs from its pin (the file and both digests
            are named).
        EmbedderLoadError: One line naming the file: it cannot be read (truncated, empty, not an
            ``.npz``, a missing array, pickled arrays, bad metadata), or it is of another format.
    """
    from models.weight_files import read_head_bytes

    path = Path(path)
    try:
        # read once: a shipped head's bytes are checked against its pin (a mismatch raises
        # WeightsChecksumError, naming both digests), and what is parsed is what was checked
        raw = read_head_bytes(path)
    except OSError as error:
        raise EmbedderLoadError(
            f"{path} is not a readable dixit-ai head file: {_why_unreadable(error)}") from None
    try:
        loaded = np.load(io.BytesIO(raw), allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise ValueError("it is a single array, not an .npz archive")
        with loaded as data:
            arrays = {key: data[key] for key in data.files}  # read whole: CRC errors show here
        meta = json.loads(bytes(arrays["metadata"]).decode())
        if not isinstance(meta, dict):
            raise ValueError("its metadata is not a JSON object")
    except _UNREADABLE as error:
        raise EmbedderLoadError(
            f"{path} is not a readable dixit-ai head file: {_why_unreadable(error)}") from None
    if meta.get("format") != expected_format:
        raise EmbedderLoadError(f"{path} is not a {expected_format!r} file")
    bad = non_finite_parts(arrays)
    if bad:
        raise EmbedderLoadError(
            f"{path} is not a usable dixit-ai head file: its {', '.join(bad)} "
            f"{'holds' if len(bad) == 1 else 'hold'} NaN or infinity (every embedding would be "
            "NaN); train the head again")
    try:
        return AlignmentHead.from_arrays(arrays, meta)
    except _UNREADABLE as error:
        raise EmbedderLoadError(
            f"{path} is not a readable dixit-ai head file: {_why_unreadable(error)}") from None


def non_finite_parts(arrays: dict[str, Any]) -> list[str]:
    """The names of a head file's numeric arrays that hold NaN or infinity (the ``gate`` may be
    infinite, meaning no gate, but not NaN); ``metadata`` and non-float arrays are skipped."""
    bad: list[str] = []
    for key, value in arrays.items():
        if key == "metadata":
            continue
        array = np.asarray(value)
        if not np.issubdtype(array.dtype, np.floating):
            continue
        if key == "gate" and not np.isnan(array).any():
            continue
        if not np.isfinite(array).all():
            bad.append(key)
    return bad


def feature_distance(
    features: np.ndarray, feature_mean: np.ndarray, feature_std: np.ndarray
) -> np.ndarray:
    """Root-mean-square of the standardised features: about 1 on cards like the training ones,
    several times more on photographs (what the gate of the trained path reads)."""
    standardised = (features - feature_mean) / feature_std
    return np.sqrt((standardised**2).mean(axis=1))


def gate_weights(distance: np.ndarray, low: float, high: float) -> np.ndarray:
    """Weight of the trained path: 1 up to ``low``, 0 from ``high``, linear in between."""
    if not np.isfinite(low):
        return np.ones_like(distance, dtype=np.float32)
    return np.clip((high - distance) / max(high - low, 1e-6), 0.0, 1.0).astype(np.float32)


def snap_to_names(
    aligned: np.ndarray, names: np.ndarray, weight: float, scale: float
) -> np.ndarray:
    """``normalise(aligned + weight * normalise(softmax(scale * aligned @ names.T) @ names))``:
    pulls unit vectors towards the object names they are near (names lie near what people
    associate with them, which the image features alone barely encode)."""
    logits = scale * aligned @ names.T
    logits -= logits.max(axis=1, keepdims=True)
    probabilities = np.exp(logits)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    snapped = probabilities @ names
    snapped /= np.maximum(np.linalg.norm(snapped, axis=1, keepdims=True), 1e-12)
    mixed = aligned + weight * snapped
    return mixed / np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU, tanh approximation (as ``torch.nn.GELU(approximate="tanh")``)."""
    return 0.5 * x * (1.0 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


def zero_shot_embeddings(
    logits: np.ndarray, class_embeddings: np.ndarray, temperature: float = 1.0
) -> np.ndarray:
    """ImageNet zero-shot: class probabilities times class-name embeddings, normalised."""
    scaled = logits / max(temperature, 1e-6)
    scaled = scaled - scaled.max(axis=1, keepdims=True)
    probabilities = np.exp(scaled)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    mixed = probabilities @ class_embeddings
    return mixed / np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)


def embed_from_features(
    features: np.ndarray,
    logits: np.ndarray,
    *,
    weight: np.ndarray,
    bias: np.ndarray,
    feature_mean: np.ndarray,
    feature_std: np.ndarray,
    class_embeddings: np.ndarray,
    blend: float,
    temperature: float,
    hidden_weight: np.ndarray | None = None,
    hidden_bias: np.ndarray | None = None,
    gate_low: float = float("inf"),
    gate_high: float = float("inf"),
    name_embeddings: np.ndarray | None = None,
    snap_weight: float = 0.0,
    snap_scale: float = 30.0,
) -> np.ndarray:
    """The default model's image embedding (see :mod:`models.default_model`'s docstring),
    in numpy."""
    standardised = (features - feature_mean) / feature_std
    if hidden_weight is not None and hidden_bias is not None:
        standardised = gelu(standardised @ hidden_weight.T + hidden_bias)
    aligned = standardised @ weight.T + bias
    aligned /= np.maximum(np.linalg.norm(aligned, axis=1, keepdims=True), 1e-12)
    if name_embeddings is not None and snap_weight > 0:
        aligned = snap_to_names(aligned, name_embeddings, snap_weight, snap_scale)
    gate = gate_weights(feature_distance(features, feature_mean, feature_std), gate_low, gate_high)
    mixed = gate[:, None] * aligned + blend * zero_shot_embeddings(
        logits, class_embeddings, temperature
    )
    return (mixed / np.maximum(np.linalg.norm(mixed, axis=1, keepdims=True), 1e-12)).astype(
        np.float32
    )
