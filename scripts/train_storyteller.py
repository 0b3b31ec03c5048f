"""Learn a clue-choice policy by self-play, with REINFORCE and a baseline (CleanRL style).

The storyteller scores every (hand card, clue) by simulation (:mod:`models.players.simulation`);
the learned policy (:class:`models.players.LinearCluePolicy`) chooses among the ``shortlist``
candidates with the most expected points, with probability ``softmax(features @ weights)`` over
their features (predicted guess rate, its spread ``4 r (1 - r)``, expected points, success rate,
similarity gap to the best simulated decoy, similarity to the card, clue length, pair clue). Every
seat of a 5-player ``refresh-2021`` table plays the same learning policy in the PettingZoo AEC
environment (``envs.dixit_v0``, seats driven by ``envs.agent_player.AgentPlayer``); each
storytelling turn is one sample whose reward is the storyteller's points that round. After each
game: ``w += lr * mean((reward - baseline) * grad log pi)``, the baseline a running mean reward.

Then, on held-out seeds, one seat is played by the learned policy (greedy) and, on the same
seeds, by the heuristic ``--baseline`` agent, the other four seats being ``clip-greedy``; the
figure is the points per storytelling turn of that seat, with a 95% confidence interval of the
paired per-game difference. Outputs under ``runs/train_storyteller__SEED__TIME/``: ``curve.csv``,
``curve.png``, ``policy.json`` (the checkpoint: ``make_agent("clip-greedy", policy=PATH)``) and
``summary.json``; the checkpoint and the summary record every setting (``args``, after
``--smoke``, and the players' ``agent_options``) and the deck's fingerprint.

    python scripts/train_storyteller.py --games 150 --eval-games 60
    python scripts/train_storyteller.py --smoke
"""

from __future__ import annotations

import csv
import io
import math
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from dixit_ai import play_game
from dixit_ai.agents import make_agent
from dixit_ai.match import game_seeds
from dixit_ai.reporting import new_run_dir, progress_interval, save_figure, write_json, write_text
from dixit_ai.rules import View
from models.players import ClipAgent, LinearCluePolicy
from models.players.cli import (
    apply_smoke,
    check_at_least,
    check_deck_option,
    check_positive,
    parse_args,
)
from models.players.policy import FEATURES

SMOKE = {"deck": "dream:size=40", "vocabulary_size": 300, "simulations": 8, "games": 3,
         "eval_games": 2}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    exp_name: str = field(default="train_storyteller", metadata={"help": "name of the run"})
    seed: int = field(default=0, metadata={"help": "seed of training games and policy sampling"})
    games: int = field(default=150, metadata={"help": "self-play training games"})
    learning_rate: float = field(default=0.1, metadata={"help": "policy-gradient step size"})
    baseline_momentum: float = field(default=0.95, metadata={
        "help": "running-mean baseline: b = m b + (1 - m) reward"})
    shortlist: int = field(default=32, metadata={
        "help": "candidates (best expected points first) the policy chooses among"})
    simulations: int = field(default=32, metadata={"help": "simulated deals per decision"})
    eval_games: int = field(default=60, metadata={"help": "held-out games per policy"})
    eval_seed: int = field(default=10_000, metadata={"help": "seed of the held-out games"})
    baseline: str = field(default="clip-expected-self", metadata={
        "help": "the heuristic storyteller the learned policy is compared with"})
    deck: str = field(default="dream", metadata={"help": "deck spec"})
    embedder: str = field(default="", metadata={
        "help": "every player's embedder ('default', 'hf:FOLDER', 'openclip:...', a family "
                "member such as 'lite1-minilm'; empty: the default model)"})
    vocabulary_size: int = field(default=0, metadata={"help": "clues used (0: all)"})
    runs_dir: str = field(default="runs", metadata={"help": "where the run folder goes"})
    smoke: bool = field(default=False, metadata={"help": "tiny deck, vocabulary and budget"})


class LearningAgent(ClipAgent):
    """A ``ClipAgent`` whose storyteller samples from a shared policy and logs its samples."""

    def __init__(self, policy: LinearCluePolicy, log: list[tuple[int, np.ndarray, int]],
                 **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.storyteller.policy = policy
        self.log = log

    def tell(self, view: View):  # type: ignore[no-untyped-def]
        story = super().tell(view)
        decision = self.last_story
        assert decision is not None and decision.features is not None
        self.log.append((view.round, decision.features, decision.chosen))
        return story


def self_play_game(env, policy, seed, overrides):  # type: ignore[no-untyped-def]
    """One game in the AEC environment; returns ``(features, chosen, reward)`` per tell."""
    from envs.agent_player import AgentPlayer

    log: list[tuple[int, np.ndarray, int]] = []
    env.reset(seed=seed)
    players = {agent: AgentPlayer(LearningAgent(policy, log, name="learner", **overrides))
               for agent in env.possible_agents}
    for agent, player in players.items():
        player.reset(env, agent)
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else players[agent].act(env, agent))
    results = {r.round: r for r in env.unwrapped.core.state.results}
    return [(features, chosen, float(results[rnd].points[results[rnd].storyteller]))
            for rnd, features, chosen in log if rnd in results]


