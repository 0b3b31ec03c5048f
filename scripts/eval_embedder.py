"""Evaluate an embedder on held-out dream cards (the models issue's table) and on the photo set.

Boards of 6 cards whose other cards share no object with the target; clues: the full caption,
one object's name, a hand-written association (``models/data/associations.json``). Writes
``runs/<exp>__<seed>__<time>/`` with ``metrics.json`` and every board in ``boards.csv``.

Examples::

    python scripts/eval_embedder.py                           # the default model, 600 cards
    python scripts/eval_embedder.py --model hf:/path/to/clip  # any embedder
    python scripts/eval_embedder.py --smoke                   # a few seconds, for CI

Held-out means held out: a ``--deck-seed`` among the dream seeds the model was trained on (its
head records them: the default model's are 1001-1020; a fine-tuned folder's
``finetune_card.json`` records its deck, and so on back through the models it was tuned from) is
refused (exit 2), since its figures
would read as held-out ones and be inflated; so is the seed the shipped default head's choices
were validated on (8001, where its name pull's weight was chosen; the head file does not record
it). ``--allow-training-seeds`` runs either anyway, to measure the gap between training and
held-out cards; the output and ``metrics.json`` then say the figures are not held-out ones.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys

import numpy as np

from dixit_ai.cli.common import check_at_least
from models.players.cli import apply_smoke, given_options

SMOKE = {"cards": 24, "boards": 2}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


def training_seeds(embedder: object) -> list[int]:
    """The dream deck seeds ``embedder`` was trained on: as its head records them, and as the
    fine-tune card (``finetune_card.json``) of its folder records its deck, through every
    fine-tune it was made from (none known: ``[]``, e.g. a hub model, whose training data this
    harness cannot know)."""
    metadata = getattr(getattr(embedder, "head", None), "metadata", None)
    seeds = metadata.get("train_seeds") if isinstance(metadata, dict) else None
    found = {int(seed) for seed in seeds} if isinstance(seeds, list) else set()
    found.update(seed for card in finetune_cards(embedder)
                 if (seed := dream_seed(str(card.get("deck", {}).get("spec", "")))) is not None)
    return sorted(found)


def finetune_cards(embedder: object, most: int = 20) -> list[dict]:
    """The fine-tune cards of ``embedder``'s folder (an ``hf:`` folder or an openclip
    ``local-dir``) and of the models it was tuned from, newest first."""
    from pathlib import Path

    info = getattr(embedder, "info", None)
    if not isinstance(info, dict):
        return []
    folder = info.get("source") if info.get("backend") == "hf" else (
        info.get("pretrained") if info.get("source") == "local-dir" else None)
    cards: list[dict] = []
    while isinstance(folder, str) and len(cards) < most:
        path = Path(folder) / "finetune_card.json"
        try:
            card = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            break
        if not isinstance(card, dict):
            break
        cards.append(card)
        base = str(card.get("model", ""))
        folder = (base.removeprefix("hf:") if base.startswith("hf:") else
                  base.removeprefix("openclip:local-dir:")
                  if base.startswith("openclip:local-dir:") else None)
    return cards


def dream_seed(spec: str) -> int | None:
    """The seed of a dream deck spec (``dream``, ``dream:size=N,seed=S``), else ``None``."""
    from dixit_ai.decks.dream import DEFAULT_DREAM_SEED

    name, _, argument = spec.strip().partition(":")
    if name.strip() != "dream":
        return None
    for item in argument.split(","):
        key, _, value = item.partition("=")
        if key.strip() == "seed" and value.strip().lstrip("-").isdigit():
            return int(value)
    return DEFAULT_DREAM_SEED


def validation_seeds(embedder: object) -> list[int]:
    """The dream seeds ``embedder``'s choices were made on: for the shipped default head (by its
    SHA-256), the validation seed its name pull's weight was chosen on; else none known."""
    from models.train_default import DEFAULT_VALIDATION_SEED
    from models.weight_files import SHIPPED_HEAD_SHA256

    info = getattr(embedder, "info", None)
    weights = info.get("weights") if isinstance(info, dict) else None
    head = weights.get("head_sha256") if isinstance(weights, dict) else None
    return [DEFAULT_VALIDATION_SEED] if head == SHIPPED_HEAD_SHA256["default_head.npz"] else []


