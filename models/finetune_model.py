"""What fine-tuning trains: a CLIP-like model through its backend, and the training step.

:class:`TrainableModel` wraps an open_clip or transformers model (differentiable encoders,
the parameters each mode trains, the loss's scale and bias, saving so that the same backend
loads it back); :class:`Finetuner` holds the optimiser, its schedule and the frozen towers'
caches, and takes one step of :func:`contrastive_loss` at a time. :mod:`models.finetune` runs
them on a captioned deck.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

MODES = ("full", "lock-image", "lock-text", "last-layers")

#: Parameter names of the towers' input stems (patch/token embeddings, positions, first norms),
#: which ``last-layers`` never trains.
_STEM = re.compile(
    r"(?:^|\.)(?:conv1|ln_pre|pre_layrnorm|class_embedding|positional_embedding|"
    r"token_embedding|embeddings|patch_embed|pos_embed|cls_token|conv_stem|bn1|stem)(?:\.|$)"
)
#: A numbered block: ``...resblocks.7.``, ``...layers.3.``, ``...layer.2.``, ``...blocks.5.``.
_BLOCK = re.compile(r"(?:^|\.)(?:resblocks|layers|layer|blocks)\.(\d+)\.")

#: Keep preprocessed training images in memory up to this many bytes.
_PIXEL_CACHE_BYTES = 2 * 1024**3


class FinetuneError(ValueError):
    """A fine-tuning request cannot be carried out (bad model, deck, mode or settings)."""


class TrainableModel:
    """What training needs of a backend: the torch model, differentiable encoders, parameter
    groups, the loss's scale and bias, and how to save."""

    def __init__(self, name: str, device: str) -> None:
        from models.registry import split_name

        self.name = name
        backend, spec = split_name(name)
        if backend == "default":
            raise FinetuneError(
                "the default model is trained by 'dixit-ai train align' without --model (its "
                "towers are frozen); fine-tuning takes 'openclip:...' or 'hf:...' models"
            )
        if backend == "family":
            from models.family import member

            info = member(spec.partition(":")[0])
            how = (f"its head is trained by 'scripts/train_default_model.py --member {info.name}'"
                   if info.kind == "trained" else "it has no trained part")
            raise FinetuneError(
                f"{name} is a member of the model family (models/family.py): its towers are "
                f"frozen and it is not fine-tuned; {how}. Fine-tuning takes 'openclip:...' or "
                "'hf:...' models"
            )
        self.backend = backend
        self.spec = spec
        self.device = device
        if backend == "openclip":
            from models.openclip_backend import OpenClipEmbedder

            self.embedder: Any = OpenClipEmbedder(spec, device=device)
        else:
            from models.hf_backend import HFClipEmbedder

            self.embedder = HFClipEmbedder(spec, device=device)
        import torch

        self.torch = torch
        self.module = self.embedder.model
        self.module.eval()
        scale = getattr(self.module, "logit_scale", None)
        bias = getattr(self.module, "logit_bias", None)
        self.logit_bias = bias if isinstance(bias, torch.Tensor) else None
        if not isinstance(scale, torch.Tensor):
            raise FinetuneError(f"{name}: the model has no logit_scale; is it a CLIP-like model?")
        self.logit_scale: Any = scale

    @property
    def sigmoid(self) -> bool:
        """Whether the model was trained with the sigmoid (SigLIP) loss."""
        return self.logit_bias is not None

    # -- encoders (with gradients where the parameters require them)

    def preprocess(self, images: list[Any]) -> Any:
        return self.embedder.preprocess_images(images)

    def encode_pixels(self, pixels: Any) -> Any:
        pixels = pixels.to(self.device)
        if self.backend == "openclip":
            return self.module.encode_image(pixels)
        return _pooled(self.module.get_image_features(pixel_values=pixels))

    def encode_texts(self, texts: list[str]) -> Any:
        if self.backend == "openclip":
            tokens = self.embedder._tokenizer(texts).to(self.device)
            return self.module.encode_text(tokens)
        encoded = self.embedder._tokenizer(
            texts,
            padding="max_length" if self.embedder._is_siglip else True,
            truncation=True,
            max_length=self.embedder._max_length,
            return_tensors="pt",
        )
        inputs = {k: v.to(self.device) for k, v in encoded.items()
                  if k in ("input_ids", "attention_mask")}
        return _pooled(self.module.get_text_features(**inputs))

    # -- parameter groups

    def tower_of(self, parameter: str) -> str:
        """``image``, ``text``, ``scale`` or ``other``."""
        if parameter in ("logit_scale", "logit_bias"):
            return "scale"
        if self.backend == "openclip":
            return "image" if parameter.startswith("visual.") else "text"
        if parameter.startswith(("vision_model.", "visual_projection.")):
            return "image"
        if parameter.startswith(("text_model.", "text_projection.")):
            return "text"
        return "other"

    def select(self, mode: str, layers: int, fixed_scale: bool) -> dict[str, list[str]]:
        """Set ``requires_grad`` for a mode; returns the trained parameter names per tower."""
        if mode not in MODES:
            raise FinetuneError(f"unknown mode {mode!r}; the modes are {', '.join(MODES)}")
        named = dict(self.module.named_parameters())
        towers = {name: self.tower_of(name) for name in named}
        chosen: set[str] = set()
        if mode == "full":
            chosen = {n for n, t in towers.items() if t != "scale"}
        elif mode == "lock-image":
            chosen = {n for n, t in towers.items() if t == "text"}
        elif mode == "lock-text":
            chosen = {n for n, t in towers.items() if t == "image"}
        else:
            if layers < 0:
                raise FinetuneError(f"--layers must be 0 or more, not {layers}")
            for tower in ("image", "text"):
                names = [n for n, t in towers.items() if t == tower]
                indices = {n: int(m.group(1)) for n in names if (m := _BLOCK.search(n))}
                if not indices:
                    raise FinetuneError(
                        f"{self.name}: found no numbered blocks in the {tower} tower, so "
                        "'last-layers' cannot choose; use --mode full, lock-image or lock-text"
                    )
                last = max(indices.values())
                for n in names:
                    if n in indices:
                        if indices[n] > last - layers:
                            chosen.add(n)
                    elif not _STEM.search(n):
                        chosen.add(n)
        if not fixed_scale:
            chosen |= {n for n, t in towers.items() if t == "scale"}
        for name, parameter in named.items():
            parameter.requires_grad_(name in chosen)
        groups: dict[str, list[str]] = {"image": [], "text": [], "scale": [], "other": []}
        for name in named:
            if name in chosen:
                groups[towers[name]].append(name)
        if not any(groups[t] for t in ("image", "text", "other")) and not groups["scale"]:
            raise FinetuneError(f"mode {mode!r} leaves nothing to train in {self.name}")
        return groups

    # -- saving

    def save(self, out: Path) -> list[str]:
        """Write the weights so that the same backend loads them; returns the names to load by."""
        out.mkdir(parents=True, exist_ok=True)
        if self.backend == "hf":
            self.module.save_pretrained(out)
            self.embedder._tokenizer.save_pretrained(out)
            self.embedder._image_processor.save_pretrained(out)
            return [f"hf:{out}"]
        import open_clip

        from models.openclip_backend import parse_openclip_spec

        model_name, _, kind = parse_openclip_spec(self.spec)
        checkpoint = out / "open_clip_pytorch_model.bin"
        state = {k: v.detach().to("cpu") for k, v in self.module.state_dict().items()}
        self.torch.save(state, checkpoint)
        names = []
        if kind == "local-dir":
            source = Path(model_name.removeprefix("local-dir:")) / "open_clip_config.json"
            model_cfg = json.loads(source.read_text("utf-8"))["model_cfg"]
        else:
            try:
                model_cfg = open_clip.get_model_config(model_name)
            except Exception:  # a hub repository that cannot be reached now
                model_cfg = None
            if kind != "hf-hub":
                names.append(f"openclip:{model_name}@{checkpoint}")
        if model_cfg is not None:
            text: Any = getattr(self.module, "text", None)
            if hasattr(getattr(text, "config", None), "save_pretrained"):
                # An HF text tower: its configuration goes into the folder, which becomes its
                # name, so that the folder loads without the hub or the original folder.
                text.config.save_pretrained(out)
                model_cfg = json.loads(json.dumps(model_cfg))
                model_cfg["text_cfg"].update(hf_model_name=str(out.resolve()),
                                             hf_tokenizer_name=str(out.resolve()),
                                             hf_model_pretrained=False)
            config = {
                "model_cfg": model_cfg,
                "preprocess_cfg": open_clip.get_model_preprocess_cfg(self.module),
            }
            (out / "open_clip_config.json").write_text(json.dumps(config, indent=1))
            tokenizer: Any = getattr(self.embedder._tokenizer, "tokenizer", None)
            if hasattr(tokenizer, "save_pretrained"):  # an HF text tower: local-dir needs it
                tokenizer.save_pretrained(out)
            names.insert(0, f"openclip:local-dir:{out}")
        if not names:
            raise FinetuneError(
                f"no open_clip configuration was found for {self.name}, so {checkpoint} cannot "
                "be loaded back by name; write an open_clip_config.json next to it"
            )
        return names


