"""The ``hf:`` backend: transformers CLIP and SigLIP models, from a hub id or a local folder.

``hf:openai/clip-vit-base-patch32`` loads through ``from_pretrained`` (downloading when a model hub
is reachable and ``local_files_only`` is off); ``hf:/path/to/folder`` loads a folder written by
``save_pretrained`` (``config.json``, the weights, the tokenizer and ``preprocessor_config.json``).
``local_files_only`` defaults to on when ``HF_HUB_OFFLINE`` is set; when it is not, and the hub
does not answer within a few seconds, the load fails at once in one line naming
``HF_HUB_OFFLINE=1`` (:func:`require_hub`) instead of retrying each file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from models._torch_utils import (
    hash_state_dict,
    quiet_weight_loading,
    require_torch,
    resolve_dtype,
    to_numpy,
)
from models.base import Embedder, EmbedderError, EmbedderLoadError, fingerprint_of

_TEXT_INPUTS = ("input_ids", "attention_mask")


def hub_offline() -> bool:
    """Whether the environment says the Hugging Face hub must not be contacted."""
    return any(
        os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on")
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


HUB_PROBE_SECONDS = 3.0
"""How long a load waits to learn whether the model hub answers before it gives up."""


def hub_endpoint() -> str:
    """The Hugging Face hub's address (``HF_ENDPOINT``, else the public hub)."""
    return os.environ.get("HF_ENDPOINT", "").strip().rstrip("/") or "https://huggingface.co"


def hub_unreachable(timeout: float = HUB_PROBE_SECONDS) -> str | None:
    """Why the hub cannot be reached (``None`` if it answers), learnt within ``timeout``.

    One request, no retries: any HTTP answer (even an error status) means the hub is reachable;
    a refused connection, a name that does not resolve or no answer in time means it is not.
    """
    import threading
    import urllib.error
    import urllib.request

    url = hub_endpoint()
    outcome: list[str | None] = []

    def probe() -> None:
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=timeout)
            outcome.append(None)
        except urllib.error.HTTPError:
            outcome.append(None)  # it answered
        except Exception as error:  # URLError, timeouts, resets
            reason = getattr(error, "reason", error)
            outcome.append(f"{type(reason).__name__}: {reason}")

    thread = threading.Thread(target=probe, name="hub-probe", daemon=True)
    thread.start()
    thread.join(timeout + 0.5)  # name resolution is not bounded by the socket timeout
    return outcome[0] if outcome else f"no answer within {timeout:g} s"


def require_hub(what: str) -> None:
    """Fail fast, in one line, when ``what`` must be downloaded and the hub does not answer.

    Does nothing when ``HF_HUB_OFFLINE`` is set (then only the local cache is read).

    Raises:
        EmbedderLoadError: the hub cannot be reached; the message names ``HF_HUB_OFFLINE=1``.
    """
    if hub_offline():
        return
    reason = hub_unreachable()
    if reason is not None:
        raise EmbedderLoadError(
            f"{what} is loaded through the model hub {hub_endpoint()}, which cannot be "
            f"reached ({reason}). "
            "Offline, set HF_HUB_OFFLINE=1 to load it from the local Hugging Face cache, or "
            "pass a local copy (a folder or a checkpoint file)."
        )


_VOLATILE_CONFIG_KEYS = ("transformers_version", "dtype", "torch_dtype")


def model_config(config: Any) -> dict[str, Any]:
    """A transformers config as plain data for the fingerprint: every setting, without what
    does not change the vectors (where it was loaded from, the transformers version, the saved
    dtype, which the load's own ``dtype`` replaces) and private keys (``_name_or_path``, ...).
    """
    def plain(value: Any) -> Any:
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()
                    if not str(k).startswith("_") and k not in _VOLATILE_CONFIG_KEYS}
        if isinstance(value, list | tuple):
            return [plain(v) for v in value]
        return value

    result: dict[str, Any] = plain(config.to_dict())
    return result


