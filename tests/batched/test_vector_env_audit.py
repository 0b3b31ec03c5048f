"""The batched environments' bad input: actions outside the action space, bad num_envs."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.vector import DixitBatchedParallel, DixitVectorEnv


def test_parallel_refuses_actions_outside_the_action_space() -> None:
    # A clue id past the vocabulary used to be told (the observation's clue then lay outside
    # the observation space, and the game's record failed much later); a second part past C
    # was read as "no second vote".
    env = DixitBatchedParallel(2, n_players=4, seed=0)
    env.reset(seed=1)
    v, c = len(env.clues), env.choices
    scores = env.games.scores.copy()
    for bad in ([0, v, c], [c, 0, c], [0, 0, c + 1], [-1, 0, c]):
        actions = {a: np.array([[0, 0, c], [0, 0, c]]) for a in env.agents}
        actions["player_2"] = np.array([[0, 0, c], bad])
        named = re.escape(f"player_2's action for env 1, {bad}")
        with pytest.raises(ValueError, match=rf"{named}.* must lie in \[0, {c}\) x \[0, {v}\) "
                                             rf"x \[0, {c}\]"):
            env.step(actions)
        assert env._phase() == 0 and (env.games.scores == scores).all()
    env.step({a: np.array([[0, v - 1, c], [0, 0, c]]) for a in env.agents})
    assert env.games.clue[0] == v - 1


@pytest.mark.parametrize("make", [DixitVectorEnv, DixitBatchedParallel])
@pytest.mark.parametrize("num_envs", [0, -3, 2.5, True])
def test_bad_num_envs_is_named(make: type, num_envs: object) -> None:
    with pytest.raises(ValueError, match=rf"num_envs must be an int >= 1, not {num_envs!r}"):
        make(num_envs)


def test_float_actions_are_refused_not_truncated() -> None:
    # np.asarray(actions, dtype=int64) used to truncate 1.9 to 1 and play it.
    env = DixitVectorEnv(2, n_players=4, seed=0)
    env.reset(seed=0)
    action = np.array([[1.9, 0, env.choices]] * 2)
    with pytest.raises(ValueError, match="actions must be integers, not float64"):
        env.step(action)
    assert env._step == 0 and env.phase.value == "tell"
    parallel = DixitBatchedParallel(2, n_players=4, seed=0)
    parallel.reset(seed=0)
    actions = {a: np.array([[0, 0, parallel.choices]] * 2) for a in parallel.agents}
    actions["player_1"] = actions["player_1"].astype(float)
    with pytest.raises(ValueError, match="player_1's actions must be integers, not float64"):
        parallel.step(actions)
    assert parallel._phase() == 0
