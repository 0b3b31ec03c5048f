"""What an embedding-model player needs besides its view: card and clue embeddings.

A player is configured with an embedder (a name for :func:`models.load_embedder`, or an
:class:`~models.base.Embedder`) and a deck (a spec for :func:`dixit_ai.decks.load_deck`, a
``Deck``, or precomputed card vectors). Nothing is loaded at construction: the first decision
loads the embedder, embeds the deck's card images and the clue vocabulary through the on-disk
embedding cache (:func:`models.embed_deck`, :func:`models.embed_texts_cached`) and keeps them in
memory, shared by every player of the process with the same embedder, deck and vocabulary.

Vectors come from the embeddings shipped with the package (:mod:`models.shipped`: the default
model's vocabulary, the default dream deck and its pair clues), then from the disk cache; the
embedder (torch) is loaded only the first time something unknown must be embedded (a new clue, a
user's card), so a player whose vectors are all known never imports torch. :func:`prepare` (the
``prepare`` step of the clip agents' registry entries, run by
:func:`dixit_ai.agents.prepare_agents`) makes every vector a player will need present at once.

Players only ever read card *images* (through their embeddings) and card ids: never captions or
descriptions.

**The thread count changes no number.** A multithreaded BLAS product (numpy's OpenBLAS) or torch
forward splits its sums differently with another number of threads, which moves a similarity in
its last bits, and a storyteller's choice is an ordering of numbers made from them (a near-tie
could flip). So every number a player's decision is made of is computed single-threaded
(:func:`single_threaded`): the card-clue similarity table, every embedding computed for a player
(cards, vocabulary, new clues) and each decision of :class:`~models.players.ClipAgent`. A text is
embedded alone (a batch of one: no padding to the batch's longest text), so that its vector
depends on the text only, not on which other texts happened to be missing from the cache. A
game's record is then the same in a tournament worker (one thread), in ``--workers 1`` or
``simulate`` (every core) and in a library user's process.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.players.vocabulary import Vocabulary, load_vocabulary

_lock = threading.Lock()
_shared: dict[tuple[Any, ...], PlayerResources] = {}
_threads_lock = threading.Lock()
_threads_depth = 0
_threads_restore: ExitStack | None = None


@contextmanager
def single_threaded() -> Iterator[None]:
    """Run numpy's BLAS and torch on one thread inside the block, so that the numbers computed
    there do not depend on the thread count of the process (see the module's notes).

    Re-entrant and safe across threads: the first block to enter sets the limits, the last to
    leave restores them (the limits are process-wide). torch is limited only when it is already
    imported (a player whose vectors are all known never imports it). Without ``threadpoolctl``
    (installed with the ``models`` extra) numpy's BLAS is left as it is.
    """
    global _threads_depth, _threads_restore
    with _threads_lock:
        if _threads_depth == 0:
            from models.base import numpy_blas_threads

            _threads_restore = ExitStack()
            _threads_restore.enter_context(numpy_blas_threads(1))
            _single_torch_threads()
        _threads_depth += 1
    try:
        yield
    finally:
        with _threads_lock:
            _threads_depth -= 1
            if _threads_depth == 0 and _threads_restore is not None:
                restore, _threads_restore = _threads_restore, None
                restore.close()


def _single_torch_threads() -> None:
    """Within :func:`single_threaded`: limit torch to one thread if it is imported (on entry,
    or once an embedding imported it), restored when the outermost block leaves."""
    torch = sys.modules.get("torch")
    if torch is None or _threads_restore is None or torch.get_num_threads() == 1:
        return
    before = int(torch.get_num_threads())
    torch.set_num_threads(1)
    _threads_restore.callback(torch.set_num_threads, before)


class _SingleThreaded:
    """An embedder whose images are embedded with torch on one thread (within
    :func:`single_threaded`; torch may be imported only by the embedding itself)."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)

    def embed_images(self, images: Any, **options: Any) -> np.ndarray:
        _single_torch_threads()
        return np.asarray(self._embedder.embed_images(images, **options))


def embed_texts_alone(embedder: Any, texts: Sequence[str], what: str = "clues") -> np.ndarray:
    """``(len(texts), dim)`` vectors of ``texts`` through the embedding cache, each text that
    must be computed embedded alone (a batch of one) and single-threaded: its vector is a
    function of the text, whatever else was missing from the cache or the thread count."""
    from models.cache import cached_vectors, text_key

    texts = list(texts)

    def compute(indices: list[int]) -> np.ndarray:
        _single_torch_threads()
        return np.asarray(embedder.embed_texts([texts[i] for i in indices], batch_size=1,
                                               progress=False))

    with single_threaded():
        return cached_vectors(embedder, "texts", [text_key(t) for t in texts], compute,
                              what=what)


@dataclass
class PlayerResources:
    """Card vectors by id, the vocabulary and its vectors, and a text embedding function.

    Attributes:
        card_ids: The deck's card ids, in row order of ``card_vectors``.
        card_vectors: ``(n_cards, dim)`` float32, unit rows.
        vocabulary: The clue vocabulary.
        vocabulary_vectors: ``(len(vocabulary), dim)`` float32, unit rows.
        embedder: The embedder (``None`` when made from vectors and a text function).
        fingerprint: The embedder's fingerprint (recorded in ``describe()``).
        deck_name: What the deck was (spec or ``"vectors"``).
    """

    card_ids: tuple[int, ...]
    card_vectors: np.ndarray
    vocabulary: Vocabulary
    vocabulary_vectors: np.ndarray
    embedder: Any
    fingerprint: str
    deck_name: str
    _row: dict[int, int] = field(default_factory=dict, repr=False)
    _texts: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _card_vocabulary: np.ndarray | None = field(default=None, repr=False)
    _columns: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _vocabulary_index: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._row = {card: i for i, card in enumerate(self.card_ids)}
        self._texts = dict(zip(self.vocabulary.texts, self.vocabulary_vectors, strict=True))
        self._vocabulary_index = {text: i for i, text in enumerate(self.vocabulary.texts)}

    @property
    def dim(self) -> int:
        """The vector dimension."""
        return int(self.card_vectors.shape[1])

    def rows(self, cards: Sequence[int]) -> np.ndarray:
        """Row indices of ``cards`` in ``card_vectors``.

        Raises:
            ValueError: a card is not in the player's deck (the player was configured with
                another deck than the game's).
        """
        try:
            return np.fromiter((self._row[int(c)] for c in cards), dtype=np.intp,
                               count=len(cards))
        except KeyError as error:
            raise ValueError(
                f"card {error.args[0]} is not in this player's deck ({self.deck_name}, "
                f"{len(self.card_ids)} cards): give the player the game's deck "
                f"(make_agent(name, deck=...))"
            ) from None

    @property
    def card_vocabulary_sims(self) -> np.ndarray:
        """``(n_cards, len(vocabulary))`` similarities of every card to every clue (once)."""
        if self._card_vocabulary is None:
            with single_threaded():  # the same bits whatever the process's thread count
                self._card_vocabulary = self.card_vectors @ self.vocabulary_vectors.T
        return self._card_vocabulary

    def clue_columns(self, texts: Sequence[str]) -> np.ndarray:
        """``(n_cards, len(texts))`` similarities of every card to clues outside the vocabulary.

        Each clue's column is computed once and remembered: a decision then only gathers, and
        never calls a multithreaded matrix product (whose idle threads keep spinning on the
        cores the simulation needs).
        """
        missing = [t for t in dict.fromkeys(texts) if t not in self._columns]
        if missing:
            # einsum, not a BLAS product: no worker threads left spinning after it.
            columns = np.einsum("cd,td->ct", self.card_vectors, self.texts(missing))
            self._columns.update(zip(missing, columns.T.copy(), strict=True))
        if not texts:
            return np.zeros((len(self.card_ids), 0), dtype=np.float32)
        return np.stack([self._columns[t] for t in texts], axis=1)

    def clue_similarities(self, clue: str, cards: Sequence[int]) -> np.ndarray:
        """Similarity of each of ``cards`` to ``clue`` (a lookup for known clues)."""
        return self.clue_column(clue)[self.rows(cards)]

    def clue_column(self, clue: str) -> np.ndarray:
        """``(n_cards,)``: similarity of every card of the deck to ``clue``."""
        index = self._vocabulary_index.get(clue)
        if index is not None:
            return self.card_vocabulary_sims[:, index]
        return self.clue_columns([clue])[:, 0]

    def knows(self, text: str) -> bool:
        """Whether ``text``'s vector is at hand without running a model: the vocabulary, a text
        seen before, or the shipped or cached embeddings."""
        if text in self._texts or text in self._columns:
            return True
        if self.embedder is None:
            return False
        from models.cache import known_texts

        found = known_texts(self.embedder, [text])
        self._texts.update(found)  # remembered for the next time
        return text in found

    def cards(self, cards: Sequence[int]) -> np.ndarray:
        """``(len(cards), dim)`` vectors of ``cards``."""
        return self.card_vectors[self.rows(cards)]

    def texts(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dim)`` vectors of clue texts (vocabulary, memory, then the cache)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._texts]
        if missing:
            if self.embedder is None:
                raise ValueError(f"no embedder to embed {missing[:3]} (resources from vectors)")
            vectors = embed_texts_alone(self.embedder, missing)
            self._texts.update(zip(missing, vectors, strict=True))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._texts[t] for t in texts])


