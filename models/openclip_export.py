"""Export the default model's towers and head as an open_clip model (a ``local-dir`` folder).

The folder holds ``open_clip_config.json``, ``open_clip_pytorch_model.bin`` and MiniLM's
config and tokenizer files, so that open_clip users load it with::

    model, _, preprocess = open_clip.create_model_and_transforms("local-dir:/path/to/folder")
    model.eval()  # open_clip returns it in training mode: batch norm would use batch statistics
    tokenizer = open_clip.get_tokenizer("local-dir:/path/to/folder")

and dixit-ai users with ``load_embedder("openclip:local-dir:/path/to/folder")`` (which also makes
it a starting point for :mod:`models.finetune`).

The open_clip model is a ``CustomTextCLIP``:

* vision: timm ``efficientnet_lite0`` (the EfficientNet-Lite0 ImageNet weights), average pooling,
  then open_clip's ``linear`` projection with bias, holding the head's linear map with the
  feature standardisation folded in: ``W diag(1/std) f + (b - W (mean/std))``;
* text: the HF text tower from the MiniLM folder (``hf_model_name``: the exported folder itself,
  which holds MiniLM's ``config.json`` and tokenizer), mean pooling, no projection (384-d);
* preprocessing: mean = std = 0.5, bicubic, shortest-side resize and centre crop to 224 x 336
  (width x height), the size the default model gives portrait (2:3) cards.

What open_clip cannot represent (its timm vision towers end in pooling and an optional
``linear``/``mlp`` projection; nothing else can be configured): the default model's ImageNet
zero-shot path (a softmax over the 1000 classifier logits times class-name embeddings, blended
in), the gate of the trained path (a function of the feature's distance to the training cards),
the name pull (a softmax over object names), a hidden layer with tanh-GELU of any width (timm's
``mlp`` is 768 wide with exact GELU), and the per-aspect input sizes (open_clip has one input
size; square and landscape images are centre-cropped to portrait). A head using any of the first
four is refused (:class:`ExportError` lists which); ``trained_path_only=True`` exports its
linear trained path alone instead, a *different* model (the "trained head alone" row of the
model card), and says so in the folder's ``EXPORT.md``.
"""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

#: MiniLM files copied into the exported folder (configuration and tokenizer; the weights go
#: into the open_clip checkpoint).
MINILM_COPY = ("config.json", "special_tokens_map.json", "tokenizer.json",
               "tokenizer_config.json", "vocab.txt")
#: Input size (height, width) of the exported model: the default model's portrait bucket.
EXPORT_SIZE = (336, 224)


class ExportError(ValueError):
    """The head cannot be exported faithfully as an open_clip model."""


def head_obstacles(head: Any) -> list[str]:
    """What in a head open_clip cannot represent (empty: it exports exactly)."""
    out = []
    if head.blend > 0:
        out.append(
            f"the ImageNet zero-shot path (blend {head.blend:g}): a softmax over the 1000 "
            "classifier logits times the class names' embeddings; open_clip's timm tower drops "
            "the classifier and allows no second path"
        )
    if math.isfinite(head.gate_low) or math.isfinite(head.gate_high):
        out.append(
            f"the gate of the trained path (full up to feature distance {head.gate_low:.3g}, "
            f"closed from {head.gate_high:.3g}): a function of the input, not a fixed layer"
        )
    if head.name_embeddings is not None and head.snap_weight > 0:
        out.append(
            f"the name pull (weight {head.snap_weight:g}, softmax over "
            f"{len(head.name_embeddings)} object names)"
        )
    if head.hidden_weight is not None:
        out.append(
            f"the hidden layer ({head.hidden_weight.shape[0]} wide, tanh-GELU): open_clip's "
            "timm 'mlp' projection is 768 wide with exact GELU"
        )
    return out


def folded_linear(head: Any) -> tuple[np.ndarray, np.ndarray]:
    """The head's linear map with the standardisation folded in: ``(weight, bias)``."""
    if head.hidden_weight is not None:
        raise ExportError("a head with a hidden layer has no single linear map")
    scale = 1.0 / head.feature_std.astype(np.float64)
    weight = head.weight.astype(np.float64) * scale[None, :]
    bias = head.bias.astype(np.float64) - weight @ head.feature_mean.astype(np.float64)
    return weight.astype(np.float32), bias.astype(np.float32)


def model_config(folder: Path) -> dict[str, Any]:
    """The ``open_clip_config.json`` of an exported folder."""
    from models.default_model import IMAGE_MEAN, IMAGE_STD, TEXT_DIM, TEXT_MAX_TOKENS

    return {
        "model_cfg": {
            "embed_dim": TEXT_DIM,
            "custom_text": True,
            "vision_cfg": {
                "timm_model_name": "efficientnet_lite0",
                "timm_model_pretrained": False,
                "timm_pool": "avg",
                "timm_proj": "linear",
                "timm_proj_bias": True,
                "image_size": list(EXPORT_SIZE),
            },
            "text_cfg": {
                "hf_model_name": str(folder),
                "hf_tokenizer_name": str(folder),
                "hf_model_pretrained": False,
                "hf_pooler_type": "mean_pooler",
                "hf_proj_type": None,
                "context_length": TEXT_MAX_TOKENS,
            },
        },
        "preprocess_cfg": {
            "size": list(EXPORT_SIZE),
            "mode": "RGB",
            "mean": [IMAGE_MEAN] * 3,
            "std": [IMAGE_STD] * 3,
            "interpolation": "bicubic",
            "resize_mode": "shortest",
        },
    }



