"""Write the default model's towers and head as an open_clip ``local-dir`` folder.

    python scripts/export_default_openclip.py --out runs/default_openclip
    python scripts/export_default_openclip.py --out DIR --head my_head.npz
    python scripts/export_default_openclip.py --out DIR --trained-path-only

Then ``open_clip.create_model_and_transforms("local-dir:DIR")``; see
:mod:`models.openclip_export` for what open_clip can and cannot represent.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dixit_ai.cli.common import RUN_ERRORS, refuse_input
from dixit_ai.cli.train import add_export_arguments, run_export


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and export; returns the exit status."""
    parser = argparse.ArgumentParser(prog="export_default_openclip.py",
                                     description=__doc__.split("\n\n")[0])
    add_export_arguments(parser)
    args = parser.parse_args(argv)
    begun: list[Path] = []
    try:  # the folder is announced once the head and the towers are loaded: the work begins
        return run_export(args, announce=begun.append)
    except RUN_ERRORS as error:
        if not begun:  # a head that does not load or that open_clip cannot represent, or no
            refuse_input(str(error))  # open_clip: the input (exit 2), nothing written
        raise SystemExit(f"error: {error}") from error  # part-way through writing: exit 1


if __name__ == "__main__":
    raise SystemExit(main())
