"""The Parallel Dixit environment: each phase's seats act at once (``dixit_v0.parallel_env``).

Configuration, spaces, rewards and turns are those of :mod:`envs.dixit_v0`'s module docstring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from dixit_ai.rules import IllegalAction
from envs.options import EnvOptions
from envs.table import METADATA, TableBase


class DixitParallelEnv(TableBase, ParallelEnv):  # type: ignore[misc]
    """The Parallel environment: every seat that acts in a phase acts in the same step.

    A parallel step is the tell (the storyteller alone), each card the guessers play (two steps
    in 3-player games), or each vote (two steps where a second vote exists). Actions of agents
    that do not act in a step are ignored; an acting agent without an action acts illegally.
    Spaces, rewards and the configuration are those of :class:`raw_env`.
    """

    environment_name = "dixit_v0.parallel_env"

    metadata: ClassVar[dict[str, Any]] = {**METADATA, "is_parallelizable": True}

    def __init__(
        self,
        *,
        edition: str = "refresh-2021",
        n_players: int = 4,
        deck: Any = "dream",
        clue_mode: str = "text",
        clue_vocab: Sequence[str] | None = None,
        max_rounds: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        observation: str = "ids",
        flatten: bool = False,
        classic: bool = False,
        actions: str = "dict",
        reward: str = "points",
        embeddings: Any = None,
        embedder: str | None = None,
        embedding_dim: int | None = None,
        clues_per_card: int | None = None,
        clue_proposer: Any = None,
        acting_only: bool = False,
        **rule_overrides: Any,
    ) -> None:
        self._setup(edition=edition, n_players=n_players, deck=deck, clue_mode=clue_mode,
                    clue_vocab=clue_vocab, max_rounds=max_rounds, illegal_action=illegal_action,
                    render_mode=render_mode, rule_overrides=rule_overrides,
                    options=EnvOptions(observation=observation, flatten=flatten,
                                       classic=classic, actions=actions, reward=reward,
                                       embeddings=embeddings, embedder=embedder,
                                       embedding_dim=embedding_dim,
                                       clues_per_card=clues_per_card,
                                       clue_proposer=clue_proposer))
        if not isinstance(acting_only, bool):
            raise ValueError(f"acting_only must be True or False, not {acting_only!r}")
        self.acting_only = acting_only
        self.agents: list[str] = []
        self._live: list[str] = []

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """Start a new game; return every agent's observation and info."""
        self._seed_game(seed)
        self._live = self.possible_agents[:]
        self.agents = self._live[:]
        observations = self._observations()
        return observations, {agent: {} for agent in observations}

    def _observations(self) -> dict[str, Any]:
        """Every live agent's observation; with ``acting_only``, those of the agents to act
        (every agent's once the game is over)."""
        core, encoding = self.core, self.encoding
        if self.acting_only and not core.is_over() and not core.is_truncated():
            return {self.possible_agents[seat]: encoding.observe(seat, True)
                    for seat in core.state.pending}
        return {agent: encoding.observe(self.seat_of[agent], core.is_acting(self.seat_of[agent]))
                for agent in self._live}

    def acting_agents(self) -> list[str]:
        """The agents whose actions the next step reads."""
        if not self._live:
            return []
        return [self.possible_agents[seat] for seat in self.core.state.pending]

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[dict[str, dict[str, Any]], dict[str, float], dict[str, bool], dict[str, bool],
               dict[str, dict[str, Any]]]:
        """Play the actions of the agents that act now; return observations, rewards, ..."""
        if not self._live:
            return {}, {}, {}, {}, {}
        core = self.core
        agents = self._live
        moves = []
        illegal: list[tuple[str, Any, IllegalAction]] = []
        for seat in core.state.pending:
            agent = self.possible_agents[seat]
            if agent not in actions:
                illegal.append((agent, None, IllegalAction(
                    f"seat {seat} must act in this step but was given no action")))
                continue
            try:
                move = core.build(seat, self.encoding.core_action(seat, actions[agent]))
                core.check(move)
            except IllegalAction as error:
                illegal.append((agent, actions[agent], error))
                continue
            moves.append((seat, move))
        rewards = dict.fromkeys(agents, 0.0)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in agents}
        over = truncated = False
        if illegal:
            events = [self._record_illegal(agent, action, error)
                      for agent, action, error in illegal]
            if self.illegal_action == "raise":
                raise illegal[0][2]
            core.ended_by = events[0]
            for event in events:
                rewards[event.agent] = -1.0
                infos[event.agent] = {"illegal_action": event.reason}
            over = True
        else:
            for _, move in moves:
                # A told clue the observations cannot embed raises here, the game unchanged,
                # instead of failing the observations after the tell was applied.
                self.encoding.admit(move)
            for seat, move in moves:
                result = core.commit(seat, move)
                if result is not None:
                    for agent, reward in zip(self.possible_agents, self._round_rewards(result),
                                             strict=True):
                        rewards[agent] = reward
            over = core.state.is_over
            truncated = core.is_truncated()
        observations = self._observations()
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, truncated)
        if over or truncated:
            self._live = []
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos
