"""The rules of Dixit, every edition: pure Python and numpy, no I/O.

Editions are data (:class:`RuleSet`); :func:`score_round` scores one round; :func:`new_game` and
:func:`apply_action` run the game as a state machine over an immutable :class:`GameState`;
:func:`observe` builds the :class:`View` of one seat, the only way hidden information leaves the
rules. Illegal actions raise :class:`IllegalAction` and change nothing.
"""

from __future__ import annotations

from dixit_ai.rules.errors import IllegalAction
from dixit_ai.rules.game import Game, apply_action, check_action, check_clue, new_game
from dixit_ai.rules.observer import View, observe
from dixit_ai.rules.ruleset import EDITIONS, MAX_CLUE_LENGTH, RuleSet
from dixit_ai.rules.scoring import (
    POINT_PARTS,
    check_vote,
    designated_seats,
    parts_dict,
    score_parts,
    score_round,
    voting_seats,
)
from dixit_ai.rules.state import (
    CLUE_KINDS,
    Action,
    Announce,
    GameState,
    Phase,
    Play,
    RedToken,
    RoundResult,
    Tell,
    Vote,
    leaders,
)

__all__ = [
    "CLUE_KINDS",
    "EDITIONS",
    "MAX_CLUE_LENGTH",
    "POINT_PARTS",
    "Action",
    "Announce",
    "Game",
    "GameState",
    "IllegalAction",
    "Phase",
    "Play",
    "RedToken",
    "RoundResult",
    "RuleSet",
    "Tell",
    "View",
    "Vote",
    "apply_action",
    "check_action",
    "check_clue",
    "check_vote",
    "designated_seats",
    "leaders",
    "new_game",
    "observe",
    "parts_dict",
    "score_parts",
    "score_round",
    "voting_seats",
]
