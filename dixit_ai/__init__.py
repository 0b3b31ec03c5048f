"""dixit-ai: a research harness in which AI players play the board game Dixit.

The core (this package) holds the rules of every edition (:mod:`dixit_ai.rules`), the agents
protocol and registry (:mod:`dixit_ai.agents`), decks (:mod:`dixit_ai.decks`), the match runner
(:func:`play_game`) and game records (:class:`GameRecord`). Environments live in ``envs``,
image-text models and the players built on them in ``models``.
"""

from __future__ import annotations

from dixit_ai.match import play_game
from dixit_ai.records import GameRecord, RoundRecord, read_records, transcript, write_records
from dixit_ai.replay import ReplayMismatch, replay_record

__version__ = "0.1.0"

__all__ = [
    "GameRecord",
    "ReplayMismatch",
    "RoundRecord",
    "__version__",
    "play_game",
    "read_records",
    "replay_record",
    "transcript",
    "write_records",
]
