"""Typed errors of the rules core."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow in the current state.

    The message names the seat and the reason. Whatever raised it left the game state unchanged.
    """


class SharedRulesChanged(ValueError):
    """The rules an edition shares with every game of the process were changed in place (by
    ``object.__setattr__`` through the frozen class): they are put back, and the game that found
    it refused."""
