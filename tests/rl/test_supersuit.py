"""SuperSuit (the ``rl`` extra) vectorises the Parallel environment for parameter sharing: every
seat of every copy is one slot of a Gymnasium vector env, and the masks travel in the
observations, so a policy that samples from them never plays an illegal action. It needs the
flat ``Discrete`` action (``actions="discrete"``): the default ``Text`` clue is not an array, and
Gymnasium's vector utilities refuse it."""

from __future__ import annotations

import numpy as np
import pytest

from envs import dixit_v0
from envs.vectors import VectorTable

ss = pytest.importorskip("supersuit")


def _env(**options: object):  # random vectors: no model needed
    words = [f"word{i}" for i in range(64)]
    return dixit_v0.parallel_env(
        n_players=4, observation="embedding", flatten=True, deck=list(range(84)),
        embeddings=VectorTable.random(range(84), words, dim=16, seed=0), **options)


def test_supersuit_vector_env_plays_whole_games_by_the_masks() -> None:
    env = _env(actions="discrete")
    venv = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0,
                                 base_class="gymnasium")
    assert venv.num_envs == 8  # 2 copies x 4 seats
    obs, _ = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = acting = 0
    total = 0.0
    for _ in range(300):
        masks = obs["action_mask"]
        assert masks.shape == (8, env.action_space("player_0").n)
        # the seats that do not act this step have all-zero masks; their actions are ignored
        acting += int(masks.any(axis=1).sum())
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, rewards, terminations, truncations, infos = venv.step(actions)
        assert not any("illegal_action" in info for info in infos)
        assert np.isfinite(rewards).all()
        total += float(rewards.sum())
        ends += int(np.sum(terminations | truncations))
    assert ends >= 8 and acting > 300 and total > 0  # whole games ended and reset, points won

