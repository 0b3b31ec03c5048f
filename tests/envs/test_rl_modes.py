"""Observation modes, flat masked actions, mask conventions and reward options of the envs."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, seed_test

from dixit_ai.rules import Phase
from envs import dixit_v0
from envs.encoding import Encoding
from envs.rewards import round_rewards
from envs.single_agent import DixitSingleAgentEnv, SelfPlay
from envs.vectors import VectorTable
from tests.envs.helpers import DECK

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

WORDS = [f"word{i}" for i in range(40)]
TABLE = VectorTable.random(DECK, WORDS, dim=8, seed=3)

FORMATS = [
    {"observation": "ids", "flatten": True},
    {"observation": "ids", "classic": True},
    {"observation": "onehot"},
    {"observation": "onehot", "flatten": True},
    {"observation": "embedding"},
    {"observation": "embedding", "flatten": True},
    {"observation": "embedding", "classic": True},
]
CELLS = [("refresh-2021", 4, {}), ("odyssey-2024", 3, {}), ("odyssey-2011", 8, {"teams": True})]


def make(factory: Any, cell: tuple[str, int, dict[str, Any]], **options: Any) -> Any:
    edition, n, overrides = cell
    return factory(edition=edition, n_players=n, deck=DECK, embeddings=TABLE, **overrides,
                   **options)


def fid(value: Any) -> str:
    return "-".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else str(
        value)


@pytest.mark.parametrize("actions", ["dict", "discrete"])
@pytest.mark.parametrize("options", FORMATS, ids=fid)
@pytest.mark.parametrize("cell", CELLS, ids=lambda c: f"{c[0]}-{c[1]}")
def test_pettingzoo_checkers_in_every_mode(cell: Any, options: dict[str, Any],
                                           actions: str) -> None:
    env = make(dixit_v0.env, cell, actions=actions, **options)
    api_test(env, num_cycles=400)
    assert env.unwrapped.illegal_actions == []
    parallel = make(dixit_v0.parallel_env, cell, actions=actions, **options)
    parallel_api_test(parallel, num_cycles=400)
    assert parallel.illegal_actions == []


@pytest.mark.parametrize("options", FORMATS[::2], ids=fid)
def test_seed_test_in_new_modes(options: dict[str, Any]) -> None:
    seed_test(functools.partial(make, dixit_v0.env, CELLS[0], actions="discrete", **options),
              num_cycles=50)


@pytest.mark.parametrize("actions", ["dict", "discrete"])
@pytest.mark.parametrize("options", [{}, *FORMATS], ids=fid)
def test_gymnasium_checker_in_every_mode(options: dict[str, Any], actions: str) -> None:
    extra = {"clue_mode": "vocab"} if actions == "dict" else {}
    env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, actions=actions,
                              opponents="embedding", **options, **extra)
    check_env(env)


def test_flat_observations_are_finite_float32_inside_their_bounds() -> None:
    for mode in ("ids", "onehot", "embedding"):
        env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, observation=mode, flatten=True,
                                  actions="discrete", opponents="embedding")
        space = env.observation_space
        assert space.dtype == np.float32
        assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high))
        observation, _ = env.reset(seed=1)
        rng = np.random.default_rng(0)
        for _ in range(200):
            assert observation.dtype == np.float32 and space.contains(observation)
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            observation, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                observation, _ = env.reset()


def test_classic_observation_is_what_tianshou_and_rllib_read() -> None:
    env = make(dixit_v0.env, CELLS[0], observation="embedding", flatten=True, actions="discrete")
    env.reset(seed=0)
    observation, *_ = env.last()
    assert set(observation) == {"observation", "action_mask"}
    assert observation["action_mask"].dtype == np.int8 and observation["action_mask"].any()
    space = env.observation_space(env.agent_selection)
    assert space["observation"].shape == observation["observation"].shape


def test_discrete_tell_is_a_hand_card_with_a_proposed_clue() -> None:
    env = make(dixit_v0.env, CELLS[0], observation="embedding", actions="discrete",
               clues_per_card=5)
    env.reset(seed=4)
    raw = env.unwrapped
    encoding: Encoding = raw.encoding
    seat = raw.seat_of[env.agent_selection]
    hand = raw.core.view(seat).hand
    mask = env.last()[0]["action_mask"]
    assert mask.sum() == len(hand) * 5 and mask[: len(hand) * 5].all()
    env.step(2 * 5 + 3)  # hand card 2, candidate 3
    result = raw.core.state
    assert result.phase is Phase.PLAY and result.clue == encoding.candidates[hand[2]][3]
    # The proposer's candidates are that card's most specific clues of the table.
    assert encoding.candidates[hand[2]][0] in WORDS


def test_custom_clue_proposer_and_its_errors() -> None:
    env = make(dixit_v0.env, CELLS[0], actions="discrete", clues_per_card=2,
               clue_proposer=lambda card: (f"card {card}", "dream"))
    env.reset(seed=0)
    assert env.action_space(env.agent_selection).n == 12
    with pytest.raises(ValueError, match="clue proposer must give 3"):
        make(dixit_v0.env, CELLS[0], actions="discrete", clues_per_card=3,
             clue_proposer=lambda card: ("a", "b"))
    with pytest.raises(ValueError, match=r"observation must be .ids., .onehot. or .embedding."):
        make(dixit_v0.env, CELLS[0], observation="pixels")
    with pytest.raises(ValueError, match="reward must be one of"):
        make(dixit_v0.env, CELLS[0], reward="glory")
    with pytest.raises(ValueError, match="embedding observations need a deck with images"):
        dixit_v0.env(deck=DECK, observation="embedding")


def test_clue_outside_the_vocabulary_is_embedded() -> None:
    env = make(dixit_v0.env, CELLS[0], observation="embedding")
    env.reset(seed=0)
    env.step({"card": 0, "clue": "a lighthouse nobody has named"})
    observation = env.observe(env.agent_selection)
    expected = TABLE.clue_vector("a lighthouse nobody has named")
    assert np.allclose(observation["clue"], expected) and np.linalg.norm(expected) > 0.99
    hand = env.unwrapped.core.view(env.unwrapped.seat_of[env.agent_selection]).hand
    sims = TABLE.card_vectors[TABLE.rows(hand)] @ expected
    assert np.allclose(observation["hand_similarity"][: len(hand)], sims, atol=1e-5)


def test_embedding_dim_projects_and_keeps_the_table_unit() -> None:
    env = make(dixit_v0.env, CELLS[0], observation="embedding", embedding_dim=4, flatten=True,
               actions="discrete")
    encoding = env.unwrapped.encoding
    table = encoding.vector_table
    assert table.dim == 4 and encoding.table.dim == TABLE.dim
    assert np.allclose(np.linalg.norm(table.card_vectors, axis=1), 1.0, atol=1e-5)
    # Similarities come from the full vectors, not from the projection.
    env.reset(seed=0)
    env.step(0)  # a proposed tell
    view = env.unwrapped.core.view(env.unwrapped.seat_of[env.agent_selection])
    fields = encoding.fields_of(view)
    expected = TABLE.card_vectors[TABLE.rows(view.hand)] @ TABLE.clue_vector(view.clue)
    assert np.allclose(fields["hand_similarity"][: len(view.hand)], expected, atol=1e-5)
    standard = np.clip((expected - expected.mean()) / expected.std() / 3.0, -1.0, 1.0)
    assert np.allclose(fields["hand_similarity_z"][: len(view.hand)], standard, atol=1e-4)


def test_single_agent_masks_for_maskable_ppo_and_terminal_steps() -> None:
    env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, observation="embedding",
                              flatten=True, actions="discrete", opponents="embedding",
                              max_rounds=2)
    _, info = env.reset(seed=5)
    assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
    rng = np.random.default_rng(1)
    terminated = truncated = False
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, info = env.step(action)
    # The terminal step's mask is never all zeros (vector envs sample on it).
    assert info["action_mask"].tolist() == [1] + [0] * (len(info["action_mask"]) - 1)
    assert env.unwrapped.table.illegal_actions == []


def test_gymnasium_vector_env_samples_through_terminal_steps() -> None:
    import gymnasium

    import envs

    vector = gymnasium.vector.SyncVectorEnv([
        lambda: gymnasium.make(envs.ENV_ID, deck=DECK, embeddings=TABLE, observation="embedding",
                               flatten=True, actions="discrete", opponents="embedding",
                               max_rounds=1) for _ in range(2)])
    _, infos = vector.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        actions = [int(rng.choice(np.flatnonzero(mask))) for mask in infos["action_mask"]]
        _, _, _, _, infos = vector.step(np.asarray(actions))
    for env in vector.envs:
        assert env.unwrapped.table.illegal_actions == []


def test_learner_phases_hand_the_other_decisions_to_the_stand_in() -> None:
    env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, observation="embedding",
                              flatten=True, actions="discrete", opponents="embedding",
                              learner_phases=("vote",))
    env.reset(seed=2)
    for _ in range(30):
        assert env.table.core.state.phase is Phase.VOTE
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    with pytest.raises(ValueError, match="learner_phases"):
        DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, learner_phases=("dance",))


@pytest.mark.parametrize("phases", [("tell",), ("vote",)])
def test_the_return_is_the_final_score_whatever_the_learner_decides(
        phases: tuple[str, ...]) -> None:
    """Telling only, the learner's first decision comes rounds into the game: the points it
    scored before come with its first step's reward (they were dropped: 27 against 31)."""
    for seed in range(4):
        env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, observation="embedding",
                                  flatten=True, actions="discrete", opponents="embedding",
                                  learner_phases=phases, seat=2)
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(
                int(np.flatnonzero(env.action_masks())[0]))
            total += reward
            done = terminated or truncated
        assert total == env.table.core.state.scores[2]


