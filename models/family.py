"""The model family: offline embedders independent of the default model, for guesser panels.

Each member is loadable by name through :func:`models.load_embedder` (``load_embedder(
"lite2-mpnet")``). The trained members are made by the project's own training script
(``scripts/train_default_model.py --member NAME``) on dream cards whose seeds are disjoint from
the default model's (training 1001-1020, validation 8001, test 9001), with a different caption
mix; their heads and model cards are under ``models/weights/``.

=====================  =====================================================================
name                   what it is
=====================  =====================================================================
``lite2-mpnet``        EfficientNet-Lite2 (240 x 360) + all-mpnet-base-v2 (768-d) + a trained
                       head with the ImageNet zero-shot blend (mpnet class names) and gate;
                       dream seeds 3001-3002; captions: the three short ones, not the full one
``lite1-minilm``       EfficientNet-Lite1 (224 x 336) + all-MiniLM-L6-v2 (384-d, the default's
                       text space) + a trained head, no zero-shot blend, no name pull; dream
                       seeds 4001-4002; captions: the full and the scene one
``lite1-mpnet``        EfficientNet-Lite1 + all-mpnet-base-v2 + a trained head with the
                       zero-shot blend; the training cards of ``lite1-minilm`` (seeds
                       4001-4002: their tower features are shared), another seed and caption
                       mix: the two short ones
``imagenet-zeroshot``  ImageNet zero-shot alone: EfficientNet-Lite2's class probabilities times
                       all-mpnet-base-v2's embeddings of the 1000 class names (nothing trained;
                       the class-name table ships in ``lite2_mpnet_head.npz``)
``lite1-zeroshot``     ImageNet zero-shot alone on another tower: EfficientNet-Lite1's class
                       probabilities times the same mpnet class-name table (nothing trained);
                       a population member that reads cards as a classifier does, never a
                       member of the held-out panel
``caption-reader``     reads each card's full caption (GROUND TRUTH, not the image) with
                       all-mpnet-base-v2; a stand-in for a person who sees the picture
                       perfectly but thinks in other words; cards through :meth:`card_vectors`
=====================  =====================================================================

Towers come from pinned PyPI packages and are checked against pinned SHA-256 digests
(:mod:`models.towers`), and so are the committed heads
(:data:`models.weight_files.SHIPPED_HEAD_SHA256`); creating an embedder loads no torch (the
fingerprint is made of those digests and the head file's hash): towers load the first time
something must be embedded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models import weight_files
from models.base import Embedder, EmbedderError, EmbedderLoadError, fingerprint_of

FAMILY_HEAD_FORMAT = "dixit-ai family head v1"
#: The zero-shot temperature of the committed heads, with which the shipped vectors of the
#: zero-shot members were computed; a zero-shot member's fingerprint records any other one.
SHIPPED_ZERO_SHOT_TEMPERATURE = 1.0


@dataclass(frozen=True)
class MemberSpec:
    """One member of the family.

    Attributes:
        name: Its embedder name.
        kind: ``"trained"``, ``"zero-shot"`` or ``"caption-reader"``.
        image_tower: Image tower name (:data:`models.towers.IMAGE_TOWERS`), or ``None``.
        text_tower: Text tower name (:data:`models.towers.TEXT_TOWERS`).
        head_file: Its head under ``models/weights/`` (for ``zero-shot``: the head whose class-name
            table it uses), or ``None``; its SHA-256 is pinned in
            :data:`models.weight_files.SHIPPED_HEAD_SHA256` and checked whenever it is loaded.
        card: Its model card under ``models/weights/``.
        train_flags: The training script's flags that make it (``--member NAME`` sets them).
        summary: One line on what it is.
    """

    name: str
    kind: str
    image_tower: str | None
    text_tower: str
    head_file: str | None
    card: str
    train_flags: dict[str, Any]
    summary: str

    @property
    def reads_ground_truth(self) -> bool:
        """Whether it reads the cards' captions instead of their images."""
        return self.kind == "caption-reader"


