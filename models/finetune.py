"""Fine-tune or align an open_clip or transformers CLIP/SigLIP on a captioned deck.

Users adapt a real CLIP to their own cards: a folder of images with a ``captions.json``
(``folder:PATH``, see :mod:`dixit_ai.decks.folder`) or any other captioned deck (``dream:...``).
The result is saved so that the *same* backend loads it back:

* ``openclip:...`` models are written as an open_clip ``local-dir`` folder
  (``open_clip_config.json`` + ``open_clip_pytorch_model.bin``): load it with
  ``openclip:local-dir:OUT`` (or ``openclip:ARCH@OUT/open_clip_pytorch_model.bin`` for a built-in
  architecture);
* ``hf:...`` models are written with ``save_pretrained`` (model, tokenizer, image processor):
  load it with ``hf:OUT``.

Reads top to bottom:

1. load the model through its backend (no network needed for local files), and the deck; keep
   the cards that have captions, split them into training and held-out cards (seeded);
2. draw the held-out boards (``board_size`` cards, the target's caption as the clue) and score
   the model on them *before* training;
3. train contrastively: symmetric InfoNCE over a batch of (card, one of its captions) pairs with
   the model's logit scale (learnable unless ``--fixed-scale``), or, for SigLIP models (those
   with a ``logit_bias``), the pairwise sigmoid loss; AdamW, linear warm-up then cosine decay,
   gradient clipping at 1. The model stays in ``eval`` mode (dropout and batch-norm statistics
   untouched). Which weights train is the *mode*:

   ================  ==============================================================
   ``full``          every weight
   ``lock-image``    LiT: the text tower (and the logit scale) only
   ``lock-text``     the image tower (and the logit scale) only
   ``last-layers``   in both towers, the last ``--layers`` numbered blocks and
                     everything after them (final norms, pooling heads, projections);
                     ``--layers 0``: the projections and final norms only
   ================  ==============================================================

4. score again, save the model, reload it through its backend and check that it gives the same
   vectors as the trained model, and write ``finetune_card.json``, ``MODEL_CARD.md`` and
   ``history.csv`` next to the weights.

Examples::

    dixit-ai train finetune --model openclip:ViT-B-32@/ckpt/open_clip_pytorch_model.bin \\
        --deck folder:~/my_cards --mode lock-image --steps 300 --out runs/my_clip
    dixit-ai train align --model hf:/models/clip-vit-base-patch32 --deck folder:~/my_cards
    python scripts/train_default_model.py --model hf:/models/siglip --deck folder:~/my_cards
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.reporting import progress_interval
from dixit_ai.versions import package_versions
from models.finetune_card import command_line, format_figures, render_card
from models.finetune_model import MODES, FinetuneError, Finetuner, TrainableModel


@dataclass
class FinetuneArgs:
    """Settings of a fine-tuning run (all recorded in its model card)."""

    model: str = ""
    deck: str = ""
    mode: str = "last-layers"
    #: ``None``: :data:`DEFAULT_LAYERS` with ``last-layers``; any other mode refuses a number.
    layers: int | None = None
    out: str = ""
    seed: int = 0
    eval_fraction: float = 0.2
    steps: int = 200
    batch_size: int = 32
    learning_rate: float = 1e-5
    weight_decay: float = 0.1
    warmup: float = 0.1
    fixed_scale: bool = False
    board_size: int = 6
    boards_per_card: int = 20
    device: str = "auto"
    smoke: bool = False
    exp_name: str = "finetune"
    runs_dir: str = "runs"


#: Blocks of each tower that ``last-layers`` trains unless ``--layers`` says otherwise.
DEFAULT_LAYERS = 2

#: Help of each option (``--flag``: help); the defaults are :class:`FinetuneArgs`'s.
HELP = {
    "model": "the model to adapt: 'openclip:ARCH@/path/ckpt', 'openclip:local-dir:/path', "
    "'openclip:ARCH@TAG', 'hf:/path/to/save_pretrained/folder' or 'hf:org/id'",
    "deck": "a captioned deck: 'folder:PATH' (images + captions.json) or 'dream:size=N,seed=S'",
    "mode": "which weights train: " + ", ".join(MODES),
    "layers": "with --mode last-layers: how many of the last blocks of each tower train "
    f"(0: projections and final norms only) (default: {DEFAULT_LAYERS}; refused with another "
    "mode)",
    "out": "output folder (empty: RUNS_DIR/EXP_NAME__SEED__TIME)",
    "seed": "seed of the split, the batches, the captions drawn and the evaluation boards",
    "eval_fraction": "fraction of the captioned cards held out for evaluation",
    "steps": "training steps",
    "batch_size": "cards per step (each with one of its captions)",
    "learning_rate": "peak learning rate (linear warm-up, cosine decay)",
    "weight_decay": "AdamW weight decay (not applied to gains, biases and the logit scale)",
    "warmup": "fraction of the steps spent warming up",
    "fixed_scale": "keep the logit scale (and SigLIP's bias) fixed",
    "board_size": "cards per evaluation board",
    "boards_per_card": "evaluation boards per held-out card",
    "device": "'auto', 'cpu', 'cuda' or 'cuda:N'",
    "smoke": "tiny run (a few steps and boards) that exercises every step; for CI",
    "exp_name": "name of the run (the default output folder starts with it)",
    "runs_dir": "folder of run records",
}

#: Options shared with ``dixit-ai train align`` (the default model's trainer has them too).
SHARED_WITH_ALIGN = ("seed", "steps", "batch_size", "learning_rate", "smoke", "exp_name",
                     "runs_dir")


def add_arguments(parser: argparse.ArgumentParser, *, skip: tuple[str, ...] = ()) -> None:
    """Add one ``--flag`` per field of :class:`FinetuneArgs` (except those in ``skip``)."""
    for field in dataclasses.fields(FinetuneArgs):
        if field.name in skip:
            continue
        flag = "--" + field.name.replace("_", "-")
        if field.type in ("bool", bool):
            parser.add_argument(flag, action="store_true", help=HELP[field.name])
            continue
        kind = {"int": int, "int | None": int, "float": float, "str": str}[str(field.type)]
        extra: dict[str, Any] = {"choices": MODES} if field.name == "mode" else {}
        shown = f" (default: {field.default!r})" if field.default not in ("", None) else ""
        parser.add_argument(
            flag, type=kind, default=field.default, help=HELP[field.name] + shown, **extra
        )


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line of a fine-tuning run."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and fine-tune; returns the exit status."""
    return run(FinetuneArgs(**vars(build_parser().parse_args(argv))))