def seeds_text(seeds: list[int]) -> str:
    """``1001-1020`` for a run of consecutive seeds, else ``1,5,9``."""
    if len(seeds) > 1 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ",".join(map(str, seeds))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="default", help="embedder name (default: default)")
    parser.add_argument("--deck-seed", type=int, default=9001,
                        help="held-out dream deck seed (default: 9001); one the model was "
                        "trained or validated on is refused")
    parser.add_argument("--allow-training-seeds", action="store_true",
                        help="evaluate on a --deck-seed the model was trained on (to measure the "
                        "train/held-out gap); the output and the record say the figures are not "
                        "held-out ones")
    parser.add_argument("--cards", type=int, default=600,
                        help="held-out cards (default: 600, as in the README's figures; "
                        "at least 6)")
    parser.add_argument("--boards", type=int, default=20, help="boards per card and clue kind")
    parser.add_argument("--seed", type=int, default=0, help="seed of the boards and bootstrap")
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--runs-dir", default="runs", help="folder of run records")
    parser.add_argument("--smoke", action="store_true", help="tiny run for CI")
    args = parser.parse_args(argv)
    if args.smoke:  # what the command line gave stays as given
        apply_smoke(args, SMOKE, given_options(parser, argv))
    try:  # before anything is embedded: a board needs 6 cards, a measurement one board
        check_at_least(args, (("cards", 6), ("boards", 1)))
    except ValueError as error:
        parser.error(str(error))

    from PIL import Image

    from dixit_ai.decks import load_deck
    from dixit_ai.reporting import new_run_dir
    from models import embed_deck, load_embedder
    from models.evaluation import (
        caption_retrieval,
        descriptions_of,
        load_photo_set,
        make_boards,
        photo_set_path,
        score_boards,
    )

    try:  # an embedder that cannot load is bad input: refused before the run folder is made
        embedder = load_embedder(args.model, device=args.device)
    except (ValueError, ImportError) as error:
        parser.error(f"--model {args.model}: {error}")
    trained_on = training_seeds(embedder)
    tuned_on = validation_seeds(embedder)
    seen = (f"--deck-seed {args.deck_seed} is one of the dream seeds {args.model!r} was trained "
            f"on ({seeds_text(trained_on)})")
    if args.deck_seed in tuned_on and args.deck_seed not in trained_on:
        seen = (f"--deck-seed {args.deck_seed} is the dream seed {args.model!r}'s choices were "
                f"validated on ({seeds_text(tuned_on)}: its name pull's weight was chosen there)")
    warning = None
    if args.deck_seed in trained_on or args.deck_seed in tuned_on:
        if not args.allow_training_seeds:
            parser.error(f"{seen}: its figures would not be held-out ones; choose a seed outside "
                         f"them, or give --allow-training-seeds to measure the training cards on "
                         f"purpose")
        warning = f"{seen}: these figures are not held-out ones"
        print(f"WARNING: {warning}", file=sys.stderr)
    elif args.allow_training_seeds:  # an option that would allow nothing is refused
        why = (seen.replace(" is one of", " is not one of") if trained_on
               else f"{args.model!r} records no training seeds")
        parser.error(f"--allow-training-seeds does not apply: {why}")
    try:  # a folder of its own, even beside a run started in the same second
        run_dir = new_run_dir(args.runs_dir, "eval_embedder", args.seed)
    except ValueError as error:
        parser.error(f"--runs-dir {error}")
    deck = load_deck(f"dream:size={args.cards},seed={args.deck_seed}")
    vectors = embed_deck(embedder, deck, progress=True)
    boards = make_boards(
        descriptions_of(deck),
        [deck.captions(c) for c in deck.card_ids],
        seed=args.seed,
        boards_per_query=args.boards,
    )
    scores = score_boards(boards, vectors, embedder.embed_texts, seed=args.seed)
    rows = scores.pop("_boards")["rows"]
    with open(run_dir / "boards.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["kind", "target", "d1", "d2", "d3", "d4", "d5", "clue", "won"])
        writer.writerows(rows)
    entries = load_photo_set()
    images = [Image.open(photo_set_path() / e["file"]) for e in entries]
    photos = caption_retrieval(
        embedder.embed_images(images), embedder.embed_texts([e["caption"] for e in entries])
    )
    metrics = {
        "model": args.model,
        "fingerprint": embedder.fingerprint,
        "deck": deck.source,
        "args": vars(args),
        "held_out": warning is None,
        "training_seeds": seeds_text(trained_on) or None,
        "validation_seeds": seeds_text(tuned_on) or None,
        "warning": warning,
        "dream": scores,
        "photos": photos,
    }
    (run_dir / "metrics.json").write_text(json.dumps(metrics, indent=1), encoding="utf-8")
    if warning is not None:
        print(f"WARNING: {warning}")
    print(f"{args.model} on {deck.source} ({len(deck)} cards, chance {1 / 6:.3f}):")
    for kind, row in scores.items():
        print(
            f"  {kind:<12} {row['accuracy']:.3f}  [{row['low']:.3f}, {row['high']:.3f}]  "
            f"({row['targets']} cards, {row['boards']} boards)"
        )
    print(
        f"  photos top-1 {photos['top1']:.3f}  [{photos['low']:.3f}, {photos['high']:.3f}]  "
        f"(n={photos['n']}, chance {photos['chance']:.3f}, MRR {photos['mrr']:.3f}, "
        f"ranks {np.array(photos['ranks']).tolist()})"
    )
    print(f"record: {run_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
