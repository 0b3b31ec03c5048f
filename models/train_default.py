"""Train the default model's alignment head on dream cards, evaluate it, write it with a model card.

The experiment behind ``scripts/train_default_model.py`` and ``dixit-ai train align`` (kept in the
package so that the installed command can run it).

Reads top to bottom:

1. load the two frozen towers (EfficientNet-Lite0, all-MiniLM-L6-v2; no network);
2. build the training decks (dream seeds disjoint from the default deck's seed 0 and from the
   evaluation seed), extract the frozen image features once (kept in the embedding cache);
3. embed captions and object names with the frozen text tower;
4. train the head (InfoNCE, learnable temperature, auxiliary object-name term) through the blend
   with the ImageNet zero-shot path;
5. evaluate on held-out dream cards (and the photo set), next to the text-only oracle and
   ImageNet zero-shot;
6. write ``runs/<exp>__<seed>__<time>/`` (config, loss history, every board, metrics) and, with
   ``--write-head``, the head and its model card under ``models/weights/``, and print the head's
   new SHA-256 with the line of ``models/weight_files.py`` that pins it, to be updated.

Examples::

    python scripts/train_default_model.py --write-head          # the committed head
    python scripts/train_default_model.py --smoke                # a few seconds, for CI
    dixit-ai train align --smoke                                 # the same, installed
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import itertools
import json
import math
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Args:
    """The experiment's settings; each field's docstring is its ``--help``."""

    exp_name: str = "train_default_model"
    """name of the run (the folder under runs/ starts with it)"""
    member: str = ""
    """train a member of the model family (models.family: lite2-mpnet, lite1-minilm,
    lite1-mpnet) instead of the default head: its towers, training seeds, caption mix, seed and
    head settings (the flags not given take the member's); with --write-head its head
    and model card go under models/weights/"""
    image_tower: str = "lite0"
    """image tower (models.towers: lite0, the default's; lite1; lite2)"""
    text_tower: str = "minilm"
    """text tower (models.towers: minilm, the default's; mpnet)"""
    caption_mix: str = "all"
    """which of a dream card's four captions are trained on: all (the default's), full+scene,
    short+scene, short, or indices such as 0,3 (0 full, 1 relation, 2 object names, 3 scene)"""
    seed: int = 0
    """seed of the training (batches, initialisation) and of the evaluation boards"""
    train_seeds: str = "1001-1020"
    """dream deck seeds of the training cards (a range A-B or a comma list); never 0 (the
    default deck) nor the evaluation seed"""
    train_cards: int = 600
    """cards per training seed"""
    eval_seed: int = 9001
    """dream deck seed of the held-out evaluation cards"""
    eval_cards: int = 600
    """held-out evaluation cards (the issue asks for at least 600)"""
    boards_per_query: int = 20
    """boards per target card and kind of clue"""
    steps: int = 3000
    """training steps"""
    batch_size: int = 256
    """cards per training step"""
    learning_rate: float = 2e-3
    """peak learning rate (linear warm-up, cosine decay)"""
    object_weight: float = 0.5
    """weight of the auxiliary object-name term"""
    caption_regression: float = 20.0
    """weight of the regression term 1 - cos(image, mean caption embedding)"""
    blend: float = 1.0
    """weight of the ImageNet zero-shot path in the final image embedding"""
    zero_shot_temperature: float = 1.0
    """temperature of the softmax over ImageNet logits in the zero-shot path"""
    hidden: int = 0
    """width of a hidden layer of the head (GELU); 0: a linear head"""
    gate_quantile: float = 0.99
    """the gate of the trained path is fully open up to this quantile of the training cards'
    feature distances (photographs lie far beyond and get the zero-shot embedding)"""
    gate_ratio: float = 2.0
    """the gate is closed from gate_ratio times that distance; 0: no gate"""
    snap_weight: float = 1.0
    """pull the trained path towards the object names it is near, with this weight (0: off)"""
    snap_scale: float = 10.0
    """inverse temperature of the softmax over object names of that pull"""
    write_head: bool = False
    """write models/weights/default_head.npz and models/weights/MODEL_CARD.md"""
    head_path: str = ""
    """where to write the head (default: models/weights/default_head.npz)"""
    smoke: bool = False
    """tiny run (a few cards, a few steps) that exercises every step; for CI"""
    runs_dir: str = "runs"
    """folder of run records"""
    threads: int = 0
    """torch threads (0: one per core, at most 8; 1 is faster on a machine shared with other
    jobs, where spinning worker threads wait for each other)"""


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of the experiment: one flag per field of :class:`Args`."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return parser


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one flag per field of :class:`Args`, its docstring as help."""
    fields_doc = _field_docs()
    for field in dataclasses.fields(Args):
        flag = "--" + field.name.replace("_", "-")
        if field.type in ("bool", bool):
            parser.add_argument(flag, action="store_true", help=fields_doc.get(field.name))
        else:
            kind = {"int": int, "float": float, "str": str}[str(field.type)]
            parser.add_argument(
                flag, type=kind, default=field.default, help=fields_doc.get(field.name)
            )


def parse_args(argv: list[str] | None = None) -> Args:
    """Parse the command line into :class:`Args`."""
    return Args(**vars(build_parser().parse_args(argv)))


SMOKE: dict[str, Any] = {"train_seeds": "1001", "train_cards": 48, "eval_cards": 24,
                         "boards_per_query": 2, "steps": 20, "batch_size": 32}
"""``--smoke``'s budget, where the command line gave no option (a family member's smoke run
trains on the first of its own seeds)."""


def _field_docs() -> dict[str, str]:
    """The docstring under each field of Args (as CleanRL's tyro shows them)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Args))
    docs: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, after in itertools.pairwise(body):
        if isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr):
            docs[node.target.id] = " ".join(str(after.value.value).split())  # type: ignore
    return docs


def parse_seeds(text: str) -> list[int]:
    if "-" in text:
        first, last = (int(v) for v in text.split("-"))
        return list(range(first, last + 1))
    return [int(v) for v in text.split(",") if v.strip()]


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the experiment; returns the exit status."""
    from models.players.cli import given_options

    parser = build_parser()
    args = Args(**vars(parser.parse_args(argv)))
    return run(args, given=given_options(parser, argv))


def check_args(args: Args) -> None:
    """Refuse settings the experiment cannot run with, before it loads or writes anything:
    every number is checked (finite, within its range), and the training seeds and caption mix
    must parse.

    Raises:
        ValueError: a count, size, rate or weight out of range, NaN or infinite; the message
            names the flag, the value and its limit.
    """
    from dixit_ai.decks.dream import MAX_DREAM_SIZE
    from models.players.cli import check_at_least, check_positive

    check_at_least(args, (("steps", 1), ("batch_size", 1), ("train_cards", 1),
                          ("eval_cards", 1), ("boards_per_query", 1), ("hidden", 0),
                          ("threads", 0), ("seed", 0), ("eval_seed", 0)))
    for name in ("train_cards", "eval_cards"):
        if getattr(args, name) > MAX_DREAM_SIZE:
            raise ValueError(f"{_flag(name)} must be at most {MAX_DREAM_SIZE} (a dream deck's "
                             f"largest size), not {getattr(args, name)}")
    for name in ("learning_rate", "zero_shot_temperature", "snap_scale"):
        check_positive(args, name)
    for name in ("object_weight", "caption_regression", "blend", "snap_weight"):
        _check_finite(args, name, least=0.0)
    _check_finite(args, "gate_quantile", least=0.0, most=1.0)
    if args.gate_ratio != 0:
        _check_finite(args, "gate_ratio", least=1.0, note=" (or 0: no gate)")
    try:
        seeds = parse_seeds(args.train_seeds)
    except ValueError:
        seeds = []
    if not seeds or min(seeds) < 0:
        raise ValueError(f"--train-seeds must be a range A-B (A <= B) or a comma list of "
                         f"non-negative dream seeds, not {args.train_seeds!r}")
    caption_indices(args.caption_mix)


def settle_args(args: Args, given: Iterable[str] | None = None) -> None:
    """Check ``args`` (:func:`check_args`), give it a family member's settings and the smoke
    budget (:data:`SMOKE`) where asked, and check the training seeds they end with.

    ``given``: the settings the command line gave (``dest`` names); the smoke budget leaves
    them as given (``--smoke --steps 200`` trains 200 steps). By default, the settings that
    differ from :class:`Args`' defaults.

    Raises:
        ValueError: a setting :func:`check_args` refuses; a member that is not trained; training
            seeds that include the default deck's (0) or the evaluation seed, or, for a family
            member, any of the default model's seeds.
    """
    from models.players.cli import apply_smoke, options_given

    taken = frozenset(given) if given is not None else options_given(args)  # before the member's
    check_args(args)
    if args.member:
        apply_member(args, taken)
    if args.smoke:
        smoke = dict(SMOKE)
        if args.member:
            smoke["train_seeds"] = str(parse_seeds(args.train_seeds)[0])
        apply_smoke(args, smoke, taken)
    train_seeds = parse_seeds(args.train_seeds)
    if 0 in train_seeds or args.eval_seed in train_seeds:
        raise ValueError(f"--train-seeds must differ from 0 (the default deck) and --eval-seed "
                         f"({args.eval_seed}), not {args.train_seeds!r}")
    if args.member and set(train_seeds) & DEFAULT_MODEL_SEEDS:
        raise ValueError(
            f"a family member's training seeds must be disjoint from the default model's "
            f"(1001-1020, validation 8001, test 9001); {args.train_seeds} is not"
        )


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _check_finite(args: Args, name: str, *, least: float, most: float | None = None,
                  note: str = "") -> None:
    """Refuse a setting that is NaN, infinite, below ``least`` or above ``most``."""
    value = getattr(args, name)
    if not (math.isfinite(value) and value >= least and (most is None or value <= most)):
        limit = f"at least {least:g}" + (f" and at most {most:g}" if most is not None else "")
        raise ValueError(f"{_flag(name)} must be a finite number {limit}{note}, not {value}")


def run(args: Args, *, announce: Callable[[Path], None] | None = None,
        given: Iterable[str] | None = None) -> int:
    """Run the experiment; returns the exit status (2, with a message, for bad settings).

    ``announce`` (if given) is called with the run folder once it is made: the settings were
    checked and the towers loaded (weights that cannot be loaded are bad input, found before
    anything is written), and the work begins. ``given``: the settings the command line gave,
    which ``--smoke`` keeps (see :func:`settle_args`).
    """
    try:
        settle_args(args, given)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2  # bad input (dixit_ai.cli.common.EXIT_USAGE): nothing loaded or written
    train_seeds = parse_seeds(args.train_seeds)
    mix = caption_indices(args.caption_mix)

    import torch

    from dixit_ai.decks import load_deck
    from models.align import (
        HeadConfig,
        TrainingData,
        embed_unique_texts,
        extract_features,
        imagenet_class_names,
        train_head,
    )
    from models.default_card import format_table, render_model_card, summary_figures
    from models.default_model import default_head_path, load_towers
    from models.evaluation import (
        caption_retrieval,
        descriptions_of,
        load_photo_set,
        make_boards,
        object_names,
        photo_set_path,
        score_boards,
    )
    from models.family import report_shipped_head
    from models.text_memo import MemoTextTower

    torch.set_num_threads(args.threads or max(1, min(os.cpu_count() or 1, 8)))
    torch.manual_seed(args.seed)
    from dixit_ai.reporting import new_run_dir

    started = time.time()
    # 1. The frozen towers (before the run folder: weights that cannot be loaded write nothing).
    if (args.image_tower, args.text_tower) == ("lite0", "minilm"):
        image_tower, frozen_text_tower = load_towers("cpu")
    else:
        from models import towers

        image_tower = towers.image_tower(args.image_tower)
        frozen_text_tower = towers.text_tower(args.text_tower)
    text_tower = MemoTextTower(frozen_text_tower)

    run_dir = Path(new_run_dir(args.runs_dir, args.exp_name, args.seed))  # its own, -2 on a clash
    if announce is not None:
        announce(run_dir)
    run_name = run_dir.name
    (run_dir / "args.json").write_text(json.dumps(dataclasses.asdict(args), indent=1))
    print(f"run: {run_dir}")

    # 2. Training cards and their frozen features.
    features, logits, captions, objects = [], [], [], []
    for deck_seed in train_seeds:
        deck = load_deck(f"dream:size={args.train_cards},seed={deck_seed}")
        pooled, raw_logits = extract_features(image_tower, deck, deck.card_ids)
        features.append(pooled)
        logits.append(raw_logits)
        captions += [mixed_captions(deck.captions(card), mix) for card in deck.card_ids]
        objects += [object_names(description) for description in descriptions_of(deck)]

    # 3. Text embeddings of captions, object names and ImageNet class names.
    vocabulary, text_vectors = embed_unique_texts(text_tower, [c for cs in captions for c in cs])
    text_index = {t: i for i, t in enumerate(vocabulary)}
    names, name_vectors = embed_unique_texts(text_tower, [o for os_ in objects for o in os_])
    name_index = {t: i for i, t in enumerate(names)}
    class_names = imagenet_class_names()
    class_vectors = text_tower.encode(class_names)
    data = TrainingData(
        features=np.concatenate(features),
        logits=np.concatenate(logits),
        caption_ids=[[text_index[c] for c in cs] for cs in captions],
        object_ids=[[name_index[o] for o in os_] for os_ in objects],
        text_vectors=text_vectors,
        object_vectors=name_vectors,
    )

    # 4. Training.
    config = HeadConfig(
        steps=args.steps,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        object_weight=args.object_weight,
        caption_regression=args.caption_regression,
        blend=args.blend,
        zero_shot_temperature=args.zero_shot_temperature,
        hidden=args.hidden,
        gate_quantile=args.gate_quantile,
        gate_ratio=args.gate_ratio,
        snap_weight=args.snap_weight,
        snap_scale=args.snap_scale,
        seed=args.seed,
    )
    head, history = train_head(data, class_vectors, config)
    with open(run_dir / "history.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(history[0]) if history else ["step"])
        writer.writeheader()
        writer.writerows(history)
    try:
        head.to_arrays({})  # refuses a head holding NaN or infinity
    except ValueError as error:
        print(f"error: the training diverged ({run_dir / 'history.csv'} has its losses): "
              f"{error}; try a lower --learning-rate", file=sys.stderr)
        return 1  # a check failed (dixit_ai.cli.common.EXIT_FAILED)

    # 5. Evaluation on held-out cards.
    eval_deck = load_deck(f"dream:size={args.eval_cards},seed={args.eval_seed}")
    eval_pooled, eval_logits = extract_features(image_tower, eval_deck, eval_deck.card_ids)
    eval_captions = [eval_deck.captions(card) for card in eval_deck.card_ids]
    descriptions = descriptions_of(eval_deck)
    boards = make_boards(
        descriptions, eval_captions, seed=args.seed, boards_per_query=args.boards_per_query
    )
    from models.default_head import zero_shot_embeddings

    own = model_label(args)
    contenders: dict[str, np.ndarray] = {
        own: head.apply(eval_pooled, eval_logits),
        "trained head alone": contenders_head_alone(head, eval_pooled, eval_logits),
        "ImageNet zero-shot (lower bound)": zero_shot_embeddings(
            eval_logits, class_vectors, args.zero_shot_temperature
        ),
        "text-only oracle (upper bound)": text_tower.encode([c[0] for c in eval_captions]),
    }
    if not args.blend:
        del contenders["trained head alone"]  # the model itself
    metrics: dict[str, Any] = {"dream": {}, "photos": {}, "model_label": own}
    for label, vectors in contenders.items():
        scored = score_boards(boards, vectors, text_tower.encode, seed=args.seed)
        rows = scored.pop("_boards")
        metrics["dream"][label] = scored
        slug = label.split(" (")[0].replace(" ", "_")
        with open(run_dir / f"boards_{slug}.csv", "w", encoding="utf-8", newline="") as handle:
            board_writer = csv.writer(handle)
            board_writer.writerow(["kind", "target", "d1", "d2", "d3", "d4", "d5", "clue", "won"])
            board_writer.writerows(rows)

    # Photographs and illustrations.
    if (photo_set_path() / "index.json").is_file():
        from PIL import Image

        entries = load_photo_set()
        images = [Image.open(photo_set_path() / e["file"]).convert("RGB") for e in entries]
        pooled, raw = image_tower.features(images)
        captions_vectors = text_tower.encode([e["caption"] for e in entries])
        photo_contenders = {
            own: head.apply(pooled, raw),
            "trained head alone": contenders_head_alone(head, pooled, raw),
            "ImageNet zero-shot (lower bound)": zero_shot_embeddings(
                raw, class_vectors, args.zero_shot_temperature
            ),
        }
        if not args.blend:
            del photo_contenders["trained head alone"]
        for label, vectors in photo_contenders.items():
            metrics["photos"][label] = caption_retrieval(vectors, captions_vectors, seed=args.seed)

    metrics["head"] = {"gate_low": head.gate_low, "gate_high": head.gate_high,
                       "names": len(names),
                       "learned_temperature": head.metadata.get("learned_temperature")}
    metrics["seconds"] = round(time.time() - started, 1)
    metrics["train_cards"] = len(data.features)
    metrics["train_seeds"] = train_seeds
    metrics["eval"] = {"seed": args.eval_seed, "cards": args.eval_cards,
                       "boards_per_query": args.boards_per_query}
    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=1))
    print(format_table(metrics))

    # 6. The head and its model card (and, for a shipped head, its new SHA-256 to pin).
    if args.member and (args.write_head or args.head_path):
        from models.family_card import write_member

        report_shipped_head(write_member(args, head, metrics, run_name, train_seeds,
                                         len(data.features)))
        return 0
    if args.write_head or args.head_path:
        path = Path(args.head_path) if args.head_path else default_head_path()
        head = dataclasses.replace(
            head,
            metadata={
                **head.metadata,
                "run": run_name,
                "train_seeds": train_seeds,
                "train_cards": len(data.features),
                "eval": metrics["eval"],
                "figures": summary_figures(metrics),
            },
        )
        head.save(path)
        print(f"head: {path} ({path.stat().st_size / 1e6:.2f} MB)")
        if not args.head_path:
            card = render_model_card(args, metrics, run_name, path)
            (path.parent / "MODEL_CARD.md").write_text(card, encoding="utf-8")
        report_shipped_head(path)
    return 0


def contenders_head_alone(head: Any, pooled: np.ndarray, raw: np.ndarray) -> np.ndarray:
    from models.default_head import embed_from_features

    return embed_from_features(
        pooled, raw, weight=head.weight, bias=head.bias, feature_mean=head.feature_mean,
        feature_std=head.feature_std, class_embeddings=head.class_embeddings, blend=0.0,
        temperature=head.zero_shot_temperature, hidden_weight=head.hidden_weight,
        hidden_bias=head.hidden_bias, name_embeddings=head.name_embeddings,
        snap_weight=head.snap_weight, snap_scale=head.snap_scale,
    )


#: The dream seed on which the shipped default head's name pull weight was chosen (validation);
#: the head file records its training seeds only.
DEFAULT_VALIDATION_SEED = 8001
#: Dream seeds the default model used (training, validation, test): a member avoids them all.
DEFAULT_MODEL_SEEDS = {*range(1001, 1021), DEFAULT_VALIDATION_SEED, 9001}
CAPTION_MIXES = {"all": (0, 1, 2, 3), "full+scene": (0, 3), "short+scene": (1, 2, 3),
                 "short": (1, 2)}


def caption_indices(mix: str) -> tuple[int, ...]:
    """The caption indices of a ``--caption-mix`` (a named mix, or indices ``0,3``).

    Raises:
        ValueError: neither a named mix nor a comma list of indices 0-3 (the message names the
            flag, the mixes and the limit).
    """
    if mix in CAPTION_MIXES:
        return CAPTION_MIXES[mix]
    try:
        indices = tuple(int(v) for v in mix.split(",") if v.strip())
    except ValueError:
        indices = ()
    if not indices or any(i < 0 or i > 3 for i in indices):
        raise ValueError(f"--caption-mix must be one of {', '.join(CAPTION_MIXES)} or indices "
                         f"0-3 such as 0,3, not {mix!r}")
    return indices


def mixed_captions(captions: list[str], mix: tuple[int, ...]) -> list[str]:
    """The captions of a card that a mix keeps (all of them when it keeps none of a card's)."""
    kept = [captions[i] for i in mix if i < len(captions)]
    return kept or list(captions)


def apply_member(args: Args, given: Iterable[str] | None = None) -> None:
    """Give ``args`` the settings of ``args.member`` where the command line gave none
    (``given``: the settings it gave, ``dest`` names; by default, those that differ from their
    defaults): ``--member lite1-minilm --seed 0`` trains with seed 0, not the member's.

    Raises:
        ValueError: the member is not a trained one (nothing to train).
    """
    from models.family import member

    spec = member(args.member)
    if spec.kind != "trained":
        raise ValueError(f"{args.member} is not trained (it is {spec.kind}): nothing to train")
    defaults = Args()
    taken = (frozenset(given) if given is not None else
             frozenset(f.name for f in dataclasses.fields(Args)
                       if getattr(args, f.name) != getattr(defaults, f.name)))
    for key, value in spec.train_flags.items():
        if key not in taken:
            setattr(args, key, value)
    if "exp_name" not in taken:
        args.exp_name = f"train_{args.member}"


def model_label(args: Args) -> str:
    """The row label of the trained model in the figures."""
    if not args.member:
        return "default (trained head + zero-shot)"
    return f"{args.member} (trained head{' + zero-shot' if args.blend else ''})"


if __name__ == "__main__":
    raise SystemExit(main())
