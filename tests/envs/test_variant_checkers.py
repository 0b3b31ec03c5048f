"""Team Dixit and Dixit Party through the environments: PettingZoo's and Gymnasium's checkers,
and the same game as the match runner's."""

from __future__ import annotations

from typing import Any

import gymnasium
import pytest
from pettingzoo.test import api_test, parallel_api_test

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from envs import dixit_v0
from tests.envs.helpers import DECK, play_aec, play_parallel

VARIANTS: list[tuple[str, int, dict[str, Any]]] = [
    ("odyssey-2011", 6, {"teams": True}),
    ("odyssey-2024", 10, {"teams": True}),
    ("odyssey-2011", 6, {"mode": "party"}),
    ("odyssey-2024", 9, {"mode": "party"}),
    ("odyssey-2011", 12, {"mode": "party"}),
]
IDS = [f"{e}-{n}p-{'teams' if o.get('teams') else 'party'}" for e, n, o in VARIANTS]


@pytest.mark.parametrize("config", VARIANTS, ids=IDS)
def test_pettingzoo_api(config: tuple[str, int, dict[str, Any]]) -> None:
    edition, n, overrides = config
    api_test(dixit_v0.env(edition=edition, n_players=n, deck=DECK, **overrides),
             num_cycles=400)
    parallel_api_test(dixit_v0.parallel_env(edition=edition, n_players=n, deck=DECK,
                                            **overrides), num_cycles=400)


@pytest.mark.parametrize("config", VARIANTS, ids=IDS)
def test_aec_parallel_and_runner_play_the_same_game(config: tuple[str, int, dict[str, Any]]
                                                   ) -> None:
    edition, n, overrides = config
    record = play_game([RandomAgent() for _ in range(n)], edition=edition, deck=DECK, seed=5,
                       **overrides)
    aec = dixit_v0.env(edition=edition, n_players=n, deck=DECK, **overrides)
    assert play_aec(aec, 5) == record.final_scores
    parallel = dixit_v0.parallel_env(edition=edition, n_players=n, deck=DECK, **overrides)
    final = play_parallel(parallel, 5)
    assert len(final) == n


@pytest.mark.parametrize("config", [VARIANTS[0], VARIANTS[2]], ids=[IDS[0], IDS[2]])
def test_gymnasium_checker(config: tuple[str, int, dict[str, Any]]) -> None:
    from gymnasium.utils.env_checker import check_env

    edition, n, overrides = config
    env = gymnasium.make("dixit_ai/Dixit-v0", edition=edition, n_players=n, deck=DECK,
                         **overrides)
    check_env(env.unwrapped, skip_render_check=True)
    env.reset(seed=1)
    done = False
    while not done:
        _obs, _reward, terminated, truncated, _info = env.step(env.action_space.sample(
            mask=env.unwrapped.action_masks().astype("int8")))
        done = terminated or truncated