# ------------------------------------------------------------------------------ data and boards


def captioned_cards(deck: Any, spec: str) -> tuple[list[int], list[list[str]], int]:
    """The deck's cards that have captions, their captions, and how many had none.

    Raises:
        FinetuneError: Fewer than 4 cards have captions.
    """
    cards, captions, skipped = [], [], 0
    for card in deck.card_ids:
        texts = [t for t in deck.captions(card) if t and t.strip()]
        if texts:
            cards.append(int(card))
            captions.append(texts)
        else:
            skipped += 1
    if not cards:
        raise FinetuneError(
            f"the deck {spec!r} has no captions: fine-tuning needs a caption per card. For a "
            "folder deck, put a captions.json in the folder mapping each image's file name to a "
            'caption or a list of captions, e.g. {"owl.png": "an owl reading by candlelight"}'
        )
    if len(cards) < 4:
        raise FinetuneError(
            f"the deck {spec!r} has only {len(cards)} captioned cards; fine-tuning needs at "
            "least 4 (2 to train on, 2 held out)"
        )
    return cards, captions, skipped


def split_cards(n: int, eval_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """Indices ``0..n-1`` split into (training, held-out), seeded; both keep at least 2."""
    if not 0 < eval_fraction < 1:
        raise FinetuneError(f"--eval-fraction must lie strictly between 0 and 1, not "
                            f"{eval_fraction}")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5B117]))
    order = rng.permutation(n)
    n_eval = min(n - 2, max(2, round(eval_fraction * n)))
    return sorted(int(i) for i in order[n_eval:]), sorted(int(i) for i in order[:n_eval])


