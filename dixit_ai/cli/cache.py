"""``dixit-ai cache``: what the on-disk caches hold (``info``), and emptying them (``clear``).

The cache root is ``$DIXIT_AI_CACHE_DIR``, else ``$XDG_CACHE_HOME/dixit-ai``, else
``~/.cache/dixit-ai``; rendered decks live under ``decks/``, embeddings under ``embeddings/`` and
the text towers reassembled from their PyPI parts (mpnet, about 420 MB) under ``towers/``.
``clear`` prints the bytes it really freed; anything it could not remove is named, and the exit
status is then 1. It removes only the entries dixit-ai names as its own (``CACHE_ENTRY`` in
:mod:`dixit_ai.decks.cache`): anything else in those folders is left, and named. This command
needs neither torch nor the models extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from dixit_ai.decks.cache import CACHE_DIR_ENV

PARTS = ("embeddings", "decks", "towers")


def register(subparsers: Any) -> None:
    """Add the ``cache`` subcommand to the ``dixit-ai`` parser."""
    parser = subparsers.add_parser(
        "cache",
        help="show or clear the on-disk caches (rendered decks, embeddings, towers)",
        description=__doc__.split("\n\n")[0],
    )
    actions = parser.add_subparsers(dest="cache_action", metavar="ACTION", required=True)
    info = actions.add_parser("info", help="where the cache is and what it holds")
    info.add_argument("--json", action="store_true", help="print JSON instead of a table")
    clear = actions.add_parser("clear", help="delete cached files (they are rebuilt on demand)")
    clear.add_argument(
        "--only",
        choices=PARTS,
        help="clear only the embeddings, the rendered decks or the reassembled text towers "
        "(default: all three)",
    )
    clear.add_argument(
        "--fingerprint",
        help="clear the embeddings of one embedder fingerprint only, as 'cache info' prints "
        "it, or any unambiguous start of it; an unknown one is refused",
    )
    parser.set_defaults(func=run)


def _bytes(path: Path) -> int:
    total = 0
    if path.is_dir():
        for item in path.rglob("*"):
            try:
                if item.is_file():
                    total += item.stat().st_size
            except OSError:
                continue
    return total


def _human(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


def match_fingerprint(given: str, embeddings: Any) -> str:
    """The cached fingerprint ``given`` names: itself, or the one fingerprint it starts.

    Raises:
        ValueError: ``given`` is empty, names no cached fingerprint, or starts several (the
            message lists those the cache holds).
    """
    held = [entry["fingerprint"] for entry in embeddings.summary()]
    listing = ", ".join(held) if held else "none: the embedding cache is empty"
    if not given.strip():
        raise ValueError(f"--fingerprint is empty; give one of the cached fingerprints "
                         f"({listing}), or leave --fingerprint out to clear them all")
    if given in held:
        return given
    matches = [fingerprint for fingerprint in held if fingerprint.startswith(given)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise ValueError(f"--fingerprint {given!r} starts {len(matches)} cached fingerprints "
                         f"({', '.join(matches)}); give more of it")
    raise ValueError(f"--fingerprint {given!r}: no such fingerprint in the embedding cache "
                     f"({embeddings.root}); cached: {listing}")


def run(args: argparse.Namespace) -> int:
    """Run ``dixit-ai cache info`` or ``dixit-ai cache clear``; returns the exit status."""
    from dixit_ai.decks.cache import cache_root_chosen, clear_part
    from models.cache import EmbeddingCache

    root, chosen_by = cache_root_chosen()
    if root.exists() and not root.is_dir():
        raise ValueError(
            f"the cache root {root} is not a folder (it was chosen by {chosen_by}); point "
            f"{CACHE_DIR_ENV} at a folder (it is made when first needed)")
    embeddings = EmbeddingCache(root / "embeddings")
    if args.cache_action == "info":
        report: dict[str, Any] = {
            "root": str(root),
            "decks": {"path": str(root / "decks"), "bytes": _bytes(root / "decks")},
            "embeddings": {
                "path": str(root / "embeddings"),
                "bytes": _bytes(root / "embeddings"),
                "embedders": embeddings.summary(),
            },
            "towers": {"path": str(root / "towers"), "bytes": _bytes(root / "towers")},
        }
        if args.json:
            print(json.dumps(report, indent=1))
            return 0
        print(f"cache root: {root}")
        print(f"  decks:      {_human(report['decks']['bytes'])}  ({root / 'decks'})")
        print(
            f"  embeddings: {_human(report['embeddings']['bytes'])}  ({root / 'embeddings'})"
        )
        for entry in report["embeddings"]["embedders"]:
            print(
                f"    {entry['fingerprint']}  {entry['name']}: {entry['images']} images, "
                f"{entry['texts']} texts, {_human(entry['bytes'])}"
            )
        print(f"  towers:     {_human(report['towers']['bytes'])}  ({root / 'towers'})")
        return 0

    failures: list[tuple[Path, OSError]] = []
    if args.fingerprint is not None:
        if args.only in ("decks", "towers"):
            raise ValueError(f"--fingerprint selects embeddings; it cannot go with --only "
                             f"{args.only}")
        fingerprint = match_fingerprint(args.fingerprint, embeddings)
        freed, failures = embeddings.remove(fingerprint)
        matched = "" if fingerprint == args.fingerprint else f" (matched by {args.fingerprint!r})"
        print(f"cleared embeddings of {fingerprint}{matched}: {_human(freed)}")
    else:
        parts = [args.only] if args.only else list(PARTS)
        for part in parts:
            folder = root / part
            freed, failed, left = clear_part(folder)
            failures += failed
            print(f"cleared {part}: {_human(freed)} ({folder})")
            if left:
                shown = ", ".join(str(path) for path in left[:5])
                more = f", ... ({len(left)} in all)" if len(left) > 5 else ""
                print(f"dixit-ai cache: left {len(left)} item(s) that are not dixit-ai's cache "
                      f"entries: {shown}{more}", file=sys.stderr)
    return _report_failures(failures)


def _report_failures(failures: list[tuple[Path, OSError]]) -> int:
    """Name what could not be removed (on stderr); the exit status."""
    if not failures:
        return 0
    print(f"dixit-ai cache: could not remove {len(failures)} item(s):", file=sys.stderr)
    for path, error in failures[:20]:
        print(f"  {path}: {error.strerror or error}", file=sys.stderr)
    if len(failures) > 20:
        print(f"  ... and {len(failures) - 20} more", file=sys.stderr)
    return 1
