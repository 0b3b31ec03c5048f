"""``info["rounds"]`` of the single-agent environment lists every round its reward counts.

With ``learner_phases`` the learner may have no decision in the first round(s) (a guesser in
seat 0 tells first: the stand-in tells for it), so ``reset`` plays them and their points come
with the first step's reward. Before, that step's ``info["rounds"]`` did not list those rounds
(the reward was the points of rounds it did not show), and a game the learner had no decision
in (its last step, the ignored action) showed no rounds at all.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest

import envs
from envs.vectors import VectorTable

TABLE = VectorTable.random(range(84), [f"word{i}" for i in range(32)], dim=8, seed=0)


def play(env: Any, seed: int) -> tuple[list[float], list[list[Any]]]:
    _, info = env.reset(seed=seed)
    rewards, rounds, done = [], [], False
    while not done:
        action = int(np.flatnonzero(info["action_mask"])[0])
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        rounds.append(list(info.get("rounds", ())))
        done = terminated or truncated
    return rewards, rounds


@pytest.mark.parametrize(("phases", "options"), [
    (("vote",), {}),                   # seat 0 tells first: round 0 is played in reset
    (("tell",), {"max_rounds": 3}),    # seat 3 never tells: the whole game is played in reset
    (None, {}),
])
def test_each_reward_is_the_points_of_the_rounds_its_info_lists(
        phases: tuple[str, ...] | None, options: dict[str, Any]) -> None:
    seat = 3 if options else 0
    env = gymnasium.make(envs.ENV_ID, deck=list(range(84)), embeddings=TABLE, seat=seat,
                         observation="embedding", flatten=True, actions="discrete",
                         opponents="embedding", learner_phases=phases, **options)
    for seed in (0, 1):
        rewards, rounds = play(env, seed)
        for reward, listed in zip(rewards, rounds, strict=True):
            assert reward == sum(result.points[seat] for result in listed)
        every_round = [result for listed in rounds for result in listed]
        assert every_round == list(env.unwrapped.table.core.state.results)