def random_boards(
    captions: list[list[str]], *, board_size: int, boards_per_card: int, seed: int
) -> list[Any]:
    """Boards among the given cards: each card is the target of ``boards_per_card`` boards of
    ``board_size`` cards (others drawn at random), one of its captions as the clue."""
    from models.evaluation import Board

    rng = np.random.default_rng(np.random.SeedSequence([seed, 0xB0A2D]))
    n = len(captions)
    size = min(board_size, n)
    boards = []
    for target in range(n):
        others = np.array([j for j in range(n) if j != target])
        for _ in range(boards_per_card):
            chosen = rng.choice(others, size=size - 1, replace=False)
            clue = captions[target][int(rng.integers(len(captions[target])))]
            boards.append(Board(target, tuple(int(j) for j in chosen), "caption", clue))
    return boards


def evaluate(
    embedder: Any, images: list[Any], captions: list[list[str]], boards: list[Any], seed: int
) -> dict[str, Any]:
    """Caption-to-image figures of an embedder on some cards.

    Returns:
        ``boards``: top-1 accuracy on the boards (``score_boards``'s row for captions);
        ``retrieval``: top-1 and mean reciprocal rank of each card's first caption among all the
        cards (``caption_retrieval``).
    """
    from models.evaluation import caption_retrieval, score_boards

    image_vectors = embedder.embed_images(images)
    first = embedder.embed_texts([c[0] for c in captions])
    retrieval = caption_retrieval(image_vectors, first, seed=seed)
    retrieval.pop("ranks")
    out: dict[str, Any] = {"retrieval": retrieval}
    if boards:
        scored = score_boards(boards, image_vectors, embedder.embed_texts, seed=seed)
        out["boards"] = scored["caption"]
    return out


# ------------------------------------------------------------------------------ the run


def check_settings(args: FinetuneArgs) -> None:
    """Refuse, before the deck or the model loads, an option that does not apply to the run or
    cannot work (an option is never ignored).

    Raises:
        FinetuneError: Naming the option and its limit.
    """
    if args.layers is not None:
        if args.mode != "last-layers":
            raise FinetuneError(
                f"--layers {args.layers} applies to --mode last-layers only (how many of the last "
                f"blocks of each tower train); --mode {args.mode} chooses the weights itself: "
                "drop --layers, or use --mode last-layers"
            )
        if args.layers < 0:
            raise FinetuneError(f"--layers must be 0 or more, not {args.layers}")
    if not 0 < args.eval_fraction < 1:
        raise FinetuneError(f"--eval-fraction must lie strictly between 0 and 1, not "
                            f"{args.eval_fraction}")
    if args.board_size < 2:
        raise FinetuneError(f"--board-size must be at least 2 (the target and a distractor), not "
                            f"{args.board_size}")
    if args.boards_per_card < 1:
        raise FinetuneError(f"--boards-per-card must be at least 1, not {args.boards_per_card}")
    if not 0 <= args.warmup <= 1:
        raise FinetuneError(f"--warmup must lie between 0 and 1 (a fraction of the steps), not "
                            f"{args.warmup}")
    if not (math.isfinite(args.learning_rate) and args.learning_rate > 0):
        raise FinetuneError(f"--learning-rate must be a positive number, not {args.learning_rate}")
    if not (math.isfinite(args.weight_decay) and args.weight_decay >= 0):
        raise FinetuneError(f"--weight-decay must be 0 or more, not {args.weight_decay}")


def check_out_folder(out: Path) -> None:
    """Refuse an ``--out`` that is a file or a folder with anything in it: a fine-tune writes its
    weights, card and history there, and would replace a model (the base model's own folder
    among them) with no way back."""
    from dixit_ai.reporting import check_folder_path

    try:
        check_folder_path(out)
    except ValueError as error:
        raise FinetuneError(f"--out {error}") from None
    if out.is_dir() and any(out.iterdir()):
        raise FinetuneError(
            f"--out {out} is not empty: a fine-tune would write its model over what is there "
            "(a model, perhaps the one being tuned). Give a new or empty folder, or leave --out "
            "out for a run folder of its own")


