"""Learned policies as ``dixit_ai`` agents, and the role-by-role evaluation of a learner.

- :class:`PolicyAgent`: a checkpoint of ``scripts/train_rl.py`` (an sb3-contrib ``MaskablePPO``
  on the single-agent environment's flat embedding observation and ``Discrete`` action) playing
  as an :class:`~dixit_ai.agents.Agent`: the decisions of its trained phases come from the
  policy, encoded from the seat's :class:`~dixit_ai.rules.View` exactly as in training; the
  other phases from a stand-in (the fast embedding agent of :mod:`envs.policies`). The policy is
  rebuilt from the ``.json`` beside the checkpoint and only its weights (``policy.pth``) are read
  from the ``.zip``, weights-only: nothing in the file is unpickled (sb3's own ``load`` unpickles
  the zip's ``data``, code a handed checkpoint could carry).
- :class:`RoleAgent`: any agent for some phases, another for the rest (how baselines are compared
  with the learner on one role, all else equal).
- :func:`role_metrics`, :func:`pooled_difference_interval`, :func:`ratio_interval` and
  :func:`paired_interval`: the evaluation's measures, :mod:`envs.evaluation`'s (re-exported).
"""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.agents import Agent, Choice, Story
from dixit_ai.decks.cache import file_sha256
from dixit_ai.rules import Phase, View
from envs.core import DixitCore
from envs.encoding import Encoding
from envs.evaluation import (
    BOOTSTRAP_RESAMPLES,
    paired_interval,
    pooled_difference_interval,
    ratio_interval,
    role_metrics,
)
from envs.policies import EmbeddingAgent
from envs.vectors import VectorTable, load_vector_table

__all__ = ["BOOTSTRAP_RESAMPLES", "PolicyAgent", "RoleAgent", "file_sha256", "load_policy_weights",
           "paired_interval", "policy_spec", "pooled_difference_interval", "ratio_interval",
           "role_metrics"]

PHASE_NAMES = ("tell", "play", "vote")
POLICY_CLASSES = ("MaskableActorCriticPolicy",)
"""The policy classes a checkpoint may name (sb3-contrib's ``"MlpPolicy"`` is the first)."""
DEFAULT_HIDDEN = 128
"""``scripts/train_rl.py``'s hidden width, for a checkpoint written before ``"policy"`` was kept."""


def _net_arch(value: Any) -> list[int] | dict[str, list[int]] | None:
    """``value`` if it is a ``net_arch`` sb3 builds (layer widths, or ``pi``/``vf`` widths)."""
    def widths(items: Any) -> bool:
        return isinstance(items, list) and all(
            isinstance(item, int) and not isinstance(item, bool) and 0 < item <= 65536
            for item in items)

    if widths(value):
        return list(value)
    if isinstance(value, dict) and set(value) <= {"pi", "vf"} and all(
            widths(items) for items in value.values()):
        return {key: list(items) for key, items in value.items()}
    return None


def policy_spec(config: dict[str, Any], source: Path) -> tuple[str, dict[str, Any]]:
    """The policy class name and ``policy_kwargs`` a checkpoint's configuration describes.

    ``"policy": {"class": ..., "policy_kwargs": {"net_arch": ...}}`` as ``scripts/train_rl.py``
    writes it; a configuration without it (an older checkpoint) is the script's ``MlpPolicy`` with
    two hidden layers of ``args.hidden``.

    Raises:
        ValueError: a policy the project cannot build (another class, other keyword arguments).
    """
    policy = config.get("policy")
    if policy is None:
        args = config.get("args")
        hidden = args.get("hidden", DEFAULT_HIDDEN) if isinstance(args, dict) else DEFAULT_HIDDEN
        policy = {"class": POLICY_CLASSES[0], "policy_kwargs": {"net_arch": [hidden, hidden]}}
    if not isinstance(policy, dict) or policy.get("class") not in POLICY_CLASSES or set(
            policy) - {"class", "policy_kwargs"}:
        raise ValueError(f"{source}: \"policy\" must be {{\"class\": one of {POLICY_CLASSES}, "
                         f"\"policy_kwargs\": {{\"net_arch\": ...}}}}, not {policy!r}")
    kwargs = policy.get("policy_kwargs", {})
    if not isinstance(kwargs, dict) or set(kwargs) - {"net_arch"}:
        raise ValueError(f"{source}: the policy's keyword arguments may only be \"net_arch\", "
                         f"not {kwargs!r}")
    arch = _net_arch(kwargs["net_arch"]) if "net_arch" in kwargs else None
    if "net_arch" in kwargs and arch is None:
        raise ValueError(f"{source}: \"net_arch\" must be a list of layer widths or "
                         f"{{\"pi\": [...], \"vf\": [...]}}, not {kwargs['net_arch']!r}")
    return str(policy["class"]), ({} if arch is None else {"net_arch": arch})


