"""Batched play: many games in lockstep over :mod:`dixit_ai.rules.batched`.

:func:`play_batch` runs one batched agent per seat through a
:class:`~dixit_ai.rules.batched.BatchedGames`; :func:`to_records` turns its finished games into
standard records that ``dixit-ai replay`` verifies through the scalar engine.

>>> from dixit_ai.rules import RuleSet
>>> games = play_batch([BatchedRandomAgent(0)] * 4, RuleSet.edition("refresh-2021"),
...                    n_games=8, total_games=8, seed=3)
>>> records = to_records(games, games.take_finished(), clues=CLUE_WORDS)
>>> len(records), all(r.status == "complete" for r in records)
(8, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dixit_ai.agents.random_agent import CLUE_WORDS
from dixit_ai.batched.agents import BatchedAgent, BatchedRandomAgent, nth_legal
from dixit_ai.batched.embedding import BatchedEmbeddingAgent
from dixit_ai.batched.records import to_records
from dixit_ai.rules import RuleSet
from dixit_ai.rules.batched import BatchedGames

__all__ = ["CLUE_WORDS", "BatchedAgent", "BatchedEmbeddingAgent", "BatchedGames",
           "BatchedRandomAgent", "nth_legal",
           "play_batch", "play_rounds", "to_records"]


def _merge(agents: Sequence[BatchedAgent], answers: dict[int, Any], axis_seat: bool) -> Any:
    """One array from each distinct agent's answer, each seat's row from its own agent."""
    first = answers[id(agents[0])]
    if all(a is agents[0] for a in agents) or not axis_seat:
        return first
    merged = np.array(first, copy=True)
    for seat, agent in enumerate(agents):
        merged[:, seat] = answers[id(agent)][:, seat]
    return merged


def play_rounds(games: BatchedGames, agents: Sequence[BatchedAgent], rounds: int) -> int:
    """Play ``rounds`` lockstep rounds (fewer if every game has ended); return how many."""
    if len(agents) != games.n_players:
        raise ValueError(f"{len(agents)} agents for {games.n_players} seats")
    distinct = list({id(a): a for a in agents}.values())
    played = 0
    while played < rounds and games.active.any():
        teller = games.storyteller
        tells = {id(a): a.tell(games) for a in distinct}
        if len(distinct) == 1:
            slots, clues = tells[id(agents[0])]
        else:
            slots = np.zeros(games.n_slots, dtype=np.int64)
            clues = np.zeros(games.n_slots, dtype=np.int64)
            for seat, agent in enumerate(agents):
                mine = teller == seat
                slots = np.where(mine, tells[id(agent)][0], slots)
                clues = np.where(mine, tells[id(agent)][1], clues)
        games.tell(slots, clues)
        games.play(_merge(agents, {id(a): a.play(games) for a in distinct}, True))
        games.vote(_merge(agents, {id(a): a.vote(games) for a in distinct}, True))
        played += 1
    return played


def play_batch(agents: Sequence[BatchedAgent], rules: RuleSet, *, n_games: int,
               total_games: int, seed: int, **options: Any) -> BatchedGames:
    """Play ``total_games`` games, ``n_games`` at a time, one batched agent per seat.

    ``options`` go to :class:`BatchedGames` (``deck``, ``cohort``, ...). Returns the engine, whose
    ``take_finished()`` lists the games for :func:`to_records`.
    """
    games = BatchedGames(rules, len(agents), n_games, seed=seed, total_games=total_games,
                         **options)
    while games.active.any():
        play_rounds(games, agents, 1 << 30)
    return games
