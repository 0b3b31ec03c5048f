"""PettingZoo's own conformance checkers, on every edition and a spread of player counts."""

from __future__ import annotations

import functools
import pickle
from typing import Any

import pytest
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.test.seed_test import seed_action_spaces, seed_observation_spaces

from envs import dixit_v0
from tests.envs.helpers import CONFIGS, DECK, config_id

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def make(config: tuple[str, int, dict[str, Any]], factory: Any = dixit_v0.env,
         **extra: Any) -> Any:
    edition, n, overrides = config
    return factory(edition=edition, n_players=n, deck=DECK, **overrides, **extra)


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_api(config: tuple[str, int, dict[str, Any]]) -> None:
    env = make(config)
    api_test(env, num_cycles=1000)
    # api_test's masked random play must have been a legal game.
    assert env.unwrapped.illegal_actions == []


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_parallel_api(config: tuple[str, int, dict[str, Any]]) -> None:
    env = make(config, dixit_v0.parallel_env)
    parallel_api_test(env, num_cycles=1000)
    assert env.illegal_actions == []


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_seeds(config: tuple[str, int, dict[str, Any]]) -> None:
    seed_test(functools.partial(make, config), num_cycles=100)
    parallel_seed_test(functools.partial(make, config, dixit_v0.parallel_env), num_cycles=100)


@pytest.mark.parametrize("config", CONFIGS[::3], ids=config_id)
def test_render(config: tuple[str, int, dict[str, Any]]) -> None:
    render_test(functools.partial(make, config))


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_state(config: tuple[str, int, dict[str, Any]]) -> None:
    state_test(make(config), make(config, dixit_v0.parallel_env), num_cycles=20)


@pytest.mark.parametrize("clue_mode", ["text", "vocab"])
@pytest.mark.parametrize("config", [CONFIGS[0], CONFIGS[-3]], ids=config_id)
def test_clue_modes_pass_the_checkers(config: tuple[str, int, dict[str, Any]],
                                      clue_mode: str) -> None:
    api_test(make(config, clue_mode=clue_mode), num_cycles=1000)
    parallel_api_test(make(config, dixit_v0.parallel_env, clue_mode=clue_mode), num_cycles=1000)


@pytest.mark.parametrize("config", CONFIGS[::2], ids=config_id)
def test_pickle(config: tuple[str, int, dict[str, Any]]) -> None:
    """PettingZoo's pickle test (``test/pickle_test.py``), on our configurations."""
    env1 = make(config, render_mode=None)
    env2 = pickle.loads(pickle.dumps(env1))
    env1.reset(seed=42)
    env2.reset(seed=42)
    seed_action_spaces(env1)
    seed_action_spaces(env2)
    seed_observation_spaces(env1)
    seed_observation_spaces(env2)
    for steps, (agent1, agent2) in enumerate(zip(env1.agent_iter(), env2.agent_iter(),
                                                 strict=False)):
        if steps > 10:
            break
        assert data_equivalence(agent1, agent2)
        obs1, rew1, term1, trunc1, info1 = env1.last()
        obs2, rew2, term2, trunc2, info2 = env2.last()
        if term1 or term2 or trunc1 or trunc2:
            break
        assert data_equivalence((obs1, rew1, term1, trunc1, info1),
                                (obs2, rew2, term2, trunc2, info2))
        action1 = env1.action_space(agent1).sample(mask=obs1["action_mask"])
        action2 = env2.action_space(agent2).sample(mask=obs1["action_mask"])
        assert data_equivalence(action1, action2)
        env1.step(action1)
        env2.step(action2)


def test_max_cycles_does_not_apply() -> None:
    """``max_cycles_test`` counts turns per agent; in Dixit agents take unequal numbers of turns
    (the storyteller one, guessers two or four), so, as for PettingZoo's classic games, the
    checker does not apply. The round limit is ``max_rounds`` (tested with the rewards)."""
    with pytest.raises(ValueError, match=r"'max_cycles' is neither an option of dixit_v0.env "
                                         r"nor a rule parameter \(did you mean 'max_rounds'\? "
                                         r"PettingZoo's games limit turns"):
        dixit_v0.env(deck=DECK, max_cycles=4)
