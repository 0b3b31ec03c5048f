"""Training the default model's alignment head (LiT-style, both towers frozen).

The library half of ``scripts/train_default_model.py``: extracting the frozen image tower's
features once (through the embedding cache), embedding captions and object names with the frozen
text tower, and fitting the head contrastively (InfoNCE with a learnable temperature, plus an
auxiliary term that pulls each card towards the names of the objects it shows).

The head is trained *through* the final blend with the ImageNet zero-shot path (see
:mod:`models.default_model`), so it learns what the zero-shot path misses on dream cards while
the zero-shot path keeps ordinary photographs ranked sensibly.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np

from dixit_ai.reporting import progress_interval
from models.base import fingerprint_of
from models.cache import EmbeddingCache, default_cache
from models.default_head import AlignmentHead
from models.default_model import (
    FEATURE_DIM,
    IMAGE_SIZES,
    N_CLASSES,
    TEXT_DIM,
    ImageTower,
)


def tower_feature_fingerprint(tower: ImageTower, crops: str = "whole") -> str:
    """Cache fingerprint of the frozen image tower's raw features (pooled + logits)."""
    return fingerprint_of(
        {
            "backend": f"{getattr(tower, 'arch', 'efficientnet_lite0')}-features",
            "weights": tower.sha256,
            "sizes": getattr(tower, "sizes", IMAGE_SIZES),
            "crops": crops,
            "dtype": str(tower.dtype),
            "version": 1,
        }
    )


