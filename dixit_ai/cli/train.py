"""``dixit-ai train``: training jobs (``align``, ``finetune``, ``export-openclip``,
``calibration``, ``storyteller``, ``rl``).

``align`` trains the default model's alignment head, or, with ``--model`` naming an open_clip or
transformers model, fine-tunes that model on a captioned deck (as ``finetune`` does);
``finetune`` adapts an open_clip or transformers CLIP/SigLIP to a captioned deck;
``export-openclip`` writes the default model's towers and head as an open_clip ``local-dir``
folder (when open_clip can represent the head); ``calibration``
fits the players' guess model to recorded games; ``storyteller`` learns a clue-choice policy by
self-play; ``rl`` trains masked PPO players on the environments (``scripts/train_rl.py``).

``dixit-ai train align [OPTIONS]`` runs the same experiment as
``scripts/train_default_model.py``, with the same options; training needs the models extra
(``pip install 'dixit-ai[models]'``).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import EXIT_USAGE, running

Announce = Callable[[Path], None]
"""A job's announcement that its settings are checked and its work begins, in this folder."""

_ALIGN_EPILOG = (
    "With --model NAME (an 'openclip:...' or 'hf:...' model) and --deck SPEC, align fine-tunes "
    "that model on the deck's cards and captions instead (see 'dixit-ai train finetune "
    "--help'); --steps, --batch-size and --learning-rate then default to the fine-tuning "
    "defaults (200, 32, 1e-05), and the default head's options do not apply."
)


def register(subparsers: Any) -> None:
    """Add the ``train`` subcommand to the ``dixit-ai`` parser."""
    # The experiments' settings modules need numpy only (torch is imported when they run).
    from models import finetune, train_default
    from models.players.cli import register_train_commands

    parser = subparsers.add_parser(
        "train",
        help="train models: align (default model), finetune (a CLIP on your cards), "
        "export-openclip, calibration, storyteller, rl (PPO players)",
        description=__doc__.split("\n\n")[0],
    )
    jobs = parser.add_subparsers(dest="train_job", metavar="JOB", required=True)
    align = jobs.add_parser(
        "align",
        help="train the default model's alignment head on dream cards (or, with --model, "
        "fine-tune a CLIP on a captioned deck)",
        description=train_default.__doc__.split("\n\n")[0] if train_default.__doc__ else None,
        epilog=_ALIGN_EPILOG,
    )
    add_align_arguments(align)
    align.set_defaults(train_runner=run_align)
    tune = jobs.add_parser(
        "finetune",
        help="fine-tune an open_clip or transformers CLIP/SigLIP on a captioned deck",
        description=finetune.__doc__.split("\n\n")[0] if finetune.__doc__ else None,
    )
    finetune.add_arguments(tune)
    tune.set_defaults(train_runner=run_finetune)
    export = jobs.add_parser(
        "export-openclip",
        help="write the default model's towers and head as an open_clip local-dir folder",
        description="Write the default model (EfficientNet-Lite0 + MiniLM + its head) as an "
        "open_clip 'local-dir' folder, loadable with open_clip.create_model_and_transforms("
        "'local-dir:DIR'). A head with parts open_clip cannot represent (the zero-shot path, "
        "the gate, the name pull, a hidden layer) is refused, naming them.",
    )
    add_export_arguments(export)
    export.set_defaults(train_runner=run_export)
    register_train_commands(jobs)  # calibration, storyteller
    rl = jobs.add_parser(  # every option, --help included, goes to scripts/train_rl.py
        "rl", help="train a masked PPO guesser and storyteller on embedding observations "
        "(scripts/train_rl.py; needs the rl extra)", add_help=False, prefix_chars="+")
    rl.add_argument("script_args", nargs=argparse.REMAINDER)
    rl.set_defaults(players_job=run_rl)
    parser.set_defaults(func=run)


def run_rl(args: argparse.Namespace, announce: Announce | None = None) -> int:
    """Run ``train rl``: ``scripts/train_rl.py``'s ``main`` with the options that follow (it
    returns its run folder: exit 0)."""
    from models.players.cli import run_script

    return run_script("train_rl.py", "dixit-ai train rl", list(args.script_args),
                      announce=announce)


def add_align_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``train align`` (and ``scripts/train_default_model.py``): the default
    model's trainer's, plus fine-tuning's for ``--model``."""
    from models import finetune, train_default

    train_default.add_arguments(parser)
    own = {f.name for f in dataclasses.fields(train_default.Args)}
    extra = tuple(f.name for f in dataclasses.fields(finetune.FinetuneArgs) if f.name not in own)
    finetune.add_arguments(parser, skip=tuple(own))
    # Every option unset (None) until run_align fills it in: the options shared with fine-tuning
    # (--steps, --batch-size, ...) default differently there, and an option given is known even
    # at its default's value (--smoke and --member leave it as given).
    parser.set_defaults(**{name: None for name in (*own, *extra)})


