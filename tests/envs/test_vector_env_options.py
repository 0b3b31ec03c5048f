"""DixitVectorEnv refuses opponent_options where no opponent reads them.

With batched agents given as opponents, ``opponent_options`` (keyword arguments of the
``"random"`` and ``"embedding"`` opponents the env builds) were dropped without a word.
"""

from __future__ import annotations

import pytest

from dixit_ai.batched import BatchedRandomAgent
from envs.vector import DixitVectorEnv


def test_opponent_options_with_given_agents_are_refused() -> None:
    agent = BatchedRandomAgent(0, n_clues=10)
    with pytest.raises(ValueError, match="opponent_options are keyword arguments of the "
                                         "'random' and 'embedding' opponents"):
        DixitVectorEnv(2, n_players=4, opponents=agent, opponent_options={"second_vote_rate": 0.1})
    with pytest.raises(ValueError, match="opponent_options are keyword arguments"):
        DixitVectorEnv(2, n_players=4, opponents=[None, agent, agent, agent],
                       opponent_options={"second_vote_rate": 0.1})
    DixitVectorEnv(2, n_players=4, opponents=agent)
    DixitVectorEnv(2, n_players=4, opponents=agent, opponent_options={})
