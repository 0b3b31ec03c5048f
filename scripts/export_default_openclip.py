"""Write the default model's towers and head as an open_clip ``local-dir`` folder.

    python scripts/export_default_openclip.py --out runs/default_openclip
    python scripts/export_default_openclip.py --out DIR --head my_head.npz
    python scripts/export_default_openclip.py --out DIR --trained-path-only

Then ``open_clip.create_model_and_transforms("local-dir:DIR")``; see
:mod:`models.openclip_export` for what open_clip can and cannot represent.
"""

from __future__ import annotations

import argparse

from dixit_ai.cli.train import add_export_arguments, run_export


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and export; returns the exit status."""
    from models.openclip_export import ExportError

    parser = argparse.ArgumentParser(prog="export_default_openclip.py",
                                     description=__doc__.split("\n\n")[0])
    add_export_arguments(parser)
    try:
        return run_export(parser.parse_args(argv))
    except ExportError as error:
        raise SystemExit(f"error: {error}") from error


if __name__ == "__main__":
    raise SystemExit(main())