MEMBERS: dict[str, MemberSpec] = {
    "lite2-mpnet": MemberSpec(
        "lite2-mpnet", "trained", "lite2", "mpnet", "lite2_mpnet_head.npz",
        "MODEL_CARD_lite2-mpnet.md",
        {"image_tower": "lite2", "text_tower": "mpnet", "train_seeds": "3001-3002",
         "train_cards": 500, "caption_mix": "short+scene", "seed": 3, "steps": 1500,
         "snap_weight": 0.0},
        "EfficientNet-Lite2 + all-mpnet-base-v2 + trained head (zero-shot blend, gate)",
    ),
    "lite1-minilm": MemberSpec(
        "lite1-minilm", "trained", "lite1", "minilm", "lite1_minilm_head.npz",
        "MODEL_CARD_lite1-minilm.md",
        {"image_tower": "lite1", "text_tower": "minilm", "train_seeds": "4001-4002",
         "train_cards": 500, "caption_mix": "full+scene", "seed": 4, "steps": 1500,
         "blend": 0.0, "gate_ratio": 0.0, "snap_weight": 0.0, "caption_regression": 10.0},
        "EfficientNet-Lite1 + all-MiniLM-L6-v2 + trained linear head alone",
    ),
    "lite1-mpnet": MemberSpec(
        "lite1-mpnet", "trained", "lite1", "mpnet", "lite1_mpnet_head.npz",
        "MODEL_CARD_lite1-mpnet.md",
        {"image_tower": "lite1", "text_tower": "mpnet", "train_seeds": "4001-4002",
         "train_cards": 500, "caption_mix": "short", "seed": 5, "steps": 1500,
         "snap_weight": 0.0, "object_weight": 1.0},
        "EfficientNet-Lite1 + all-mpnet-base-v2 + trained head (zero-shot blend, gate)",
    ),
    "imagenet-zeroshot": MemberSpec(
        "imagenet-zeroshot", "zero-shot", "lite2", "mpnet", "lite2_mpnet_head.npz",
        "MODEL_CARD_lite2-mpnet.md", {},
        "ImageNet zero-shot alone: EfficientNet-Lite2 logits x mpnet class-name embeddings",
    ),
    "lite1-zeroshot": MemberSpec(
        "lite1-zeroshot", "zero-shot", "lite1", "mpnet", "lite1_mpnet_head.npz",
        "MODEL_CARD_lite1-mpnet.md", {},
        "ImageNet zero-shot alone: EfficientNet-Lite1 logits x mpnet class-name embeddings",
    ),
    "caption-reader": MemberSpec(
        "caption-reader", "caption-reader", None, "mpnet", None, "FAMILY.md", {},
        "reads the cards' full captions (ground truth) with all-mpnet-base-v2",
    ),
}

#: The names :func:`models.load_embedder` accepts for the family.
FAMILY_NAMES = tuple(MEMBERS)


def weights_dir() -> Path:
    """``models/weights`` (where heads and model cards are committed)."""
    return weight_files.shipped_weights_dir()


def member(name: str) -> MemberSpec:
    """The spec of a member (an error lists the members)."""
    if name not in MEMBERS:
        raise EmbedderError(f"unknown family member {name!r}; known: {', '.join(MEMBERS)}")
    return MEMBERS[name]


# ------------------------------------------------------------------------------- head files


def save_head(head: Any, path: str | Path, *, member_name: str, image_tower: str,
              text_tower: str) -> None:
    """Write an :class:`~models.default_head.AlignmentHead` as a family head (``.npz``, no
    pickle), recording the member and its towers (checked when it is loaded); atomically, so an
    interrupted write leaves the file that was there."""
    from models.default_head import write_head_file

    meta = dict(head.metadata, format=FAMILY_HEAD_FORMAT, member=member_name,
                image_tower=image_tower, text_tower=text_tower)
    write_head_file(path, head.to_arrays(meta))


