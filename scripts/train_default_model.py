"""Train the default model's alignment head; see :mod:`models.train_default` (``--help``).

With ``--model`` naming an open_clip or transformers model, fine-tune that model on a captioned
deck instead; see :mod:`models.finetune`.

    python scripts/train_default_model.py --write-head   # writes models/weights/default_head.npz
    python scripts/train_default_model.py --smoke        # a few seconds, for CI
    python scripts/train_default_model.py --model hf:/models/clip --deck folder:~/cards \\
        --mode lock-image --out runs/my_clip            # adapt a real CLIP to your cards
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dixit_ai.cli.common import EXIT_USAGE
from dixit_ai.cli.train import _ALIGN_EPILOG, add_align_arguments, run_align


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and train; returns the exit status."""
    from models import train_default
    from models.base import EmbedderError
    from models.finetune import FinetuneError

    parser = argparse.ArgumentParser(
        prog="train_default_model.py",
        description=(train_default.__doc__ or "").split("\n\n")[0],
        epilog=_ALIGN_EPILOG,
    )
    add_align_arguments(parser)
    args = parser.parse_args(argv)
    try:
        status = run_align(args)
    except (FinetuneError, EmbedderError) as error:
        # Bad input (weights that cannot be loaded, too few captioned cards): exit 2, as
        # ``dixit-ai train align`` does for the same errors.
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    if status == 0:
        report_shipped_head(args)
    return status


def written_shipped_head(args: argparse.Namespace) -> Path | None:
    """The shipped head (``models/weights/``, pinned) that this run wrote, or ``None`` (no head
    written, a head written elsewhere, or a fine-tuning run)."""
    from models.default_model import default_head_path
    from models.family import member, weights_dir
    from models.weight_files import shipped_head_pin

    model = getattr(args, "model", None)
    if (model and model.strip() != "default") or not (args.write_head or args.head_path):
        return None
    if args.head_path:
        path = Path(args.head_path)
    elif args.member:
        path = weights_dir() / str(member(args.member).head_file)
    else:
        path = default_head_path()
    return path if path.is_file() and shipped_head_pin(path) is not None else None


def report_shipped_head(args: argparse.Namespace) -> None:
    """After a shipped head is written: print its new SHA-256 and whether its pin (which every
    load checks) must be updated."""
    from dixit_ai.decks.cache import file_sha256
    from models.weight_files import SHIPPED_HEAD_SHA256

    path = written_shipped_head(args)
    if path is None:
        return
    actual, pin = file_sha256(path), SHIPPED_HEAD_SHA256[path.name]
    where = f"models/weight_files.py SHIPPED_HEAD_SHA256[{path.name!r}]"
    if actual == pin:
        print(f"shipped head {path.name}: SHA-256 {actual}, as pinned in {where}")
        return
    print(f"shipped head {path.name}: new SHA-256 {actual}; its pin in {where} is {pin}. "
          "Update the pin to the new SHA-256 (and commit both), or every load of this head will "
          "be refused.")


if __name__ == "__main__":
    raise SystemExit(main())
