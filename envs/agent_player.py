"""Playing a ``dixit_ai`` agent in an environment seat.

An :class:`~dixit_ai.agents.Agent` decides once per decision (``tell``, ``play``, ``vote``) from its
seat's :class:`~dixit_ai.rules.View`; the environments ask for one card or one vote per turn.
:class:`AgentPlayer` asks the agent exactly when :func:`dixit_ai.play_game` would (on the seat's
first turn of a phase) and hands out its decision one turn at a time: two cards in 3-player games,
and a second vote or a "pass" where a second vote exists. Seeded like ``play_game`` seeds it (the
env's ``core.streams[seat + 1]``), an agent makes the same decisions in the environments as in
``play_game``, which is what makes the three give the same game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dixit_ai.agents import Agent, Announcement, Story, as_choice, make_agent
from dixit_ai.rules import Phase, View
from envs.core import DixitCore


class AgentPlayer:
    """Plays ``agent`` in one seat of a Dixit environment.

    Args:
        agent: An agent, or the registry name of one (``"random"``).

    Example::

        player = AgentPlayer("random")
        player.reset(env, "player_1")           # after env.reset(seed=...)
        env.step(player.act(env, "player_1"))   # on player_1's turns
    """

    def __init__(self, agent: Agent | str) -> None:
        self.agent: Agent = make_agent(agent) if isinstance(agent, str) else agent
        self._queue: list[dict[str, Any]] = []
        self._env: Any = None
        self._table: Any = None

    def reset(self, env: Any, agent_name: str) -> None:
        """Start a game in ``agent_name``'s seat of ``env`` (an env already reset).

        The agent gets the seat's own random stream, as ``play_game`` gives it.
        """
        table = env.unwrapped
        core: DixitCore = table.core
        seat = table.seat_of[agent_name]
        self.agent.reset(seat=seat, rng=np.random.default_rng(core.streams[seat + 1]))
        self._queue = []
        self._env, self._table = env, table

    def act(self, env: Any, agent_name: str) -> dict[str, Any]:
        """The environment action of ``agent_name`` for its current turn."""
        table = self._table if env is self._env else env.unwrapped
        core: DixitCore = table.core
        seat = table.seat_of[agent_name]
        if not (self._queue and core.partial[seat]):
            self._queue = self._decide(core, core.view(seat))
        return self._queue.pop(0)

    def _decide(self, core: DixitCore, view: View) -> list[dict[str, Any]]:
        filler: Any = "-" if core.vocab is None else 0
        if view.phase is Phase.TELL and view.is_party:
            said = self.agent.announce(view)  # type: ignore[attr-defined]
            if not isinstance(said, Announcement):
                return [{"card": -1, "clue": filler, "decision": repr(said)}]
            party_clue: Any = said.clue
            if core.vocab is not None and party_clue in core.vocab_index:
                party_clue = core.vocab_index[party_clue]
            return [{"card": 0, "clue": party_clue}]
        if view.phase is Phase.RED:
            red = as_choice(self.agent.red_token(view)).items  # type: ignore[attr-defined]
            if len(red) != 1:
                return [{"card": -1, "clue": filler, "decision": repr(red)}]
            return [{"card": red[0], "clue": filler}]
        if view.phase is Phase.TELL:
            story = self.agent.tell(view)
            if not isinstance(story, Story):
                return [{"card": -1, "clue": filler, "decision": repr(story)}]
            clue: Any = story.clue
            if core.vocab is not None and clue in core.vocab_index:
                clue = core.vocab_index[clue]
            action = {"card": _position(view.hand, story.card), "clue": clue}
            if story.clue_kind is not None:
                action["clue_kind"] = story.clue_kind
            if action["card"] == -1:  # not in the hand: the event keeps what it returned
                action["decision"] = f"Story(card={story.card!r}, clue={story.clue!r})"
            return [action]
        if view.phase is Phase.PLAY:
            items = as_choice(self.agent.play(view)).items
            if not items and view.can_pass and core.pass_index is not None:
                return [{"card": core.pass_index, "clue": filler}]  # the partner gives
            if len(items) != view.cards_to_play:
                return [{"card": -1, "clue": filler, "decision": repr(items)}]
            played = [{"card": _position(view.hand, card), "clue": filler} for card in items]
            if any(action["card"] == -1 for action in played):  # a card it does not hold
                for action in played:
                    action["decision"] = repr(items)
            return played
        items = as_choice(self.agent.vote(view)).items
        if not 1 <= len(items) <= view.max_votes:
            return [{"card": -1, "clue": filler, "decision": repr(items)}]
        actions = [{"card": position, "clue": filler} for position in items]
        if core.pass_index is not None and view.max_votes > 1 and len(items) == 1:
            actions.append({"card": core.pass_index, "clue": filler})
        return actions


def _position(items: Sequence[int], item: int) -> int:
    """The index of ``item`` in ``items``; -1 (an illegal index) if it is not there."""
    try:
        return items.index(item)
    except ValueError:
        return -1