def load_head(path: str | Path, *, image_tower: str, text_tower: str) -> Any:
    """Read a family head, checking its towers and shapes against the member's; a shipped head
    (``models/weights/``) is checked against its pinned SHA-256 first, a head passed by path
    from elsewhere is not pinned.

    Raises:
        WeightsChecksumError: A shipped head differs from its pin (file and digests named).
        EmbedderLoadError: The file is missing, unreadable (truncated, empty, not an ``.npz``,
            pickled arrays), not a family head, for other towers, or of the wrong shapes.
    """
    from models.default_head import read_head_file
    from models.towers import IMAGE_TOWERS, N_CLASSES, TEXT_TOWERS

    path = Path(path)
    if not path.is_file():
        raise EmbedderLoadError(
            f"the family head {path} is missing; it ships with dixit-ai (reinstall it) or is "
            "written by scripts/train_default_model.py --member NAME --write-head"
        )
    head = read_head_file(path, FAMILY_HEAD_FORMAT)
    meta = head.metadata
    if (meta.get("image_tower"), meta.get("text_tower")) != (image_tower, text_tower):
        raise EmbedderLoadError(
            f"{path} was trained for towers {meta.get('image_tower')}+"
            f"{meta.get('text_tower')}, not {image_tower}+{text_tower}"
        )
    feature_dim = IMAGE_TOWERS[image_tower].feature_dim
    text_dim = TEXT_TOWERS[text_tower].dim
    inner = feature_dim if head.hidden_weight is None else head.hidden_weight.shape[0]
    ok = (head.weight.shape == (text_dim, inner)
          and head.class_embeddings.shape == (N_CLASSES, text_dim)
          and head.feature_mean.shape == (feature_dim,))
    if head.hidden_weight is not None:
        ok = ok and head.hidden_weight.shape == (inner, feature_dim)
    if not ok:
        raise EmbedderLoadError(
            f"{path}: head shapes {head.weight.shape} / {head.class_embeddings.shape} do not fit "
            f"{image_tower} ({feature_dim}-d) and {text_tower} ({text_dim}-d)"
        )
    return head


def report_shipped_head(path: str | Path) -> None:
    """After a head is written to ``path``: when it is a shipped head (under ``models/weights/``
    and pinned in ``models/weight_files.py`` ``SHIPPED_HEAD_SHA256``, which every load of it
    checks), print its path and SHA-256 and, when the pin differs, the line of
    ``models/weight_files.py`` to change and what to change it to. A head written elsewhere is
    the user's own, not pinned: nothing is printed."""
    from dixit_ai.decks.cache import file_sha256
    from models import weight_files

    path = Path(path)
    pin = weight_files.shipped_head_pin(path)
    if pin is None:
        return
    actual = file_sha256(path)
    if actual == pin:
        print(f"shipped head {path}: SHA-256 {actual}, as pinned in models/weight_files.py "
              "SHIPPED_HEAD_SHA256")
        return
    where, line = pin_line(path.name, pin)
    print(f"shipped head {path}: new SHA-256 {actual}\n"
          f"its pin differs ({pin}), and every load of this head is refused until the pin is "
          f"updated: in {where}, change the line\n{line}\nto\n{line.replace(pin, actual)}\n"
          "and commit the head and the pin together.")


def pin_line(name: str, pin: str) -> tuple[str, str]:
    """Where the pin of the shipped head ``name`` is (``models/weight_files.py:LINE``) and that
    line as it is written there (as it would be, if the source cannot be read)."""
    from models import weight_files

    written = f'    "{name}": "{pin}",'
    try:
        lines = Path(weight_files.__file__).read_text(encoding="utf-8").splitlines()
    except OSError:
        return "models/weight_files.py", written
    for number, line in enumerate(lines, start=1):
        if f'"{name}"' in line and pin in line:
            return f"models/weight_files.py:{number}", line
    return "models/weight_files.py", written


# -------------------------------------------------------------------------------- embedders


class FamilyEmbedder(Embedder):
    """A family member on images (``trained`` or ``zero-shot``); see the module docstring.

    Args:
        name: The member.
        head: A head file to use instead of the committed one (trained members).
        device: A resolved torch device.
        dtype: Torch dtype name of the towers.
        batch_size: Items per forward pass.
    """

    def __init__(self, name: str, head: str | Path | None = None, *, device: str = "cpu",
                 dtype: str = "float32", batch_size: int = 32) -> None:
        from models._torch_utils import sha256_file
        from models.towers import IMAGE_TOWERS, TEXT_TOWERS

        spec = member(name)
        if spec.kind not in ("trained", "zero-shot") or spec.image_tower is None:
            raise EmbedderError(f"{name} is not an image member")
        if spec.head_file is None:
            raise EmbedderError(f"{name} has no head file")
        head_path = Path(head) if head is not None else weights_dir() / spec.head_file
        self.spec = spec
        self.head = load_head(head_path, image_tower=spec.image_tower,
                              text_tower=spec.text_tower)
        image = IMAGE_TOWERS[spec.image_tower]
        text = TEXT_TOWERS[spec.text_tower]
        self.name = name if head is None else f"{name}:{head_path}"
        self.device = device
        self.dtype = dtype
        self.batch_size = int(batch_size)
        self.dim = text.dim
        self.reads_ground_truth = False
        if spec.kind == "zero-shot":
            weights = {"class_embeddings_sha256": _array_sha256(self.head.class_embeddings)}
            # The softmax temperature changes every vector too. The committed heads' (1.0) was
            # left out when the shipped vectors were keyed, so it stays out (their fingerprint,
            # family-722b0ff8... for lite1-zeroshot, is unchanged); any other one is recorded.
            if self.head.zero_shot_temperature != SHIPPED_ZERO_SHOT_TEMPERATURE:
                weights["zero_shot_temperature"] = repr(float(self.head.zero_shot_temperature))
            architecture = f"{image.arch}-imagenet-zeroshot+{text.model}"
        else:
            weights = {"head_sha256": sha256_file(head_path)}
            architecture = f"{image.arch}+{text.model}+linear-head"
        self.info = {
            "backend": "family",
            "member": name,
            "architecture": architecture,
            "weights": {"image_tower_sha256": image.sha256,
                        "text_tower_sha256": text.files["model.safetensors"], **weights},
            "preprocess": {"sizes": image.sizes, "fit": "cover, centre crop, bicubic",
                           "mean": 0.5, "std": 0.5, "text_max_tokens": text.max_tokens,
                           "text_pooling": "mean, l2"},
            "dtype": dtype,
        }
        self.fingerprint = fingerprint_of(self.info)

    @property
    def image_tower(self) -> Any:
        """The image tower (loaded with torch the first time an image is embedded)."""
        from models.towers import image_tower

        assert self.spec.image_tower is not None
        return image_tower(self.spec.image_tower, self.device, self.dtype)

    @property
    def text_tower(self) -> Any:
        """The text tower (loaded with torch the first time a text is embedded)."""
        from models.towers import text_tower

        return text_tower(self.spec.text_tower, self.device, self.dtype)

    def _encode_image_batch(self, images: list[Any]) -> np.ndarray:
        from models.default_head import zero_shot_embeddings

        features, logits = self.image_tower.features(images)
        if self.spec.kind == "zero-shot":
            return zero_shot_embeddings(logits, self.head.class_embeddings,
                                        self.head.zero_shot_temperature).astype(np.float32)
        return np.asarray(self.head.apply(features, logits), dtype=np.float32)

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.text_tower.encode(texts), dtype=np.float32)


