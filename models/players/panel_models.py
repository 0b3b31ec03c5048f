"""Panel embedders the project derives from the default model's own parts.

A panel member is a guesser on a model other than the default (:mod:`models.players.panel`):
any name :func:`models.load_embedder` accepts (the model family of :mod:`models.family`:
``lite2-mpnet``, ``lite1-minilm``, ``lite1-mpnet``, ``imagenet-zeroshot``, ``caption-reader``),
or one of these two, made here from the default model's shipped head:

==========================  ==================================================================
name                        what it is
==========================  ==================================================================
``panel:sibling``           the default towers and the shipped trained head with the name
                            pull, the ImageNet zero-shot blend and the gate removed: the trained
                            linear path alone (almost as good on captions as the default, with
                            other quirks)
``panel:default-zeroshot``  the default's ImageNet zero-shot path alone: an image is the mean of
                            MiniLM's embeddings of the ImageNet class names, weighted by
                            EfficientNet-Lite0's class probabilities (no dream training)
==========================  ==================================================================

A member that reads the cards' captions (``caption-reader``: ground truth) gets its card
vectors from ``card_vectors(deck)`` (:func:`load_member_resources`); it may be a panel guesser,
never part of a storyteller's simulation (:func:`reads_ground_truth`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from models.base import Embedder, EmbedderError, fingerprint_of

PANEL_PREFIX = "panel:"
VARIANTS = ("sibling", "default-zeroshot")
"""The panel embedders made here (after ``panel:``)."""


def is_panel_name(name: Any) -> bool:
    """Whether ``name`` names an embedder of this module (``panel:...``)."""
    return isinstance(name, str) and name.startswith(PANEL_PREFIX)


def reads_ground_truth(name: Any) -> bool:
    """Whether the embedder named ``name`` reads captions instead of images (the family's
    ``caption-reader``; an ``Embedder`` says so with ``reads_ground_truth``)."""
    if not isinstance(name, str):
        return bool(getattr(name, "reads_ground_truth", False))
    from models.family import MEMBERS

    base = name.removeprefix("family:").split(":")[0]
    return base in MEMBERS and MEMBERS[base].reads_ground_truth


def refuse_ground_truth(member: Any, use: str = "a storyteller may not simulate with it"
                        ) -> None:
    """Refuse a member for a storyteller's simulation (or a guesser's reading) if it reads the
    cards' captions.

    Args:
        member: An embedder name, or ready resources (:class:`PlayerResources`).
        use: What is refused, for the message.

    Raises:
        ValueError: it reads ground truth (the family's ``caption-reader``).
    """
    embedder = member if isinstance(member, str) else getattr(member, "embedder", member)
    if reads_ground_truth(embedder):
        label = member if isinstance(member, str) else getattr(member, "fingerprint", member)
        raise ValueError(f"population member {label!r} reads the cards' captions (ground "
                         f"truth): {use}")


class HeadVariantEmbedder(Embedder):
    """The default model with parts of its head removed (``sibling``, ``default-zeroshot``).

    Args:
        variant: ``"sibling"`` or ``"default-zeroshot"``.
        device: Where the towers run.
    """

    def __init__(self, variant: str, *, device: str = "cpu", batch_size: int = 32) -> None:
        from models.default_model import DefaultEmbedder

        if variant not in ("sibling", "default-zeroshot"):
            raise EmbedderError(f"unknown head variant {variant!r}")
        self.base = DefaultEmbedder(device=device, batch_size=batch_size)
        head = self.base.head
        if variant == "sibling":
            self.head = dataclasses.replace(head, blend=0.0, gate_low=float("inf"),
                                            gate_high=float("inf"), snap_weight=0.0)
        else:
            self.head = head
        self.variant = variant
        self.device = device
        self.name = PANEL_PREFIX + variant
        self.dim = self.base.dim
        self.batch_size = int(batch_size)
        self.info = {**self.base.info, "backend": "panel", "variant": variant,
                     "architecture": ("efficientnet_lite0+all-MiniLM-L6-v2+linear-head-alone"
                                      if variant == "sibling" else
                                      "efficientnet_lite0-imagenet-zeroshot+all-MiniLM-L6-v2")}
        self.fingerprint = fingerprint_of(self.info)

    def _encode_image_batch(self, images: list[Any]) -> np.ndarray:
        from models.default_head import embed_from_features, zero_shot_embeddings

        features, logits = self.base.features(images)
        if self.variant == "default-zeroshot":
            return zero_shot_embeddings(logits, self.head.class_embeddings,
                                        self.head.zero_shot_temperature).astype(np.float32)
        h = self.head
        return embed_from_features(
            features, logits, weight=h.weight, bias=h.bias, feature_mean=h.feature_mean,
            feature_std=h.feature_std, class_embeddings=h.class_embeddings, blend=0.0,
            temperature=h.zero_shot_temperature, hidden_weight=h.hidden_weight,
            hidden_bias=h.hidden_bias)

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        return self.base._encode_text_batch(texts)


_loaded: dict[tuple[str, str], Embedder] = {}


def load_panel_embedder(name: str, *, device: str = "cpu") -> Embedder:
    """The embedder named ``panel:VARIANT`` (once per process).

    Raises:
        EmbedderError: an unknown variant (the message lists them).
    """
    if not is_panel_name(name):
        raise EmbedderError(f"{name!r} is not a panel embedder name ('panel:VARIANT')")
    variant = name[len(PANEL_PREFIX):]
    if variant not in VARIANTS:
        raise EmbedderError(f"unknown panel embedder {name!r}; known: "
                            + ", ".join(PANEL_PREFIX + v for v in VARIANTS))
    key = (name, device)
    if key not in _loaded:
        _loaded[key] = HeadVariantEmbedder(variant, device=device)
    return _loaded[key]


def resolve_embedder(name: Any, *, device: str = "cpu") -> Embedder:
    """An embedder from a name: ``panel:...`` here, anything else by :func:`load_embedder`;
    an ``Embedder`` passes through."""
    if not isinstance(name, str):
        return name  # type: ignore[no-any-return]
    if is_panel_name(name):
        return load_panel_embedder(name, device=device)
    from models.registry import load_embedder

    return load_embedder(name, device=device)


def load_member_resources(embedder: Any, deck: Any, vocabulary: Any = None,
                          vocabulary_size: int | None = None, device: str = "cpu") -> Any:
    """:func:`models.players.load_resources` for any embedder name, ``panel:...`` included
    (a caption reader's card vectors are its captions' embeddings)."""
    from models.players.resources import PlayerResources, load_resources

    if isinstance(deck, PlayerResources):
        return deck
    model = resolve_embedder(embedder, device=device)
    if not reads_ground_truth(model):
        return load_resources(model, deck, vocabulary, vocabulary_size, device)
    read_cards = getattr(model, "card_vectors", None)
    if not callable(read_cards):
        raise EmbedderError(f"{model.name} reads the cards' captions (reads_ground_truth) but "
                            "has no card_vectors(deck) to read them with")
    from dixit_ai.decks import load_deck
    from models.cache import embed_texts_cached
    from models.players.vocabulary import Vocabulary, load_vocabulary

    loaded = load_deck(deck) if isinstance(deck, str) else deck
    words = (vocabulary.limit(vocabulary_size) if isinstance(vocabulary, Vocabulary)
             else load_vocabulary(vocabulary, vocabulary_size))
    key = (model.fingerprint, loaded.fingerprint, words.fingerprint)
    if key not in _readers:
        cards = read_cards(loaded)
        texts = embed_texts_cached(model, list(words.texts), progress=False)
        _readers[key] = PlayerResources(
            tuple(int(c) for c in loaded.card_ids), np.asarray(cards, dtype=np.float32), words,
            np.asarray(texts, dtype=np.float32), model, model.fingerprint,
            getattr(loaded, "source", None) or loaded.name)
    return _readers[key]


_readers: dict[tuple[str, str, str], Any] = {}
