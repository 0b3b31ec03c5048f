"""Masks: a masked-out card index is never legal, and every legal one is unmasked."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from dixit_ai.rules import IllegalAction
from envs import dixit_v0
from envs.core import DixitCore
from tests.envs.helpers import CONFIGS, DECK, config_id


def legal(core: DixitCore, seat: int, index: int) -> bool:
    """Whether the rules (through the environment's translation) accept ``index`` now."""
    other = copy.deepcopy(core)
    clue: Any = "a clue" if other.vocab is None else 0
    try:
        other.commit(seat, other.build(seat, {"card": index, "clue": clue}))
    except IllegalAction:
        return False
    return True


def legal_mask(core: DixitCore, seat: int) -> np.ndarray:
    return np.array([legal(core, seat, i) for i in range(core.n_actions)], dtype=np.int8)


@pytest.mark.parametrize("config", [*CONFIGS[::2], CONFIGS[-2]], ids=config_id)
def test_aec_mask_is_the_legal_card_indices(config: tuple[str, int, dict[str, Any]]) -> None:
    edition, n, overrides = config
    env = dixit_v0.raw_env(edition=edition, n_players=n, deck=DECK, **overrides)
    env.reset(seed=n)
    for agent in env.possible_agents:
        env.action_space(agent).seed(n)
    for _ in range(70):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        seat = env.seat_of[agent]
        mask = env.observe(agent)["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        np.testing.assert_array_equal(mask, legal_mask(env.core, seat))
        for other in env.possible_agents:  # nobody else may act in this AEC turn
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(env.action_space(agent).sample(mask))
    assert env.illegal_actions == []


@pytest.mark.parametrize("config", CONFIGS[1::3], ids=config_id)
def test_parallel_masks_are_the_legal_card_indices(
        config: tuple[str, int, dict[str, Any]]) -> None:
    edition, n, overrides = config
    env = dixit_v0.parallel_env(edition=edition, n_players=n, deck=DECK, **overrides)
    observations, _ = env.reset(seed=1)
    for agent in env.possible_agents:
        env.action_space(agent).seed(1)
    for _ in range(12):
        if not env.agents:
            break
        acting = set(env.acting_agents())
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            if agent in acting:
                np.testing.assert_array_equal(mask, legal_mask(env.core, env.seat_of[agent]))
            else:
                assert not mask.any()
        actions = {a: env.action_space(a).sample(observations[a]["action_mask"])
                   for a in env.agents}
        observations, *_ = env.step(actions)
    assert env.illegal_actions == []


def test_masked_out_actions_end_the_game_through_the_env() -> None:
    env = dixit_v0.env(edition="odyssey-2011", n_players=7, deck=DECK)
    env.reset(seed=4)
    checked = 0
    for _ in range(40):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        for index in np.flatnonzero(mask == 0)[:3]:
            other = copy.deepcopy(env)
            other.step({"card": int(index), "clue": "a clue"})
            assert len(other.unwrapped.illegal_actions) == 1
            assert all(other.terminations.values())
            assert other.rewards[agent] == -1.0
            checked += 1
        env.step({"card": int(np.flatnonzero(mask)[0]), "clue": "a clue"})
    assert checked > 20 and env.unwrapped.illegal_actions == []