def run_align(args: argparse.Namespace, announce: Announce | None = None) -> int:
    """Train the default model's head, or fine-tune ``--model`` when it names another model
    (``announce``: called with the run folder once the settings are checked, as the work
    begins)."""
    from models import finetune, train_default

    head_defaults = {f.name: f.default for f in dataclasses.fields(train_default.Args)}
    tune_defaults = {f.name: f.default for f in dataclasses.fields(finetune.FinetuneArgs)}
    model = getattr(args, "model", None)
    if model is not None and not model.strip():  # '' is not "no model": a name went missing
        return _refuse(f"--model {model!r} is empty: name an 'openclip:...' or 'hf:...' model to "
                       "fine-tune, or leave --model out to train the default model's head")
    if model and model.strip() != "default":
        wrong = [name for name in head_defaults  # given, even at its default's value
                 if name not in tune_defaults and getattr(args, name) is not None]
        if wrong:
            verbs = ("sets", "does") if len(wrong) == 1 else ("set", "do")
            return _refuse(", ".join(_flag(n) for n in wrong) + f" {verbs[0]} the default "
                           f"model's head and {verbs[1]} not apply when fine-tuning --model "
                           f"{model}")
        values = {name: _given(args, name, default) for name, default in tune_defaults.items()}
        check_out_folder(values["out"])
        return int(finetune.run(finetune.FinetuneArgs(**values), announce=announce))
    given = [name for name in tune_defaults  # given at all: --layers 0 and --deck '' too
             if name not in head_defaults and name != "model"
             and getattr(args, name, None) is not None]
    if given:
        verb = " needs" if len(given) == 1 else " need"
        return _refuse(", ".join(_flag(n) for n in given) + verb + " --model (an 'openclip:...' "
                       "or 'hf:...' model to fine-tune); without it, align trains the default "
                       "model's head")
    kept = {name for name in head_defaults if getattr(args, name, None) is not None}
    values = {name: _given(args, name, default) for name, default in head_defaults.items()}
    return int(train_default.run(train_default.Args(**values), announce=announce, given=kept))


def run_finetune(args: argparse.Namespace, announce: Announce | None = None) -> int:
    """Run ``train finetune``."""
    from models import finetune

    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(finetune.FinetuneArgs)}
    check_out_folder(values["out"])
    return int(finetune.run(finetune.FinetuneArgs(**values), announce=announce))


def check_out_folder(out: str | None) -> None:
    """Refuse a fine-tuning ``--out`` that is a file, before anything is loaded.

    Raises:
        FinetuneError: naming it (a ``ValueError``: bad input).
    """
    from dixit_ai.reporting import check_folder_path
    from models.finetune import FinetuneError

    if out:
        try:
            check_folder_path(out, "--out")
        except ValueError as error:
            raise FinetuneError(str(error)) from None


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``train export-openclip`` (and ``scripts/export_default_openclip.py``)."""
    parser.add_argument("--out", required=True, help="the folder to write")
    parser.add_argument("--head", default="",
                        help="an alignment head .npz (default: the committed head)")
    parser.add_argument(
        "--trained-path-only", action="store_true",
        help="when the head has parts open_clip cannot represent, export its linear trained "
        "path alone (a different model; recorded in the folder's EXPORT.md)",
    )


def run_export(args: argparse.Namespace, announce: Announce | None = None) -> int:
    """Run ``train export-openclip`` (``announce``: the head and the towers are loaded, and the
    folder is about to be written)."""
    from models.openclip_export import export_default_openclip

    record = export_default_openclip(args.out, args.head or None,
                                     trained_path_only=args.trained_path_only,
                                     announce=announce)
    print(f"wrote {record['folder']} ({'exact' if record['exact'] else 'trained path only'}); "
          f"load it with open_clip.create_model_and_transforms('{record['load_with'][0]}') or "
          f"load_embedder('{record['load_with'][1]}')")
    for dropped in record["dropped"]:
        print(f"  not exported: {dropped}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Run a training job; returns the exit status.

    A job checks its settings (and loads its model) first: an error then is bad input (exit
    2, nothing written). Once it announces its run folder the work begins, and an error (a full
    disk, a checkpoint that cannot be saved) is a failure of the run (exit 1) naming the folder.
    """
    job = getattr(args, "players_job", None) or args.train_runner
    with running(f"train {args.train_job}", started=False) as work:

        def announce(folder: Path) -> None:
            work.start(f"train {args.train_job} into {folder}",
                       then=f"{folder} is left partial (do not load it): fix what failed, "
                            "remove it and run the command again")

        return int(job(args, announce=announce))


def _given(args: argparse.Namespace, name: str, default: Any) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


def _refuse(message: str) -> int:
    """Bad input to ``align``: say so on stderr; the exit status (2), nothing written."""
    print(f"error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")