def load_policy_weights(path: Path, policy: Any) -> None:
    """Load a checkpoint's ``policy.pth`` into ``policy`` (weights-only; every tensor must fit).

    Nothing else in the ``.zip`` is read: its ``data`` entry holds cloudpickle, which is never
    loaded.

    Raises:
        ValueError: not a zip, no ``policy.pth``, not a plain tensor state dict, or one that does
            not fit the policy (a missing, extra or differently shaped tensor).
    """
    import torch

    try:
        with zipfile.ZipFile(path) as archive:
            if "policy.pth" not in archive.namelist():
                raise ValueError(f"{path} has no policy.pth: not a checkpoint of "
                                 f"scripts/train_rl.py (an sb3 .zip)")
            raw = archive.read("policy.pth")
    except zipfile.BadZipFile as error:
        raise ValueError(f"{path} is not a zip file (a checkpoint of scripts/train_rl.py)"
                         ) from error
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as error:  # weights_only refuses anything but tensors and plain containers
        raise ValueError(f"{path}: policy.pth is not a weights-only state dict ({error})"
                         ) from error
    if not isinstance(state, dict) or not all(
            isinstance(key, str) and isinstance(value, torch.Tensor)
            for key, value in state.items()):
        raise ValueError(f"{path}: policy.pth is not a state dict of named tensors")
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as error:
        raise ValueError(f"{path}: policy.pth does not fit the policy its .json describes "
                         f"({error})") from error


class RoleAgent:
    """``agent`` decides the phases in ``phases``; ``stand_in`` decides the others.

    Args:
        agent: The agent under test.
        stand_in: The agent for the other phases.
        phases: ``"tell"``, ``"play"``, ``"vote"`` (any of them).
        name: The name in records (default: ``agent``'s).
    """

    def __init__(self, agent: Agent, stand_in: Agent, phases: Sequence[str],
                 name: str | None = None) -> None:
        if not phases or any(p not in PHASE_NAMES for p in phases):
            raise ValueError(f"phases must be a non-empty subset of {PHASE_NAMES}, not {phases!r}")
        self.agent, self.stand_in, self.phases = agent, stand_in, frozenset(phases)
        self.name: str = name or str(getattr(agent, "name", "agent"))

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        """Reset both agents (the stand-in on a generator spawned from ``rng``)."""
        self.agent.reset(seat=seat, rng=rng)
        self.stand_in.reset(seat=seat, rng=np.random.default_rng(rng.integers(2**63)))

    def _who(self, phase: str) -> Agent:
        return self.agent if phase in self.phases else self.stand_in

    def tell(self, view: View) -> Story:
        """The tell of the agent in charge of telling."""
        return self._who("tell").tell(view)

    def play(self, view: View) -> Choice | Sequence[int]:
        """The play of the agent in charge of playing."""
        return self._who("play").play(view)

    def vote(self, view: View) -> Choice | Sequence[int]:
        """The vote of the agent in charge of voting."""
        return self._who("vote").vote(view)

    def describe(self) -> dict[str, Any]:
        """Both agents' descriptions and the phases."""
        return {"name": self.name, "phases": sorted(self.phases),
                "agent": self.agent.describe(), "stand_in": self.stand_in.describe()}