def tokenizer_digest(tokenizer: Any) -> str:
    """SHA-256 of what a transformers tokenizer does to a text: a fast tokenizer's whole
    serialised pipeline (normaliser, such as lowercasing; pre-tokeniser; vocabulary; special
    tokens), else the vocabulary, the added tokens and the settings it was made with.

    Part of an ``hf:`` fingerprint: the same weights read through another tokenizer (a cased
    copy of an uncased one, a vocabulary edited in place) embed texts differently, so the
    embedding cache must not serve one's vectors for the other.
    """
    import hashlib
    import json

    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        text = backend.to_str()
    else:
        # Files by their contents (a sentencepiece model), not by where the folder lies.
        init: dict[str, Any] = {}
        for key, value in dict(getattr(tokenizer, "init_kwargs", {})).items():
            if key == "name_or_path":
                continue
            if key.endswith("_file") and isinstance(value, str) and Path(value).is_file():
                value = hashlib.sha256(Path(value).read_bytes()).hexdigest()
            init[key] = value
        text = json.dumps({"vocab": tokenizer.get_vocab(), "init": init},
                          sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def check_tokenizer(tokenizer: Any, text_config: Any, source: str) -> None:
    """Refuse a tokenizer that cannot serve the model's text tower: more tokens than the tower
    has embeddings (an ``IndexError`` at the first clue), or one that reads different words as
    the same tokens (transformers builds an empty tokenizer when a folder's tokenizer files are
    missing: every clue would get one vector, and a player would be blind to clues)."""
    vocab = getattr(text_config, "vocab_size", None)
    if isinstance(vocab, int) and len(tokenizer) > vocab:
        raise EmbedderLoadError(
            f"hf: the tokenizer of {source} has {len(tokenizer)} tokens and the model's text "
            f"tower embeds {vocab}: the tokenizer is another model's. Save the model's own "
            "tokenizer with save_pretrained")
    special = set(tokenizer.all_special_ids)
    words = [[token for token in ids if token not in special]
             for ids in tokenizer(["cat", "dog"])["input_ids"]]
    if words[0] == words[1]:
        raise EmbedderLoadError(
            f"hf: the tokenizer of {source} reads 'cat' and 'dog' as the same tokens "
            f"({len(tokenizer)} tokens in its vocabulary): its tokenizer files are missing or "
            "broken, and every clue would get one vector. Save the model's tokenizer with "
            "save_pretrained (tokenizer.json, or vocab.json and merges.txt, ...)")


class HFClipEmbedder(Embedder):
    """A transformers CLIP or SigLIP model behind the :class:`~models.base.Embedder` interface.

    Args:
        spec: A hub model id (``openai/clip-vit-base-patch32``) or a local folder.
        device: A resolved torch device.
        dtype: ``"float32"``, ``"bfloat16"`` or (on a GPU) ``"float16"``.
        batch_size: Items per forward pass.
        local_files_only: Never contact the hub; ``None`` follows ``HF_HUB_OFFLINE``.
        revision: A hub revision (branch, tag or commit).
    """

    def __init__(
        self,
        spec: str,
        *,
        device: str = "cpu",
        dtype: str = "float32",
        batch_size: int = 32,
        local_files_only: bool | None = None,
        revision: str | None = None,
    ) -> None:
        offline_given = hub_offline() if local_files_only is None else bool(local_files_only)
        if spec.strip() and not offline_given and not Path(spec.strip()).expanduser().exists():
            # Before torch and transformers are imported: an unreachable hub fails in seconds.
            require_hub(f"hf: the model {spec.strip()!r}")
        torch = require_torch("the hf backend")
        try:
            import transformers
            from transformers import AutoImageProcessor, AutoModel, AutoTokenizer
        except ImportError as error:
            raise EmbedderLoadError(
                "the hf backend needs transformers: pip install 'dixit-ai[models]'"
            ) from error
        spec = spec.strip()
        if not spec:
            raise EmbedderError("an hf name needs a model id or a folder: 'hf:org/model'")
        self.name = f"hf:{spec}"
        self.device = device
        self.batch_size = int(batch_size)
        self._torch = torch
        self._dtype = resolve_dtype(dtype, device)
        offline = hub_offline() if local_files_only is None else bool(local_files_only)
        path = Path(spec).expanduser()
        is_local = path.is_dir()
        if not is_local and (spec.startswith((".", "/", "~")) or path.exists()):
            raise EmbedderLoadError(
                f"hf: the folder {path} was looked for, but it is not a folder. Pass a folder "
                "written by save_pretrained (config.json, weights, tokenizer, "
                "preprocessor_config.json) or a hub model id."
            )
        # A folder is recorded (info["source"]) by its absolute path: which folder was loaded,
        # wherever the command ran from.
        source = str(path.resolve()) if is_local else spec
        kwargs: dict[str, Any] = {"local_files_only": offline}
        if revision:
            kwargs["revision"] = revision
        try:
            with quiet_weight_loading():
                model, loading = AutoModel.from_pretrained(source, dtype=self._dtype,
                                                           output_loading_info=True, **kwargs)
            missing = sorted(loading.get("missing_keys") or ())
            if missing:
                # transformers initialises them at random (a log table, no error): the
                # embedder would serve vectors of a model nobody trained.
                raise EmbedderLoadError(
                    f"hf: the weights of {source} lack {len(missing)} of its model's tensors "
                    f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}), which "
                    "would be initialised at random: the folder's weights are incomplete or "
                    "of another model. Save the whole model with save_pretrained")
            tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            image_processor = AutoImageProcessor.from_pretrained(source, **kwargs)
        except EmbedderLoadError:
            raise
        except Exception as error:
            if is_local:
                where = f"the folder {path}"
                fix = (
                    "It must hold what save_pretrained writes: config.json, the weights, the "
                    "tokenizer files and preprocessor_config.json."
                )
            else:
                where = f"the hub model {spec!r} (in the Hugging Face cache, or downloaded)"
                fix = (
                    (("HF_HUB_OFFLINE=1 is set" if hub_offline() else "local_files_only=True")
                     + ", so the hub is not contacted, and the model is not in the local cache. "
                     if offline else "The model hub may be unreachable from this machine. ")
                    + "Download it where a network is available "
                    "(model.save_pretrained(DIR) and processor.save_pretrained(DIR)) and pass "
                    "'hf:/path/to/DIR'."
                )
            reason = str(error).strip().rstrip(".")  # the library's sentence, one full stop
            raise EmbedderLoadError(
                f"hf could not load {where}: {type(error).__name__}: {reason}. {fix}"
            ) from error
        if not (hasattr(model, "get_image_features") and hasattr(model, "get_text_features")):
            raise EmbedderLoadError(
                f"hf: {source} is a {type(model).__name__}, which is not an image-text model; "
                "the hf backend takes CLIP-like models (CLIPModel, SiglipModel, Siglip2Model, ...)"
            )
        check_tokenizer(tokenizer, getattr(model.config, "text_config", None), source)
        self._model = model.to(device).eval()
        self._tokenizer = tokenizer
        self._image_processor = image_processor
        model_type = str(getattr(model.config, "model_type", type(model).__name__))
        self._is_siglip = "siglip" in model_type
        text_config = getattr(model.config, "text_config", None)
        self._max_length = int(getattr(text_config, "max_position_embeddings", 77) or 77)
        self.info = {
            "backend": "hf",
            "architecture": type(model).__name__,
            "model_type": model_type,
            "source": source,
            "weights": {"state_sha256": hash_state_dict(self._model)},
            # The weights alone do not make the model (config.json's activation, norms, ...).
            "config": model_config(model.config),
            "preprocess": image_processor.to_dict(),
            "tokenizer": {
                "class": type(tokenizer).__name__,
                "sha256": tokenizer_digest(tokenizer),
                "vocab_size": len(tokenizer),
                "padding": "max_length" if self._is_siglip else "longest",
                "max_length": self._max_length,
            },
            "dtype": str(self._dtype).removeprefix("torch."),
            "transformers": transformers.__version__,
        }
        self.info["preprocess"].pop("processor_class", None)
        self.dim = int(self._encode_text_batch(["a"]).shape[-1])
        self.fingerprint = fingerprint_of(
            {k: v for k, v in self.info.items() if k not in ("source", "transformers")}
        )

    @property
    def model(self) -> Any:
        """The underlying transformers model (``eval`` mode)."""
        return self._model

    def preprocess_images(self, images: list[Image.Image]) -> Any:
        """The batch tensor that the vision tower sees (CPU, float32)."""
        rgb = [image.convert("RGB") for image in images]
        return self._image_processor(images=rgb, return_tensors="pt")["pixel_values"]

    def forward_images(self, pixels: Any) -> np.ndarray:
        """Encode a preprocessed batch (the raw model forward the benchmark compares against)."""
        with self._torch.inference_mode():
            pixels = pixels.to(device=self.device, dtype=self._dtype)
            return to_numpy(self._model.get_image_features(pixel_values=pixels))

    def _encode_image_batch(self, images: list[Image.Image]) -> np.ndarray:
        return self.forward_images(self.preprocess_images(images))

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        encoded = self._tokenizer(
            texts,
            padding="max_length" if self._is_siglip else True,
            truncation=True,
            max_length=self._max_length,
            return_tensors="pt",
        )
        inputs = {k: v.to(self.device) for k, v in encoded.items() if k in _TEXT_INPUTS}
        with self._torch.inference_mode():
            return to_numpy(self._model.get_text_features(**inputs))