def _pooled(output: Any) -> Any:
    """The projected features of a transformers ``get_*_features`` call (tensor or output)."""
    if hasattr(output, "detach"):
        return output
    for key in ("pooler_output", "image_embeds", "text_embeds"):
        value = getattr(output, key, None)
        if value is not None:
            return value
    raise FinetuneError(f"cannot find the features in a {type(output).__name__}")


def contrastive_loss(
    image: Any, text: Any, logit_scale: Any, logit_bias: Any | None = None
) -> Any:
    """The CLIP loss of matched pairs ``(image[i], text[i])``.

    Symmetric InfoNCE over ``exp(logit_scale) * cos``; with a ``logit_bias`` (SigLIP), the
    pairwise sigmoid loss ``-mean_i sum_j log sigmoid(z_ij (exp(s) cos_ij + b))``, ``z`` = +1 on
    the diagonal and -1 elsewhere.
    """
    import torch
    import torch.nn.functional as F

    image = F.normalize(image.float(), dim=-1)
    text = F.normalize(text.float(), dim=-1)
    logits = logit_scale.float().exp() * image @ text.T
    n = logits.shape[0]
    if logit_bias is not None:
        logits = logits + logit_bias.float()
        signs = 2 * torch.eye(n, device=logits.device) - 1
        return -F.logsigmoid(signs * logits).sum() / n
    target = torch.arange(n, device=logits.device)
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.T, target)) / 2


