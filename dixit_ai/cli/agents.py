"""``dixit-ai agents``: list the registered agents, and whether each one's extra is installed."""

from __future__ import annotations

import argparse
import re
from importlib import metadata
from typing import Any

from dixit_ai.agents import list_agents
from dixit_ai.cli.common import EXIT_OK

_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def missing_for_extra(extra: str, *, distribution: str = "dixit-ai",
                      seen: frozenset[str] = frozenset()) -> list[str] | None:
    """The packages of ``distribution[extra]`` that are not installed (``[]``: all are), or
    ``None`` when the distribution declares no such extra."""
    try:
        requirements = metadata.requires(distribution) or []
    except metadata.PackageNotFoundError:
        return None
    declared = False
    missing: list[str] = []
    for text in requirements:
        requirement, _, marker = text.partition(";")
        wanted = _EXTRA_MARKER.search(marker)
        if wanted is None or _normal(wanted.group(1)) != _normal(extra):
            continue
        declared = True
        match = _REQUIREMENT.match(requirement)
        if match is None:
            continue
        name, extras = match.group(1), match.group(2)
        if _normal(name) == _normal(distribution):  # dixit-ai[models] inside dixit-ai[panel]
            for inner in (extras or "").split(","):
                if inner.strip() and inner.strip() not in seen:
                    missing += missing_for_extra(inner.strip(), distribution=distribution,
                                                 seen=seen | {extra}) or []
            continue
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            missing.append(name)
    return missing if declared else None


def extra_status(extra: str | None) -> str:
    """What ``dixit-ai agents`` says of an agent's extra: installed, or what to install."""
    if not extra:
        return ""
    missing = missing_for_extra(extra)
    if missing == []:
        return f"  [dixit-ai[{extra}] installed]"
    what = f": missing {', '.join(missing[:4])}" if missing else ""
    return f"  [needs pip install 'dixit-ai[{extra}]'{what}]"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agents", help="list the registered agents",
        description="List the agents that can be made by name, and whether the extra each "
                    "one needs is installed.")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for spec in list_agents():
        print(f"{spec.name:<20} {spec.description}{extra_status(spec.extra)}")
    return EXIT_OK