def test_self_play_seats_act_in_the_learners_format() -> None:
    seen: list[Any] = []

    def policy(observation: Any, mask: np.ndarray) -> int:
        seen.append((observation.shape, mask.shape))
        return int(np.flatnonzero(mask)[-1])

    env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, observation="embedding",
                              flatten=True, actions="discrete",
                              opponents=[SelfPlay(policy), "embedding", "random"])
    observation, _ = env.reset(seed=0)
    for _ in range(20):
        env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert seen and all(shape == observation.shape for shape, _ in seen)
    with pytest.raises(RuntimeError, match="no policy"):
        DixitSingleAgentEnv(deck=DECK, opponents=[SelfPlay(), "random", "random"],
                            seat=1).reset(seed=0)


def test_acting_only_parallel_observes_the_seats_that_act() -> None:
    env = make(dixit_v0.parallel_env, CELLS[0], observation="embedding", flatten=True,
               actions="discrete", acting_only=True)
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.agents:
        assert set(observations) == set(env.acting_agents()) or not env.acting_agents()
        assert all(o["action_mask"].any() for o in observations.values())
        actions = {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))
                   for agent, o in observations.items()}
        observations, rewards, terminations, *_ = env.step(actions)
        assert set(rewards) == set(env.possible_agents)
    assert all(terminations.values()) and env.illegal_actions == []


