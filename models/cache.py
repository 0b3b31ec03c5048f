"""The embedding cache: vectors on disk keyed by (embedder fingerprint, content hash).

A card image is embedded once per model, ever: its vector is stored under the embedder's
fingerprint and the SHA-256 of the image's pixels (:func:`dixit_ai.decks.base.image_content_hash`);
a text under the SHA-256 of its UTF-8 bytes. The store on disk (``embeddings/<fingerprint>/...``
under the project's cache root, shards written whole and merged, damaged ones skipped) is
:class:`EmbeddingCache`, in :mod:`models.cache_store`; this module embeds through it.

Computing what is missing happens under a cross-process lock per (fingerprint, kind)
(:meth:`EmbeddingCache.locked`, a ``flock`` on ``<fingerprint>/<kind>.lock``): a process that
finds vectors missing takes the lock, looks again, and computes only what no other process wrote
meanwhile, so that N workers starting together embed each card once, not N times. Before the disk
cache is consulted for misses, :func:`cached_vectors` also reads the embeddings that ship with the
package (:mod:`models.shipped`), so the default model's vocabulary and dream deck cost nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from PIL import Image

from dixit_ai.decks.base import CARD_SIZE, DeckError, fit_to_size, image_content_hash
from models.base import Embedder, EmbedderError, l2_normalise, progress_step
from models.cache_store import (
    COMPACT_AFTER,
    KINDS,
    EmbeddingCache,
    default_cache,
    embeddings_dir,
)

__all__ = [
    "COMPACT_AFTER",
    "KINDS",
    "EmbeddingCache",
    "cached_vectors",
    "default_cache",
    "embed_deck",
    "embed_images_cached",
    "embed_texts_cached",
    "embeddings_dir",
    "known_texts",
    "text_key",
]


SINGLE_ITEM_QUIET_S = 1.0
"""A single vector computed in less than this many seconds gets no progress line."""


def text_key(text: str) -> str:
    """The cache key of a text: SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _about(embedder: Embedder) -> dict[str, Any]:
    return {"name": embedder.name, "dim": embedder.dim, **embedder.info}


def cached_vectors(
    embedder: Embedder,
    kind: str,
    keys: Sequence[str],
    compute: Callable[[list[int]], np.ndarray],
    cache: EmbeddingCache | None = None,
    *,
    what: str | None = None,
    shipped: bool | None = None,
) -> np.ndarray:
    """Vectors for ``keys``, computing (``compute(missing_indices) -> vectors``) only the misses.

    Misses are computed under the cache's cross-process lock (:meth:`EmbeddingCache.locked`),
    after looking again, so concurrent processes compute each vector once. Computing is a
    one-time step reported as a progress line (``"embedding 84 cards with default ... 6.2 s"``, see
    :func:`models.base.progress_to`).

    Args:
        embedder: Gives the fingerprint and dimension.
        kind: ``"images"`` or ``"texts"``.
        keys: Content hashes, one per item.
        compute: Called once with the indices of the items not cached, in order (one index
            per distinct key: an item listed twice is computed once).
        cache: Defaults to :func:`default_cache`.
        what: What the items are, for the progress line (default: ``kind``).
        shipped: Also read the embeddings shipped with the package (:mod:`models.shipped`);
            ``None``: when ``cache`` is the default cache (an explicit cache stands alone).

    Returns:
        ``(len(keys), dim)`` float32, normalised rows.
    """
    if shipped is None:
        shipped = cache is None
    cache = cache or default_cache()
    out = np.empty((len(keys), embedder.dim), dtype=np.float32)
    found = _known(cache, embedder, kind, keys, shipped)
    missing = [i for i, key in enumerate(keys) if key not in found]
    if missing:
        with cache.locked(embedder.fingerprint, kind):
            found.update(cache.lookup(embedder.fingerprint, kind, [keys[i] for i in missing],
                                      dim=embedder.dim))
            missing = [i for i in missing if keys[i] not in found]
            if missing:
                first: list[int] = []
                distinct: set[str] = set()
                for i in missing:
                    if keys[i] not in distinct:
                        distinct.add(keys[i])
                        first.append(i)
                warm = getattr(embedder, "warm", None)
                if warm is not None:
                    warm(kind)
                # One item embedded in passing (a clue told in a game or a benchmark, one
                # at a time) is not a step worth a line of its own unless it is slow (the
                # model's first use).
                with progress_step(f"embedding {len(first)} {what or kind} with {embedder.name}",
                                   quiet_under=SINGLE_ITEM_QUIET_S if len(first) == 1 else 0.0):
                    vectors = l2_normalise(compute(first))  # each distinct item once
                bad = ~np.isfinite(vectors).all(axis=1)
                if bad.any():  # a broken model: raised, never cached, never served
                    raise EmbedderError(
                        f"{embedder.name} ({embedder.fingerprint}): the embedding of "
                        f"{int(bad.sum())} of "
                        f"{len(first)} {what or kind} is not finite (NaN or infinity); nothing "
                        "was cached")
                unique = {keys[i]: vector for i, vector in zip(first, vectors, strict=True)}
                cache.store(embedder.fingerprint, kind, list(unique),
                            np.stack(list(unique.values())), about=_about(embedder))
                found.update(unique)
    for i, key in enumerate(keys):
        out[i] = found[key]
    return out