def from_vectors(card_vectors: Mapping[int, Sequence[float]] | np.ndarray,
                 text_vectors: Mapping[str, Sequence[float]],
                 embedder: Any = None, fingerprint: str = "vectors") -> PlayerResources:
    """Resources from given vectors (tests, experiments): no model, no deck images.

    Args:
        card_vectors: Card id to vector, or an array whose row ``i`` is card ``i``.
        text_vectors: Clue text to vector; these clues are the vocabulary.
        embedder: Optional embedder for texts outside ``text_vectors``.
        fingerprint: What ``describe()`` reports.
    """
    if isinstance(card_vectors, np.ndarray):
        ids = tuple(range(len(card_vectors)))
        cards = np.asarray(card_vectors, dtype=np.float32)
    else:
        ids = tuple(int(c) for c in card_vectors)
        cards = np.asarray([card_vectors[c] for c in ids], dtype=np.float32)
    vocabulary = Vocabulary.from_texts(list(text_vectors))
    texts = np.asarray([text_vectors[t] for t in vocabulary.texts], dtype=np.float32)
    return PlayerResources(ids, _unit(cards), vocabulary, _unit(texts), embedder, fingerprint,
                           "vectors")


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def load_resources(embedder: Any = "default", deck: Any = "dream",
                   vocabulary: Any = None, vocabulary_size: int | None = None,
                   device: str = "cpu") -> PlayerResources:
    """Load (once per process) the resources for an embedder, a deck and a vocabulary.

    Args:
        embedder: A name for :func:`models.load_embedder` or an ``Embedder``.
        deck: A deck spec, a ``Deck``, or a ``PlayerResources`` (returned as is).
        vocabulary: ``None``/``"default"``, a path, or a list of clues.
        vocabulary_size: Keep this many clues (``None``: all).
        device: Where a named embedder runs.

    Returns:
        Shared :class:`PlayerResources` (the same object for the same arguments).
    """
    if isinstance(deck, PlayerResources):
        return deck
    from dixit_ai.decks import load_deck
    from models.cache import embed_deck
    from models.registry import load_embedder

    model = load_embedder(embedder, device=device) if isinstance(embedder, str) else embedder
    loaded = load_deck(deck) if isinstance(deck, str) else deck
    words = (vocabulary if isinstance(vocabulary, Vocabulary)
             else load_vocabulary(vocabulary, vocabulary_size))
    if isinstance(vocabulary, Vocabulary):
        words = words.limit(vocabulary_size)
    from models.shipped import shipped_deck_fingerprint

    # A shipped deck's fingerprint is known without drawing its cards (a fresh install).
    deck_fingerprint = shipped_deck_fingerprint(model.fingerprint, loaded) or loaded.fingerprint
    key = (model.fingerprint, deck_fingerprint, words.fingerprint)
    with _lock:
        if key not in _shared:
            with single_threaded():
                cards = embed_deck(_SingleThreaded(model), loaded,  # type: ignore[arg-type]
                                   progress=False)
            texts = embed_texts_alone(model, list(words.texts))
            _shared[key] = PlayerResources(
                tuple(int(c) for c in loaded.card_ids), cards, words, texts, model,
                model.fingerprint, getattr(loaded, "source", None) or loaded.name)
        return _shared[key]


