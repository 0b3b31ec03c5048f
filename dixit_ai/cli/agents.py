"""``dixit-ai agents``: list the registered agents, and whether what each one needs is installed
(its extra, and the packages its entry requires apart, as the panel members on mpnet do)."""

from __future__ import annotations

import argparse
from typing import Any

from dixit_ai.agents import list_agents
from dixit_ai.agents.registry import AgentSpec, is_installed, missing_for_extra
from dixit_ai.cli.common import EXIT_OK

__all__ = ["extra_status", "missing_for_extra", "register", "requirements_status", "run"]


def extra_status(extra: str | None) -> str:
    """What ``dixit-ai agents`` says of an agent's extra: installed, or what to install."""
    if not extra:
        return ""
    missing = missing_for_extra(extra)
    if missing == []:
        return f"  [dixit-ai[{extra}] installed]"
    what = f": missing {', '.join(missing[:4])}" if missing else ""
    return f"  [needs pip install 'dixit-ai[{extra}]'{what}]"


def requirements_status(spec: AgentSpec) -> str:
    """What ``dixit-ai agents`` says of everything an agent needs: its extra (as
    :func:`extra_status`) and the packages its entry requires apart from it."""
    status = extra_status(spec.extra)
    if not spec.requires:
        return status
    missing = [name for name in spec.requires if not is_installed(name)]
    count = f"{len(spec.requires)} other package{'s' if len(spec.requires) > 1 else ''}"
    apart = (f"its {count} installed" if not missing else
             f"needs {spec.requires_install}: missing {', '.join(missing)}")
    return f"{status[:-1]}; {apart}]" if status else f"  [{apart}]"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "agents", help="list the registered agents",
        description="List the agents that can be made by name, and whether what each one "
                    "needs is installed: its extra, and the packages its entry requires apart "
                    "from it (the panel members on all-mpnet-base-v2 need its split parts).")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for spec in list_agents():
        print(f"{spec.name:<20} {spec.description}{requirements_status(spec)}")
    return EXIT_OK
