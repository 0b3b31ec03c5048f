"""The Gymnasium single-agent environment ``dixit_ai/Dixit-v0``."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from envs.agent_player import AgentPlayer
from envs.single_agent import DixitSingleAgentEnv
from tests.envs.helpers import DECK

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("config", [
    {}, {"clue_mode": "vocab"}, {"edition": "odyssey-2024", "n_players": 3, "seat": 2},
    {"edition": "odyssey-2011", "n_players": 6, "teams": True, "clue_mode": "vocab"}])
def test_check_env(config: dict[str, Any]) -> None:
    env = gymnasium.make(envs.ENV_ID, deck=DECK, **config)
    check_env(env.unwrapped)


@pytest.mark.parametrize("config", [
    {"observation": "onehot", "clue_mode": "vocab"},
    {"observation": "onehot", "actions": "discrete", "seat": 1}, {}])
def test_the_last_observation_of_a_game_is_inside_the_space(config: dict[str, Any]) -> None:
    """With a Dict observation the action mask belongs in info, at the end of a game too:
    before, the last observation carried an 'action_mask' key the space does not have, and
    check_env failed whenever its random step ended the game (seat 1 here)."""
    env = gymnasium.make(envs.ENV_ID, deck=DECK, **config)
    observation, info = env.reset(seed=0)
    done = False
    while not done:
        assert env.observation_space.contains(observation)
        observation, _, terminated, truncated, info = env.step(
            env.action_space.sample(info["action_mask"]))
        done = terminated or truncated
    assert env.observation_space.contains(observation)
    _, info = env.reset(seed=1)
    illegal = (int(np.flatnonzero(info["action_mask"] == 0)[0])
               if isinstance(env.action_space, gymnasium.spaces.Discrete)
               else {"card": 99, "clue": 0})
    observation, reward, terminated, _, _ = env.step(illegal)
    assert terminated and reward == -1.0 and env.observation_space.contains(observation)
    check_env(env.unwrapped)


def test_make_finds_the_registered_id() -> None:
    assert envs.ENV_ID == "dixit_ai/Dixit-v0" and envs.ENV_ID in gymnasium.registry
    env = gymnasium.make("dixit_ai/Dixit-v0", deck=DECK, render_mode="ansi")
    observation, info = env.reset(seed=0)
    assert env.observation_space.contains(observation)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()
    assert isinstance(env.unwrapped, DixitSingleAgentEnv)
    assert "Scores" in env.render()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        envs.register_envs()  # idempotent: no "overriding" warning


def test_make_with_the_default_deck() -> None:
    if importlib.util.find_spec("dixit_ai.decks") is None:
        pytest.skip("the deck package is not installed")
    env = gymnasium.make("dixit_ai/Dixit-v0")
    observation, _ = env.reset(seed=0)
    assert env.observation_space.contains(observation)


def test_module_prefixed_id_needs_no_import() -> None:
    code = ("import gymnasium; env = gymnasium.make('envs:dixit_ai/Dixit-v0', "
            "deck=list(range(84))); print(env.reset(seed=0)[0].shape)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, timeout=120)
    assert result.stdout.strip().startswith("(")


def test_learner_plays_the_runner_game() -> None:
    """A learner that acts as a random agent would plays the game ``play_game`` plays."""
    record = play_game([RandomAgent() for _ in range(5)], edition="odyssey-2024", deck=DECK,
                       seed=9)
    env = DixitSingleAgentEnv(seat=3, edition="odyssey-2024", n_players=5, deck=DECK)
    _, info = env.reset(seed=9)
    learner = AgentPlayer(RandomAgent())
    learner.reset(env.table, "player_3")
    total, terminated, truncated = 0.0, False, False
    while not (terminated or truncated):
        action = learner.act(env.table, "player_3")
        assert info["action_mask"][action["card"]] == 1
        _, reward, terminated, truncated, info = env.step(action)
        total += reward
    assert list(env.table.core.state.scores) == record.final_scores
    assert total == record.final_scores[3] and terminated and not truncated


def test_illegal_learner_action_ends_the_episode() -> None:
    env = DixitSingleAgentEnv(deck=DECK)
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step({"card": 50, "clue": "x"})
    assert reward == -1.0 and terminated and not truncated
    assert info["illegal_agent"] == "player_0" and "hand" in info["illegal_action"]
    assert env.step({"card": 0, "clue": "x"})[2]  # stays over


def test_opponents_are_checked_and_used() -> None:
    with pytest.raises(ValueError, match="3 agents"):
        DixitSingleAgentEnv(deck=DECK, opponents=["random"])
    with pytest.raises(ValueError, match="seats"):
        DixitSingleAgentEnv(deck=DECK, seat=1, opponents={0: "random", 1: "random", 2: "random"})
    with pytest.raises(ValueError, match="seat"):
        DixitSingleAgentEnv(deck=DECK, seat=4)
    agents = [RandomAgent(name=f"r{i}") for i in range(3)]
    env = DixitSingleAgentEnv(deck=DECK, seat=1, opponents=agents, max_rounds=2)
    _, info = env.reset(seed=0)
    assert env.players["player_0"].agent is agents[0]
    assert env.players["player_3"].agent is agents[2]
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(env.action_space.sample(info["action_mask"]))
        done = terminated or truncated
    assert truncated and env.table.core.state.round == 2