def _load_all_but(target: Any, source: Any, dropped_prefix: str, problem: str) -> None:
    """Load ``source``'s weights (less those under ``dropped_prefix``) into ``target``, exactly."""
    state = {k: v for k, v in source.state_dict().items() if not k.startswith(dropped_prefix)}
    missing, unexpected = target.load_state_dict(state, strict=False)
    if missing or unexpected:
        raise ExportError(f"{problem}: missing {missing[:5]}, unexpected {unexpected[:5]}")

def export_default_openclip(
    out: str | Path, head_path: str | Path | None = None, *, trained_path_only: bool = False,
    announce: Callable[[Path], None] | None = None,
) -> dict[str, Any]:
    """Write the default model (or another head on its towers) as an open_clip folder.

    Args:
        out: The folder to write (created; files in it are replaced).
        head_path: An alignment head ``.npz``; ``None``: the committed one.
        trained_path_only: Export the head's linear trained path alone when the head has parts
            open_clip cannot represent (a different model; recorded in ``EXPORT.md``).
        announce: Called with the folder once the head and the towers are loaded, before
            anything is written (what fails before it was the input; nothing was written).

    Returns:
        What was written: ``{"folder", "load_with", "exact", "dropped", "head_sha256"}``.

    Raises:
        ExportError: The head has parts open_clip cannot represent (each is listed) and
            ``trained_path_only`` is off, or it has a hidden layer.
    """
    import open_clip
    import torch

    from models._torch_utils import sha256_file
    from models.default_head import AlignmentHead
    from models.default_model import default_head_path, load_towers, minilm_folder

    path = Path(head_path).expanduser() if head_path else default_head_path()
    head = AlignmentHead.load(path)
    obstacles = head_obstacles(head)
    if head.hidden_weight is not None or (obstacles and not trained_path_only):
        raise ExportError(
            f"open_clip cannot represent the head {path} faithfully: "
            + "; ".join(obstacles)
            + ". "
            + ("" if head.hidden_weight is not None else
               "Pass trained_path_only=True (--trained-path-only) to export its linear trained "
               "path alone, a different model.")
        )
    image_tower, text_tower = load_towers("cpu")  # before the folder: unloadable writes nothing
    folder = Path(out).expanduser().resolve()
    if announce is not None:
        announce(folder)
    folder.mkdir(parents=True, exist_ok=True)
    source = minilm_folder()
    for name in MINILM_COPY:
        shutil.copyfile(source / name, folder / name)
    config = model_config(folder)
    (folder / "open_clip_config.json").write_text(json.dumps(config, indent=1))

    model_cfg = json.loads(json.dumps(config["model_cfg"]))
    model_cfg.pop("custom_text")
    model = open_clip.CustomTextCLIP(**model_cfg)
    _load_all_but(model.visual.trunk, image_tower.model, "classifier.",
                  "efficientnet_lite0 weights do not fit open_clip's trunk")
    weight, bias = folded_linear(head)
    with torch.no_grad():
        model.visual.head.proj.weight.copy_(torch.from_numpy(weight))
        model.visual.head.proj.bias.copy_(torch.from_numpy(bias))
        temperature = head.metadata.get("learned_temperature")
        if temperature:
            model.logit_scale.fill_(math.log(1.0 / float(temperature)))
    _load_all_but(model.text.transformer, text_tower.model, "pooler.",
                  "MiniLM weights do not fit open_clip's HF text tower")
    torch.save({k: v.detach().contiguous() for k, v in model.state_dict().items()},
               folder / "open_clip_pytorch_model.bin")

    exact = not obstacles
    record = {
        "folder": str(folder),
        "load_with": [f"local-dir:{folder}", f"openclip:local-dir:{folder}"],
        "exact": exact,
        "dropped": obstacles,
        "head": str(path),
        "head_sha256": sha256_file(path),
        "open_clip": getattr(open_clip, "__version__", "?"),
    }
    (folder / "export.json").write_text(json.dumps(record, indent=1))
    (folder / "EXPORT.md").write_text(_export_card(record), encoding="utf-8")
    return record


def _export_card(record: dict[str, Any]) -> str:
    if record["exact"]:
        what = ("the same model as `default:" + record["head"] + "` (the head has no zero-shot "
                "path, gate or name pull), up to the preprocessing of non-portrait images")
    else:
        what = ("**not** the default model: the head's linear trained path alone; dropped: "
                + "; ".join(record["dropped"]))
    return f"""# dixit-ai default towers as an open_clip model

Load with
`model, _, preprocess = open_clip.create_model_and_transforms("{record['load_with'][0]}")`,
then `model.eval()` (open_clip returns the model in training mode, where the image tower's batch
normalisation uses each batch's own statistics: other vectors), and
`open_clip.get_tokenizer("{record['load_with'][0]}")`; or in dixit-ai with
`load_embedder("{record['load_with'][1]}")`. The text tower's configuration is read from this
folder by its absolute path: export again after moving it.

This is {what}.

Vision: timm `efficientnet_lite0` (EfficientNet-Lite0 ImageNet weights, Apache-2.0), average
pooling, a linear projection 1280 -> 384 (the head, standardisation folded in). Text:
all-MiniLM-L6-v2 (MIT), mean pooling, 384-d. Input: 224 x 336 (width x height), mean = std = 0.5,
bicubic. Head `{record['head']}` (SHA-256 `{record['head_sha256']}`); open_clip
{record['open_clip']}.
"""
