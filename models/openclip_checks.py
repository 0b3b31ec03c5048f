"""What is wrong with a checkpoint or a ``local-dir`` folder that open_clip could not load, or
would load wrongly: tensors missing or of other shapes (named), a file that is no checkpoint, a
folder without weights, a moved export whose text tower's folder is gone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from models.base import EmbedderLoadError

WEIGHT_PATTERNS = ("*.safetensors", "*.bin", "*.pth")
"""The files open_clip looks for weights in a ``local-dir`` folder."""


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def checkpoint_problem(error: BaseException, architecture: str,
                       checkpoint: str | None) -> str | None:
    """What is wrong with a local checkpoint, in a sentence, once open_clip failed to read it
    into ``architecture``; ``None`` when nothing is (the failure is something else).

    The checkpoint is read again here (``torch.load`` with ``weights_only=True``, or
    safetensors) and its state dict compared, key by key and shape by shape, with the
    ``state_dict()`` of a randomly initialised ``architecture`` (after open_clip's own
    conversions of the checkpoint's keys): no reading of torch's error text, which changes
    from one torch version to the next. A checkpoint of another architecture is summarised
    (counts of the tensors missing, extra and of other shapes, with the first of each) rather
    than listed in full; a file that cannot be deserialised is called corrupt, without torch's
    advice to load it with ``weights_only=False`` (which would run whatever code a pickle holds).

    Args:
        error: What open_clip raised (only its unpickler's detail is quoted).
        architecture: The open_clip architecture name (or ``local-dir:FOLDER``).
        checkpoint: The checkpoint file, or ``None`` for a ``local-dir`` folder (whose
            weights file open_clip finds in it).
    """
    import open_clip

    if checkpoint is None and architecture.startswith("local-dir:"):
        from open_clip import factory

        found = getattr(factory, "_find_checkpoint_in_dir", lambda _: None)(
            Path(architecture.removeprefix("local-dir:")))
        checkpoint = str(found) if found else None
    if checkpoint is None or Path(checkpoint).suffix in (".npz", ".npy"):
        return None
    state, unreadable = _read_state_dict(checkpoint, error)
    if unreadable is not None:
        return f"it is not a readable checkpoint: {unreadable}"
    assert state is not None
    name = architecture
    try:
        model = open_clip.create_model(architecture, pretrained=None, load_weights=False,
                                       device="cpu")
    except Exception:  # the architecture itself cannot be built: not the checkpoint's fault
        return None
    if architecture.startswith("local-dir:"):
        name = "its open_clip_config.json"
    state = _as_open_clip_loads(model, state)
    own = {key: tuple(value.shape) for key, value in model.state_dict().items()}
    theirs = {key: tuple(getattr(value, "shape", ())) for key, value in state.items()}
    missing = [key for key in own if key not in theirs]
    unexpected = [key for key in theirs if key not in own]
    shapes = [f"{key}' {list(theirs[key])} where {name} has {list(own[key])}"
              for key in own if key in theirs and theirs[key] != own[key]]
    parts = []
    if missing:
        parts.append(f"{_plural(len(missing), 'tensor')} of {name} missing from the "
                     f"checkpoint ({missing[0]!r}" + (", ...)" if len(missing) > 1 else ")"))
    if unexpected:
        parts.append(f"{_plural(len(unexpected), 'tensor')} of the checkpoint that "
                     f"{name} lacks ({unexpected[0]!r}"
                     + (", ...)" if len(unexpected) > 1 else ")"))
    if shapes:
        parts.append(f"{_plural(len(shapes), 'tensor')} of another shape ('{shapes[0]}"
                     + (", ...)" if len(shapes) > 1 else ")"))
    if not parts:
        return None
    if architecture.startswith("local-dir:"):
        return ("its weights do not fit its open_clip_config.json: " + "; ".join(parts)
                + ". The folder's open_clip_config.json and its weights must be of one model: "
                "save them together (export again)")
    return (f"it does not fit the architecture {name}: " + "; ".join(parts)
            + ". Is it a checkpoint of another architecture? Name that one before the '@'")


def _read_state_dict(path: str, error: BaseException) -> tuple[dict[str, Any] | None,
                                                                str | None]:
    """``(state dict, None)`` of a checkpoint file read as open_clip reads it (never unpickling
    anything but tensors), or ``(None, why it cannot be read)``."""
    import pickle

    import torch

    size = Path(path).stat().st_size
    if size == 0:
        return None, "it is empty"
    if path.endswith(".safetensors"):
        try:
            from safetensors.torch import load_file

            checkpoint: Any = load_file(path, device="cpu")
        except Exception as reading:
            return None, ("it is not a whole safetensors file "
                          f"({str(reading).strip() or type(reading).__name__})")
    else:
        with open(path, "rb") as file:
            zipped = file.read(4) == b"PK\x03\x04"
        try:
            checkpoint = torch.load(path, map_location="cpu", weights_only=True)
        except EOFError:
            return None, "it is empty or cut short"
        except pickle.UnpicklingError:
            # the unpickler's own line (what it refused), when torch's text has one
            detail = str(error).split("WeightsUnpickler error:", 1)
            said = detail[1].strip().split("\n")[0].strip() if len(detail) > 1 else ""
            return None, ("its bytes are corrupt, or it holds objects other than tensors, which "
                          "dixit-ai never unpickles (torch.load weights_only=True)"
                          + (f": {said}" if said else ""))
        except Exception:
            if zipped:
                return None, "it is corrupt or cut short (not a whole torch zip archive)"
            return None, "its bytes are corrupt (neither a torch archive nor a pickle of tensors)"
    if isinstance(checkpoint, dict) and isinstance(checkpoint.get("state_dict"), dict):
        checkpoint = checkpoint["state_dict"]
    if not isinstance(checkpoint, dict) or not all(
            isinstance(key, str) and isinstance(value, torch.Tensor)
            for key, value in checkpoint.items()):
        return None, f"it holds a {type(checkpoint).__name__}, not a state dict of tensors"
    if not checkpoint:
        return None, "its state dict holds no tensor"
    if next(iter(checkpoint)).startswith("module"):
        checkpoint = {key[7:]: value for key, value in checkpoint.items()}
    return checkpoint, None


def _as_open_clip_loads(model: Any, state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with the changes open_clip's ``load_checkpoint`` makes before it loads a state
    dict into ``model`` (third-party key names, the old text format, a scalar logit scale,
    stale position ids, resized position embeddings), each where this open_clip has it."""
    from open_clip import factory

    state = dict(state)
    convert = getattr(factory, "convert_state_dict", None)
    if convert is not None:
        try:
            state = dict(convert(model, state))
        except Exception:
            pass
    custom = getattr(factory, "convert_to_custom_text_state_dict", None)
    if custom is not None and "positional_embedding" in state and not hasattr(
            model, "positional_embedding"):
        state = dict(custom(state))
    for key in ("logit_scale", "logit_bias"):
        own = getattr(model, key, None)
        if key in state and own is not None and own.ndim != state[key].ndim:
            try:
                state[key] = state[key].reshape(own.shape)
            except RuntimeError:
                pass
    state.pop("text.transformer.embeddings.position_ids", None)
    for resize in ("resize_pos_embed", "resize_text_pos_embed"):
        function = getattr(factory, resize, None)
        if function is not None:
            try:
                function(state, model)
            except Exception:  # a shape it cannot resize: compared (and named) as it is
                pass
    return state


def moved_text_tower_problem(folder: Path) -> None:
    """Refuse a ``local-dir`` folder whose ``open_clip_config.json`` names its HF text tower by
    a folder that is not there: open_clip reads the tower's config and tokenizer from that path,
    which an export (``export-openclip``, ``train finetune``) sets to its own folder, so a moved
    export points at where it was. (open_clip's own error speaks of a hub repository id.)"""
    import json

    try:
        config = json.loads((folder / "open_clip_config.json").read_text(encoding="utf-8"))
        text = config["model_cfg"]["text_cfg"]
    except (OSError, ValueError, KeyError, TypeError):
        return  # open_clip says what is wrong with the config itself
    for key in ("hf_model_name", "hf_tokenizer_name"):
        named = text.get(key) if isinstance(text, dict) else None
        if isinstance(named, str) and Path(named).is_absolute() and not Path(named).exists():
            raise EmbedderLoadError(
                f"openclip: the folder {folder}'s open_clip_config.json names its text tower "
                f"by the folder {named} ({key}), which does not exist: the folder was exported "
                f"there and has been moved or copied. Set {key} to {folder.resolve()} in its "
                "open_clip_config.json (the tower's config.json and tokenizer are in it), or "
                "export it again where it is to be loaded from")
