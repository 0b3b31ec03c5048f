"""Image-text models for dixit-ai: embedders, the embedding cache, and the offline default model.

>>> import models
>>> embedder = models.load_embedder("default", device="cpu")  # doctest: +SKIP
>>> vectors = embedder.embed_texts(["whale", "a ship in a storm"])  # doctest: +SKIP
>>> vectors.shape, vectors.dtype  # doctest: +SKIP
((2, 384), dtype('float32'))

Backends are chosen by name (see :mod:`models.registry`): ``"default"`` (offline, built in),
``"openclip:ARCH@TAG"``, ``"openclip:ARCH@/path/to/checkpoint"``, ``"openclip:local-dir:/path"``,
``"hf:MODEL_ID_OR_DIR"``. Torch and the backends' libraries are imported only when an embedder is
loaded; they come with the ``models`` extra (``pip install 'dixit-ai[models]'``). The default
model is loaded lazily: ``load_embedder("default", device="cpu")`` needs no torch until something
must be embedded, and vectors that ship with the package (:mod:`models.shipped`) or sit in the
cache never need it. One-time steps (loading a model, embedding many items) report progress
lines to the ``models.progress`` logger and to :func:`progress_to`'s sink.
"""

from __future__ import annotations

from models.base import (
    Embedder,
    EmbedderError,
    EmbedderLoadError,
    WeightsChecksumError,
    l2_normalise,
    progress_to,
    report_progress,
)
from models.cache import (
    EmbeddingCache,
    default_cache,
    embed_deck,
    embed_images_cached,
    embed_texts_cached,
    embeddings_dir,
)
from models.registry import BACKENDS, load_embedder, loaded_embedders, split_name

__all__ = [
    "BACKENDS",
    "Embedder",
    "EmbedderError",
    "EmbedderLoadError",
    "EmbeddingCache",
    "WeightsChecksumError",
    "default_cache",
    "embed_deck",
    "embed_images_cached",
    "embed_texts_cached",
    "embeddings_dir",
    "l2_normalise",
    "load_embedder",
    "loaded_embedders",
    "progress_to",
    "report_progress",
    "split_name",
]
