"""Environments that read embedding vectors pickle, and the copy plays on as the original (a live
environment handed to another process, a saved snapshot). Before, their tables' text embedders
were closures: ``Can't pickle local object 'VectorTable.from_resources.<locals>.<lambda>'``."""

from __future__ import annotations

import pickle

import gymnasium
import numpy as np
import pytest

import envs  # noqa: F401  (registers dixit_ai/Dixit-v0)
from envs.vectors import VectorTable


def play_on(env: gymnasium.Env, other: gymnasium.Env, steps: int) -> None:
    """Step both with the same masked actions; every observation and reward must agree."""
    for _ in range(steps):
        mask = env.unwrapped.action_masks()
        action = int(np.flatnonzero(mask)[len(np.flatnonzero(mask)) // 2])
        first, second = env.step(action), other.step(action)
        assert np.array_equal(first[0], second[0]) and first[1:4] == second[1:4]
        if first[2] or first[3]:
            return


@pytest.mark.parametrize("vectors", ["default", "random", "projected"])
def test_an_embedding_environment_pickles_and_plays_on_alike(vectors: str) -> None:
    options = {}
    if vectors != "default":   # the dream deck's shipped vectors, or a model-free table
        table = VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)
        options["embeddings"] = table if vectors == "random" else table.projected(8)
    env = gymnasium.make("dixit_ai/Dixit-v0", opponents="embedding", observation="embedding",
                         flatten=True, actions="discrete", **options)
    env.reset(seed=4)
    copy = pickle.loads(pickle.dumps(env))
    play_on(env, copy, 40)
