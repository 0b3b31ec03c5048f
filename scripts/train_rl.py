"""Train a masked PPO guesser and a masked PPO storyteller on embedding observations.

One learning seat of ``dixit_ai/Dixit-v0`` with flat embedding observations
(``observation="embedding"``, PCA to ``embedding_dim`` directions, each slot's similarity to the
clue and each tell candidate's specificity as features) and one ``Discrete`` action
(``actions="discrete"``: tell = hand card x clue candidate), against the fast embedding opponents
of :mod:`envs.policies`. Each role is trained alone (``learner_phases``): the seat's other
decisions are the embedding stand-in's. sb3-contrib's ``MaskablePPO`` reads the env's
``action_masks()``.

Writes, under ``runs/{exp_name}__{seed}__{time}/``: ``{role}.zip`` + ``{role}.json`` (a checkpoint
that :class:`envs.learned.PolicyAgent` loads: the ``.json`` holds the environment, the policy's
``policy_kwargs`` and the zip's SHA-256; only the zip's weights are read), ``curve.csv`` and
``curve.png`` (the learning curve: the learner's guessing accuracy and storyteller points over
training), and
``evaluation.json``: held-out seeds, the learner's role played by the checkpoint, by the clip
heuristics (``clip-greedy`` votes; ``clip-expected-self`` tells) and by ``random``, everything else
equal, against embedding, clip-greedy and random opponents, with paired 95% intervals.

    python scripts/train_rl.py --total-timesteps 60000 --eval-games 100
    python scripts/train_rl.py --roles guesser --total-timesteps 2000 --eval-games 4  # smoke
    dixit-ai train rl --total-timesteps 60000                 # the same, from the console script
"""

from __future__ import annotations

import csv
import functools
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROLE_PHASES = {"guesser": ("vote",), "storyteller": ("tell",)}
BASELINES = {"guesser": "clip-greedy", "storyteller": "clip-expected-self"}
"""The heuristics the learner is compared with (the table's other players are the default
model's: the self-simulating storyteller is the one tuned to such a table)."""


@dataclass
class Args:
    """Arguments (each field is a ``--flag``)."""

    exp_name: str = "train_rl"
    """the run's name (its folder is ``runs/{exp_name}__{seed}__{time}``)"""
    seed: int = 1
    """seed of training (games, network initialisation)"""
    roles: list[str] = field(default_factory=lambda: ["guesser", "storyteller"])
    """roles to train: guesser, storyteller"""
    edition: str = "refresh-2021"
    """the rules' edition"""
    n_players: int = 4
    """players at the table"""
    deck: str = "dream"
    """the deck spec"""
    embedder: str = "default"
    """the models.load_embedder name of the observation and opponent vectors"""
    embedding_dim: int = 32
    """PCA directions kept of the embeddings"""
    clues_per_card: int = 8
    """clue candidates per hand card of the tell action"""
    clue_proposer: str = "spread"
    """the tell candidates: ``spread`` (spaced specificity ranks) or ``specific`` (the most)"""
    total_timesteps: int = 60_000
    """learner steps per role"""
    n_envs: int = 4
    """environments stepped together"""
    n_steps: int = 256
    """rollout length per environment"""
    learning_rate: float = 3e-4
    """Adam learning rate"""
    gamma: float = 0.0
    """discount: 0, a decision's reward is its round's points"""
    ent_coef: float = 0.01
    """entropy bonus"""
    hidden: int = 128
    """width of the two hidden layers"""
    guesser_fields: list[str] = field(default_factory=lambda: [
        "scalars", "hand_similarity", "board_similarity", "hand_similarity_z",
        "board_similarity_z", "hand_present", "board_present", "board_own", "clue_present"])
    """observation fields the guesser reads (``all``: every field)"""
    storyteller_fields: list[str] = field(default_factory=lambda: ["all"])
    """observation fields the storyteller reads (``all``: every field)"""
    opponent_specificity: list[float] = field(default_factory=lambda: [0.0, 3.0])
    """training opponents' storyteller target specificity, drawn per tell from [low, high]"""
    curve_every: int = 2_000
    """learner steps between points of the learning curve"""
    eval_games: int = 100
    """held-out games per evaluation cell"""
    eval_seed: int = 1_000_000
    """first held-out seed (training seeds are far below)"""
    eval_opponents: list[str] = field(default_factory=lambda: ["embedding", "clip-greedy",
                                                                 "random"])
    """opponents of the evaluation"""
    out: str = "runs"
    """where runs are written"""
    threads: int = 1
    """torch threads"""