def extract_features(
    tower: ImageTower,
    deck: Any,
    card_ids: Sequence[int],
    *,
    cache: EmbeddingCache | None = None,
    batch_size: int = 64,
    progress: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """Frozen features ``(n, 1280)`` and logits ``(n, 1000)`` of deck cards, cached on disk.

    Args:
        tower: The image tower.
        deck: A :class:`dixit_ai.decks.Deck`.
        card_ids: The cards.
        cache: Where features are kept (keyed by the cards' content hashes); defaults to the
            project's embedding cache.
        batch_size: Cards per forward pass.
        progress: Show a progress bar.
    """
    from tqdm.auto import tqdm

    cache = cache or default_cache()
    fingerprint = tower_feature_fingerprint(tower)
    keys = [deck.card_hash(card_id) for card_id in card_ids]
    feature_dim = int(getattr(tower, "feature_dim", FEATURE_DIM))
    found = cache.lookup(fingerprint, "images", keys, dim=feature_dim + N_CLASSES)
    missing = [i for i, key in enumerate(keys) if key not in found]
    out = np.empty((len(keys), feature_dim + N_CLASSES), dtype=np.float32)
    for i, key in enumerate(keys):
        if key in found:
            out[i] = found[key]
    if missing:
        about = {"name": f"{getattr(tower, 'arch', 'efficientnet_lite0')} features",
                 "backend": "features"}
        bar = tqdm(total=len(missing), desc="image features", unit="card", disable=not progress,
                   mininterval=progress_interval(sys.stderr))
        for start in range(0, len(missing), batch_size * 8):
            chunk = missing[start : start + batch_size * 8]
            rows = []
            for sub in range(0, len(chunk), batch_size):
                part = chunk[sub : sub + batch_size]
                images = [deck.image(card_ids[i]) for i in part]
                pooled, logits = tower.features(images)
                rows.append(np.concatenate([pooled, logits], axis=1))
                bar.update(len(part))
            vectors = np.concatenate(rows)
            out[chunk] = vectors
            cache.store(fingerprint, "images", [keys[i] for i in chunk], vectors, about=about)
        bar.close()
    return out[:, :feature_dim], out[:, feature_dim:]


class TextEncoder(Protocol):
    """What :func:`embed_unique_texts` needs of a text tower: the default model's
    ``TextTower``, the family's towers, :class:`models.text_memo.MemoTextTower`."""

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-norm embeddings ``(len(texts), dim)``."""
        ...


def embed_unique_texts(
    text_tower: TextEncoder,
    texts: Sequence[str],
    *,
    batch_size: int = 256,
    progress: bool = True,
) -> tuple[list[str], np.ndarray]:
    """Embed the distinct texts among ``texts``: ``(vocabulary, vectors)``."""
    from tqdm.auto import tqdm

    vocabulary = sorted(set(texts))
    vectors = np.empty((len(vocabulary), int(getattr(text_tower, "dim", TEXT_DIM))),
                       dtype=np.float32)
    for start in tqdm(
        range(0, len(vocabulary), batch_size), desc="text embeddings", disable=not progress,
        mininterval=progress_interval(sys.stderr),
    ):
        vectors[start : start + batch_size] = text_tower.encode(
            vocabulary[start : start + batch_size]
        )
    return vocabulary, vectors


@dataclass
class HeadConfig:
    """Hyper-parameters of the alignment head's training (all recorded in the model card)."""

    steps: int = 3000
    batch_size: int = 256
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    object_weight: float = 0.5
    caption_regression: float = 0.0
    """weight of ``1 - cos(image, mean of the card's caption embeddings)``"""
    blend: float = 1.0
    zero_shot_temperature: float = 1.0
    init_temperature: float = 0.07
    feature_dropout: float = 0.1
    hidden: int = 0
    """width of a hidden layer (GELU) before the linear map; 0: a linear head"""
    gate_quantile: float = 0.99
    """the gate's ``low``: this quantile of the training cards' feature distances"""
    gate_ratio: float = 2.0
    """the gate's ``high`` is ``gate_ratio * low``; 0: no gate"""
    snap_weight: float = 0.0
    """after training, pull the trained path towards the object names it is near (0: off)"""
    snap_scale: float = 30.0
    """inverse temperature of that pull's softmax over the names"""
    seed: int = 0


@dataclass
class TrainingData:
    """What the head is trained on: one row per card.

    Attributes:
        features: ``(n, 1280)`` frozen image features.
        logits: ``(n, 1000)`` frozen ImageNet logits.
        caption_ids: Per card, indices into ``text_vectors`` of its captions.
        object_ids: Per card, indices into ``object_vectors`` of the objects it shows.
        text_vectors: ``(t, 384)`` MiniLM embeddings of the captions.
        object_vectors: ``(o, 384)`` MiniLM embeddings of the object names.
    """

    features: np.ndarray
    logits: np.ndarray
    caption_ids: list[list[int]]
    object_ids: list[list[int]]
    text_vectors: np.ndarray
    object_vectors: np.ndarray
    extra: dict[str, Any] = field(default_factory=dict)


def train_head(
    data: TrainingData,
    class_embeddings: np.ndarray,
    config: HeadConfig,
    *,
    progress: bool = True,
) -> tuple[AlignmentHead, list[dict[str, float]]]:
    """Fit the alignment head; returns it and the loss history (one entry per 50 steps).

    Each step draws ``batch_size`` cards, one caption for each, and one object name for each.
    Image-to-caption and caption-to-image InfoNCE (texts that are equal count as positives of
    every card that has them) plus ``object_weight`` times image-to-object-name InfoNCE, where a
    name is a positive of every card in the batch that shows that object, plus
    ``caption_regression`` times ``1 - cos`` between the image and the mean of its captions'
    embeddings (which keeps images where MiniLM puts their captions, so that associations of the
    objects carry over).
    """
    import torch
    from tqdm.auto import tqdm

    from models.default_head import zero_shot_embeddings

    rng = np.random.default_rng(config.seed)
    torch.manual_seed(config.seed)
    mean = data.features.mean(axis=0)
    std = data.features.std(axis=0) + 1e-4
    features = torch.from_numpy((data.features - mean) / std).float()
    zero_shot = torch.from_numpy(
        zero_shot_embeddings(data.logits, class_embeddings, config.zero_shot_temperature)
    ).float()
    texts = torch.from_numpy(data.text_vectors).float()
    objects = torch.from_numpy(data.object_vectors).float()
    mean_captions = torch.nn.functional.normalize(
        torch.stack([texts[ids].mean(dim=0) for ids in data.caption_ids]), dim=-1
    )

    feature_dim, text_dim = data.features.shape[1], data.text_vectors.shape[1]
    if config.hidden:
        linear: Any = torch.nn.Sequential(
            torch.nn.Linear(feature_dim, config.hidden),
            torch.nn.GELU(approximate="tanh"),
            torch.nn.Linear(config.hidden, text_dim),
        )
    else:
        linear = torch.nn.Linear(feature_dim, text_dim)
    log_scale = torch.nn.Parameter(torch.tensor(float(np.log(1.0 / config.init_temperature))))
    optimiser = torch.optim.AdamW(
        [
            {"params": linear.parameters(), "weight_decay": config.weight_decay},
            {"params": [log_scale], "weight_decay": 0.0},
        ],
        lr=config.learning_rate,
    )
    warmup = max(1, config.steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser,
        lambda step: min(1.0, (step + 1) / warmup)
        * 0.5
        * (1.0 + np.cos(np.pi * min(1.0, step / max(1, config.steps)))),
    )
    dropout = torch.nn.Dropout(config.feature_dropout)
    n = len(features)
    history: list[dict[str, float]] = []
    running = {"loss": 0.0, "caption": 0.0, "object": 0.0}
    bar = tqdm(range(config.steps), desc="training head", disable=not progress,
               mininterval=progress_interval(sys.stderr))
    for step in bar:
        batch = rng.choice(n, size=min(config.batch_size, n), replace=False)
        caption_pick = [int(rng.choice(data.caption_ids[i])) for i in batch]
        object_pick = [int(rng.choice(data.object_ids[i])) for i in batch]
        image = _blend(
            linear(dropout(features[batch])), zero_shot[batch], config.blend
        )
        scale = log_scale.exp().clamp(max=100.0)

        caption_index = torch.tensor(caption_pick)
        caption_positive = caption_index[None, :] == caption_index[:, None]
        logits = scale * image @ texts[caption_index].T
        caption_loss = 0.5 * (
            _multi_positive_nce(logits, caption_positive)
            + _multi_positive_nce(logits.T, caption_positive.T)
        )

        names = sorted(set(object_pick))
        shows = torch.zeros(len(batch), len(names), dtype=torch.bool)
        name_column = {name: j for j, name in enumerate(names)}
        for row, i in enumerate(batch):
            for obj in data.object_ids[i]:
                if obj in name_column:
                    shows[row, name_column[obj]] = True
        object_logits = scale * image @ objects[torch.tensor(names)].T
        object_loss = _multi_positive_nce(object_logits, shows)

        loss = caption_loss + config.object_weight * object_loss
        if config.caption_regression:
            cosine = (image * mean_captions[torch.from_numpy(batch)]).sum(dim=-1)
            loss = loss + config.caption_regression * (1.0 - cosine).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        schedule.step()
        running["loss"] += float(loss.detach())
        running["caption"] += float(caption_loss.detach())
        running["object"] += float(object_loss.detach())
        if (step + 1) % 50 == 0:
            entry = {k: v / 50 for k, v in running.items()}
            entry.update(step=step + 1, temperature=float(1.0 / scale.detach()))
            history.append(entry)
            bar.set_postfix(loss=f"{entry['loss']:.3f}")
            running = dict.fromkeys(running, 0.0)

    from models.default_head import feature_distance

    distances = feature_distance(data.features, mean, std)
    gate_low = float(np.quantile(distances, config.gate_quantile))
    gate_high = gate_low * config.gate_ratio if config.gate_ratio > 0 else float("inf")
    if not np.isfinite(gate_high):
        gate_low = float("inf")
    last = linear[-1] if config.hidden else linear
    head = AlignmentHead(
        weight=last.weight.detach().numpy().copy(),
        bias=last.bias.detach().numpy().copy(),
        feature_mean=mean.astype(np.float32),
        feature_std=std.astype(np.float32),
        class_embeddings=class_embeddings.astype(np.float32),
        blend=config.blend,
        zero_shot_temperature=config.zero_shot_temperature,
        metadata={
            "config": asdict(config),
            "learned_temperature": float(1.0 / log_scale.detach().exp()),
        },
        hidden_weight=linear[0].weight.detach().numpy().copy() if config.hidden else None,
        hidden_bias=linear[0].bias.detach().numpy().copy() if config.hidden else None,
        gate_low=gate_low,
        gate_high=gate_high,
        name_embeddings=data.object_vectors.astype(np.float32) if config.snap_weight else None,
        snap_weight=config.snap_weight,
        snap_scale=config.snap_scale,
    )
    return head, history


def _blend(aligned: Any, zero_shot: Any, blend: float) -> Any:
    import torch

    aligned = torch.nn.functional.normalize(aligned, dim=-1)
    return torch.nn.functional.normalize(aligned + blend * zero_shot, dim=-1)


def _multi_positive_nce(logits: Any, positive: Any) -> Any:
    """Mean over rows of ``-log(sum over positives of softmax)`` (rows without one skipped)."""
    import torch

    log_probabilities = logits.log_softmax(dim=1)
    masked = log_probabilities.masked_fill(~positive, float("-inf"))
    per_row = -torch.logsumexp(masked, dim=1)
    has = positive.any(dim=1)
    return per_row[has].mean()


def imagenet_class_names() -> list[str]:
    """The 1000 ImageNet class names as timm lists them (``"tench, Tinca tinca"``, ...)."""
    from timm.data import ImageNetInfo

    info = ImageNetInfo()
    return [info.index_to_description(i) for i in range(info.num_classes())]


def dumps(obj: Any) -> str:
    """JSON for records (numpy scalars and arrays made plain)."""

    def plain(value: Any) -> Any:
        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):
            return value.tolist()
        raise TypeError(type(value).__name__)

    return json.dumps(obj, indent=1, default=plain, sort_keys=True)