def run(args: FinetuneArgs, *, announce: Callable[[Path], None] | None = None) -> int:
    """Fine-tune, evaluate and save; returns the exit status (errors raise FinetuneError).

    ``announce`` (if given) is called with the output folder once the settings, the deck and
    the model are known good, before any training or writing.
    """
    import torch
    from tqdm.auto import tqdm

    from dixit_ai.decks import load_deck
    from dixit_ai.reporting import new_run_dir
    from models._torch_utils import resolve_device
    from models.base import fingerprint_of

    if args.smoke:
        args.steps, args.batch_size, args.boards_per_card = min(args.steps, 3), 8, 2
        args.deck = args.deck or "dream:size=24,seed=1001"
    if not args.model:
        raise FinetuneError("--model is required ('openclip:...' or 'hf:...')")
    if not args.deck:
        raise FinetuneError("--deck is required (for example 'folder:/path/to/cards')")
    if args.mode not in MODES:
        raise FinetuneError(f"unknown mode {args.mode!r}; the modes are {', '.join(MODES)}")
    if args.steps < 1 or args.batch_size < 2:
        raise FinetuneError("--steps must be at least 1 and --batch-size at least 2")
    check_settings(args)
    if args.out:
        check_out_folder(Path(args.out).expanduser())
    if args.layers is None and args.mode == "last-layers":
        args.layers = DEFAULT_LAYERS
    started = time.time()
    device = resolve_device(args.device)
    deck = load_deck(args.deck)
    cards, captions, skipped = captioned_cards(deck, args.deck)
    train, held = split_cards(len(cards), args.eval_fraction, args.seed)
    torch.manual_seed(args.seed)
    model = TrainableModel(args.model, device)
    base_fingerprint = model.embedder.fingerprint  # the base model's, before any step
    images = {}

    def image(i: int) -> Any:
        if i not in images:
            images[i] = deck.image(cards[i])
        return images[i]

    tuner = Finetuner(
        model, image, mode=args.mode, layers=DEFAULT_LAYERS if args.layers is None else args.layers,
        fixed_scale=args.fixed_scale,
        steps=args.steps, learning_rate=args.learning_rate, weight_decay=args.weight_decay,
        warmup=args.warmup,
    )
    # --out, or a folder of the run's own (-2, -3, ... beside a run started in the same second),
    # made once the model and the settings are known good
    try:
        out = Path(args.out) if args.out else new_run_dir(args.runs_dir, args.exp_name, args.seed)
    except ValueError as error:
        raise FinetuneError(f"--runs-dir {error}") from None
    if announce is not None:
        announce(out)
    print(f"fine-tuning {args.model} on {args.deck}: {len(train)} training cards, {len(held)} "
          f"held out ({skipped} without captions skipped); mode {args.mode}, "
          f"{tuner.trained_count:,} of {tuner.total_count:,} weights train; "
          f"{'sigmoid' if model.sigmoid else 'InfoNCE'} loss; output {out}")

    held_images = [image(i) for i in held]
    held_captions = [captions[i] for i in held]
    boards = random_boards(held_captions, board_size=args.board_size,
                           boards_per_card=args.boards_per_card, seed=args.seed)
    train_sample = train[:200]
    train_images = [image(i) for i in train_sample]
    train_captions = [captions[i] for i in train_sample]
    figures: dict[str, Any] = {
        "before": {
            "held_out": evaluate(model.embedder, held_images, held_captions, boards, args.seed),
            "train": evaluate(model.embedder, train_images, train_captions, [], args.seed),
        }
    }
    scale_before = float(model.logit_scale.detach().exp())

    rng = np.random.default_rng(np.random.SeedSequence([args.seed, 0x7EA1]))
    batch = min(args.batch_size, len(train))
    order: list[int] = []
    history = []
    bar = tqdm(range(args.steps), desc="fine-tuning", unit="step", disable=None,
               mininterval=progress_interval(sys.stderr))
    every = max(1, args.steps // 10)
    for step in bar:
        if len(order) < batch:  # a new epoch; the last partial batch is dropped
            order = [train[int(i)] for i in rng.permutation(len(train))]
        chosen, order = order[:batch], order[batch:]
        texts = [captions[i][int(rng.integers(len(captions[i])))] for i in chosen]
        loss = tuner.step(chosen, texts)
        history.append({"step": step, "loss": loss, "lr": tuner.schedule.get_last_lr()[0],
                        "scale": float(model.logit_scale.detach().exp())})
        bar.set_postfix(loss=f"{loss:.3f}")
        if (step + 1) % every == 0 or step + 1 == args.steps:
            bar.write(f"step {step + 1}/{args.steps}: loss {loss:.4f}, "
                      f"scale {history[-1]['scale']:.2f}, {time.time() - started:.0f} s")
    bar.close()
    model.module.eval()
    figures["after"] = {
        "held_out": evaluate(model.embedder, held_images, held_captions, boards, args.seed),
        "train": evaluate(model.embedder, train_images, train_captions, [], args.seed),
    }

    names = model.save(out)
    check = reload_check(names[0], device, held_images[:4], [c[0] for c in held_captions[:4]],
                         model.embedder)
    with open(out / "history.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["step", "loss", "lr", "scale"])
        writer.writeheader()
        writer.writerows(history)
    card = {
        "model": args.model,
        "base_fingerprint": base_fingerprint,
        "model_fingerprint": check["fingerprint"],
        "load_with": names,
        "deck": {"spec": args.deck, "name": deck.name, "fingerprint": deck.fingerprint,
                 "license": deck.license, "attribution": deck.attribution,
                 "cards": len(deck.card_ids), "captioned": len(cards),
                 "without_captions": skipped, "train": len(train), "held_out": len(held)},
        "settings": dataclasses.asdict(args),
        # a board holds at most the held-out cards: fewer than --board-size with few of them
        "evaluation_board_size": min(args.board_size, len(held)),
        "command": command_line(dataclasses.asdict(args)),
        "loss": "sigmoid (SigLIP)" if model.sigmoid else "symmetric InfoNCE",
        "trained_weights": tuner.trained_count,
        "total_weights": tuner.total_count,
        "trained_groups": {k: len(v) for k, v in tuner.groups.items()},
        "logit_scale": {"before": scale_before,
                        "after": float(model.logit_scale.detach().exp())},
        "loss_first_last": [history[0]["loss"], history[-1]["loss"]],
        "figures": figures,
        "reload_check": check,
        "seconds": round(time.time() - started, 1),
        "device": device,
        "versions": package_versions(),
    }
    # The run's settings and data (the saved weights' own: model_fingerprint).
    card["fingerprint"] = fingerprint_of({"backend": "finetune", **card["settings"],
                                          "deck": deck.fingerprint})
    (out / "finetune_card.json").write_text(json.dumps(card, indent=1, default=str))
    (out / "MODEL_CARD.md").write_text(render_card(card), encoding="utf-8")
    print(format_figures(figures))
    print(f"saved: {out}; load it with " + " or ".join(f"'{n}'" for n in names))
    return 0


def reload_check(
    name: str, device: str, images: list[Any], texts: list[str], trained: Any
) -> dict[str, Any]:
    """Load the saved model through its backend and compare its vectors with the trained one's.

    Raises:
        FinetuneError: They differ (the saved files would not reproduce the trained model).
    """
    from models.registry import split_name

    backend, spec = split_name(name)
    if backend == "openclip":
        from models.openclip_backend import OpenClipEmbedder

        loaded: Any = OpenClipEmbedder(spec, device=device)
    else:
        from models.hf_backend import HFClipEmbedder

        loaded = HFClipEmbedder(spec, device=device)
    gap = max(
        float(np.abs(loaded.embed_images(images) - trained.embed_images(images)).max()),
        float(np.abs(loaded.embed_texts(texts) - trained.embed_texts(texts)).max()),
    )
    if gap > 1e-3:
        raise FinetuneError(f"the model saved as {name} gives vectors up to {gap:.2g} away from "
                            "the trained model's; the saved files do not reproduce it")
    return {"name": name, "max_abs_difference": gap, "fingerprint": loaded.fingerprint}
