"""Dixit Party in the single-agent environment: seats that cannot play it are refused up front.

The embedding opponents and stand-in (``envs.policies.EmbeddingAgent``) have no ``announce`` or
``red_token``; before, a Party game with them failed mid-reset with an ``AttributeError``.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import envs
from envs.vectors import VectorTable

TABLE = VectorTable.random(range(84), [f"word{i}" for i in range(32)], dim=8, seed=0)
PARTY = {"edition": "odyssey-2011", "n_players": 6, "mode": "party", "deck": list(range(84)),
         "embeddings": TABLE, "observation": "embedding", "flatten": True,
         "actions": "discrete", "clues_per_card": 4}


@pytest.mark.parametrize(("options", "named"), [
    ({"opponents": "embedding"}, "seat 1"),
    ({"opponents": ["random"] * 4 + ["clip-greedy"]}, "seat 5"),
    ({"learner_phases": ("vote",)}, "stand-in"),
])
def test_party_refuses_seats_without_its_decisions(options: dict[str, Any], named: str) -> None:
    with pytest.raises(ValueError, match=rf"(?s){named}.*cannot play Dixit Party"):
        gymnasium.make(envs.ENV_ID, **PARTY, **options)


def test_party_with_party_agents_plays_to_the_end() -> None:
    env = gymnasium.make(envs.ENV_ID, **PARTY, opponents="random",
                         learner_phases=("tell", "vote"), stand_in="random")
    _, info = env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, reward, terminated, truncated, info = env.step(action)
        total, done = total + reward, terminated or truncated
    table = env.unwrapped.table
    assert table.illegal_actions == []
    assert total == table.core.state.scores[0]