def reinforce_step(policy, samples, baseline, learning_rate):  # type: ignore[no-untyped-def]
    """One REINFORCE update over a game's samples; returns the gradient norm."""
    gradient = np.zeros_like(policy.weights)
    for features, chosen, reward in samples:
        probabilities = policy.probabilities(features)
        gradient += (reward - baseline) * (features[chosen] - probabilities @ features)
    gradient /= max(len(samples), 1)
    policy.weights += learning_rate * gradient
    return float(np.linalg.norm(gradient))


def storyteller_points(agent, seeds, deck, overrides,  # type: ignore[no-untyped-def]
                       desc="held-out games"):
    """Points per storytelling turn of ``agent`` in one seat (rotating) among clip-greedy bots
    (a progress bar named ``desc`` on stderr)."""
    per_game = []
    others = [make_agent("clip-greedy", **{**overrides, "deck": deck}) for _ in range(4)]
    for index, seed in enumerate(tqdm(seeds, desc=desc, unit="game", file=sys.stderr,
                                      dynamic_ncols=True,
                                      mininterval=progress_interval(sys.stderr))):
        seat = index % 5
        table = [*others[:seat], agent, *others[seat:]]
        record = play_game(table, edition="refresh-2021", deck=deck, seed=seed)
        points = [r.points[seat] for r in record.rounds if r.storyteller == seat]
        per_game.append(float(np.mean(points)) if points else float("nan"))
    return np.asarray(per_game)


def check_args(args: Args, overrides: dict[str, object]) -> None:
    """Refuse settings the run cannot use, before it trains or writes anything.

    Raises:
        ValueError: a count or rate out of range, an unknown deck or ``--baseline`` agent; the
            message names the flag and its limit.
    """
    from dixit_ai.agents.registry import check_agent_arguments

    check_at_least(args, (("games", 1), ("eval_games", 1), ("shortlist", 1),
                          ("simulations", 1), ("vocabulary_size", 0)))
    check_positive(args, "learning_rate")
    if not 0 <= args.baseline_momentum <= 1:
        raise ValueError(f"--baseline-momentum must lie between 0 and 1, not "
                         f"{args.baseline_momentum}")
    check_deck_option(args.deck)
    try:
        check_agent_arguments(args.baseline, overrides)
    except (ValueError, ImportError) as error:
        raise ValueError(f"--baseline {args.baseline}: {error}") from None


