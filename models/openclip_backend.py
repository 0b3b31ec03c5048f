"""The ``openclip:`` backend: any open_clip architecture, from a pretrained tag or local files.

Names (the part after ``openclip:``), as open_clip itself names weight sources:

==================================  ==========================================================
``ARCH@TAG``                        a pretrained tag (``ViT-B-32@laion2b_s34b_b79k``); open_clip
                                    downloads it when a model hub is reachable
``ARCH@/path/to/checkpoint``        a local checkpoint file (``.bin``, ``.pt``, ``.safetensors``)
``local-dir:/path``                 a folder with ``open_clip_config.json`` and the weights
``hf-hub:org/repo``                 an open_clip repository on the Hugging Face hub
``ARCH@random``                     random initialisation, seeded (benchmarks and tests only)
==================================  ==========================================================
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from models._torch_utils import (
    hash_state_dict,
    parallel_map,
    require_torch,
    resolve_dtype,
    sha256_file,
    to_numpy,
)
from models.base import Embedder, EmbedderError, EmbedderLoadError, fingerprint_of
from models.openclip_checks import (
    WEIGHT_PATTERNS,
    checkpoint_problem,
    moved_text_tower_problem,
)

_LOCAL_HINT = (
    "To load weights without a network, pass a local checkpoint, "
    "'openclip:ARCH@/path/to/open_clip_pytorch_model.bin', or a folder holding "
    "open_clip_config.json and the weights, 'openclip:local-dir:/path/to/folder'."
)


def parse_openclip_spec(spec: str) -> tuple[str, str | None, str]:
    """Split what follows ``openclip:`` into (model name for open_clip, pretrained, source kind).

    Returns:
        ``(model_name, pretrained, kind)`` with ``kind`` one of ``tag``, ``file``, ``local-dir``,
        ``hf-hub``, ``random``.

    Raises:
        EmbedderError: The spec is empty or malformed.
    """
    spec = spec.strip()
    if not spec:
        raise EmbedderError("an openclip name needs an architecture: 'openclip:ViT-B-32@TAG'")
    if spec.startswith("local-dir:"):
        path = spec.removeprefix("local-dir:")
        if not path:
            raise EmbedderError("'openclip:local-dir:' needs a folder path")
        return f"local-dir:{Path(path).expanduser()}", None, "local-dir"
    if spec.startswith("hf-hub:"):
        return spec, None, "hf-hub"
    arch, sep, source = spec.partition("@")
    if not arch or not sep or not source:
        raise EmbedderError(
            f"openclip name {spec!r} needs ARCH@TAG, ARCH@/path/to/checkpoint, ARCH@random, "
            "local-dir:/path or hf-hub:org/repo (for example 'openclip:ViT-B-32@laion2b_s34b_b79k')"
        )
    if source == "random":
        return arch, None, "random"
    looks_like_path = os.sep in source or source.startswith((".", "~")) or Path(source).suffix in (
        ".bin",
        ".pt",
        ".pth",
        ".safetensors",
        ".npz",
    )
    if looks_like_path:
        return arch, str(Path(source).expanduser()), "file"
    return arch, source, "tag"


def _local_model_cfg(folder: str) -> Any:
    """The ``model_cfg`` of a ``local-dir`` folder's ``open_clip_config.json`` (open_clip has
    just read it to build the model)."""
    import json

    config = json.loads((Path(folder) / "open_clip_config.json").read_text(encoding="utf-8"))
    return config.get("model_cfg") if isinstance(config, dict) else None


def tokenizer_description(tokenizer: Any) -> dict[str, Any]:
    """What an open_clip tokenizer does to a text, as plain data: its class, its plain settings
    (context length, special token ids, ...), its cleaning functions by name, and a SHA-256 of
    its vocabulary (``SimpleTokenizer``'s BPE encoder and merges; an ``HFTokenizer``'s
    transformers tokenizer, :func:`models.hf_backend.tokenizer_digest`)."""
    import functools
    import hashlib
    import json

    from models.hf_backend import tokenizer_digest

    def name_of(function: Any) -> Any:
        if isinstance(function, functools.partial):
            return [name_of(function.func), repr(function.args),
                    repr(sorted(function.keywords.items()))]
        return getattr(function, "__qualname__", repr(function))

    described: dict[str, Any] = {"class": type(tokenizer).__name__}
    for key, value in sorted(vars(tokenizer).items()):
        if value is None or isinstance(value, (bool, int, float, str)):
            described[key] = value
        elif callable(value) and not hasattr(value, "get_vocab"):
            described[key] = name_of(value)
    inner = getattr(tokenizer, "tokenizer", None)
    if inner is not None and hasattr(inner, "get_vocab"):
        described["sha256"] = tokenizer_digest(inner)
    elif isinstance(getattr(tokenizer, "encoder", None), dict):
        vocabulary = {"encoder": tokenizer.encoder,
                      "merges": sorted((list(k), v) for k, v in
                                       getattr(tokenizer, "bpe_ranks", {}).items())}
        described["sha256"] = hashlib.sha256(json.dumps(
            vocabulary, sort_keys=True, default=str).encode("utf-8")).hexdigest()
    return described


class OpenClipEmbedder(Embedder):
    """An open_clip model behind the :class:`~models.base.Embedder` interface.

    Args:
        spec: What follows ``openclip:`` (see the module docstring).
        device: A resolved torch device (``"cpu"``, ``"cuda"``).
        dtype: ``"float32"``, ``"bfloat16"`` or (on a GPU) ``"float16"``.
        batch_size: Items per forward pass.
        seed: Seed of the random initialisation for ``ARCH@random``.
    """

    def __init__(
        self,
        spec: str,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
        seed: int = 0,
    ) -> None:
        if parse_openclip_spec(spec)[2] in ("tag", "hf-hub"):
            # Weights from the hub: before torch is imported, fail in seconds if it is away.
            from models.hf_backend import require_hub

            require_hub(f"openclip: {spec!r}")
        torch = require_torch("the openclip backend")
        try:
            import open_clip
        except ImportError as error:
            raise EmbedderLoadError(
                "the openclip backend needs open_clip: pip install 'dixit-ai[models]'"
            ) from error
        model_name, pretrained, kind = parse_openclip_spec(spec)
        self.name = f"openclip:{spec}"
        self.device = device
        self.batch_size = int(batch_size)
        self._torch = torch
        self._dtype = resolve_dtype(dtype, device)

        if kind in ("tag", "file", "random"):
            known = open_clip.list_models()
            if model_name not in known:
                close = [m for m in known if model_name.lower() in m.lower()][:8]
                raise EmbedderLoadError(
                    f"open_clip has no architecture {model_name!r}"
                    + (f"; close names: {', '.join(close)}" if close else "")
                    + ". open_clip.list_models() lists them all."
                )
        if kind == "tag":
            tags = open_clip.list_pretrained_tags_by_model(model_name)
            if pretrained not in tags:
                raise EmbedderLoadError(
                    f"open_clip has no pretrained tag {pretrained!r} for {model_name}; known tags: "
                    f"{', '.join(tags) or 'none'}. A path to a checkpoint must contain '/'. "
                    + _LOCAL_HINT
                )
        if kind == "file" and not Path(str(pretrained)).is_file():
            raise EmbedderLoadError(
                f"openclip: the checkpoint {pretrained} was looked for for {model_name}, but there "
                f"is no such file. " + _LOCAL_HINT
            )
        if kind == "local-dir" and not Path(model_name.removeprefix("local-dir:")).is_dir():
            raise EmbedderLoadError(
                f"openclip: the folder {model_name.removeprefix('local-dir:')} was looked for, but "
                "it does not exist. " + _LOCAL_HINT
            )

        if kind == "local-dir":
            folder = Path(model_name.removeprefix("local-dir:"))
            moved_text_tower_problem(folder)
            if not any(next(folder.glob(pattern), None) for pattern in WEIGHT_PATTERNS):
                # open_clip would build the model at random and say so in a log line: every
                # load another model, with another fingerprint, under the same name.
                raise EmbedderLoadError(
                    f"openclip: the folder {folder} holds no weights file "
                    f"({', '.join(WEIGHT_PATTERNS)}), and open_clip would initialise the model "
                    "at random. Put the weights (open_clip_model.safetensors or "
                    "open_clip_pytorch_model.bin) beside open_clip_config.json; for a random "
                    "model say 'openclip:ARCH@random'")

        logged: list[logging.LogRecord] = []
        try:
            with _root_records(logged):
                if kind == "random":
                    torch.manual_seed(seed)
                model, _, preprocess = open_clip.create_model_and_transforms(
                    model_name, pretrained=pretrained, device="cpu"
                )
        except Exception as error:
            where = {
                "tag": f"the pretrained tag {pretrained!r} for {model_name}, downloaded through "
                "the Hugging Face hub (or open_clip's URL) into the hub cache",
                "file": f"the checkpoint file {pretrained}",
                "local-dir": f"the folder {model_name.removeprefix('local-dir:')}",
                "hf-hub": f"the hub repository {model_name.removeprefix('hf-hub:')}",
                "random": f"a random initialisation of {model_name}",
            }[kind]
            with _root_records([]):  # what open_clip logs while the checkpoint is examined
                problem = (checkpoint_problem(error, model_name, pretrained)
                           if kind in ("file", "local-dir") else None)
            if problem is not None:
                raise EmbedderLoadError(f"openclip could not load {where}: {problem}.") from error
            offline = ""
            if kind in ("tag", "hf-hub"):
                from models.hf_backend import hub_offline

                offline = (
                    " HF_HUB_OFFLINE=1 is set, so the hub is not contacted, and the weights are "
                    "not in the local Hugging Face cache." if hub_offline() else
                    " If the model hub is unreachable from this machine (no network), the "
                    "weights cannot be downloaded."
                )
            reason = str(error).strip().rstrip(".")  # the library's sentence, one full stop
            also = "".join(f" open_clip also said: {text.rstrip('.')}."
                           for text in _messages(logged) if text not in reason)
            raise EmbedderLoadError(
                f"openclip could not load {where}: {reason}.{also}{offline} " + _LOCAL_HINT
            ) from error
        for record in logged:  # what it said on its way to a model, handled as it would be
            logging.getLogger(None if record.name == "root" else record.name).handle(record)

        model = model.to(device=device, dtype=self._dtype).eval()
        self._model = model
        self._preprocess = preprocess
        self._tokenizer = open_clip.get_tokenizer(model_name)

        weights: dict[str, Any]
        if kind == "file":
            weights = {"file_sha256": sha256_file(str(pretrained))}
        elif kind == "random":
            weights = {"random_seed": seed, "state_sha256": hash_state_dict(model)}
        else:
            weights = {"state_sha256": hash_state_dict(model)}
        try:
            preprocess_cfg: Any = open_clip.get_model_preprocess_cfg(model)
        except Exception:  # older open_clip
            preprocess_cfg = repr(preprocess)
        with torch.inference_mode():
            probe = model.encode_text(self._tokenizer(["a"]).to(device))
        self.dim = int(probe.shape[-1])
        if kind in ("local-dir", "hf-hub"):
            # The folder's (or repository's) config chooses the tokenizer and its settings,
            # which the architecture name does not fix: the same weights read through another
            # tokenizer are another model.
            weights["tokenizer"] = tokenizer_description(self._tokenizer)
        if kind == "local-dir":
            # The folder's model config (activation, ...), which its weights do not fix.
            weights["model_cfg"] = _local_model_cfg(model_name.removeprefix("local-dir:"))
        self.info = {
            "backend": "openclip",
            "architecture": model_name if kind != "local-dir" else "local-dir",
            "source": kind,
            "pretrained": (str(Path(model_name.removeprefix("local-dir:")).resolve())
                           if kind == "local-dir" else pretrained),
            "weights": weights,
            "preprocess": preprocess_cfg,
            "dtype": str(self._dtype).removeprefix("torch."),
            "open_clip": getattr(open_clip, "__version__", "?"),
        }
        self.fingerprint = fingerprint_of(
            {k: v for k, v in self.info.items() if k not in ("pretrained", "source", "open_clip")}
        )

    @property
    def model(self) -> Any:
        """The underlying open_clip model (``eval`` mode)."""
        return self._model

    def preprocess_images(self, images: list[Image.Image]) -> Any:
        """The batch tensor that the vision tower sees (CPU, float32)."""
        def one(image: Image.Image) -> Any:
            return self._preprocess(image if image.mode == "RGB" else image.convert("RGB"))

        return self._torch.stack(parallel_map(one, images, self._torch.get_num_threads()))

    def forward_images(self, pixels: Any) -> np.ndarray:
        """Encode a preprocessed batch (the raw model forward the benchmark compares against)."""
        with self._torch.inference_mode():
            pixels = pixels.to(device=self.device, dtype=self._dtype)
            return to_numpy(self._model.encode_image(pixels))

    def _encode_image_batch(self, images: list[Image.Image]) -> np.ndarray:
        return self.forward_images(self.preprocess_images(images))

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        with self._torch.inference_mode():
            tokens = self._tokenizer(texts).to(self.device)
            return to_numpy(self._model.encode_text(tokens))


@contextlib.contextmanager
def _root_records(records: list[logging.LogRecord]) -> Iterator[None]:
    """Keep what reaches the root logger while open_clip loads, where no handler is configured.

    open_clip reports a failed download with ``logging.error``, which, when the root logger has
    no handler, configures one for the whole process (``logging.basicConfig``) and prints
    ``ERROR:root:...`` before our own message. With a handler here the records are kept instead:
    a failure's message quotes them, and after a success they are handled again by their own
    loggers (as they would have been). Where the application configured logging, nothing is
    kept: its handlers get every record as they would."""
    root = logging.getLogger()
    if root.handlers:
        yield
        return

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(logging.NOTSET)
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)


def _messages(records: list[logging.LogRecord]) -> list[str]:
    """The distinct messages of ``records`` at warning level and above, in order."""
    return list(dict.fromkeys(record.getMessage().strip() for record in records
                              if record.levelno >= logging.WARNING))
