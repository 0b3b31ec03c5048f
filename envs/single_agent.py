"""A Gymnasium environment with one learning seat: ``dixit_ai/Dixit-v0``.

The learner plays one seat; the other seats are played by ``dixit_ai`` agents (random agents by
default), each seeded from the game's seed as :func:`dixit_ai.play_game` seeds it, by the fast
embedding players of :mod:`envs.policies` (``"embedding"``), or by a policy (:class:`SelfPlay`:
the learner's own policy in other seats).

Observations follow the environments' options (:mod:`envs.encoding`): with the default
``observation="ids"`` (and no ``flatten``), the learner's observation of :mod:`envs.dixit_v0`
without the mask, flattened into one ``int64`` vector (``gymnasium.spaces.flatten``: discrete
fields one-hot, card ids and numbers as they are, a text clue as character indices), as before;
with ``flatten=True`` or another mode, the encoding's flat ``float32`` vector (finite bounds);
with ``observation="onehot"|"embedding"`` and ``flatten=False``, its ``Dict`` of fields. The mask
is in ``info["action_mask"]`` and :meth:`DixitSingleAgentEnv.action_masks` (what sb3-contrib's
``MaskablePPO`` reads). Once the episode is over the mask allows index 0 only (an ignored
action), so a library that samples on the terminal observation never meets an all-zero mask.
``actions="discrete"`` gives one ``Discrete(N)`` action (:mod:`envs.encoding`).

The reward of a step is what the learner gained from its action until its next turn (by the
``reward`` option: points, difference to the best opponent, win, rank; :mod:`envs.rewards`),
-1 for an illegal action (which ends the episode, as in PettingZoo's classic games).
``info["rounds"]`` holds the rounds (the rules' ``RoundResult``) whose points the step's reward
counts: those scored during the step, and on the first step those ``reset`` played before the
learner's first decision.

>>> import envs, gymnasium
>>> env = gymnasium.make("dixit_ai/Dixit-v0", deck=range(84), clue_mode="vocab")
>>> obs, info = env.reset(seed=0)
>>> obs.shape == env.observation_space.shape, info["action_mask"].dtype
(True, dtype('int8'))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from dixit_ai.agents import missing_party_decisions
from envs.agent_player import AgentPlayer
from envs.core import CLUE_CHARSET, IllegalActionEvent
from envs.dixit_v0 import raw_env
from envs.options import SINGLE_AGENT, check_rule_overrides, options_of
from envs.policies import EmbeddingAgent
from envs.render import agent_name
from envs.table import METADATA
from envs.vectors import VectorTable, resolve_vector_table

_CHARSET = frozenset(CLUE_CHARSET)

Policy = Callable[[Any, np.ndarray], Any]
"""``policy(observation, mask) -> action``, in the learner's observation and action formats."""


class SelfPlay:
    """An opponent seat played by a policy in the learner's own formats (self-play).

    The seat sees its observation as the learner would (same encoding) and acts in the learner's
    action format. Set :attr:`policy` (for example to a frozen copy of the learner) at any time.

    Args:
        policy: ``policy(observation, mask) -> action``; ``None`` until set.
    """

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy

    def act(self, observation: Any, mask: np.ndarray) -> Any:
        """The policy's action.

        Raises:
            RuntimeError: no policy was set.
        """
        if self.policy is None:
            raise RuntimeError("a SelfPlay seat has no policy: set seat.policy = fn(obs, mask)")
        return self.policy(observation, mask)


