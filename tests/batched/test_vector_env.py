"""The batched Gymnasium VectorEnv: spaces, masks, rewards, determinism, records."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence

from dixit_ai.replay import replay_record
from dixit_ai.rules import IllegalAction
from envs.vector import DixitBatchedParallel, DixitVectorEnv
from envs.vectors import VectorTable


def random_legal(env: DixitVectorEnv, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random action inside the mask, with different first and second choices."""
    c, v = env.choices, len(env.clues)
    parts = [mask[:, :c], mask[:, c:c + v], mask[:, c + v:].copy()]
    first = np.argmax(rng.random(parts[0].shape) * parts[0], axis=1)
    clue = np.argmax(rng.random(parts[1].shape) * parts[1], axis=1)
    second_mask = parts[2]
    second_mask[np.arange(env.num_envs), first] = 0
    second_mask[:, c] = np.where(second_mask[:, :c].any(axis=1), second_mask[:, c], 1)
    second = np.argmax(rng.random(second_mask.shape) * second_mask + 1e-12 * second_mask, axis=1)
    return np.stack([first, clue, second], axis=1)


def _play(env: DixitVectorEnv, steps: int, seed: int) -> list[Any]:
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    trace = [obs]
    for _ in range(steps):
        assert env.observation_space.contains(obs)
        for i in range(env.num_envs):
            assert env.single_observation_space.contains(
                {k: np.asarray(v[i]) for k, v in obs.items()})
        action = random_legal(env, info["action_mask"], rng)
        assert env.action_space.contains(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not info["illegal"].any() and not truncated.any()
        trace.append((obs, reward, terminated))
    return trace


@pytest.mark.parametrize(("edition", "n"), [("refresh-2021", 5), ("refresh-2021", 3),
                                            ("odyssey-2024", 4), ("original-2008", 6)])
def test_random_legal_play_and_records(edition: str, n: int) -> None:
    env = DixitVectorEnv(6, edition=edition, n_players=n, learner_seat=n - 1, record=True)
    rng = np.random.default_rng(1)
    _, info = env.reset(seed=3)
    returns = np.zeros(env.num_envs)
    finals: list[tuple[float, int]] = []
    obs = None
    for _ in range(120):
        rounds = None if obs is None else obs["round"].copy()
        storyteller = None if obs is None else obs["storyteller"].copy()
        obs, reward, terminated, _, info = env.step(random_legal(env, info["action_mask"], rng))
        returns += reward
        for i in np.flatnonzero(terminated):
            assert info["_final_scores"][i]
            finals.append((returns[i], int(info["final_scores"][i, n - 1])))
            final = info["final_obs"][i]               # Gymnasium's format: one obs per env
            assert env.single_observation_space.contains(final)
            assert final["scores"].tolist() == info["final_scores"][i].tolist()
            assert final["round"] == rounds[i] + 1 and final["step"] == 0
            assert final["storyteller"] == (storyteller[i] + 1) % n
            for j in np.flatnonzero(~terminated):
                assert info["final_obs"][j] is None
            returns[i] = 0
    assert finals
    assert all(ret == final for ret, final in finals)  # rewards add up to the final score
    records = env.take_records()
    assert len(records) == len(finals)
    for record in records:
        replay_record(record)
        assert record.header["agents"][n - 1] == {"name": "learner"}


def test_same_seed_same_trajectory() -> None:
    one = _play(DixitVectorEnv(5, n_players=4), 30, seed=7)
    two = _play(DixitVectorEnv(5, n_players=4), 30, seed=7)
    assert data_equivalence(one, two)
    other = _play(DixitVectorEnv(5, n_players=4), 3, seed=8)
    assert not data_equivalence(one[:4], other)


def test_embedding_opponents_and_vector_observations() -> None:
    table = VectorTable.random(range(84), [f"clue {i}" for i in range(40)], dim=8, seed=0)
    env = DixitVectorEnv(4, n_players=5, opponents="embedding", vectors=table,
                         opponent_options={"target_specificity": (0.5, 2.0)})
    trace = _play(env, 12, seed=2)
    assert env.opponents[1] is not None
    assert env.opponents[1].describe()["target_specificity"] == [0.5, 2.0]
    obs = trace[-1][0]
    assert obs["hand_vectors"].shape == (4, 6, 8)
    rows = table.rows(obs["hand"][0].tolist())
    assert np.allclose(obs["hand_vectors"][0], table.card_vectors[rows])


def test_hidden_information() -> None:
    env = DixitVectorEnv(8, n_players=4, learner_seat=1)
    obs, info = env.reset(seed=0)
    assert (obs["board"] == -1).all() and (obs["own"] == 0).all()
    telling = obs["storyteller"] == 1
    assert (obs["clue"][telling] == -1).all() and (obs["clue"][~telling] >= 0).all()
    obs, _, _, _, info = env.step(random_legal(env, info["action_mask"], np.random.default_rng(0)))
    games = env.games
    ids = games.card_ids
    assert (obs["board"] == ids[games.board]).all()
    assert (obs["own"] == (games.board_owner == 1)).all()
    # Nothing else about the other seats: a view of the hand is the learner's own.
    assert (obs["hand"] == ids[games.hands[:, 1]]).all()


def test_illegal_actions() -> None:
    env = DixitVectorEnv(3, n_players=4, learner_seat=1, illegal_action="penalty")
    obs, info = env.reset(seed=0)
    action = random_legal(env, info["action_mask"], np.random.default_rng(0))
    guessing = np.flatnonzero(obs["storyteller"] != 1)
    action[guessing[0], 1] = 5  # a clue from a seat that does not tell
    obs, reward, _, _, info = env.step(action)
    assert info["illegal"][guessing[0]] and reward[guessing[0]] == -1
    strict = DixitVectorEnv(3, n_players=4, learner_seat=1)
    obs, info = strict.reset(seed=0)
    action = random_legal(strict, info["action_mask"], np.random.default_rng(0))
    action[guessing[0], 1] = 5
    with pytest.raises(IllegalAction, match="env"):
        strict.step(action)
    with pytest.raises(ValueError, match="shape"):
        strict.step(action[:2])


def test_bad_configuration() -> None:
    with pytest.raises(ValueError, match="vectors"):
        DixitVectorEnv(2, opponents="embedding")
    with pytest.raises(ValueError, match="learner_seat"):
        DixitVectorEnv(2, n_players=4, learner_seat=4)
    with pytest.raises(ValueError, match=r"learner_seat must be in \[0, 3\], not 1.5"):
        DixitVectorEnv(2, n_players=4, learner_seat=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="clues must hold at least one clue"):
        DixitBatchedParallel(2, clues=())
    with pytest.raises(ValueError, match="illegal_action"):
        DixitVectorEnv(2, illegal_action="ignore")


def test_is_a_gymnasium_vector_env() -> None:
    env = DixitVectorEnv(3, n_players=4)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert env.single_action_space.shape == (3,)


@pytest.mark.parametrize(("edition", "n"), [("odyssey-2024", 5), ("refresh-2021", 3)])
def test_batched_parallel_api(edition: str, n: int) -> None:
    env = DixitBatchedParallel(5, edition=edition, n_players=n, record=True)
    assert env.possible_agents == [f"player_{s}" for s in range(n)]
    observations, infos = env.reset(seed=4)
    rng = np.random.default_rng(0)
    proxy = DixitVectorEnv(5, edition=edition, n_players=n)  # for random_legal's sizes
    totals = np.zeros((5, n))
    finals = []
    for _ in range(150):
        for agent in env.agents:
            assert env.observation_space(agent).contains(
                {k: np.asarray(v[0]) for k, v in observations[agent].items()})
        actions = {a: random_legal(proxy, infos[a]["action_mask"], rng) for a in env.agents}
        observations, rewards, terminations, _, infos = env.step(actions)
        totals += np.stack([rewards[a] for a in env.agents], axis=1)
        done = terminations["player_0"]
        for i in np.flatnonzero(done):
            finals.append((totals[i].tolist(), infos["player_0"]["final_scores"][i].tolist()))
            totals[i] = 0
    assert finals and all(a == b for a, b in finals)
    records = env.take_records()
    assert len(records) == len(finals)
    for record in records:
        replay_record(record)


def part_by_part(env: DixitVectorEnv, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A random action drawn as MaskablePPO draws a MultiDiscrete: each part from its own mask,
    so the third part may repeat the first."""
    c, v = env.choices, len(env.clues)
    parts = [mask[:, :c], mask[:, c:c + v], mask[:, c + v:]]
    return np.stack([np.argmax(rng.random(m.shape) * m + 1e-12 * m, axis=1) for m in parts],
                    axis=1)


@pytest.mark.parametrize(("edition", "n"), [("refresh-2021", 3), ("odyssey-2024", 4)])
def test_every_action_the_mask_allows_is_played(edition: str, n: int) -> None:
    """Drawn part by part, an action may name one hand slot twice (3 players) or vote twice for
    one position (a second vote): before, the envs refused such mask-legal actions (raise, or
    -1 in penalty mode). Now the second card is the next slot and the second vote is none."""
    rng = np.random.default_rng(5)
    env = DixitVectorEnv(8, edition=edition, n_players=n, record=True)
    _, info = env.reset(seed=2)
    repeats = 0
    for _ in range(60):
        action = part_by_part(env, info["action_mask"], rng)
        repeats += int((action[:, 0] == action[:, 2]).sum())
        _, _, _, _, info = env.step(action)                    # illegal_action="raise"
        assert not info["illegal"].any()
    assert repeats > 0
    for record in env.take_records():
        replay_record(record)
    both = DixitBatchedParallel(8, edition=edition, n_players=n, record=True)
    _, infos = both.reset(seed=2)
    for _ in range(90):
        actions = {a: part_by_part(env, infos[a]["action_mask"], rng) for a in both.agents}
        _, _, _, _, infos = both.step(actions)
    for record in both.take_records():
        replay_record(record)


def test_gymnasium_vector_wrappers() -> None:
    env = DixitVectorEnv(4, n_players=4)
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    _, info = wrapped.reset(seed=0)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(120):
        _, _, terminated, _, info = wrapped.step(random_legal(env, info["action_mask"], rng))
        if terminated.any():
            episode = info["episode"]
            for i in np.flatnonzero(terminated):
                assert episode["r"][i] == info["final_scores"][i, 0]  # return = final score
                checked += 1
    assert checked and len(wrapped.return_queue) == checked
    listed = gymnasium.wrappers.vector.DictInfoToList(DixitVectorEnv(3, n_players=4))
    _, infos = listed.reset(seed=0)
    assert len(infos) == 3 and infos[0]["action_mask"].shape == (45,)
