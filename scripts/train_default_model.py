"""Train the default model's alignment head; see :mod:`models.train_default` (``--help``).

With ``--model`` naming an open_clip or transformers model, fine-tune that model on a captioned
deck instead; see :mod:`models.finetune`.

    python scripts/train_default_model.py --write-head   # writes models/weights/default_head.npz
                                                         # and prints its SHA-256 to pin
    python scripts/train_default_model.py --smoke        # a few seconds, for CI
    python scripts/train_default_model.py --model hf:/models/clip --deck folder:~/cards \\
        --mode lock-image --out runs/my_clip            # adapt a real CLIP to your cards
"""

from __future__ import annotations

import argparse
import sys

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
    return status


if __name__ == "__main__":
    raise SystemExit(main())