def parse(argv: list[str] | None = None) -> Args:
    """``Args`` from the command line (a flag per field, its docstring as help)."""
    import argparse
    import ast

    docs: dict[str, str] = {}
    tree = next(node for node in ast.parse(Path(__file__).read_text(encoding="utf-8")).body
                if isinstance(node, ast.ClassDef) and node.name == "Args")
    for node, nxt in zip(tree.body, tree.body[1:], strict=False):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(
                nxt, ast.Expr) and isinstance(nxt.value, ast.Constant):
            docs[node.target.id] = str(nxt.value.value)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = Args()
    for name, value in asdict(defaults).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, list):
            parser.add_argument(flag, nargs="+", default=value, help=docs.get(name),
                                type=type(value[0]) if value else str)
        else:
            parser.add_argument(flag, type=type(value), default=value, help=docs.get(name))
    return Args(**vars(parser.parse_args(argv)))


def env_config(args: Args, role: str) -> dict[str, Any]:
    """The single-agent environment's configuration for ``role`` (saved with the checkpoint)."""
    return {"edition": args.edition, "n_players": args.n_players, "deck": args.deck,
            "embedder": args.embedder, "embedding_dim": args.embedding_dim,
            "clues_per_card": args.clues_per_card, "clue_proposer": args.clue_proposer}


def role_fields(args: Args, role: str) -> list[str] | None:
    """The observation fields ``role`` reads (``None``: all)."""
    chosen = args.guesser_fields if role == "guesser" else args.storyteller_fields
    return None if chosen == ["all"] else list(chosen)


def make_env(args: Args, role: str, table: Any, seed: int) -> Any:
    """One training environment (embedding opponents; the role's phases learned)."""
    import gymnasium

    from envs.policies import EmbeddingAgent
    from envs.single_agent import DixitSingleAgentEnv

    low, high = args.opponent_specificity
    env = DixitSingleAgentEnv(
        edition=args.edition, n_players=args.n_players, deck=args.deck, observation="embedding",
        flatten=True, actions="discrete", embeddings=table, embedding_dim=args.embedding_dim,
        clues_per_card=args.clues_per_card, clue_proposer=args.clue_proposer,
        opponents="embedding",
        opponent_options={"target_specificity": (low, high)}, stand_in=EmbeddingAgent(table),
        learner_phases=ROLE_PHASES[role])
    fields = role_fields(args, role)
    if fields is None:
        env.reset(seed=seed)
        return env

    layout, start = {}, 0
    for name, size in env.encoding.layout():
        layout[name] = slice(start, start + size)
        start += size
    unknown = [name for name in fields if name not in layout]
    if unknown:
        raise SystemExit(f"unknown observation fields {unknown}; the fields are {list(layout)}")
    index = np.concatenate([np.arange(start, dtype=np.intp)[layout[name]] for name in fields])
    assert isinstance(env.observation_space, gymnasium.spaces.Box)
    space = gymnasium.spaces.Box(env.observation_space.low[index],
                                 env.observation_space.high[index], dtype=np.float32)

    class Fields(gymnasium.ObservationWrapper):  # type: ignore[type-arg]
        """The chosen fields of the flat observation."""

        def __init__(self) -> None:
            super().__init__(env)
            self.observation_space = space

        def observation(self, observation: Any) -> Any:
            return observation[index]

        def action_masks(self) -> np.ndarray:
            return env.action_masks()

    wrapped = Fields()
    wrapped.reset(seed=seed)
    return wrapped


