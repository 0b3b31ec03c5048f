"""Image-text models for dixit-ai: embedders, the embedding cache, and the offline default model.

>>> import models
>>> embedder = models.load_embedder("default", device="cpu")  # doctest: +SKIP
>>> vectors = embedder.embed_texts(["whale", "a ship in a storm"])  # doctest: +SKIP
>>> vectors.shape, vectors.dtype  # doctest: +SKIP
((2, 384), dtype('float32'))

Backends are chosen by name (see :mod:`models.registry`): ``"default"`` (offline, built in),
``"openclip:ARCH@TAG"``, ``"openclip:ARCH@/path/to/checkpoint"``, ``"openclip:local-dir:/path"``,
``"hf:MODEL_ID_OR_DIR"``. Torch and the backends' libraries are imported only when an embedder is
loaded; they come with the ``models`` extra (``pip install 'dixit-ai[models]'``).
"""

from __future__ import annotations

from models.base import (
    Embedder,
    EmbedderError,
    EmbedderLoadError,
    WeightsChecksumError,
    l2_normalise,
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
    "split_name",
]
