"""Wrappers that adapt the environments' mask conventions to a library's own spelling.

The environments already give PettingZoo classic observations (``flatten=True`` or
``classic=True``: ``{"observation": ..., "action_mask": int8}``), which Tianshou's
``PettingZooEnv`` reads. RLlib's action-masking ``RLModule``
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``) reads
``{"observations": ..., "action_mask": ...}`` instead: :func:`rllib_masked` renames the key (the
mask stays ``int8``, as PettingZoo's checkers sample with it; the module casts it).

>>> from envs import dixit_v0
>>> from envs.vectors import VectorTable
>>> table = VectorTable.random(range(84), ["sea", "fire", "night"], dim=4)
>>> env = rllib_masked(dixit_v0.env(deck=list(range(84)), embeddings=table, clues_per_card=2,
...                                 observation="embedding", flatten=True, actions="discrete"))
>>> env.reset(seed=0)
>>> sorted(env.observe(env.agent_selection))
['action_mask', 'observations']
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper  # type: ignore[import-untyped]

__all__ = ["RenamedMaskWrapper", "rllib_masked"]


class RenamedMaskWrapper(BaseWrapper):  # type: ignore[misc]
    """A classic-form AEC env whose observation key and mask dtype are renamed.

    Args:
        env: An environment made with ``flatten=True`` or ``classic=True``.
        observation_key: The new name of ``"observation"``.
        mask_dtype: The mask's new dtype.

    Raises:
        ValueError: the environment's observations are not in classic form.
    """

    def __init__(self, env: Any, observation_key: str = "observations",
                 mask_dtype: Any = np.int8) -> None:
        super().__init__(env)
        self.observation_key = observation_key
        self.mask_dtype = np.dtype(mask_dtype)
        self._spaces: dict[str, spaces.Dict] = {}
        for agent in self.possible_agents:
            space = env.observation_space(agent)
            if not isinstance(space, spaces.Dict) or set(space.spaces) != {
                    "observation", "action_mask"}:
                raise ValueError("the environment must give classic observations: make it with "
                                 "flatten=True or classic=True")
            mask = space["action_mask"]
            self._spaces[agent] = spaces.Dict({
                observation_key: space["observation"],
                "action_mask": spaces.Box(0, 1, shape=mask.shape, dtype=self.mask_dtype)})

    def observation_space(self, agent: str) -> spaces.Dict:
        """The renamed space (the same object every call)."""
        return self._spaces[agent]

    def observe(self, agent: str) -> dict[str, Any]:
        """The renamed observation."""
        observation = super().observe(agent)
        return {self.observation_key: observation["observation"],
                "action_mask": observation["action_mask"].astype(self.mask_dtype)}


def rllib_masked(env: Any) -> RenamedMaskWrapper:
    """``env`` as RLlib's action-masking module reads it (``observations`` and ``action_mask``)."""
    return RenamedMaskWrapper(env, "observations", np.int8)