class Curve:
    """The learning curve: the learner's role outcomes, read from each finished round."""

    def __init__(self, role: str, every: int) -> None:
        self.role, self.every = role, every
        self.rows: list[dict[str, float]] = []
        self.window: list[float] = []
        self.next_point = every

    def observe(self, info: dict[str, Any], seat: int) -> None:
        """Record the learner's role outcomes in the rounds scored during a step."""
        for result in info.get("rounds", ()):
            if self.role == "storyteller" and result.storyteller == seat:
                self.window.append(float(result.points[seat]))
            elif self.role == "guesser" and result.storyteller != seat:
                for position in result.votes[seat]:
                    self.window.append(float(result.board_owner[position] == result.storyteller))

    def point(self, steps: int) -> None:
        """A point of the curve once ``every`` more steps were taken."""
        if steps >= self.next_point and self.window:
            recent = self.window[-500:]
            self.rows.append({"timesteps": steps, "metric": float(np.mean(recent)),
                              "decisions": float(len(recent))})
            self.next_point += self.every


def train(args: Args, role: str, table: Any, run_dir: Path) -> tuple[Path, Curve]:
    """Train ``role``; return its checkpoint and curve."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv

    from envs.learned import file_sha256

    torch.set_num_threads(args.threads)
    vec = DummyVecEnv([functools.partial(make_env, args, role, table, args.seed * 1000 + i)
                       for i in range(args.n_envs)])
    curve = Curve(role, args.curve_every)

    class Log(BaseCallback):  # type: ignore[misc]
        def _on_step(self) -> bool:
            for info in self.locals["infos"]:  # the learner sits in seat 0
                curve.observe(info, 0)
            curve.point(self.num_timesteps)
            return True

    policy_kwargs = {"net_arch": [args.hidden, args.hidden]}
    model = MaskablePPO("MlpPolicy", vec, n_steps=args.n_steps, batch_size=256,
                        learning_rate=args.learning_rate, gamma=args.gamma, ent_coef=args.ent_coef,
                        policy_kwargs=policy_kwargs, seed=args.seed, device="cpu", verbose=0)
    started = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps, callback=Log())
    print(f"{role}: {args.total_timesteps} steps in {time.perf_counter() - started:.0f} s",
          flush=True)
    path = run_dir / f"{role}.zip"
    model.save(str(path))
    # What PolicyAgent rebuilds the policy from (it reads only the zip's weights, never the
    # pickled "data"), and the zip's hash it checks.
    config = {"env": env_config(args, role), "learner_phases": list(ROLE_PHASES[role]),
              "fields": role_fields(args, role), "stand_in_options": {}, "role": role,
              "policy": {"class": type(model.policy).__name__, "policy_kwargs": policy_kwargs},
              "sha256": file_sha256(path), "args": asdict(args)}
    path.with_suffix(".json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path, curve


def evaluate(args: Args, role: str, checkpoint: Path, table: Any) -> dict[str, Any]:
    """Held-out games: the role played by the checkpoint, the clip heuristic and random."""
    from dixit_ai import play_game
    from dixit_ai.agents import RandomAgent, make_agent
    from envs.learned import PolicyAgent, RoleAgent, paired_interval, ratio_interval, role_metrics
    from envs.policies import EmbeddingAgent

    phases = ROLE_PHASES[role]
    ppo = PolicyAgent(checkpoint, table=table)
    deciders = {"ppo": ppo, BASELINES[role]: make_agent(BASELINES[role], deck=args.deck),
                "random": RandomAgent()}
    seeds = [args.eval_seed + i for i in range(args.eval_games)]
    results: dict[str, Any] = {}
    for opponent in args.eval_opponents:
        metrics: dict[str, list[dict[str, float]]] = {name: [] for name in deciders}
        started = time.perf_counter()
        for seed in seeds:
            for name, decider in deciders.items():
                learner = RoleAgent(decider, EmbeddingAgent(table), phases, name=name)
                others = [EmbeddingAgent(table) if opponent == "embedding"
                          else make_agent(opponent, deck=args.deck) if opponent != "random"
                          else RandomAgent() for _ in range(args.n_players - 1)]
                record = play_game([learner, *others], edition=args.edition, deck=args.deck,
                                   seed=seed)
                metrics[name].append(role_metrics(record, 0))
        cell: dict[str, Any] = {"games": len(seeds),
                                "seconds": round(time.perf_counter() - started, 1)}
        for name, rows in metrics.items():
            if role == "guesser":
                found = sum(r["found"] for r in rows)
                votes = sum(r["votes"] for r in rows)
                cell[name] = {"accuracy": found / max(votes, 1), "votes": votes}
            else:
                told = sum(r["told"] for r in rows)
                points = sum(r["teller_points"] for r in rows)
                cell[name] = {"points_per_tell": points / max(told, 1), "tells": told}
        for name in deciders:
            if name == "ppo":
                continue
            if role == "guesser":
                per_game = [lambda r: r["found"] / max(r["votes"], 1)][0]
            else:
                per_game = [lambda r: r["teller_points"] / max(r["told"], 1)][0]
            mean, half = paired_interval([per_game(r) for r in metrics["ppo"]],
                                         [per_game(r) for r in metrics[name]])
            cell[f"ppo_minus_{name}"] = {"mean": mean, "ci95": half}
        if role == "guesser":
            base = BASELINES[role]
            ratio, low, high = ratio_interval(
                [r["found"] for r in metrics["ppo"]], [r["votes"] for r in metrics["ppo"]],
                [r["found"] for r in metrics[base]], [r["votes"] for r in metrics[base]])
            cell[f"accuracy_ratio_to_{base}"] = {"ratio": ratio, "ci95": [low, high]}
        results[opponent] = cell
        print(f"{role} vs {opponent}: {json.dumps(cell)}", flush=True)
    return results


def plot(curves: dict[str, Curve], run_dir: Path) -> None:
    """``curve.csv`` and ``curve.png``."""
    with open(run_dir / "curve.csv", "w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["role", "timesteps", "metric", "decisions"])
        for role, curve in curves.items():
            for row in curve.rows:
                writer.writerow([role, int(row["timesteps"]), f"{row['metric']:.4f}",
                                 int(row["decisions"])])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(curves), figsize=(5 * len(curves), 3.5), squeeze=False)
    labels = {"guesser": "guessing accuracy (last 500 votes)",
              "storyteller": "storyteller points per tell (last 500)"}
    for axis, (role, curve) in zip(axes[0], curves.items(), strict=True):
        axis.plot([r["timesteps"] for r in curve.rows], [r["metric"] for r in curve.rows])
        axis.set_xlabel("learner steps")
        axis.set_ylabel(labels[role])
        axis.set_title(f"MaskablePPO {role} vs embedding opponents")
    figure.tight_layout()
    figure.savefig(run_dir / "curve.png", dpi=100)
    plt.close(figure)


def main(argv: list[str] | Args | None = None) -> Path:
    """Train, plot and evaluate (``argv``: command-line options or ``Args``); the run's folder."""
    args = argv if isinstance(argv, Args) else parse(argv)
    for role in args.roles:
        if role not in ROLE_PHASES:
            raise SystemExit(f"--roles takes guesser and/or storyteller, not {role!r}")
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    from envs.vectors import load_vector_table

    run_dir = Path(args.out) / f"{args.exp_name}__{args.seed}__{int(time.time())}"
    run_dir.mkdir(parents=True, exist_ok=True)
    table = load_vector_table(args.embedder, args.deck)
    curves: dict[str, Curve] = {}
    evaluation: dict[str, Any] = {}
    for role in args.roles:
        checkpoint, curves[role] = train(args, role, table, run_dir)
        if args.eval_games > 0:
            evaluation[role] = evaluate(args, role, checkpoint, table)
    plot(curves, run_dir)
    (run_dir / "evaluation.json").write_text(json.dumps(evaluation, indent=2), encoding="utf-8")
    print(f"wrote {run_dir}")
    return run_dir


if __name__ == "__main__":
    main()
