"""Gymnasium and PettingZoo environments over the rules of :mod:`dixit_ai.rules`.

- :mod:`envs.dixit_v0`: the PettingZoo AEC (``dixit_v0.env()``) and Parallel
  (``dixit_v0.parallel_env()``) environments;
- :class:`envs.single_agent.DixitSingleAgentEnv`: one learning seat against ``dixit_ai`` agents,
  registered with Gymnasium as ``dixit_ai/Dixit-v0`` when this package is imported;
- :class:`envs.agent_player.AgentPlayer`: plays any ``dixit_ai`` agent in an environment seat.

>>> import gymnasium
>>> import envs
>>> "dixit_ai/Dixit-v0" in gymnasium.registry
True
"""

from __future__ import annotations

import gymnasium

ENV_ID = "dixit_ai/Dixit-v0"
"""The Gymnasium id of the single-agent environment."""


def register_envs() -> None:
    """Register ``dixit_ai/Dixit-v0`` with Gymnasium (once; later calls change nothing).

    Also the ``gymnasium.envs`` entry point of the distribution, for Gymnasium versions that load
    plugins (before 1.0).
    """
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="envs.single_agent:DixitSingleAgentEnv")


register_envs()

__all__ = ["ENV_ID", "register_envs"]
