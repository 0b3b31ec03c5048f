"""``dixit-ai agents``: list the registered agents, and whether what each one needs is installed
(its extra, and the packages its entry requires apart, as the panel members on mpnet do)."""

from __future__ import annotations

import argparse
from typing import Any

from dixit_ai.agents import list_agents
from dixit_ai.agents.registry import AgentSpec
from dixit_ai.agents.requirements import (
    DISTRIBUTION,
    declared_extras,
    missing_for_extra,
    unmet,
)
from dixit_ai.cli.common import EXIT_OK

__all__ = ["extra_status", "missing_for_extra", "register", "requirements_status", "run"]


def _listed(missing: list[str]) -> str:
    """The first few of ``missing``, and how many more there are."""
    more = f" and {len(missing) - 4} more" if len(missing) > 4 else ""
    return ", ".join(missing[:4]) + more


def extra_status(extra: str | None) -> str:
    """What ``dixit-ai agents`` says of an agent's extra: installed, what to install (the
    packages missing, or installed at a version the extra does not allow), an extra the
    installed ``dixit-ai`` does not declare, or that nothing could be checked."""
    if not extra:
        return ""
    missing = missing_for_extra(extra)
    if missing == []:
        return f"  [{DISTRIBUTION}[{extra}] installed]"
    if missing:
        return f"  [needs pip install '{DISTRIBUTION}[{extra}]': missing {_listed(missing)}]"
    extras = declared_extras()
    if extras is None:
        return f"  [{DISTRIBUTION}[{extra}] not checked: {DISTRIBUTION} is not installed]"
    return (f"  [{DISTRIBUTION}[{extra}]: the installed {DISTRIBUTION} declares no such extra "
            f"(it has {', '.join(sorted(extras))}): misspelt, or reinstall]")


def requirements_status(spec: AgentSpec) -> str:
    """What ``dixit-ai agents`` says of everything an agent needs: its extra (as
    :func:`extra_status`) and the packages its entry requires apart from it."""
    status = extra_status(spec.extra)
    if not spec.requires:
        return status
    missing = list(dict.fromkeys(item for r in spec.requires for item in unmet(r)))
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
    specs = list_agents()
    width = max((len(spec.name) for spec in specs), default=0)
    for spec in specs:
        print(f"{spec.name:<{width}}  {spec.description}{requirements_status(spec)}")
    return EXIT_OK
