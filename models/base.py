"""The :class:`Embedder` interface that every image-text backend implements, and its errors.

An embedder maps card images and texts into one vector space. Both directions return
L2-normalised ``float32`` arrays of shape ``(n, dim)``, computed in batches (with a progress bar
when there are many), so that a dot product is a cosine similarity. Every embedder has a
*fingerprint*: a hash of its backend, architecture, weights and preprocessing, which the embedding
cache uses as part of its key.

Backends implement two hooks, :meth:`Embedder._encode_image_batch` and
:meth:`Embedder._encode_text_batch`; the base class does the batching, the progress bar, the
normalisation and the checks. This module needs numpy only; torch is imported by the backends.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import os
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from PIL import Image

from dixit_ai.reporting import progress_interval

#: Show a progress bar when an ``embed_*`` call holds more items than this (and stderr is a tty).
PROGRESS_MIN_ITEMS = 256

#: Where one-time steps (loading a model, embedding cards or clues) are logged, at INFO.
progress_log = logging.getLogger("models.progress")

_progress_sink: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "models_progress_sink", default=None)


@contextmanager
def progress_to(sink: Callable[[str], None] | None) -> Iterator[None]:
    """Send the progress lines of one-time steps made inside the block to ``sink`` as well.

    Lines always go to the ``models.progress`` logger (INFO); ``sink`` (a callable taking a
    ``str``, such as ``print``) receives them too. ``None`` leaves the current sink in place.
    The sink is per thread/task (a context variable).
    """
    if sink is None:
        yield
        return
    token = _progress_sink.set(sink)
    try:
        yield
    finally:
        _progress_sink.reset(token)


def report_progress(message: str) -> None:
    """Report one progress line (to the logger and to the sink of :func:`progress_to`)."""
    progress_log.info(message)
    sink = _progress_sink.get()
    if sink is not None:
        sink(message)


@contextmanager
def progress_step(what: str, *, quiet_under: float = 0.0) -> Iterator[None]:
    """Time a one-time step and report ``"<what> ... <seconds> s"`` when it ends, unless it
    took less than ``quiet_under`` seconds (then it goes to the logger at DEBUG only)."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    message = f"{what} ... {elapsed:.1f} s"
    if elapsed < quiet_under:
        progress_log.debug(message)
    else:
        report_progress(message)


class EmbedderError(ValueError):
    """An embedder name or option is invalid, or its model gives vectors it must not (of
    another shape, not finite)."""


class EmbedderLoadError(EmbedderError):
    """An embedder's weights could not be loaded.

    The message says which weights were looked for, where, and what to install or pass instead.
    """


class WeightsChecksumError(EmbedderLoadError):
    """A weight file's SHA-256 does not match the pinned value (a corrupted or changed file)."""


def fingerprint_of(parts: dict[str, Any]) -> str:
    """Hash a JSON-compatible description of an embedder into its fingerprint.

    Args:
        parts: Backend, architecture, weights hash, preprocessing, dtype, ... as plain data.

    Returns:
        A SHA-256 hex digest, prefixed with the backend name for readability
        (``"openclip-3f2a..."``).
    """
    document = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    digest = hashlib.sha256(document.encode("utf-8")).hexdigest()
    return f"{parts.get('backend', 'embedder')}-{digest[:40]}"


@contextmanager
def numpy_blas_threads(limit: int) -> Iterator[None]:
    """Limit the BLAS threads of numpy (not torch's) inside the block.

    The embedders mix torch forwards with small numpy products (heads, normalisation). Left at
    one thread per core, numpy's OpenBLAS threads keep spinning after each product, on the cores
    torch's next forward needs: at batch 1 that halved the default model's throughput. Inside
    ``embed_images`` / ``embed_texts`` numpy therefore runs single-threaded (its products there are
    small). Uses ``threadpoolctl`` (installed with the ``models`` extra); without it, a no-op.
    """
    controller = _blas_controller()
    if controller is None:
        yield
        return
    with controller.limit(limits=limit, user_api="blas"):
        yield


_blas_controllers: dict[int, Any] = {}


def _blas_controller() -> Any:
    """The BLAS libraries loaded in the process (torch's excepted), as one ``threadpoolctl``
    controller, or ``None``.

    Found again whenever modules were imported since the last call (an import such as
    ``scipy.linalg`` can load another BLAS, which must be limited too); otherwise reused, so
    that a decision pays no library scan (a scan costs about 0.3 ms).
    """
    loaded = len(sys.modules)
    if loaded not in _blas_controllers:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - the models extra installs it
            controller = None
        else:
            # Every BLAS but one shipped inside torch (torch's own threads are its business).
            controller = ThreadpoolController().select(user_api="blas")
            controller.lib_controllers = [
                lib for lib in controller.lib_controllers
                if f"{os.sep}torch{os.sep}" not in str(lib.filepath)]
            if not controller.lib_controllers:
                controller = None
        _blas_controllers.clear()
        _blas_controllers[len(sys.modules)] = controller
        return controller
    return _blas_controllers[loaded]


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Scale each row to unit length (rows of zeros stay zero); returns ``float32``."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)