@pytest.mark.parametrize("reward", ["points", "difference", "win", "rank"])
def test_reward_options_sum_to_their_definition(reward: str) -> None:
    env = make(dixit_v0.env, CELLS[0], reward=reward)
    env.reset(seed=9)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        observation, gained, terminated, truncated, _ = env.last()
        returns[agent] += gained
        if terminated or truncated:
            env.step(None)
            continue
        card = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step({"card": card, "clue": "sea"})
    scores = list(env.unwrapped.core.state.scores)
    expected = round_rewards(reward, points=scores, scores=scores, over=True)
    if reward == "points":
        expected = [float(s) for s in scores]
    assert [returns[a] for a in env.possible_agents] == pytest.approx(expected)


def test_round_rewards_examples() -> None:
    assert round_rewards("points", points=(1, 2), scores=(5, 6), over=False) == [1.0, 2.0]
    assert round_rewards("win", points=(0, 0, 0), scores=(3, 3, 1), over=True) == [1, 1, 0]
    assert round_rewards("win", points=(0, 0, 0), scores=(3, 3, 1), over=False) == [0, 0, 0]


def test_spread_clue_proposer_option() -> None:
    env = make(dixit_v0.env, CELLS[0], observation="embedding", actions="discrete",
               clues_per_card=4, clue_proposer="spread")
    candidates = env.unwrapped.encoding.candidates
    assert all(len(set(clues)) == 4 for clues in candidates.values())
    api_test(env, num_cycles=200)
    with pytest.raises(ValueError, match="clue_proposer must be"):
        make(dixit_v0.env, CELLS[0], actions="discrete", clue_proposer="poetic")
