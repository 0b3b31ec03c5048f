"""What the AEC and the Parallel Dixit environments share: configuration, spaces, seeding,
rendering and the bookkeeping of illegal actions (:class:`TableBase`).

The environments themselves are in :mod:`envs.dixit_v0` (AEC) and :mod:`envs.parallel`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from dixit_ai.rules import IllegalAction, RoundResult, RuleSet, View
from envs.core import DixitCore, IllegalActionEvent, IllegalActionPolicy
from envs.options import EnvOptions, check_rule_overrides, options_of
from envs.render import CardImages, agent_name, render_image, render_text
from envs.rewards import round_rewards
from envs.seeding import SeedSource

METADATA: dict[str, Any] = {
    "name": "dixit_v0",
    "render_modes": ["ansi", "rgb_array", "human"],
    "render_fps": 1,
}



class TableBase:
    """What the AEC and the Parallel environments share: configuration, spaces, rendering."""

    metadata: ClassVar[dict[str, Any]]
    environment_name: ClassVar[str] = "this environment"
    """How an error names the environment (``dixit_v0.env``, ``dixit_v0.parallel_env``)."""
    render_mode: str | None
    possible_agents: list[str]

    def _setup(
        self,
        *,
        edition: str,
        n_players: int,
        deck: Any,
        clue_mode: str,
        clue_vocab: Sequence[str] | None,
        max_rounds: int | None,
        illegal_action: str,
        render_mode: str | None,
        rule_overrides: Mapping[str, Any],
        options: EnvOptions | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of "
                             f"{', '.join(self.metadata['render_modes'])}, not {render_mode!r}")
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', not {illegal_action!r}")
        check_rule_overrides(rule_overrides, environment=self.environment_name,
                             options=options_of(type(self).__init__))
        self.core = DixitCore(edition=edition, n_players=n_players, deck=deck,
                              clue_mode=clue_mode, clue_vocab=clue_vocab, max_rounds=max_rounds,
                              rule_overrides=rule_overrides)
        self.render_mode = render_mode
        self.illegal_action: IllegalActionPolicy = (
            "raise" if illegal_action == "raise" else "terminate")
        self.options = options or EnvOptions()
        self.encoding = self.options.encoding(self.core, deck)
        self.reward_mode = self.options.reward_mode
        self.possible_agents = [agent_name(seat) for seat in range(n_players)]
        self.seat_of: dict[str, int] = {a: seat for seat, a in enumerate(self.possible_agents)}
        self._action_spaces = {a: self.encoding.action_space() for a in self.possible_agents}
        self._observation_spaces = {a: self.encoding.observation_space()
                                    for a in self.possible_agents}
        self.state_space: spaces.Box = self.core.state_space()
        self.illegal_actions: list[IllegalActionEvent] = []
        self._seeds = SeedSource()
        self._images: CardImages | None = None

    # ------------------------------------------------------------------ public helpers

    @property
    def rules(self) -> RuleSet:
        """The game's :class:`~dixit_ai.rules.RuleSet`."""
        return self.core.rules

    @property
    def game_seed(self) -> int | None:
        """The seed of the current game (``play_game(seed=...)`` plays the same deal)."""
        return self.core.game_seed

    @property
    def pass_index(self) -> int | None:
        """The ``card`` index that passes a second vote (``None`` where there is no second vote)."""
        return self.core.pass_index

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation space of ``agent`` (the same object all game long)."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The action space of ``agent`` (the same object all game long)."""
        return self._action_spaces[agent]

    def view(self, agent: str) -> View:
        """The rules' view of ``agent``'s seat: what it may know (for ``dixit_ai`` agents)."""
        return self.core.view(self.seat_of[agent])

    def turn_index(self, agent: str) -> int:
        """0 on ``agent``'s first choice of the phase, 1 on its second card or second vote."""
        return self.core.turn_index(self.seat_of[agent])

    def state(self) -> np.ndarray:
        """The full state (every hand, owner, vote and partial choice), for centralised training."""
        return self.core.state_vector()

    def render(self) -> str | np.ndarray | None:
        """The table as text (``"ansi"``), a picture (``"rgb_array"``), or printed (``"human"``)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; nothing is rendered")
            return None
        if self.render_mode == "rgb_array":
            if self._images is None:
                self._images = CardImages(self.core.deck_source)
            return render_image(self.core, self._images)
        text = render_text(self.core)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Release the card images held for rendering."""
        self._images = None

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_images"] = None  # card pictures are reloaded when next rendered
        return state

    # ------------------------------------------------------------------ shared steps

    def _round_rewards(self, result: RoundResult) -> list[float]:
        core = self.core
        return round_rewards(self.reward_mode, points=result.points, scores=result.scores,
                             over=core.state.is_over or core.is_truncated())

    def _seed_game(self, seed: int | None) -> None:
        self.core.reset(self._seeds.next(seed))
        self.illegal_actions = []

    def _record_illegal(self, agent: str, action: Any, error: IllegalAction) -> IllegalActionEvent:
        state = self.core.state
        text = repr(action)
        event = IllegalActionEvent(agent=agent, phase=state.phase.value, round=state.round,
                                   reason=str(error), action=text[:300])
        self.illegal_actions.append(event)
        return event