class PolicyAgent:
    """A trained ``MaskablePPO`` checkpoint playing as a ``dixit_ai`` agent.

    The policy is rebuilt (sb3-contrib's ``MaskableActorCriticPolicy`` on the environment's
    observation and action spaces, with the ``policy_kwargs`` of the ``.json``) and only the
    ``.zip``'s ``policy.pth`` is read into it, with ``torch.load(weights_only=True)``: sb3's
    ``MaskablePPO.load`` would unpickle the zip's ``data`` entry, which runs any code a handed
    checkpoint carries. The actions are ``MaskablePPO.load(...).predict``'s.

    Args:
        checkpoint: The ``.zip`` written by ``scripts/train_rl.py`` (its ``.json`` beside it holds
            the environment configuration the policy was trained on, the observation fields
            it reads: all of them, or those named in ``"fields"``, the policy's
            ``"policy_kwargs"`` and the zip's ``"sha256"``).
        table: The vector table (default: loaded for the checkpoint's embedder and deck).
        deterministic: Take the policy's most probable action (else sample, seeded).
        name: The name in records.

    Raises:
        ValueError: the checkpoint's configuration is missing, for another game or describes a
            policy the project cannot build; the zip's SHA-256 is not the one its ``.json``
            records; the zip has no ``policy.pth``, or weights that do not fit the policy.
    """

    def __init__(self, checkpoint: str | Path, *, table: VectorTable | None = None,
                 deterministic: bool = True, name: str = "ppo") -> None:
        path = Path(checkpoint)
        config_path = path.with_suffix(".json")
        if not config_path.is_file():
            raise ValueError(f"{config_path} is missing: a checkpoint of scripts/train_rl.py "
                             f"has its configuration beside it")
        config = json.loads(config_path.read_text(encoding="utf-8"))
        env = config.get("env") if isinstance(config, dict) else None
        needed = ("edition", "n_players", "deck", "clues_per_card")
        if not isinstance(env, dict) or any(key not in env for key in needed) or not isinstance(
                config.get("learner_phases"), list):
            raise ValueError(f"{config_path} does not describe a checkpoint of "
                             f"scripts/train_rl.py: it needs \"env\" (with {', '.join(needed)}) "
                             f"and \"learner_phases\"")
        self.config: dict[str, Any] = config
        policy_class, policy_kwargs = policy_spec(config, config_path)
        if not path.is_file():
            raise ValueError(f"{path} is missing (the checkpoint {config_path} describes)")
        expected = config.get("sha256")
        if expected is None:
            warnings.warn(f"{config_path} records no sha256 of {path.name} (a checkpoint written "
                          f"before it was kept): the zip's weights are loaded unchecked",
                          stacklevel=2)
        elif file_sha256(path) != str(expected).lower():
            raise ValueError(f"{path}'s SHA-256 is not the one {config_path} records: the zip "
                             f"was changed or replaced after training")
        base = table if table is not None else load_vector_table(
            env.get("embedder") or "default", env["deck"])
        self.table = base
        dim = env.get("embedding_dim")
        self.core = DixitCore(edition=env["edition"], n_players=int(env["n_players"]),
                              deck=env["deck"], clue_mode="text", clue_vocab=None,
                              max_rounds=None, rule_overrides={})
        self.encoding = Encoding(self.core, observation="embedding", flatten=True,
                                 actions="discrete", table=self.table,
                                 clues_per_card=int(env["clues_per_card"]),
                                 clue_proposer=env.get("clue_proposer"),
                                 embedding_dim=None if dim is None else int(dim))
        self.phases = frozenset(self.config["learner_phases"])
        self.fields: list[str] | None = self.config.get("fields")
        self.policy = self._build_policy(policy_class, policy_kwargs, config_path)
        load_policy_weights(path, self.policy)
        options = dict(self.config.get("stand_in_options", {}))
        self.stand_in = EmbeddingAgent(base, **options)
        self.deterministic = deterministic
        self.name = name
        self.rng = np.random.default_rng(0)

    def observation_space(self) -> Any:
        """The flat ``Box`` the policy reads: the encoding's, cut to ``fields`` as in training."""
        from gymnasium import spaces

        full = self.encoding.observation_space()
        assert isinstance(full, spaces.Dict)
        flat = full.spaces["observation"]
        assert isinstance(flat, spaces.Box)
        if self.fields is None:
            return flat
        layout, start = {}, 0
        for key, size in self.encoding.layout():
            layout[key] = np.arange(start, start + size, dtype=np.intp)
            start += size
        unknown = [key for key in self.fields if key not in layout]
        if unknown:
            raise ValueError(f"unknown observation fields {unknown}; the fields are {list(layout)}")
        index = np.concatenate([layout[key] for key in self.fields])
        return spaces.Box(flat.low[index], flat.high[index], dtype=np.float32)

    def _build_policy(self, policy_class: str, policy_kwargs: dict[str, Any],
                      config_path: Path) -> Any:
        """The untrained policy the checkpoint's weights go into (as ``MaskablePPO`` builds it)."""
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        classes = {"MaskableActorCriticPolicy": MaskableActorCriticPolicy}
        try:
            observation_space = self.observation_space()
        except ValueError as error:
            raise ValueError(f"{config_path}: {error}") from error
        # The learning rate only sets up the optimizer, which acting never uses.
        policy = classes[policy_class](observation_space, self.encoding.action_space(),
                                       lambda _: 0.0, **policy_kwargs)
        policy.set_training_mode(False)
        return policy

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        """Start a game in ``seat``."""
        self.rng = rng
        self.stand_in.reset(seat=seat, rng=np.random.default_rng(rng.integers(2**63)))

    def check_game(self, view: View) -> None:
        """Refuse a game other than the one the checkpoint was trained for: its observation has
        a fixed width per seat and card, so another player count or edition would be read
        wrong (seats' scores cut off) or not at all (an index or shape error mid-game).

        Raises:
            ValueError: another edition, player count or variant, naming both games.
        """
        trained, rules = self.core.rules, view.rules
        here = (rules.name, view.n_players, rules.teams, rules.mode)
        there = (trained.name, self.core.n_players, trained.teams, trained.mode)
        if here != there:
            def game(name: str, players: int, teams: bool, mode: str) -> str:
                variant = ", teams" if teams else ", Dixit Party" if mode == "party" else ""
                return f"{name} with {players} players{variant}"

            raise ValueError(f"the checkpoint {self.name!r} was trained for {game(*there)}, "
                             f"not {game(*here)}: its observations would not fit this game")

    def _act(self, view: View, mask: np.ndarray, chosen: tuple[int, ...] = ()) -> int:
        fields = self.encoding.fields_of(view, chosen)
        observation = np.concatenate([fields[key] for key in (self.fields or fields)])
        if self.deterministic:
            action, _ = self.policy.predict(observation, action_masks=mask.astype(bool),
                                            deterministic=True)
            index = int(action)
        else:  # sampled on the agent's own generator (torch's global one is nobody's seed)
            import torch

            with torch.no_grad():
                tensor, _ = self.policy.obs_to_tensor(observation)
                probs = self.policy.get_distribution(
                    tensor, action_masks=mask.astype(bool)[None]).distribution.probs[0]
            p = probs.cpu().numpy().astype(np.float64)
            index = int(self.rng.choice(len(p), p=p / p.sum()))
        if not mask[index]:
            raise RuntimeError(f"the policy chose masked action {index}")
        return index

    def tell(self, view: View) -> Story:
        """The policy's (card, clue) among the proposer's candidates."""
        self.check_game(view)
        if "tell" not in self.phases:
            return self.stand_in.tell(view)
        per_card = self.encoding.clues_per_card
        mask = np.zeros(self.encoding.n_actions, dtype=np.int8)
        mask[: len(view.hand) * per_card] = 1
        position, candidate = divmod(self._act(view, mask), per_card)
        card = view.hand[position]
        return Story(card, self.encoding.candidates[card][candidate], "word")

    def play(self, view: View) -> Choice | Sequence[int]:
        """The stand-in's play unless the policy was trained to play (one card per turn)."""
        self.check_game(view)
        if "play" not in self.phases or view.cards_to_play != 1:
            return self.stand_in.play(view)
        mask = np.zeros(self.encoding.n_actions, dtype=np.int8)
        mask[: len(view.hand)] = 1
        return Choice((view.hand[self._act(view, mask)],))

    def vote(self, view: View) -> Choice | Sequence[int]:
        """The policy's vote, and its second vote where the edition allows one, asked as the
        training environment asks it: a second turn that sees the first vote chosen, with the
        other legal positions and the pass index (no second vote) allowed."""
        self.check_game(view)
        if "vote" not in self.phases:
            return self.stand_in.vote(view)
        if view.phase is not Phase.VOTE:
            raise ValueError("vote asked outside the vote phase")
        legal = list(view.legal_vote_positions())
        mask = np.zeros(self.encoding.n_actions, dtype=np.int8)
        mask[legal] = 1
        first = self._act(view, mask)
        pass_index = self.core.pass_index
        if view.max_votes < 2 or pass_index is None:
            return Choice((first,))
        mask[first] = 0
        mask[pass_index] = 1
        second = self._act(view, mask, (first,))
        return Choice((first,) if second == pass_index else (first, second))

    def describe(self) -> dict[str, Any]:
        """The checkpoint's configuration."""
        return {"name": self.name, "phases": sorted(self.phases), "config": self.config}
