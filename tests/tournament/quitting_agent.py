"""A random agent that ends the process (``sys.exit(0)``) when asked to vote: an entrant's
crash that is no ``Exception``."""

from __future__ import annotations

import sys

from dixit_ai.agents import RandomAgent
from dixit_ai.agents.base import Choice
from dixit_ai.rules import View


class QuittingAgent(RandomAgent):
    def vote(self, view: View) -> Choice:
        sys.exit(0)