def main(argv: list[str] | None = None,
         announce: Callable[[Path], None] | None = None) -> int:
    """Train, evaluate and write; the exit status. ``announce`` is called with the run folder
    once the settings are checked and the folder is made: an error before is bad input (2,
    nothing written), one after a failure of the run."""
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # what the command line gave stays as given
        apply_smoke(args, SMOKE)
    overrides: dict[str, object] = {"deck": args.deck, "n_simulations": args.simulations}
    if args.embedder:
        overrides["embedder"] = args.embedder
    if args.vocabulary_size:
        overrides["vocabulary_size"] = args.vocabulary_size
    if args.smoke:
        overrides["pair_clues"] = 0
    try:
        check_args(args, overrides)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from envs import dixit_v0

    settings = run_settings(args, overrides)
    try:  # the players' model, before anything is written: one that does not load is bad input
        # Every reward comes from the votes of self-play learners on one model: the voters a
        # panel's held-out check reads (models.bench.panel.check_held_out).
        learner = ClipAgent(name="learner", **overrides).resources.fingerprint  # type: ignore[arg-type]
    except (ValueError, OSError, ImportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    try:  # a folder of its own, even beside a run started in the same second
        run = new_run_dir(args.runs_dir, args.exp_name, args.seed)
    except ValueError as error:
        print(f"error: --runs-dir {error}", file=sys.stderr)
        return 2
    if announce is not None:
        announce(run)
    rng = np.random.default_rng(args.seed)

    policy = LinearCluePolicy(np.zeros(len(FEATURES)), shortlist=args.shortlist, greedy=False)
    env = dixit_v0.env(edition="refresh-2021", n_players=5, deck=args.deck)
    baseline, curve, tells = 0.0, [], 0
    seeds = [int(s) for s in rng.integers(0, 2**31, args.games)]
    start = time.time()
    for game, seed in enumerate(seeds):
        samples = self_play_game(env, policy, seed, overrides)
        rewards = [r for _, _, r in samples]
        if game == 0:
            baseline = float(np.mean(rewards))
        norm = reinforce_step(policy, samples, baseline, args.learning_rate)
        for reward in rewards:
            baseline = args.baseline_momentum * baseline + (1 - args.baseline_momentum) * reward
        tells += len(samples)
        curve.append({"game": game, "tells": tells, "points_per_tell": float(np.mean(rewards)),
                      "baseline": baseline, "gradient_norm": norm,
                      **{f"w_{n}": float(w) for n, w in zip(FEATURES, policy.weights,
                                                            strict=True)}})
        if game % 10 == 0 or game == len(seeds) - 1:
            print(f"game {game:4d}  points/tell {np.mean(rewards):.2f}  baseline {baseline:.2f}  "
                  f"|grad| {norm:.3f}  {time.time() - start:.0f} s")
    checkpoint = run / "policy.json"
    policy.save(checkpoint, games=args.games, seed=args.seed, baseline=args.baseline,
                voter_models=[{"fingerprint": learner, "name": "learner"}], **settings)
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(curve[0]))
    writer.writeheader()
    writer.writerows(curve)
    write_text(run / "curve.csv", buffer.getvalue())
    plot_curve(curve, run / "curve.png")

    held_out = game_seeds(args.eval_seed, args.eval_games)
    learned = make_agent("clip-greedy", policy=str(checkpoint), **overrides)
    heuristic = make_agent(args.baseline, **overrides)
    learned_points = storyteller_points(learned, held_out, args.deck, overrides,
                                        "held-out games (learned policy)")
    heuristic_points = storyteller_points(heuristic, held_out, args.deck, overrides,
                                          f"held-out games ({args.baseline})")
    learned_resources = learned.resources  # type: ignore[attr-defined]  # a ClipAgent
    both = ~np.isnan(learned_points) & ~np.isnan(heuristic_points)
    diff = learned_points[both] - heuristic_points[both]
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
    summary = {
        "train_games": args.games, "train_tells": tells, "eval_games": int(both.sum()),
        "weights": dict(zip(FEATURES, map(float, policy.weights), strict=True)),
        "learned_points_per_tell": float(np.nanmean(learned_points)),
        "heuristic": args.baseline,
        "heuristic_points_per_tell": float(np.nanmean(heuristic_points)),
        "difference": float(diff.mean()) if len(diff) else float("nan"),
        "difference_ci95": [float(diff.mean() - half), float(diff.mean() + half)]
        if len(diff) else None,
        **settings,
        "vocabulary_clues": len(learned_resources.vocabulary.texts),
        "embedder": learned_resources.fingerprint,
    }
    verdict = ("beats" if len(diff) > 1 and diff.mean() - half > 0 else
               "is beaten by" if len(diff) > 1 and diff.mean() + half < 0 else
               "is not distinguishable from")
    summary["verdict"] = f"the learned policy {verdict} {args.baseline}"
    other = heuristic.describe().get("embedder")
    if other is not None and other != learned_resources.fingerprint:
        # the baseline's entry names its own model: the comparison is of two models, not of
        # two ways of telling
        summary["warning"] = (f"--baseline {args.baseline} plays on embedder {other}, the learned "
                              f"policy on {learned_resources.fingerprint}: the difference mixes "
                              "the models with the policies (give --embedder, or a baseline on "
                              "the learner's model)")
        summary["verdict"] += " (on another embedder)"
        print(f"WARNING: {summary['warning']}", file=sys.stderr)
    write_json(run / "summary.json", summary)
    print(summary_line(summary))
    print(f"run folder: {run}")
    return 0


def summary_line(summary: dict[str, Any]) -> str:
    """The held-out result as printed: points per storytelling turn to 3 decimals, as
    :class:`dixit_ai.reporting.Interval` prints them, the difference's 95% interval too (``n/a``
    where there is none: fewer than two games); ``summary.json`` keeps the full values."""
    ci = summary["difference_ci95"]
    shown = ("n/a" if ci is None or any(math.isnan(v) for v in ci)
             else f"[{ci[0]:.3f}, {ci[1]:.3f}]")
    difference = summary["difference"]
    told = "n/a" if math.isnan(difference) else f"{difference:+.3f}"
    return (f"held-out ({summary['eval_games']} games): learned "
            f"{summary['learned_points_per_tell']:.3f} vs {summary['heuristic']} "
            f"{summary['heuristic_points_per_tell']:.3f} points per storytelling turn; "
            f"difference {told}, 95% CI {shown}: {summary['verdict']}")


def run_settings(args: Args, overrides: dict[str, object]) -> dict[str, Any]:
    """What a run's numbers are recomputed from: every argument (after ``--smoke``), the clip
    players' options and the deck's fingerprint."""
    from dixit_ai.decks import load_deck

    return {"args": asdict(args), "agent_options": dict(overrides),
            "deck_fingerprint": load_deck(args.deck).fingerprint}


def plot_curve(curve: list[dict[str, float]], path: Path) -> None:
    """The learning curve (points per storytelling turn, smoothed) as a PNG, if matplotlib is."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    points = np.asarray([row["points_per_tell"] for row in curve])
    window = max(1, min(10, len(points)))
    smooth = np.convolve(points, np.ones(window) / window, mode="valid")
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(points, alpha=0.3, label="per game")
    ax.plot(np.arange(window - 1, len(points)), smooth, label=f"mean of {window} games")
    ax.plot([row["baseline"] for row in curve], "--", label="baseline")
    ax.set_xlabel("self-play game")
    ax.set_ylabel("storyteller points per turn")
    ax.set_title("REINFORCE clue-choice policy (5-player refresh-2021 self-play)")
    ax.legend()
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