class Finetuner:
    """The training state: model, trained parameters, optimiser, schedule, frozen-tower caches.

    Args:
        model: The wrapped model (:class:`TrainableModel`).
        images: A function from card index to a Pillow image.
        mode, layers, fixed_scale: What trains (see the module docstring).
        steps, learning_rate, weight_decay, warmup: The optimiser's schedule.
    """

    def __init__(
        self,
        model: TrainableModel,
        images: Any,
        *,
        mode: str,
        layers: int = 2,
        fixed_scale: bool = False,
        steps: int = 100,
        learning_rate: float = 1e-5,
        weight_decay: float = 0.1,
        warmup: float = 0.1,
    ) -> None:
        torch = model.torch
        self.model = model
        self.images = images
        self.groups = model.select(mode, layers, fixed_scale)
        named = dict(model.module.named_parameters())
        trained = [named[n] for g in self.groups.values() for n in g]
        self.parameters = trained
        decay = [p for p in trained if p.ndim >= 2]
        no_decay = [p for p in trained if p.ndim < 2]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": weight_decay},
             {"params": no_decay, "weight_decay": 0.0}],
            lr=learning_rate,
        )
        warm = max(1, round(warmup * steps))

        def factor(step: int) -> float:
            if step < warm:
                return (step + 1) / warm
            progress = (step - warm) / max(1, steps - warm)
            return 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))

        self.schedule = torch.optim.lr_scheduler.LambdaLR(self.optimizer, factor)
        self.image_frozen = not (self.groups["image"] or self.groups["other"])
        self.text_frozen = not (self.groups["text"] or self.groups["other"])
        self._pixels: dict[int, Any] = {}
        self._pixel_bytes = 0
        self._image_features: dict[int, Any] = {}
        self._text_features: dict[str, Any] = {}
        self.trained_count = sum(p.numel() for p in trained)
        self.total_count = sum(p.numel() for p in named.values())

    def _pixels_of(self, cards: list[int]) -> Any:
        torch = self.model.torch
        missing = [c for c in cards if c not in self._pixels]
        if missing:
            batch = self.model.preprocess([self.images(c) for c in missing])
            for c, pixels in zip(missing, batch, strict=True):
                if self._pixel_bytes < _PIXEL_CACHE_BYTES:
                    self._pixels[c] = pixels
                    self._pixel_bytes += pixels.numel() * pixels.element_size()
            fresh = dict(zip(missing, batch, strict=True))
        else:
            fresh = {}
        return torch.stack([self._pixels[c] if c in self._pixels else fresh[c] for c in cards])

    def _image_batch(self, cards: list[int]) -> Any:
        torch = self.model.torch
        if not self.image_frozen:
            return self.model.encode_pixels(self._pixels_of(cards))
        missing = [c for c in cards if c not in self._image_features]
        if missing:
            with torch.no_grad():
                vectors = self.model.encode_pixels(self._pixels_of(missing)).detach()
            self._image_features.update(zip(missing, vectors, strict=True))
            for c in missing:
                self._pixels.pop(c, None)
        return torch.stack([self._image_features[c] for c in cards])

    def _text_batch(self, texts: list[str]) -> Any:
        torch = self.model.torch
        if not self.text_frozen:
            return self.model.encode_texts(texts)
        missing = sorted({t for t in texts if t not in self._text_features})
        if missing:
            with torch.no_grad():
                vectors = self.model.encode_texts(missing).detach()
            self._text_features.update(zip(missing, vectors, strict=True))
        return torch.stack([self._text_features[t] for t in texts])

    def loss(self, cards: list[int], texts: list[str]) -> Any:
        """The loss of a batch of (card, caption) pairs (with gradients)."""
        model = self.model
        return contrastive_loss(
            self._image_batch(cards), self._text_batch(texts), model.logit_scale,
            model.logit_bias if model.sigmoid else None,
        )

    def step(self, cards: list[int], texts: list[str]) -> float:
        """One optimiser step on a batch; returns its loss before the step."""
        torch = self.model.torch
        loss = self.loss(cards, texts)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.parameters, 1.0)
        self.optimizer.step()
        self.schedule.step()
        scale = self.model.logit_scale
        if not self.model.sigmoid and scale.requires_grad:
            with torch.no_grad():
                scale.clamp_(0, math.log(100))
        return float(loss.detach())
