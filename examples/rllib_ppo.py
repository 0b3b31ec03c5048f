"""Recipe: RLlib PPO (new API stack) with action masking, self-play over every seat.

RLlib 2.60 needs gymnasium 1.2, so it runs in its own environment (the ``rllib`` extra):

    python -m venv /tmp/rllib-venv && . /tmp/rllib-venv/bin/activate
    pip install -e ".[rllib]"
    python examples/rllib_ppo.py --iterations 5
    python examples/rllib_ppo.py --iterations 1 --random-vectors   # smoke run, no model

The AEC env in classic form, renamed by :func:`envs.wrappers.rllib_masked` to what RLlib's
``ActionMaskingTorchRLModule`` reads (``{"observations", "action_mask"}``), goes through RLlib's
own ``PettingZooEnv`` (turn-based: only the seat to act is observed, so no spurious transitions).
One shared policy plays every seat (self-play).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from envs import dixit_v0
from envs.vectors import VectorTable
from envs.wrappers import rllib_masked


def require_rllib() -> None:
    """Exit with a message naming the environment RLlib needs when it cannot be imported here
    (the project's own environment has Ray for tournaments, not RLlib's dependencies)."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError as error:
        sys.exit(f"rllib_ppo.py: RLlib cannot be imported here ({error}); it runs in its own "
                 "environment, since RLlib 2.60 needs gymnasium 1.2: python -m venv "
                 "/tmp/rllib-venv && . /tmp/rllib-venv/bin/activate && pip install -e "
                 "'.[rllib]' (this file's docstring)")


def make_env(random_vectors: bool, seed: int) -> Any:
    """The env as RLlib takes it (RLlib's ``PettingZooEnv``)."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    config: dict[str, Any] = {"observation": "embedding", "flatten": True, "actions": "discrete",
                              "embedding_dim": 32}
    if random_vectors:
        words = [f"word{i}" for i in range(64)]
        config.update(deck=list(range(84)), embedding_dim=None,
                      embeddings=VectorTable.random(range(84), words, dim=16, seed=seed))
    return PettingZooEnv(rllib_masked(dixit_v0.env(**config)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--random-vectors", action="store_true",
                        help="random card and clue vectors (no embedder; smoke runs)")
    args = parser.parse_args()
    if args.iterations < 1:
        parser.error(f"--iterations must be at least 1, not {args.iterations}")
    require_rllib()
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    register_env("dixit", lambda _: make_env(args.random_vectors, args.seed))
    config = (
        PPOConfig()
        .environment("dixit")
        .env_runners(num_env_runners=0, rollout_fragment_length=128)
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, *_, **__: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [64, 64]})}))
        .training(train_batch_size_per_learner=256, minibatch_size=64, num_epochs=2)
        .debugging(seed=args.seed)
    )
    algorithm = config.build_algo()
    for iteration in range(args.iterations):
        result = algorithm.train()
        runners = result.get("env_runners", {})
        print(f"iteration {iteration}: {runners.get('num_env_steps_sampled_lifetime')} env "
              f"steps, episode return mean {runners.get('episode_return_mean')}", flush=True)
    algorithm.stop()
    ray.shutdown()  # ends the local Ray processes the algorithm started


if __name__ == "__main__":
    main()
