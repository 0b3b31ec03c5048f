"""Recipe: sb3-contrib's MaskablePPO on ``dixit_ai/Dixit-v0``, no glue.

The single-agent environment with flat embedding observations and one ``Discrete`` action; the
env's ``action_masks()`` is what ``MaskablePPO`` reads. The other seats are the fast embedding
opponents (``opponents="embedding"``).

    python examples/sb3_maskable_ppo.py --timesteps 20000
    python examples/sb3_maskable_ppo.py --timesteps 256 --random-vectors   # smoke run, no model
"""

from __future__ import annotations

import argparse
from typing import Any

import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy

import envs  # registers dixit_ai/Dixit-v0
from envs.vectors import VectorTable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timesteps", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random-vectors", action="store_true",
                        help="random card and clue vectors (no embedder; smoke runs)")
    args = parser.parse_args()
    if args.timesteps < 1:
        parser.error(f"--timesteps must be at least 1, not {args.timesteps}")

    config: dict[str, Any] = {"observation": "embedding", "flatten": True,
                                 "actions": "discrete", "opponents": "embedding",
                                 "embedding_dim": 32}
    if args.random_vectors:
        words = [f"word{i}" for i in range(64)]
        config.update(deck=list(range(84)), embedding_dim=None,
                      embeddings=VectorTable.random(range(84), words, dim=16, seed=args.seed))
    env = gymnasium.make(envs.ENV_ID, **config)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    mean, std = evaluate_policy(model, env, n_eval_episodes=2, warn=False)
    print(f"MaskablePPO: {args.timesteps} steps; return {mean:.1f} +- {std:.1f} "
          f"(2 episodes); observation {env.observation_space.shape}, "
          f"actions {env.action_space}")
    assert np.isfinite(mean)


if __name__ == "__main__":
    main()
