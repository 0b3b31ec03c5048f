"""Choosing a backend by name, and keeping one loaded model per name and options per process.

==========================  ===================================================================
name                        backend
==========================  ===================================================================
``default``                 the offline default model (:mod:`models.default_model`)
``default:/path/head.npz``  the default towers with another alignment head
``openclip:...``            :mod:`models.openclip_backend` (``ARCH@TAG``, ``ARCH@/file``,
                            ``local-dir:/folder``, ``hf-hub:org/repo``, ``ARCH@random``)
``hf:...``                  :mod:`models.hf_backend` (a hub id or a ``save_pretrained`` folder)
``lite2-mpnet``, ...        the model family (:mod:`models.family`: ``lite2-mpnet``,
                            ``lite1-minilm``, ``lite1-mpnet``, ``imagenet-zeroshot``,
                            ``lite1-zeroshot``, ``caption-reader``); also ``family:NAME``
==========================  ===================================================================
"""

from __future__ import annotations

import threading
from typing import Any

from models.base import Embedder, EmbedderError, progress_step

BACKENDS = ("default", "openclip", "hf", "family")

#: Texts per forward pass unless asked otherwise, chosen by ``scripts/bench_embed.py`` (per text,
#: batch 64 ran 2.4x faster than batch 8 and 1.1x faster than 32).
DEFAULT_BATCH_SIZE = 64
#: Images per forward pass unless asked otherwise (``Embedder.image_batch_size``): per image,
#: larger batches of 224x336 cards run slower on a CPU (batch 8: 1.6x batch 32, on 1 thread and
#: in the issue's 2-thread measurement).
DEFAULT_IMAGE_BATCH_SIZE = 8

_loaded: dict[tuple[Any, ...], Embedder] = {}
_lock = threading.RLock()


def split_name(name: str) -> tuple[str, str]:
    """Split an embedder name into (backend, spec): ``"openclip:ViT-B-32@x"`` -> ``("openclip",
    "ViT-B-32@x")``.

    Raises:
        EmbedderError: The backend is unknown.
    """
    name = str(name).strip()
    backend, _, spec = name.partition(":")
    from models.family import FAMILY_NAMES

    if backend in FAMILY_NAMES:
        return "family", name
    if backend not in BACKENDS:
        raise EmbedderError(
            f"unknown embedder {name!r}: the names are 'default' (or 'default:/path/head.npz'), "
            "'openclip:...' (for example 'openclip:ViT-B-32@laion2b_s34b_b79k', "
            "'openclip:local-dir:/path'), 'hf:...' (for example "
            "'hf:openai/clip-vit-base-patch32', 'hf:/path/to/folder') and the model family's "
            "members " + ", ".join(f"'{member}'" for member in FAMILY_NAMES)
            + " (also as 'family:NAME')"
        )
    if backend == "default" and ":" in name and not spec.strip():
        raise EmbedderError("'default:' needs the path of a head after the colon "
                            "('default:/path/head.npz'); the shipped model is 'default'")
    return backend, spec


def load_embedder(
    name: str = "default",
    *,
    device: str = "auto",
    dtype: str = "float32",
    batch_size: int | None = None,
    **options: Any,
) -> Embedder:
    """Load an embedder by name; the same name and options give the same object in a process.

    Args:
        name: ``"default"``, ``"openclip:..."`` or ``"hf:..."`` (see the module docstring).
        device: ``"auto"`` (a GPU when there is one), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
        dtype: ``"float32"`` (default), ``"bfloat16"``, or ``"float16"`` on a GPU.
        batch_size: Items per forward pass; ``None``: :data:`DEFAULT_BATCH_SIZE` texts and
            :data:`DEFAULT_IMAGE_BATCH_SIZE` images (measured by ``scripts/bench_embed.py``).
        **options: Backend options: ``seed`` (openclip ``@random``), ``local_files_only`` and
            ``revision`` (hf).

    Returns:
        An :class:`~models.base.Embedder`.

    Raises:
        EmbedderError: The name or an option is invalid.
        EmbedderLoadError: The weights could not be loaded; the message says which weights were
            looked for, where, and what to install or pass instead.

    Example:
        >>> embedder = load_embedder("default", device="cpu")  # doctest: +SKIP
        >>> embedder.embed_texts(["whale"]).shape  # doctest: +SKIP
        (1, 384)
    """
    backend, spec = split_name(name)
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(batch_size, int)
                                   or batch_size < 1):
        raise EmbedderError(f"{name}: batch_size must be an integer of at least 1, not "
                            f"{batch_size!r}")
    resolved = _resolve_device(device)
    _check_dtype(dtype, resolved)
    _reject(options, {"default": (), "openclip": ("seed",), "hf": ("local_files_only", "revision"),
                      "family": ()}[backend], name)
    image_batch_size = DEFAULT_IMAGE_BATCH_SIZE if batch_size is None else int(batch_size)
    batch_size = DEFAULT_BATCH_SIZE if batch_size is None else int(batch_size)
    key = (backend, spec, resolved, str(dtype), batch_size, image_batch_size,
           tuple(sorted(options.items())))
    with _lock:
        if key in _loaded:
            return _loaded[key]
        embedder: Embedder
        if backend == "default":
            _reject(options, (), name)
            from models.default_model import DefaultEmbedder

            embedder = DefaultEmbedder(
                spec or None, device=resolved, dtype=dtype, batch_size=batch_size
            )
        elif backend == "family":
            from models.family import load_member

            member, _, member_spec = spec.partition(":")
            # Lazy: its towers load (with a progress line) when something must be embedded.
            embedder = load_member(
                member, member_spec, device=resolved, dtype=dtype, batch_size=batch_size
            )
        elif backend == "openclip":
            _reject(options, ("seed",), name)
            from models.openclip_backend import OpenClipEmbedder

            with progress_step(f"loading model {name}"):
                embedder = OpenClipEmbedder(
                    spec, device=resolved, dtype=dtype, batch_size=batch_size, **options
                )
        else:
            _reject(options, ("local_files_only", "revision"), name)
            from models.hf_backend import HFClipEmbedder

            with progress_step(f"loading model {name}"):
                embedder = HFClipEmbedder(
                    spec, device=resolved, dtype=dtype, batch_size=batch_size, **options
                )
        if embedder.image_batch_size is None:
            embedder.image_batch_size = image_batch_size
        _loaded[key] = embedder
        return embedder


def _resolve_device(device: str) -> str:
    """``"cpu"`` as is (no torch needed: the default model then loads it lazily); the rest
    through torch (``"auto"`` asks it for a GPU)."""
    if str(device).strip().lower() == "cpu":
        return "cpu"
    from models._torch_utils import resolve_device

    return resolve_device(device)


def _check_dtype(dtype: str, device: str) -> None:
    name = str(dtype).strip().lower().removeprefix("torch.")
    if name == "float32" or (name == "bfloat16" and device == "cpu"):
        return  # valid everywhere torch runs; checked without importing it
    from models._torch_utils import resolve_dtype

    resolve_dtype(dtype, device)


def loaded_embedders() -> list[Embedder]:
    """The embedders loaded in this process so far."""
    with _lock:
        return list(_loaded.values())


def forget_loaded() -> None:
    """Drop this process's loaded embedders (tests use it to free memory)."""
    with _lock:
        _loaded.clear()


def _reject(options: dict[str, Any], allowed: tuple[str, ...], name: str) -> None:
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise EmbedderError(
            f"{name}: unknown option(s) {', '.join(unknown)}; this backend takes "
            + (", ".join(allowed) if allowed else "device, dtype and batch_size only")
        )
