"""Card and clue vectors for the environments: one table, loaded once, read by index.

A :class:`VectorTable` holds an embedder's unit vectors of a deck's cards and of a clue
vocabulary, the ``(cards, clues)`` similarity matrix and the per-clue statistics the fast
embedding opponents (:mod:`envs.policies`) read. It is loaded through a *string* entry point
(default :data:`DEFAULT_LOADER`, the players' :func:`models.players.resources.load_resources`),
so that importing :mod:`envs` never imports :mod:`models` or torch: the embedder is loaded, and
the deck and the vocabulary embedded through the on-disk embedding cache, only when an
environment asks for embeddings. Clues outside the vocabulary are embedded on first sight
(through the same cache) and remembered.

>>> table = VectorTable.random(range(10), ["sea", "fire", "night"], dim=8, seed=0)
>>> table.card_vectors.shape, table.clue_vector("fire").shape
((10, 8), (8,))
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]

DEFAULT_LOADER = "models.players.resources:load_resources"
"""The entry point that loads an embedder's vectors for a deck and a vocabulary."""


def _unit(vectors: npt.ArrayLike) -> Floats:
    array = np.asarray(vectors, dtype=np.float64)
    if array.ndim != 2 or not np.all(np.isfinite(array)):
        raise ValueError(f"vectors must be a finite 2-d array, not shape {array.shape}")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    unit: Floats = (array / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


class VectorTable:
    """Unit vectors of a deck's cards and of clue texts, looked up by card id and clue.

    Args:
        card_ids: The deck's card ids, in row order of ``card_vectors``.
        card_vectors: ``(n_cards, dim)``; rows are normalised here.
        clues: The clue vocabulary, in row order of ``clue_vectors``.
        clue_vectors: ``(n_clues, dim)``; rows are normalised here.
        embed_texts: Embeds clues outside the vocabulary (``(n, dim)`` unit rows); ``None``:
            such clues raise.
        fingerprint: What the vectors are (the embedder's fingerprint).

    Raises:
        ValueError: mismatched shapes, repeated ids or clues, or an empty vocabulary.
    """

    def __init__(
        self,
        card_ids: Iterable[int],
        card_vectors: npt.ArrayLike,
        clues: Iterable[str],
        clue_vectors: npt.ArrayLike,
        *,
        embed_texts: Callable[[list[str]], npt.ArrayLike] | None = None,
        fingerprint: str = "vectors",
    ) -> None:
        self.card_ids: tuple[int, ...] = tuple(int(c) for c in card_ids)
        self.card_vectors = _unit(card_vectors)
        self.clues: tuple[str, ...] = tuple(clues)
        self.clue_vectors = _unit(clue_vectors)
        if len(self.card_ids) != len(self.card_vectors):
            raise ValueError(f"{len(self.card_ids)} card ids but {len(self.card_vectors)} "
                             f"card vectors")
        if not self.clues or len(self.clues) != len(self.clue_vectors):
            raise ValueError(f"{len(self.clues)} clues but {len(self.clue_vectors)} clue vectors "
                             f"(at least one clue is needed)")
        if self.card_vectors.shape[1] != self.clue_vectors.shape[1]:
            raise ValueError(f"card vectors have dimension {self.card_vectors.shape[1]}, clue "
                             f"vectors {self.clue_vectors.shape[1]}")
        if len(set(self.card_ids)) != len(self.card_ids) or len(set(self.clues)) != len(
                self.clues):
            raise ValueError("card ids and clues must be unique")
        self.embed_texts = embed_texts
        self.fingerprint = fingerprint
        self.row: dict[int, int] = {card: i for i, card in enumerate(self.card_ids)}
        self.clue_row: dict[str, int] = {clue: i for i, clue in enumerate(self.clues)}
        self._extra: dict[str, Floats] = {}
        self._card_clue: Floats | None = None
        self._clue_stats: tuple[Floats, Floats] | None = None

    @property
    def dim(self) -> int:
        """The vector dimension."""
        return int(self.card_vectors.shape[1])

    def rows(self, cards: Sequence[int]) -> npt.NDArray[np.intp]:
        """Row indices of ``cards``.

        Raises:
            ValueError: a card is not in the table's deck.
        """
        try:
            return np.fromiter((self.row[c] for c in cards), dtype=np.intp, count=len(cards))
        except KeyError as error:
            raise ValueError(f"card {error.args[0]} is not in the vector table's deck "
                             f"({len(self.card_ids)} cards, {self.fingerprint})") from None

    def clue_vector(self, clue: str) -> Floats:
        """The unit vector of ``clue`` (the vocabulary's, or embedded once and remembered).

        Raises:
            ValueError: the clue is outside the vocabulary and the table has no embedder.
        """
        row = self.clue_row.get(clue)
        if row is not None:
            vector: Floats = self.clue_vectors[row]
            return vector
        found = self._extra.get(clue)
        if found is None:
            if self.embed_texts is None:
                raise ValueError(f"clue {clue[:40]!r} is outside the vector table's vocabulary "
                                 f"and the table has no embedder to embed it")
            found = _unit(np.asarray(self.embed_texts([clue]), dtype=np.float32))[0]
            if found.shape != (self.dim,):
                raise ValueError(f"the embedder returned shape {found.shape} for a clue; "
                                 f"expected ({self.dim},)")
            if len(self._extra) > 100_000:
                self._extra.clear()
            self._extra[clue] = found
        return found

    @property
    def card_clue_similarities(self) -> Floats:
        """``(n_cards, n_clues)`` cosine similarity of every card to every vocabulary clue."""
        if self._card_clue is None:
            self._card_clue = np.einsum("cd,vd->cv", self.card_vectors, self.clue_vectors)
        return self._card_clue

    @property
    def clue_statistics(self) -> tuple[Floats, Floats]:
        """Mean and standard deviation, over the deck, of each clue's similarity to the cards."""
        if self._clue_stats is None:
            sims = self.card_clue_similarities
            self._clue_stats = (sims.mean(axis=0).astype(np.float32),
                                np.maximum(sims.std(axis=0), 1e-6).astype(np.float32))
        return self._clue_stats

    def projected(self, dim: int) -> VectorTable:
        """This table in its ``dim`` principal directions (over cards and clues), renormalised.

        Raises:
            ValueError: ``dim`` is not in ``[1, self.dim]``.
        """
        if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= self.dim:
            raise ValueError(f"embedding_dim must be an int in [1, {self.dim}], not {dim!r}")
        if dim == self.dim:
            return self
        stacked = np.concatenate([self.card_vectors, self.clue_vectors]).astype(np.float64)
        mean = stacked.mean(axis=0)
        _, _, vt = np.linalg.svd(stacked - mean, full_matrices=False)
        basis = vt[:dim].T  # (self.dim, dim)
        embed = self.embed_texts
        project = None if embed is None else _Projected(embed, mean, basis)
        return VectorTable(self.card_ids, (self.card_vectors - mean) @ basis, self.clues,
                           (self.clue_vectors - mean) @ basis, embed_texts=project,
                           fingerprint=f"{self.fingerprint}|pca{dim}")

    @classmethod
    def random(cls, card_ids: Iterable[int], clues: Iterable[str], *, dim: int = 16,
               seed: int = 0) -> VectorTable:
        """Random unit vectors (tests and smoke runs: no model); unknown clues are hashed."""
        ids, words = tuple(card_ids), tuple(clues)
        rng = np.random.default_rng(seed)
        cards = rng.standard_normal((len(ids), dim))
        texts = rng.standard_normal((len(words), dim))
        return cls(ids, cards, words, texts, embed_texts=_HashedTexts(seed, dim),
                   fingerprint=f"random:{dim}:{seed}")

    @classmethod
    def from_resources(cls, resources: Any) -> VectorTable:
        """A table from the players' ``PlayerResources`` (same vectors, same text cache)."""
        return cls(resources.card_ids, resources.card_vectors, resources.vocabulary.texts,
                   resources.vocabulary_vectors,
                   embed_texts=_ResourceTexts(resources),
                   fingerprint=str(resources.fingerprint))


# The tables' text embedders are objects, not closures, so that an environment holding a table
# pickles (a live environment handed to another process, a saved snapshot).


class _ResourceTexts:
    """Clues embedded by the players' ``PlayerResources`` (its text cache)."""

    def __init__(self, resources: Any) -> None:
        self.resources = resources

    def __call__(self, texts: list[str]) -> npt.ArrayLike:
        vectors: npt.ArrayLike = self.resources.texts(list(texts))
        return vectors


class _HashedTexts:
    """A random vector per clue, seeded by its text (:meth:`VectorTable.random`)."""

    def __init__(self, seed: int, dim: int) -> None:
        self.seed, self.dim = seed, dim

    def __call__(self, items: list[str]) -> npt.ArrayLike:
        return np.stack([np.random.default_rng([self.seed, *item.encode("utf-8")])
                         .standard_normal(self.dim) for item in items])


class _Projected:
    """Another embedder's clues, centred and projected (:meth:`VectorTable.projected`)."""

    def __init__(self, embed: Callable[[list[str]], npt.ArrayLike], mean: np.ndarray,
                 basis: np.ndarray) -> None:
        self.embed, self.mean, self.basis = embed, mean, basis

    def __call__(self, texts: list[str]) -> npt.ArrayLike:
        vectors = np.asarray(self.embed(texts), dtype=np.float64)
        projected: npt.NDArray[np.float64] = (vectors - self.mean) @ self.basis
        return projected


def resolve_entry_point(entry_point: str) -> Any:
    """The object named by ``"module:attr"`` (imported now).

    Raises:
        ValueError: the text is not ``module:attr``.
        ImportError: the module is missing (with the extra to install).
    """
    module_name, _, attr = entry_point.partition(":")
    if not module_name or not attr:
        raise ValueError(f"an entry point is 'module:attr', not {entry_point!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ImportError(f"cannot import {module_name!r} for embeddings ({error}); the "
                          f"embedders need the models extra: pip install 'dixit-ai[models]'"
                          ) from error
    return getattr(module, attr)


_loaded: dict[tuple[Any, ...], VectorTable] = {}


def load_vector_table(
    embedder: Any = "default",
    deck: Any = "dream",
    *,
    vocabulary: Any = None,
    vocabulary_size: int | None = None,
    loader: str = DEFAULT_LOADER,
) -> VectorTable:
    """The vectors of ``deck``'s cards and a clue vocabulary under ``embedder`` (once a process).

    Args:
        embedder: A ``models.load_embedder`` name (``"default"``, ``"openclip:..."``, ...) or an
            ``Embedder``.
        deck: A deck spec (``"dream"``) or a ``Deck``; a list of card ids has no images.
        vocabulary: ``None`` (the players' default vocabulary), a path, or a list of clues.
        vocabulary_size: Keep this many clues (``None``: all).
        loader: The ``"module:attr"`` entry point that returns the players' resources.

    Raises:
        ValueError: ``deck`` is a list of card ids (embeddings need card images).
    """
    if isinstance(deck, Iterable) and not isinstance(deck, str) and not hasattr(
            deck, "card_ids"):
        raise ValueError("embedding observations need a deck with images (a spec such as "
                         "'dream' or a Deck), or embeddings=VectorTable(...); a list of card ids "
                         "has none")
    key = (loader, embedder if isinstance(embedder, str) else id(embedder),
           deck if isinstance(deck, str) else id(deck),
           tuple(vocabulary) if isinstance(vocabulary, list | tuple) else vocabulary,
           vocabulary_size)
    table = _loaded.get(key)
    if table is None:
        resources = resolve_entry_point(loader)(embedder=embedder, deck=deck,
                                                vocabulary=vocabulary,
                                                vocabulary_size=vocabulary_size)
        table = _loaded[key] = VectorTable.from_resources(resources)
    return table


def resolve_vector_table(embeddings: Any, deck: Any, embedder: str | None,
                         embedding_dim: int | None) -> VectorTable:
    """The table an environment uses: given, or loaded for ``embedder`` and ``deck``.

    Args:
        embeddings: A :class:`VectorTable`, the players' resources, or ``None`` (load).
        deck: The environment's deck (spec or ``Deck``) when loading.
        embedder: The embedder's name when loading (``None``: ``"default"``).
        embedding_dim: Project to this many principal directions (``None``: keep all).
    """
    if embeddings is None:
        table = load_vector_table(embedder or "default", deck)
    elif isinstance(embeddings, VectorTable):
        table = embeddings
    elif hasattr(embeddings, "card_vectors") and hasattr(embeddings, "vocabulary"):
        table = VectorTable.from_resources(embeddings)
    else:
        raise ValueError(f"embeddings must be a VectorTable, PlayerResources or None, not "
                         f"{type(embeddings).__name__}")
    return table if embedding_dim is None else table.projected(embedding_dim)
