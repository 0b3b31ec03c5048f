"""A Gymnasium environment with one learning seat: ``dixit_ai/Dixit-v0``.

The learner plays one seat; the other seats are played by ``dixit_ai`` agents (random agents by
default), each seeded from the game's seed as :func:`dixit_ai.play_game` seeds it. The observation
is the learner's observation of :mod:`envs.dixit_v0` without the mask, flattened into one ``int64``
vector (``gymnasium.spaces.flatten`` over the ``Dict`` space: discrete fields one-hot, card ids and
numbers as they are, a text clue as character indices); the mask over ``card`` indices is in
``info["action_mask"]``. The action space is the AEC environment's (``clue_mode="vocab"`` makes it
all-discrete, which is what most RL libraries want).

The reward of a step is what the learner gained from its action until its next turn (the points of
the rounds scored in between), -1 for an illegal action (which ends the episode, as in PettingZoo's
classic games).

>>> import envs, gymnasium
>>> env = gymnasium.make("dixit_ai/Dixit-v0", deck=range(84), clue_mode="vocab")
>>> obs, info = env.reset(seed=0)
>>> obs.shape == env.observation_space.shape, info["action_mask"].dtype
(True, dtype('int8'))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from dixit_ai.agents import Agent
from envs.agent_player import AgentPlayer
from envs.core import CLUE_CHARSET, DixitActionSpace
from envs.dixit_v0 import METADATA, raw_env
from envs.render import agent_name

_CHARSET = frozenset(CLUE_CHARSET)


class DixitSingleAgentEnv(gymnasium.Env[np.ndarray, dict[str, Any]]):
    """One learning seat against ``dixit_ai`` agents.

    Args:
        seat: The learner's seat.
        opponents: Agents (or registry names) for the other seats, in seat order, or a mapping
            from seat to agent; default: a random agent in every other seat.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or ``None``.
        **config: The configuration of :mod:`envs.dixit_v0` (``edition``, ``n_players``,
            ``deck``, ``clue_mode``, ``max_rounds``, rule overrides, ...).

    Raises:
        ValueError: a bad seat, opponents, or configuration.
    """

    metadata = {  # noqa: RUF012 (gymnasium declares it an instance attribute)
        "render_modes": METADATA["render_modes"], "render_fps": METADATA["render_fps"]}

    def __init__(
        self,
        *,
        seat: int = 0,
        opponents: Sequence[Agent | str] | Mapping[int, Agent | str] | None = None,
        render_mode: str | None = None,
        **config: Any,
    ) -> None:
        self.table = raw_env(render_mode=render_mode, **config)
        n = self.table.core.n_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be a seat of this {n}-player game (0-{n - 1}), "
                             f"not {seat!r}")
        others = [s for s in range(n) if s != seat]
        chosen: dict[int, Agent | str]
        if opponents is None:
            chosen = dict.fromkeys(others, "random")
        elif isinstance(opponents, Mapping):
            chosen = dict(opponents)
            if sorted(chosen) != others:
                raise ValueError(f"opponents must give an agent for seats {others}, "
                                 f"not {sorted(chosen)}")
        else:
            if len(opponents) != n - 1:
                raise ValueError(f"opponents must give {n - 1} agents (one per other seat), "
                                 f"not {len(opponents)}")
            chosen = dict(zip(others, opponents, strict=True))
        self.seat = seat
        self.learner = agent_name(seat)
        self.players = {agent_name(s): AgentPlayer(agent) for s, agent in chosen.items()}
        self.render_mode = render_mode
        self.action_space: DixitActionSpace = self.table.action_space(self.learner)
        full = self.table.observation_space(self.learner)
        self.dict_space = spaces.Dict(
            {key: space for key, space in full.spaces.items() if key != "action_mask"})
        flat = spaces.flatten_space(self.dict_space)
        assert isinstance(flat, spaces.Box)
        self.observation_space: spaces.Box = flat
        self._mask = np.zeros(self.table.core.n_actions, dtype=np.int8)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game (seeded as ``play_game(seed=...)``) and play until the learner's turn."""
        super().reset(seed=seed)
        table = self.table
        table.reset(seed=seed)
        for name, player in self.players.items():
            player.reset(table, name)
        self._advance()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the other seats until the learner's next turn."""
        table = self.table
        if self._finished():
            return self._observation(), 0.0, bool(table.terminations[self.learner]), bool(
                table.truncations[self.learner]), self._info()
        table.step(action)
        reward = float(table.rewards[self.learner])
        reward += self._advance()
        terminated = bool(table.terminations[self.learner])
        truncated = bool(table.truncations[self.learner])
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self) -> Any:
        """The table, as the AEC environment renders it."""
        return self.table.render()

    def close(self) -> None:
        """Release rendering resources."""
        self.table.close()

    def _finished(self) -> bool:
        table = self.table
        return bool(table.terminations[self.learner] or table.truncations[self.learner])

    def _advance(self) -> float:
        """Let the other seats play until the learner acts or the game ends; its rewards."""
        table = self.table
        reward = 0.0
        while not self._finished() and table.agent_selection != self.learner:
            agent = table.agent_selection
            table.step(self.players[agent].act(table, agent))
            reward += float(table.rewards[self.learner])
        return reward

    def _observation(self) -> np.ndarray:
        observation = self.table.observe(self.learner)
        self._mask = observation.pop("action_mask")
        clue = observation["clue"]
        if isinstance(clue, str) and not _CHARSET.issuperset(clue):
            observation["clue"] = "".join(c if c in _CHARSET else "?" for c in clue)
        flat = spaces.flatten(self.dict_space, observation)
        assert isinstance(flat, np.ndarray)
        return flat

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy()}
        event = self.table.core.ended_by
        if event is not None:
            info["illegal_action"] = event.reason
            info["illegal_agent"] = event.agent
        return info