def _known(cache: EmbeddingCache, embedder: Embedder, kind: str, keys: Sequence[str],
           shipped: bool) -> dict[str, np.ndarray]:
    """Vectors of ``keys`` found in the shipped embeddings, then in the disk cache."""
    found: dict[str, np.ndarray] = {}
    if shipped:
        from models.shipped import shipped_vectors

        found = shipped_vectors(embedder.fingerprint, kind, keys)
    rest = [key for key in keys if key not in found]
    if rest:
        found.update(cache.lookup(embedder.fingerprint, kind, rest, dim=embedder.dim))
    return found


def known_texts(embedder: Embedder, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The vectors of those ``texts`` that the shipped embeddings or the default cache already
    hold, by text (a lookup: nothing is embedded)."""
    keys = {text_key(t): t for t in texts}
    found = _known(default_cache(), embedder, "texts", list(keys), True)
    return {keys[k]: vector for k, vector in found.items()}


def embed_images_cached(
    embedder: Embedder,
    images: Sequence[Image.Image],
    *,
    keys: Sequence[str] | None = None,
    cache: EmbeddingCache | None = None,
    progress: bool | None = None,
) -> np.ndarray:
    """:meth:`Embedder.embed_images` through the cache.

    Args:
        embedder: Any embedder.
        images: Pillow images.
        keys: Their content hashes if known (else computed with ``image_content_hash``).
        cache: Defaults to :func:`default_cache`.
        progress: Progress bar for the misses (see :meth:`Embedder.embed_images`).
    """
    images = list(images)
    keys = list(keys) if keys is not None else [image_content_hash(im) for im in images]
    return cached_vectors(
        embedder,
        "images",
        keys,
        lambda idx: embedder.embed_images([images[i] for i in idx], progress=progress),
        cache,
        what="images",
    )


def embed_texts_cached(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    cache: EmbeddingCache | None = None,
    progress: bool | None = None,
    what: str = "texts",
) -> np.ndarray:
    """:meth:`Embedder.embed_texts` through the cache (clue vocabularies, captions).

    ``what`` names the texts in the progress line (``"clues"``, ``"captions"``).
    """
    texts = list(texts)
    return cached_vectors(
        embedder,
        "texts",
        [text_key(t) for t in texts],
        lambda idx: embedder.embed_texts([texts[i] for i in idx], progress=progress),
        cache,
        what=what,
    )


def embed_deck(
    embedder: Embedder,
    deck: Any,
    card_ids: Sequence[int] | None = None,
    *,
    cache: EmbeddingCache | None = None,
    progress: bool | None = None,
) -> np.ndarray:
    """Embeddings of a deck's cards (at the deck's own card size), through the cache.

    Cards are keyed by ``deck.card_hash(card_id)``, which decks remember on disk, so a warm call
    reads neither images nor the model: it is a lookup. A card that is embedded is read once and
    its pixels hashed again: a card whose picture is no longer the one hashed when the deck was
    loaded (its file replaced since) is a :class:`~dixit_ai.decks.base.DeckError` naming it,
    and nothing is cached. For a deck whose embeddings ship with the
    package (the default dream deck, drawn by the same renderer and libraries), the shipped card
    hashes are used, so that not even the images are drawn.

    Args:
        embedder: Any embedder.
        deck: A :class:`dixit_ai.decks.Deck`.
        card_ids: Which cards, in which order (default: all, in deck order).
        cache: Defaults to :func:`default_cache`.
        progress: Progress bar for the misses.

    Returns:
        ``(len(card_ids), dim)`` float32, normalised rows, in the order of ``card_ids``.

    Raises:
        DeckError: A card's image changed since the deck was loaded (see above).
    """
    ids = list(deck.card_ids if card_ids is None else card_ids)
    known = None
    if cache is None:
        from models.shipped import shipped_card_hashes

        known = shipped_card_hashes(embedder.fingerprint, deck)
    keys = ([known[int(card_id)] for card_id in ids] if known is not None
            else [deck.card_hash(card_id) for card_id in ids])
    return cached_vectors(
        embedder,
        "images",
        keys,
        lambda idx: embedder.embed_images([_card_as_hashed(deck, ids[i], keys[i]) for i in idx],
                                          progress=progress),
        cache,
        what="cards",
    )


def _card_as_hashed(deck: Any, card_id: int, key: str) -> Image.Image:
    """The card's image at the deck's card size, checked to be the picture ``key`` names.

    The image is read once, at its own size, and the hash is taken of the very pixels that are
    then embedded, so a vector is stored only under the hash of what was embedded: a card file
    replaced after the deck was loaded (whose hash was taken then) would otherwise be embedded
    and cached under the old picture's hash, and served for it to every later process.

    Raises:
        DeckError: The image is not the one hashed when the deck was loaded (nothing is
            embedded or cached).
    """
    image = deck.image(card_id, None)
    if image_content_hash(image) != key:
        name = deck.card_name(card_id) if hasattr(deck, "card_name") else ""
        where = getattr(deck, "source", None) or getattr(deck, "name", "the deck")
        raise DeckError(
            f"{where}: card {card_id}{f' ({name})' if name else ''} changed since the deck "
            "was loaded (its picture is no longer the one hashed then); load the deck again. "
            "Nothing was embedded or cached")
    return fit_to_size(image, CARD_SIZE)