class DixitSingleAgentEnv(gymnasium.Env[np.ndarray, dict[str, Any]]):
    """One learning seat against ``dixit_ai`` agents.

    Args:
        seat: The learner's seat.
        opponents: Agents (registry names, ``"embedding"`` for
            :class:`envs.policies.EmbeddingAgent`,
            or :class:`SelfPlay` seats) for the other seats, in seat order, or a mapping from
            seat to agent, or one name for every other seat; default: random agents.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or ``None``.
        opponent_options: Keyword arguments of the ``"embedding"`` opponents and stand-in
            (refused where neither plays).
        learner_phases: The phases the learner decides (``"tell"``, ``"play"``, ``"vote"``;
            default: all); the seat's other decisions are made by ``stand_in``. A guesser
            trained alone is ``("vote",)``, a storyteller ``("tell",)``.
        stand_in: The agent deciding the learner seat's other phases (``"embedding"``, a registry
            name or an agent; ``None``: ``"embedding"``); refused when the learner decides
            every phase.
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
        opponents: Sequence[Any] | Mapping[int, Any] | str | None = None,
        render_mode: str | None = None,
        opponent_options: Mapping[str, Any] | None = None,
        learner_phases: Sequence[str] | None = None,
        stand_in: Any = None,
        **config: Any,
    ) -> None:
        own = options_of(DixitSingleAgentEnv.__init__)
        table_options = options_of(raw_env.__init__)
        check_rule_overrides({k: v for k, v in config.items() if k not in table_options},
                             environment=SINGLE_AGENT,
                             options=[*own, *(o for o in table_options if o not in own)])
        self.table = raw_env(render_mode=render_mode, **config)
        n = self.table.core.n_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be a seat of this {n}-player game (0-{n - 1}), "
                             f"not {seat!r}")
        others = [s for s in range(n) if s != seat]
        chosen: dict[int, Any]
        if opponents is None or isinstance(opponents, str):
            chosen = dict.fromkeys(others, opponents or "random")
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
        phases = ("tell", "play", "vote")
        chosen_phases = tuple(learner_phases) if learner_phases is not None else phases
        if not chosen_phases or any(p not in phases for p in chosen_phases):
            raise ValueError(f"learner_phases must be a non-empty subset of {phases}, not "
                             f"{learner_phases!r}")
        self.learner_phases = frozenset(chosen_phases)
        needs_stand_in = self.learner_phases != frozenset(phases)
        if stand_in is not None and not needs_stand_in:
            raise ValueError(f"stand_in plays the learner seat's phases outside learner_phases; "
                             f"the learner decides every phase ({', '.join(phases)}), so "
                             f"stand_in={getattr(stand_in, 'name', stand_in)!r} would play "
                             f"nothing: give learner_phases or leave stand_in out")
        stand_in = "embedding" if stand_in is None else stand_in
        if opponent_options and not any(agent == "embedding" for agent in chosen.values()) and (
                not needs_stand_in or stand_in != "embedding"):
            raise ValueError(f"opponent_options are keyword arguments of the 'embedding' "
                             f"opponents and stand-in; no seat here is played by one, so "
                             f"{dict(opponent_options)!r} would change nothing")
        self.seat = seat
        self.learner = agent_name(seat)
        self.encoding = self.table.encoding
        self._opponent_options = dict(opponent_options or {})
        self._vectors: VectorTable | None = None
        self.players: dict[str, AgentPlayer] = {}
        self.policies: dict[str, SelfPlay] = {}
        for other, agent in chosen.items():
            if isinstance(agent, SelfPlay):
                self.policies[agent_name(other)] = agent
            elif agent == "embedding":
                self.players[agent_name(other)] = AgentPlayer(EmbeddingAgent(
                    self.vector_table(), **self._opponent_options))
            else:
                self.players[agent_name(other)] = AgentPlayer(agent)
        self.stand_in: AgentPlayer | None = None
        if needs_stand_in:
            self.stand_in = AgentPlayer(EmbeddingAgent(self.vector_table(),
                                                       **self._opponent_options)
                                        if stand_in == "embedding" else stand_in)
        self._check_party_seats()
        self.render_mode = render_mode
        self.action_space: spaces.Space[Any] = self.table.action_space(self.learner)
        full = self.table.observation_space(self.learner)
        assert isinstance(full, spaces.Dict)
        self.legacy = self.encoding.legacy
        self.dict_space = spaces.Dict(
            {key: space for key, space in full.spaces.items() if key != "action_mask"})
        if self.legacy:
            flat = spaces.flatten_space(self.dict_space)
            assert isinstance(flat, spaces.Box)
            self.observation_space: spaces.Space[Any] = flat
        else:
            inner = full.spaces.get("observation")
            self.observation_space = inner if inner is not None else self.dict_space
        self._mask = np.zeros(self.encoding.n_actions, dtype=np.int8)
        self._terminal_mask = np.zeros(self.encoding.n_actions, dtype=np.int8)
        self._carried = 0.0
        self._reported = 0  # the game's rounds already listed in an info["rounds"]
        self._terminal_mask[0] = 1

    def _check_party_seats(self) -> None:
        """Refuse, before any game, seats that cannot make Dixit Party's two decisions."""
        if self.table.core.rules.mode != "party":
            return
        seats = [(f"seat {self.table.seat_of[name]}", player.agent)
                 for name, player in self.players.items()]
        if self.stand_in is not None:
            seats.append((f"the stand-in of the learner's seat {self.seat} (learner_phases="
                          f"{tuple(sorted(self.learner_phases))})", self.stand_in.agent))
        for where, agent in seats:
            missing = missing_party_decisions(agent)
            if missing:
                raise ValueError(
                    f"{where}: agent {getattr(agent, 'name', agent)!r} cannot play Dixit Party "
                    f"(no {missing}); Party agents: random, party-embedding (the embedding "
                    "opponents and stand-in cannot)")

    def vector_table(self) -> VectorTable:
        """The card and clue vectors of the embedding opponents (loaded on first use; never
        projected: ``embedding_dim`` shapes the learner's observation only)."""
        if self._vectors is None:
            options = self.table.options
            self._vectors = resolve_vector_table(options.embeddings, self.table.core.deck_source,
                                                 options.embedder, None)
        return self._vectors

    @property
    def game_seed(self) -> int | None:
        """The seed of the game being played (``play_game`` with it replays the game), as the
        multi-agent environments give it."""
        return self.table.game_seed

    @property
    def illegal_actions(self) -> list[IllegalActionEvent]:
        """Every illegal action of the game so far (the learner's: its opponents are agents),
        as the multi-agent environments record them."""
        return self.table.illegal_actions

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as booleans (sb3-contrib's ``MaskablePPO`` API)."""
        mask: np.ndarray = self._mask.astype(bool)
        return mask

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a game (seeded as ``play_game(seed=...)``) and play until the learner's turn."""
        super().reset(seed=seed)
        table = self.table
        table.reset(seed=seed)
        for name, player in self.players.items():
            player.reset(table, name)
        if self.stand_in is not None:
            self.stand_in.reset(table, self.learner)
        # Points the learner scores before its first decision (with ``learner_phases`` that
        # skip the first rounds) come with its first step's reward: the return stays the game's,
        # and that step's info["rounds"] lists those rounds too.
        self._reported = 0
        self._carried = self._advance()
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's action, then the other seats until the learner's next turn."""
        table = self.table
        carried, self._carried = self._carried, 0.0
        if self._finished():
            observation = self._observation()
            info = self._info()
            info["rounds"] = self._new_rounds()
            return observation, carried, bool(table.terminations[self.learner]), bool(
                table.truncations[self.learner]), info
        table.step(action)
        reward = carried + float(table.rewards[self.learner])
        reward += self._advance()
        terminated = bool(table.terminations[self.learner])
        truncated = bool(table.truncations[self.learner])
        observation = self._observation()  # sets the mask that the info holds
        info = self._info()
        info["rounds"] = self._new_rounds()
        return observation, reward, terminated, truncated, info

    def _new_rounds(self) -> Any:
        """The rounds scored since the last step's info listed rounds (those of ``reset``
        included)."""
        results = self.table.core.state.results
        new, self._reported = results[self._reported:], len(results)
        return new

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
        players, policies = self.players, self.policies
        learner, stand_in = self.learner, self.stand_in
        while not self._finished() and (table.agent_selection != learner or (
                stand_in is not None and not self._learner_decides())):
            agent = table.agent_selection
            player = players.get(agent) if agent != learner else stand_in
            if player is not None:
                table.step(player.act(table, agent))
            else:
                observation = table.observe(agent)
                mask = observation.pop("action_mask")
                inner = observation.get("observation", observation) if not self.legacy else (
                    self._legacy_flat(observation))
                table.step(policies[agent].act(inner, mask))
            reward += float(table.rewards[self.learner])
        return reward

    def _learner_decides(self) -> bool:
        return self.table.core.state.phase.value in self.learner_phases

    def _observation(self) -> Any:
        observation = self.table.observe(self.learner)
        # The mask goes to info, never into the observation, at the end of a game too (the
        # observation must stay inside observation_space).
        mask = observation.pop("action_mask", None)
        self._mask = mask if not self._finished() else self._terminal_mask.copy()
        if not self.legacy:
            inner = observation.get("observation")
            return inner if inner is not None else observation
        return self._legacy_flat(observation)

    def _legacy_flat(self, observation: dict[str, Any]) -> np.ndarray:
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
