"""``dixit-ai agents``: list the registered agents."""

from __future__ import annotations

import argparse
from typing import Any

from dixit_ai.agents import list_agents


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("agents", help="list the registered agents",
                                   description="List the agents that can be made by name.")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    for spec in list_agents():
        extra = f"  [needs dixit-ai[{spec.extra}]]" if spec.extra else ""
        print(f"{spec.name:<20} {spec.description}{extra}")
    return 0