def batches(n: int, batch_size: int) -> Iterator[slice]:
    """Slices ``[0, b), [b, 2b), ...`` covering ``range(n)``."""
    for start in range(0, n, batch_size):
        yield slice(start, min(n, start + batch_size))


class Embedder(ABC):
    """Maps images and texts to L2-normalised vectors in one space.

    Attributes:
        name: The name it was loaded by (``"default"``, ``"openclip:ViT-B-32@/path"``, ...).
        dim: The dimension of the vectors.
        fingerprint: Hash of backend, architecture, weights and preprocessing; two embedders with
            the same fingerprint give the same vectors.
        device: The torch device the model runs on (``"cpu"``, ``"cuda"``, ...).
        batch_size: How many items are encoded per forward pass.
        image_batch_size: How many images, if not ``batch_size`` (``None``: ``batch_size``).
        info: Plain-data description (backend, architecture, weights, preprocessing) for records.
    """

    name: str
    dim: int
    fingerprint: str
    device: str
    batch_size: int
    image_batch_size: int | None = None
    info: dict[str, Any]

    def embed_images(
        self,
        images: Sequence[Image.Image],
        *,
        batch_size: int | None = None,
        progress: bool | None = None,
    ) -> np.ndarray:
        """Embed images.

        Args:
            images: Pillow images, any mode and size (converted to RGB by the preprocessing).
            batch_size: Items per forward pass; defaults to the embedder's
                ``image_batch_size``, else its ``batch_size``.
            progress: Show a progress bar; ``None`` shows one for long calls on a terminal.

        Returns:
            ``float32`` array of shape ``(len(images), dim)``, rows of unit length.
        """
        images = list(images)
        for image in images:
            if not isinstance(image, Image.Image):
                raise TypeError(f"embed_images takes Pillow images, not {type(image).__name__}")
        return self._run(images, self._encode_image_batch, batch_size or self.image_batch_size,
                         progress, "images")

    def embed_texts(
        self,
        texts: Sequence[str],
        *,
        batch_size: int | None = None,
        progress: bool | None = None,
    ) -> np.ndarray:
        """Embed texts (clues, captions, words).

        Args:
            texts: Strings; an empty string is allowed.
            batch_size: Items per forward pass; defaults to the embedder's ``batch_size``.
            progress: Show a progress bar; ``None`` shows one for long calls on a terminal.

        Returns:
            ``float32`` array of shape ``(len(texts), dim)``, rows of unit length.
        """
        if isinstance(texts, str):
            raise TypeError("embed_texts takes a list of strings, not one string")
        texts = list(texts)
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"embed_texts takes strings, not {type(text).__name__}")
        return self._run(texts, self._encode_text_batch, batch_size, progress, "texts")

    def _run(
        self,
        items: list[Any],
        encode: Any,
        batch_size: int | None,
        progress: bool | None,
        what: str,
    ) -> np.ndarray:
        size = int(batch_size or self.batch_size)
        if size < 1:
            raise EmbedderError(f"batch_size must be at least 1, not {size}")
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        bar = None
        if progress or (progress is None and len(items) > PROGRESS_MIN_ITEMS):
            from tqdm.auto import tqdm

            bar = tqdm(
                total=len(items),
                desc=f"embedding {what}",
                unit=what[:-1] if what.endswith("s") else what,
                disable=None if progress is None else not progress,
                leave=False,
                mininterval=progress_interval(sys.stderr),
            )
        try:
            with numpy_blas_threads(1):
                for part in batches(len(items), size):
                    vectors = np.asarray(encode(items[part]), dtype=np.float32)
                    if vectors.shape != (part.stop - part.start, self.dim):
                        raise EmbedderError(
                            f"{self.name}: a batch of {part.stop - part.start} {what} gave "
                            f"vectors of shape {vectors.shape}, expected "
                            f"({part.stop - part.start}, {self.dim})"
                        )
                    out[part] = l2_normalise(vectors)
                    if bar is not None:
                        bar.update(part.stop - part.start)
        finally:
            if bar is not None:
                bar.close()
        return out

    def warm(self, kind: str) -> None:
        """Load what embedding ``kind`` (``"images"`` or ``"texts"``) needs, if not yet loaded.

        Backends that load their model lazily override it; the cache calls it before timing an
        embedding step, so that loading a model and embedding are reported apart.
        """
        del kind  # nothing to load: the model was loaded with the embedder

    @abstractmethod
    def _encode_image_batch(self, images: list[Image.Image]) -> np.ndarray:
        """Encode one batch of images into (not necessarily normalised) vectors."""

    @abstractmethod
    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        """Encode one batch of texts into (not necessarily normalised) vectors."""

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(name={self.name!r}, dim={self.dim}, device={self.device!r}, "
            f"fingerprint={self.fingerprint[:24]!r}...)"
        )