class CaptionReaderEmbedder(Embedder):
    """``caption-reader``: a card is its full caption (GROUND TRUTH), read by a text tower.

    Texts (clues, captions) are embedded by the text tower. Images cannot be read (there is no
    caption in pixels): :meth:`embed_images` raises; use :meth:`card_vectors` with a deck whose
    cards have captions.

    Args:
        text_tower: The text tower that reads (default all-mpnet-base-v2, not the storyteller's
            MiniLM).
        device: A resolved torch device.
        dtype: Torch dtype name.
        batch_size: Items per forward pass.
    """

    reads_ground_truth = True

    def __init__(self, text_tower: str = "mpnet", *, device: str = "cpu",
                 dtype: str = "float32", batch_size: int = 32) -> None:
        from models.towers import TEXT_TOWERS

        if text_tower not in TEXT_TOWERS:
            raise EmbedderError(
                f"unknown text tower {text_tower!r}; known: {', '.join(TEXT_TOWERS)}")
        spec = TEXT_TOWERS[text_tower]
        self.text_tower_name = text_tower
        self.name = "caption-reader" if text_tower == "mpnet" else f"caption-reader@{text_tower}"
        self.device = device
        self.dtype = dtype
        self.batch_size = int(batch_size)
        self.dim = spec.dim
        self.info = {
            "backend": "family",
            "member": "caption-reader",
            "architecture": f"caption-reader+{spec.model}",
            "reads": "the card's first (full) caption: ground truth, not the image",
            "weights": {"text_tower_sha256": spec.files["model.safetensors"]},
            "preprocess": {"text_max_tokens": spec.max_tokens, "text_pooling": "mean, l2"},
            "dtype": dtype,
        }
        self.fingerprint = fingerprint_of(self.info)

    @property
    def text_tower(self) -> Any:
        """The text tower (loaded with torch the first time a text is embedded)."""
        from models.towers import text_tower

        return text_tower(self.text_tower_name, self.device, self.dtype)

    def card_vectors(self, deck: Any, card_ids: Any = None) -> np.ndarray:
        """``(n, dim)``: each card's first caption embedded (through the embedding cache).

        Raises:
            EmbedderError: A card has no caption (the message names the deck and the card).
        """
        from models.cache import embed_texts_cached

        ids = list(deck.card_ids if card_ids is None else card_ids)
        captions = []
        for card in ids:
            texts = deck.captions(card)
            if not texts:
                raise EmbedderError(f"{self.name} reads captions, and card {card} of "
                                    f"{getattr(deck, 'name', deck)} has none")
            captions.append(texts[0])
        return embed_texts_cached(self, captions, progress=False, what="captions")

    def _encode_image_batch(self, images: list[Any]) -> np.ndarray:
        raise EmbedderError(f"{self.name} reads cards' captions (ground truth), not images: "
                            "use card_vectors(deck)")

    def _encode_text_batch(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.text_tower.encode(texts), dtype=np.float32)


def _array_sha256(array: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.float32).tobytes()).hexdigest()


_loaded: dict[tuple[Any, ...], Embedder] = {}
_lock = threading.Lock()


def load_member(name: str, spec: str = "", *, device: str = "cpu", dtype: str = "float32",
                batch_size: int = 32) -> Embedder:
    """The family member ``name`` (what :func:`models.load_embedder` calls).

    Args:
        name: A name of :data:`FAMILY_NAMES`.
        spec: For a trained member, another head file (``"lite2-mpnet:/path/head.npz"``); for
            ``caption-reader``, another text tower (``"caption-reader:minilm"``).
        device: A resolved torch device.
        dtype: Torch dtype name.
        batch_size: Items per forward pass.
    """
    info = member(name)
    if info.kind == "caption-reader":
        return CaptionReaderEmbedder(spec or "mpnet", device=device, dtype=dtype,
                                     batch_size=batch_size)
    if spec and info.kind != "trained":
        raise EmbedderError(f"{name} takes no ':...' (only trained members take a head file)")
    return FamilyEmbedder(name, spec or None, device=device, dtype=dtype, batch_size=batch_size)
