"""Broken entrants: a random agent that ends the process (``sys.exit(0)``) when asked to vote
(an entrant's crash that is no ``Exception``), one whose ``reset()`` raises and one whose
description JSON cannot write."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from dixit_ai.agents import RandomAgent
from dixit_ai.agents.base import Choice
from dixit_ai.rules import View


class QuittingAgent(RandomAgent):
    def vote(self, view: View) -> Choice:
        sys.exit(0)


class ResettingBadly(RandomAgent):
    """A random agent whose ``reset()`` raises: an entrant broken before its first decision."""

    def reset(self, *, seat: int, rng: Any) -> None:
        raise RuntimeError("reset broke")


class DescribingNumpy(RandomAgent):
    """A random agent whose description holds a numpy scalar (which JSON cannot write)."""

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "temp": np.float32(0.5)}


class DescribingItsModel(RandomAgent):
    """A random agent that describes the model file :data:`MODEL` names (a model replaced
    behind an unchanged definition)."""

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "model": MODEL[0]}


MODEL = ["model-a"]
