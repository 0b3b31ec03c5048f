"""The benchmark's contestants: each model under test loaded and ready to answer, an embedder
with its deck's vectors (or the text-only oracle's captions) or an agent made for the deck."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from models.bench.config import ORACLE_PREFIX, BenchConfig, ModelSpec


@dataclass
class Contestant:
    """A model under test, loaded: an embedder (with its card vectors) or an agent."""

    spec: ModelSpec
    embedder: Any = None
    agent: Any = None
    card_vectors: dict[int, np.ndarray] = field(default_factory=dict)
    texts: dict[str, np.ndarray] = field(default_factory=dict)
    decision_seconds: float = 0.0
    workers: list[Any] = field(default_factory=list)
    """Further instances of the agent, to answer items in parallel (HTTP agents)."""
    abort_on_failure: bool = False
    """Stop the benchmark at the agent's first failed decision (``on_failure="abort"``)."""

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def is_agent(self) -> bool:
        return self.spec.kind == "agent"

    def prepare_texts(self, clues: Iterable[str]) -> None:
        """Embed clues (through the cache) in one batch."""
        from models.bench.reference import embed_clues

        missing = [c for c in dict.fromkeys(clues) if c not in self.texts]
        if missing and self.embedder is not None:
            vectors = embed_clues(self.embedder, missing,
                                  f"the model under test {self.label!r}")
            self.texts.update(zip(missing, vectors, strict=True))

    def scores(self, clue: str, cards: Iterable[int]) -> np.ndarray:
        """Cosine similarity of each card to the clue (embedders)."""
        self.prepare_texts([clue])
        vector = self.texts[clue]
        return np.array([float(self.card_vectors[int(c)] @ vector) for c in cards])

    def describe(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"label": self.label, "name": self.spec.name,
                                 "kind": self.spec.kind, "kwargs": self.spec.kwargs}
        if self.embedder is not None:
            entry["fingerprint"] = self.embedder.fingerprint
            if self.spec.name.startswith(ORACLE_PREFIX):
                entry["cards"] = "first caption (text-only oracle)"
            entry["info"] = getattr(self.embedder, "info", {})
        else:
            entry["agent"] = self.agent.describe()
        return entry


def load_contestant(spec: ModelSpec, config: BenchConfig, deck: Any) -> Contestant:
    """Load an embedder (and embed the deck, through the cache) or make an agent."""
    if spec.kind == "embedder":
        from models.cache import embed_deck, embed_texts_cached
        from models.registry import load_embedder

        ids = [int(c) for c in deck.card_ids]
        if spec.name.startswith(ORACLE_PREFIX):
            # The text-only oracle: each card is its first caption, read by the text tower.
            embedder = load_embedder(spec.name[len(ORACLE_PREFIX):] or "default",
                                     **{"device": config.device, **spec.kwargs})
            captions = [deck.captions(c) for c in ids]
            if not all(captions):
                raise ValueError(f"{spec.name}: the text-only oracle needs a caption for "
                                 f"every card, and {config.deck} has cards without")
            vectors = embed_texts_cached(embedder, [c[0] for c in captions], progress=False)
        else:
            # The run's device, unless the model's options name its own.
            embedder = load_embedder(spec.name, **{"device": config.device, **spec.kwargs})
            vectors = embed_deck(embedder, deck, ids, progress=False)
        return Contestant(spec, embedder=embedder,
                          card_vectors=dict(zip(ids, vectors, strict=True)))
    from dixit_ai.agents import make_agent_for_deck

    agent = make_agent_for_deck(spec.name, config.deck, **spec.kwargs)
    # An agent that says how many requests it may have in flight (an HTTP agent) answers that
    # many items at once, one instance per thread; the others answer one item at a time.
    parallel = int(getattr(agent, "concurrency", 1) or 1)
    workers = [make_agent_for_deck(spec.name, config.deck, **spec.kwargs)
               for _ in range(parallel - 1)]
    return Contestant(spec, agent=agent, workers=workers)


def ready_to_embed(embedder: Any, texts: Iterable[str], *, told: bool, who: str) -> None:
    """Load now what ``embedder`` needs to embed the run's texts, if it will embed any.

    An embedder whose vectors ship or are cached (the default model's cards and vocabulary)
    loads its towers, with torch, only when it must embed a new text (:meth:`Embedder.warm`).
    The benchmark calls this before its run folder is made, so that a missing extra is refused
    there (bad input: nothing written), not part-way through the records.

    Args:
        embedder: A loaded embedder.
        texts: The texts the run will embed with it, known ahead (the items' clues); those
            that ship or are cached need nothing loaded.
        told: It will also embed texts known only once told (the clues of agents' stories),
            which may be any text: its text side is loaded whatever ``texts`` hold.
        who: What embeds them, for the message (``"the reference population (default)"``).

    Raises:
        EmbedderLoadError: The text side cannot be loaded (torch is not installed: the message
            names the extra).
    """
    from models.base import EmbedderLoadError
    from models.cache import known_texts

    texts = list(dict.fromkeys(texts))
    known = known_texts(embedder, texts)
    new = [text for text in texts if text not in known]
    if new:
        shown = ", ".join(repr(text if len(text) <= 40 else text[:39] + "…")
                          for text in new[:2]) + (", ..." if len(new) > 2 else "")
        why = f"{len(new)} clue(s) of the items that are neither shipped nor cached ({shown})"
    elif told:
        why = "the clues the agents tell (known only once told, they may be any text)"
    else:
        return
    try:
        embedder.warm("texts")
    except EmbedderLoadError as error:
        raise EmbedderLoadError(f"{who} must embed {why}, and {error}") from error