def prepare(*, progress: Callable[[str], None] | None = None, **agent_options: Any
            ) -> PlayerResources:
    """Make every vector a clip player needs for its deck present (the registry's prepare step).

    Makes the player (a :class:`~models.players.ClipAgent` with ``agent_options``, the options
    of its registry entry with the game's ``deck``), loads its resources the way its decisions
    do (card and vocabulary vectors: shipped, cached, or computed once under the cache's
    cross-process lock) and embeds the pair clues its storyteller composes for every card of the
    deck, so that later decisions, in this process or any other, are lookups.

    Args:
        progress: Receives a line per one-time step ("embedding 84 cards with default ... 6.2 s").
        **agent_options: Keyword arguments of :class:`~models.players.ClipAgent` (``deck``,
            ``embedder``, ``vocabulary``, ``pair_clues``, ...).

    Returns:
        The (process-wide, shared) resources.
    """
    from models.base import progress_to
    from models.players.agent import ClipAgent

    with progress_to(progress):
        agent = ClipAgent(**agent_options)
        resources = agent.resources
        storyteller = agent.storyteller
        if storyteller.pair_clues > 0:
            texts: list[str] = []
            for card, vector in zip(resources.card_ids, resources.card_vectors, strict=True):
                texts.extend(storyteller.pair_candidates(resources, card, vector))
            resources.texts(texts)
    return resources
