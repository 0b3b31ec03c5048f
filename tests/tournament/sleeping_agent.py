"""A random agent that hangs when asked to vote: it sleeps until :data:`WAKE` is set, or for
:data:`SLEEP` seconds (``DIXIT_AI_TEST_SLEEP`` in spawned workers), an in-process entrant that
never answers."""

from __future__ import annotations

import os
import threading

from dixit_ai.agents import RandomAgent
from dixit_ai.agents.base import Choice
from dixit_ai.rules import View

WAKE = threading.Event()
SLEEP = float(os.environ.get("DIXIT_AI_TEST_SLEEP", "30"))


class SleepingAgent(RandomAgent):
    def vote(self, view: View) -> Choice:
        WAKE.wait(float(os.environ.get("DIXIT_AI_TEST_SLEEP", str(SLEEP))))
        return super().vote(view)
