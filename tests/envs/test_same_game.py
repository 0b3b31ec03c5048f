"""The same seed and the same agents play the same game through the AEC API, the Parallel API and
the match runner (``dixit_ai.play_game``)."""

from __future__ import annotations

from typing import Any

import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from envs import dixit_v0
from tests.envs.helpers import CONFIGS, DECK, config_id, play_aec, play_parallel


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("seed", [0, 7])
def test_aec_parallel_and_runner_agree(config: tuple[str, int, dict[str, Any]],
                                       seed: int) -> None:
    edition, n, overrides = config
    record = play_game([RandomAgent() for _ in range(n)], edition=edition, deck=DECK, seed=seed,
                       **overrides)
    assert record.status == "complete"
    aec = dixit_v0.env(edition=edition, n_players=n, deck=DECK, **overrides)
    assert play_aec(aec, seed) == record.final_scores
    parallel = dixit_v0.parallel_env(edition=edition, n_players=n, deck=DECK, **overrides)
    assert play_parallel(parallel, seed) == record.final_scores
    # Not only the scores: every round is the same (board, owners, votes, points).
    for state in (aec.unwrapped.core.state, parallel.core.state):
        assert len(state.results) == len(record.rounds)
        for result, round_record in zip(state.results, record.rounds, strict=True):
            assert list(result.board) == round_record.board
            assert list(result.board_owner) == round_record.board_owner
            assert {s: list(v) for s, v in enumerate(result.votes) if v} == round_record.votes
            assert list(result.points) == round_record.points
            assert result.clue == round_record.clue
    assert aec.unwrapped.illegal_actions == [] and parallel.illegal_actions == []


@pytest.mark.parametrize("clue_mode", ["text", "vocab"])
def test_rewards_add_up_to_the_scores(clue_mode: str) -> None:
    env = dixit_v0.env(edition="odyssey-2024", n_players=5, deck=DECK, clue_mode=clue_mode)
    env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rounds_scored = 0
    for agent in env.agent_iter():
        observation, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if any(env.rewards.values()):
            rounds_scored += 1
        action = None if termination or truncation else env.action_space(agent).sample(
            observation["action_mask"])
        env.step(action)
    state = env.unwrapped.core.state
    assert state.is_over and rounds_scored > 0
    assert [totals[a] for a in env.possible_agents] == list(state.scores)


def test_round_limit_truncates_like_the_runner() -> None:
    record = play_game([RandomAgent() for _ in range(4)], edition="refresh-2021", deck=DECK,
                       seed=5, max_rounds=3)
    assert record.status == "truncated"
    env = dixit_v0.env(edition="refresh-2021", n_players=4, deck=DECK, max_rounds=3)
    assert play_aec(env, 5) == record.final_scores
    assert env.unwrapped.core.state.round == 3 and not env.unwrapped.core.state.is_over
    env.reset(seed=5)
    while not any(env.truncations.values()):
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert not any(env.observe(a)["action_mask"].any() for a in env.possible_agents)
    parallel = dixit_v0.parallel_env(edition="refresh-2021", n_players=4, deck=DECK, max_rounds=3)
    parallel.reset(seed=1)
    truncations: dict[str, bool] = {}
    while parallel.agents:
        actions = {a: parallel.action_space(a).sample(parallel.core.action_mask(i))
                   for i, a in enumerate(parallel.possible_agents) if a in parallel.agents}
        _, _, terminations, truncations, _ = parallel.step(actions)
    assert all(truncations.values()) and not any(terminations.values())
    assert parallel.core.state.round == 3


def test_reset_without_seed_continues_a_seeded_sequence() -> None:
    env = dixit_v0.raw_env(deck=DECK)
    env.reset(seed=11)
    assert env.game_seed == 11
    env.reset()
    second = env.game_seed
    env.reset(seed=11)
    env.reset()
    assert env.game_seed == second != 11
    # The game a reset played can be replayed by the runner from its seed.
    assert second is not None
    record = play_game([RandomAgent() for _ in range(4)], edition="refresh-2021", deck=DECK,
                       seed=second)
    assert play_aec(dixit_v0.env(deck=DECK), second) == record.final_scores
