"""Recipe: Tianshou 2.0 DQN in one seat of the PettingZoo AEC env, no glue.

``dixit_v0.env(observation="embedding", flatten=True, actions="discrete")`` gives PettingZoo
classic observations (``{"observation": Box, "action_mask": ...}``), which Tianshou's
``PettingZooEnv`` reads as it reads tic-tac-toe's. ``player_0`` learns (DQN over the masked
``Discrete`` action); the other seats are Tianshou's masked random players.

    python examples/tianshou_dqn.py --epochs 3 --steps-per-epoch 2000
    python examples/tianshou_dqn.py --epochs 1 --steps-per-epoch 200 --random-vectors  # smoke
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

import numpy as np
import torch
from tianshou.algorithm import DQN
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from envs import dixit_v0
from envs.vectors import VectorTable


def make_env(args: argparse.Namespace) -> PettingZooEnv:
    """The AEC env in classic form, as Tianshou's wrapper takes it."""
    config: dict[str, Any] = {"observation": "embedding", "flatten": True, "actions": "discrete",
                              "embedding_dim": 32}
    if args.random_vectors:
        words = [f"word{i}" for i in range(64)]
        config.update(deck=list(range(84)), embedding_dim=None,
                      embeddings=VectorTable.random(range(84), words, dim=16, seed=args.seed))
    return PettingZooEnv(dixit_v0.env(**config))


class FlattenedReturns(logging.Filter):
    """Tianshou's collectors summarise each collection's returns as one sequence, and ours are
    per player, ``(episodes, players)``: it warns at every collection that it flattens them.
    That summary is not what the recipe reports (``multi_agent_return_reduction`` gives the
    trainer player_0's return), so the warning is said once, in those words."""

    def __init__(self, n_players: int) -> None:
        super().__init__()
        self.n_players, self.said = n_players, False

    def filter(self, record: logging.LogRecord) -> bool:
        if "only 1D sequences are supported" not in record.getMessage():
            return True
        if self.said:
            return False
        self.said = True
        record.msg = (f"Tianshou's collection summaries flatten the {self.n_players} players' "
                      "returns (said once); the best test return below is player_0's")
        record.args = ()
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps-per-epoch", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random-vectors", action="store_true",
                        help="random card and clue vectors (no embedder; smoke runs)")
    args = parser.parse_args()
    for flag, value in (("--epochs", args.epochs), ("--steps-per-epoch", args.steps_per_epoch)):
        if value < 1:
            parser.error(f"{flag} must be at least 1, not {value}")
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    env = make_env(args)
    logging.getLogger("tianshou.data.stats").addFilter(FlattenedReturns(len(env.agents)))
    observation_space = env.observation_space["observation"]
    action_space = env.action_space
    net = Net(state_shape=observation_space.shape, action_shape=action_space.n,
              hidden_sizes=[128, 128])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=action_space,
                                                 eps_training=0.1, eps_inference=0.0),
                  optim=AdamOptimizerFactory(lr=1e-3), gamma=0.5, target_update_freq=100)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space)
              for _ in env.agents[1:]]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)

    training_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(2)])
    test_envs = DummyVectorEnv([lambda: make_env(args) for _ in range(2)])
    training_envs.seed(args.seed)
    test_envs.seed(args.seed + 100)
    training_collector = Collector[CollectStats](
        algorithm, training_envs, VectorReplayBuffer(20_000, len(training_envs)),
        exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs)
    training_collector.reset()
    training_collector.collect(n_step=256)

    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=training_collector, test_collector=test_collector,
        max_epochs=args.epochs, epoch_num_steps=args.steps_per_epoch,
        collection_step_num_env_steps=64, test_step_num_episodes=2, batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1,
        multi_agent_return_reduction=lambda rewards: rewards[:, 0],  # player_0's return
        show_progress=False, verbose=False))
    print(f"Tianshou DQN (player_0): {result.timing.total_time:.0f} s; best test return "
          f"{result.best_reward:.2f}; observation {observation_space.shape}, actions "
          f"{action_space}")


if __name__ == "__main__":
    main()
