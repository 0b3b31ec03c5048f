"""Train a masked PPO guesser and a masked PPO storyteller on embedding observations.

One learning seat of ``dixit_ai/Dixit-v0`` with flat embedding observations
(``observation="embedding"``, PCA to ``embedding_dim`` directions, each slot's similarity to the
clue and each tell candidate's specificity as features) and one ``Discrete`` action
(``actions="discrete"``: tell = hand card x clue candidate), against the fast embedding opponents
of :mod:`envs.policies`. Each role is trained alone (``learner_phases``): the seat's other
decisions are the embedding stand-in's. sb3-contrib's ``MaskablePPO`` reads the env's
``action_masks()``.

Writes, under ``runs/{exp_name}__{seed}__{time}/`` (a new folder: ``-2``, ``-3``, ... added to
the name when a run started in the same second has it): ``{role}.zip`` + ``{role}.json`` (a
checkpoint that :class:`envs.learned.PolicyAgent` loads: the ``.json`` holds the environment, the
policy's ``policy_kwargs`` and the zip's SHA-256; only the zip's weights are read), ``curve.csv``
and ``curve.png`` (the learning curve: the learner's guessing accuracy and storyteller points over
training), and ``evaluation.json``: held-out seeds, the learner's role played by the checkpoint,
by the clip heuristics (``clip-greedy`` votes; ``clip-expected-self`` tells) and by ``random``,
everything else equal, against embedding, clip-greedy and random opponents: pooled rates, and
their differences and ratio with paired bootstrap 95% intervals ``[low, high]``
(:func:`envs.evaluation.evaluation_cell`), and ``{role}_evaluation.jsonl``: those games'
records (each header's ``"evaluation"`` names the role, opponents, decider and seed), from which
``evaluation.json`` is recomputed.

Every option is checked before the run's folder is made or anything is trained (bad input exits
2, naming the option). Progress bars (training steps, evaluation games) go to stderr
(``--no-progress`` hides them).

    python scripts/train_rl.py --total-timesteps 60000 --eval-games 100
    python scripts/train_rl.py --roles guesser --total-timesteps 2000 --eval-games 4  # smoke
    dixit-ai train rl --total-timesteps 60000                 # the same, from the console script
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.cli.common import check_at_least
from dixit_ai.reporting import progress_interval

# What a run writes (its folder, curve and checkpoints' bytes) lives in envs.training_run; the
# names stay this script's too (ZIP_EPOCH re-exported as it was defined here).
from envs.training_run import ZIP_EPOCH as ZIP_EPOCH
from envs.training_run import Curve, new_run_dir, normalise_checkpoint, plot

ROLE_PHASES = {"guesser": ("vote",), "storyteller": ("tell",)}
CURVE_LABELS = {"guesser": "accuracy", "storyteller": "points/tell"}
CLUE_PROPOSERS = ("spread", "specific")
BASELINES = {"guesser": "clip-greedy", "storyteller": "clip-expected-self"}
"""The heuristics the learner is compared with (the table's other players are the default
model's: the self-simulating storyteller is the one tuned to such a table)."""


@dataclass
class Args:
    """Arguments (each field is a ``--flag``)."""

    exp_name: str = "train_rl"
    """the run's name (its folder is ``runs/{exp_name}__{seed}__{time}``, ``-2``, ``-3``, ...
    added when a run started in the same second took the name)"""
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
    """learner steps per role, rounded up to whole rollouts of n_steps x n_envs (as SB3 learns)"""
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
    """training opponents' storyteller target specificity, drawn per tell from [low, high]
    (one value: always that one)"""
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
    no_progress: bool = False
    """hide the progress bars (training steps, evaluation games) on stderr"""


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
    from models.players.cli import SCRIPT_PROG

    parser = argparse.ArgumentParser(prog=SCRIPT_PROG.get(), description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    defaults = Args()
    for name, value in asdict(defaults).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, list):
            parser.add_argument(flag, nargs="+", default=value, help=docs.get(name),
                                type=type(value[0]) if value else str)
        elif isinstance(value, bool):
            parser.add_argument(flag, action="store_true", help=docs.get(name))
        else:
            parser.add_argument(flag, type=type(value), default=value, help=docs.get(name))
    return Args(**vars(parser.parse_args(argv)))


def specificity(args: Args) -> tuple[float, float]:
    """``(low, high)`` of ``--opponent-specificity`` (one value: that value twice)."""
    values = [float(v) for v in args.opponent_specificity]
    return (values[0], values[-1]) if len(values) in (1, 2) else (math.nan, math.nan)


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_args(args: Args) -> None:
    """Refuse options the run cannot use, before its folder is made or anything is trained:
    roles, counts, rates, the opponents' specificity, the rules, the deck and the evaluation's
    agents (no model is loaded).

    Raises:
        ValueError: the message names the option, its value and what it takes.
    """
    unknown = [role for role in args.roles if role not in ROLE_PHASES]
    if unknown or not args.roles or len(set(args.roles)) != len(args.roles):
        raise ValueError(f"--roles takes guesser and/or storyteller, each once, not "
                         f"{' '.join(args.roles) or 'nothing'}")
    if not args.exp_name or "/" in args.exp_name or os.sep in args.exp_name or (
            args.exp_name.startswith(".")):
        raise ValueError(f"--exp-name must be a folder name (not empty, no '/', not starting "
                         f"with '.'), not {args.exp_name!r}")
    check_at_least(args, (("seed", 0), ("eval_seed", 0), ("embedding_dim", 1),
                          ("clues_per_card", 1), ("total_timesteps", 1), ("n_envs", 1),
                          ("n_steps", 1), ("hidden", 1), ("curve_every", 1), ("eval_games", 0),
                          ("threads", 1)))
    if args.n_envs * args.n_steps < 2:
        raise ValueError(f"--n-envs times --n-steps (a rollout) must be at least 2, not "
                         f"{args.n_envs} x {args.n_steps}")
    if not (math.isfinite(args.learning_rate) and args.learning_rate > 0):
        raise ValueError(f"--learning-rate must be a positive finite number, not "
                         f"{args.learning_rate}")
    if not (math.isfinite(args.gamma) and 0 <= args.gamma <= 1):
        raise ValueError(f"--gamma must be a finite number from 0 to 1, not {args.gamma}")
    if not (math.isfinite(args.ent_coef) and args.ent_coef >= 0):
        raise ValueError(f"--ent-coef must be a finite number at least 0, not {args.ent_coef}")
    low, high = specificity(args)
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise ValueError(f"--opponent-specificity takes LOW HIGH (finite, LOW <= HIGH) or one "
                         f"finite value, not {' '.join(map(str, args.opponent_specificity))}")
    if args.clue_proposer not in CLUE_PROPOSERS:
        raise ValueError(f"--clue-proposer must be one of {', '.join(CLUE_PROPOSERS)}, not "
                         f"{args.clue_proposer!r}")
    defaults = Args()
    for name in ("guesser_fields", "storyteller_fields"):
        fields = getattr(args, name)
        role = name.removesuffix("_fields")
        if role not in args.roles and fields != getattr(defaults, name):
            raise ValueError(f"{_flag(name)} is for the {role} role; --roles "
                             f"{' '.join(args.roles)} does not train it")
        if "all" in fields and len(fields) > 1:
            raise ValueError(f"{_flag(name)}: 'all' stands alone, not with "
                             f"{', '.join(f for f in fields if f != 'all')}")
    from dixit_ai.rules import RuleSet
    from models.players.cli import check_deck_option

    rules = RuleSet.edition(args.edition)  # an unknown edition names itself
    try:
        rules.check_players(args.n_players)
    except ValueError as error:
        raise ValueError(f"--n-players: {error}") from None
    check_deck_option(args.deck)
    if len(set(args.eval_opponents)) != len(args.eval_opponents) or not args.eval_opponents:
        raise ValueError(f"--eval-opponents names each opponent once, not "
                         f"{' '.join(args.eval_opponents) or 'nothing'}")
    from dixit_ai.agents.registry import check_agent_arguments

    # The opponents' names are checked even with --eval-games 0 (a typo is reported as one); the
    # baselines, fixed names that may need an extra, only when there is an evaluation.
    agents = [(f"--eval-opponents {name}", name) for name in args.eval_opponents
              if name not in ("embedding", "random")]
    if args.eval_games:
        agents += [(f"the {role}'s baseline {BASELINES[role]}", BASELINES[role])
                   for role in args.roles]
    for what, name in agents:
        try:
            check_agent_arguments(name, {"deck": args.deck})
        except (ValueError, ImportError) as error:
            raise ValueError(f"{what}: {error} (or embedding, random)") from None
    if not args.eval_games:  # an evaluation's options, given with no evaluation, would do nothing
        for name in ("eval_seed", "eval_opponents"):
            value = getattr(args, name)
            if value != getattr(defaults, name):
                shown = " ".join(map(str, value)) if isinstance(value, list) else value
                raise ValueError(f"{_flag(name)} {shown} does nothing with --eval-games 0 (no "
                                 f"evaluation): drop it, or give --eval-games N")


def check_fields(args: Args, table: Any) -> None:
    """Refuse what the vector table cannot give: more clues per card than the clue proposer
    has, more PCA directions than the vectors, observation fields the environment does not
    have (an environment is built once per role).

    Raises:
        ValueError: ``--clues-per-card``, ``--embedding-dim``, ``--guesser-fields`` /
            ``--storyteller-fields``, naming the value and the limit.
    """
    from envs.policies import clue_candidates

    try:
        clue_candidates(table, args.clues_per_card, spread=args.clue_proposer == "spread")
    except ValueError as error:
        raise ValueError(f"--clues-per-card {args.clues_per_card}: {error}") from None
    if args.embedding_dim > table.dim:
        raise ValueError(f"--embedding-dim {args.embedding_dim}: the {args.embedder} vectors have "
                         f"{table.dim} directions, so at most {table.dim}")
    for role in args.roles:
        make_env(args, role, table, args.seed * 1000).close()


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

    low, high = specificity(args)
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
        raise ValueError(f"--{role}-fields: unknown observation fields {unknown}; the fields "
                         f"are {list(layout)} (or all)")
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


def train(args: Args, role: str, table: Any, run_dir: Path) -> tuple[Path, Curve]:
    """Train ``role``; return its checkpoint and curve."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv
    from tqdm import tqdm

    from dixit_ai.reporting import write_json
    from envs.learned import file_sha256

    torch.set_num_threads(args.threads)
    vec = DummyVecEnv([functools.partial(make_env, args, role, table, args.seed * 1000 + i)
                       for i in range(args.n_envs)])
    curve = Curve(role, args.curve_every)
    bar = tqdm(total=args.total_timesteps, desc=f"training {role}", unit="step",
               disable=args.no_progress, file=sys.stderr, dynamic_ncols=True, leave=False,
               mininterval=progress_interval(sys.stderr))

    class Log(BaseCallback):  # type: ignore[misc]
        def _on_step(self) -> bool:
            for info in self.locals["infos"]:  # the learner sits in seat 0
                curve.observe(info, 0)
            points = len(curve.rows)
            curve.point(self.num_timesteps)
            if (bar.total or 0) < self.num_timesteps:  # sb3 finishes the last rollout
                bar.total = self.num_timesteps
            bar.update(self.num_timesteps - bar.n)
            if len(curve.rows) > points:
                bar.set_postfix_str(f"{CURVE_LABELS[role]} {curve.rows[-1]['metric']:.3f}")
            return True

    policy_kwargs = {"net_arch": [args.hidden, args.hidden]}
    model = MaskablePPO("MlpPolicy", vec, n_steps=args.n_steps, batch_size=256,
                        learning_rate=args.learning_rate, gamma=args.gamma, ent_coef=args.ent_coef,
                        policy_kwargs=policy_kwargs, seed=args.seed, device="cpu", verbose=0)
    started = time.perf_counter()
    try:
        model.learn(total_timesteps=args.total_timesteps, callback=Log())
    finally:
        bar.close()
    print(f"{role}: {model.num_timesteps} steps in {time.perf_counter() - started:.0f} s",
          flush=True)
    path = run_dir / f"{role}.zip"
    model.save(str(path))
    normalise_checkpoint(path)
    # What PolicyAgent rebuilds the policy from (it reads only the zip's weights, never the
    # pickled "data"), and the zip's hash it checks.
    config = {"env": env_config(args, role), "learner_phases": list(ROLE_PHASES[role]),
              "fields": role_fields(args, role), "stand_in_options": {}, "role": role,
              "policy": {"class": type(model.policy).__name__, "policy_kwargs": policy_kwargs},
              "sha256": file_sha256(path), "args": asdict(args)}
    write_json(path.with_suffix(".json"), config)
    return path, curve


def evaluate(args: Args, role: str, checkpoint: Path, table: Any,
             games_path: Path | None = None) -> dict[str, Any]:
    """Held-out games: the role played by the checkpoint, the clip heuristic and random.

    With ``games_path``, every game's record is written there (JSON Lines), its header's
    ``"evaluation"`` naming the role, the opponents, the decider and the seed: the numbers
    returned are recomputed from them (:func:`envs.learned.role_metrics` of seat 0).
    """
    from tqdm import tqdm

    from dixit_ai import play_game
    from dixit_ai.agents import RandomAgent, make_agent
    from dixit_ai.records import GameRecord, write_records
    from envs.evaluation import evaluation_cell, role_metrics
    from envs.learned import PolicyAgent, RoleAgent
    from envs.policies import EmbeddingAgent

    phases = ROLE_PHASES[role]
    ppo = PolicyAgent(checkpoint, table=table)
    deciders = {"ppo": ppo, BASELINES[role]: make_agent(BASELINES[role], deck=args.deck),
                "random": RandomAgent()}
    seeds = [args.eval_seed + i for i in range(args.eval_games)]
    results: dict[str, Any] = {}
    games: list[GameRecord] = []
    for opponent in args.eval_opponents:
        metrics: dict[str, list[dict[str, float]]] = {name: [] for name in deciders}
        started = time.perf_counter()
        bar = tqdm(total=len(seeds) * len(deciders), desc=f"evaluating {role} vs {opponent}",
                   unit="game", disable=args.no_progress, file=sys.stderr, dynamic_ncols=True,
                   leave=False, mininterval=progress_interval(sys.stderr))
        for seed in seeds:
            for name, decider in deciders.items():
                learner = RoleAgent(decider, EmbeddingAgent(table), phases, name=name)
                others = [EmbeddingAgent(table) if opponent == "embedding"
                          else make_agent(opponent, deck=args.deck) if opponent != "random"
                          else RandomAgent() for _ in range(args.n_players - 1)]
                record = play_game([learner, *others], edition=args.edition, deck=args.deck,
                                   seed=seed, writable=True)
                metrics[name].append(role_metrics(record, 0))
                record.header["evaluation"] = {"role": role, "opponents": opponent,
                                               "decider": name, "seed": seed}
                games.append(record)
                bar.update()
        bar.close()
        cell = {"games": len(seeds), "seconds": round(time.perf_counter() - started, 1),
                **evaluation_cell(role, metrics, BASELINES[role])}
        results[opponent] = cell
        print(f"{role} vs {opponent}: {json.dumps(cell)}", flush=True)
    if games_path is not None:
        write_records(games_path, games)
    return results


def main(argv: list[str] | Args | None = None,
         announce: Callable[[Path], None] | None = None) -> Path:
    """Train, plot and evaluate (``argv``: command-line options or ``Args``); the run's folder.

    Bad options are checked first (:func:`check_args`, then the embedder, the observation
    fields and ``--out``): the error goes to stderr and the process exits 2, with no run folder.
    Then ``announce`` (if given) is called with the run folder: the work begins.
    """
    args = argv if isinstance(argv, Args) else parse(argv)
    try:
        check_args(args)
        os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
        from envs.vectors import load_vector_table

        table = load_vector_table(args.embedder, args.deck)
        check_fields(args, table)
        try:  # the last check: --out
            run_dir = new_run_dir(args.out, args.exp_name, args.seed)
        except ValueError as error:
            raise ValueError(f"--out {error}") from None
    except (ValueError, OSError, ImportError) as error:
        # bad input (dixit_ai.cli.common.EXIT_USAGE): no run folder, nothing trained
        print(f"error: {error}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
    if announce is not None:
        announce(run_dir)
    from dixit_ai.reporting import write_json

    curves: dict[str, Curve] = {}
    evaluation: dict[str, Any] = {}
    for role in args.roles:
        checkpoint, curves[role] = train(args, role, table, run_dir)
        if args.eval_games > 0:
            evaluation[role] = evaluate(args, role, checkpoint, table,
                                        run_dir / f"{role}_evaluation.jsonl")
    plot(curves, run_dir)
    write_json(run_dir / "evaluation.json", evaluation)  # an undefined interval is null
    print(f"wrote {run_dir}")
    return run_dir


if __name__ == "__main__":
    main()
