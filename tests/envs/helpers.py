"""Helpers for the environment tests: configurations and games driven by dixit_ai agents."""

from __future__ import annotations

from typing import Any

from dixit_ai.agents import RandomAgent
from dixit_ai.rules import EDITIONS, RuleSet
from envs import dixit_v0
from envs.agent_player import AgentPlayer

DECK = list(range(84))
"""A fast explicit deck: card ids 0..83."""

PLAYER_COUNTS = (3, 4, 6, 8, 12)
"""The player counts the checkers cover, where the edition allows them."""

CONFIGS: list[tuple[str, int, dict[str, Any]]] = [
    (edition, n, {})
    for edition in EDITIONS
    for n in PLAYER_COUNTS
    if RuleSet.edition(edition).min_players <= n <= RuleSet.edition(edition).max_players
] + [("odyssey-2011", 6, {"teams": True}), ("odyssey-2011", 8, {"teams": True})]
"""(edition, players, rule overrides) for every edition and a spread of player counts, plus the
team variant."""


def config_id(config: tuple[str, int, dict[str, Any]]) -> str:
    """A readable pytest id for a configuration."""
    edition, n, overrides = config
    return f"{edition}-{n}p" + "".join(f"-{key}" for key in overrides)


def play_aec(env: Any, seed: int, agents: list[Any] | None = None) -> list[int]:
    """A whole game through the AEC API, each seat played by a dixit_ai agent; final scores."""
    env.reset(seed=seed)
    chosen = agents or [RandomAgent() for _ in env.possible_agents]
    players = {name: AgentPlayer(agent) for name, agent in zip(env.possible_agents, chosen,
                                                                strict=True)}
    for name, player in players.items():
        player.reset(env, name)
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else players[agent].act(env, agent))
    return list(env.unwrapped.core.state.scores)


def play_parallel(env: dixit_v0.DixitParallelEnv, seed: int) -> list[int]:
    """A whole game through the Parallel API with random dixit_ai agents; final scores."""
    env.reset(seed=seed)
    players = {name: AgentPlayer(RandomAgent()) for name in env.possible_agents}
    for name, player in players.items():
        player.reset(env, name)
    while env.agents:
        acting = set(env.acting_agents())
        actions = {agent: players[agent].act(env, agent) if agent in acting else
                   env.action_space(agent).sample() for agent in env.agents}
        env.step(actions)
    return list(env.core.state.scores)
