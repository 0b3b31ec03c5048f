"""``dixit-ai train``: training jobs (``align``, ``calibration``, ``storyteller``).

``align`` trains the default model's alignment head; ``calibration`` fits the players' guess
model to recorded games; ``storyteller`` learns a clue-choice policy by self-play.

``dixit-ai train align [OPTIONS]`` runs the same experiment as
``scripts/train_default_model.py``, with the same options; training needs the models extra
(``pip install 'dixit-ai[models]'``).
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand to the ``dixit-ai`` parser."""
    # The experiments' settings modules need numpy only (torch is imported when they run).
    from models import train_default
    from models.players.cli import register_train_commands

    parser = subparsers.add_parser(
        "train",
        help="train models: align (default model), calibration, storyteller",
        description=__doc__.split("\n\n")[0],
    )
    jobs = parser.add_subparsers(dest="train_job", metavar="JOB", required=True)
    align = jobs.add_parser(
        "align",
        help="train the default model's alignment head on dream cards",
        description=train_default.__doc__.split("\n\n")[0] if train_default.__doc__ else None,
    )
    train_default.add_arguments(align)
    register_train_commands(jobs)  # calibration, storyteller
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run a training job; returns the exit status."""
    if getattr(args, "players_job", None) is not None:
        return int(args.players_job(args))
    from models import train_default

    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(train_default.Args)}
    return int(train_default.run(train_default.Args(**values)))
