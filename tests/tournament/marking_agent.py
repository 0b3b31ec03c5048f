"""A random agent that writes, to the file ``$DIXIT_AI_TEST_MARKS``, when its module is imported
and when an instance is made, with the process id (tests of when pool workers do what)."""

from __future__ import annotations

import os
import time
from typing import Any

from dixit_ai.agents import RandomAgent


def mark(event: str) -> None:
    path = os.environ.get("DIXIT_AI_TEST_MARKS")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{event} {os.getpid()} {time.time():.6f}\n")


mark("imported")


class MarkingAgent(RandomAgent):
    def __init__(self, **kwargs: Any) -> None:
        mark("made")
        super().__init__(**kwargs)
