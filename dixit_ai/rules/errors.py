"""Typed errors of the rules core."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action the rules do not allow in the current state.

    The message names the seat and the reason. Whatever raised it left the game state unchanged.
    """
