"""An agent that answers a card it does not hold: the environment's illegal-action event keeps
what the agent returned, not only the translated index -1."""

from __future__ import annotations

from typing import Any

import pytest

from dixit_ai.agents import Choice, RandomAgent, Story
from envs.single_agent import DixitSingleAgentEnv
from tests.envs.helpers import DECK

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class ForeignPlayer(RandomAgent):
    def play(self, view: Any) -> Choice:
        return Choice((999,))


class ForeignTeller(RandomAgent):
    def tell(self, view: Any) -> Story:
        return Story(card=999, clue="sun")


@pytest.mark.parametrize(("opponent", "returned"), [
    (ForeignPlayer, "(999,)"), (ForeignTeller, "Story(card=999")])
def test_the_event_keeps_what_the_agent_returned(opponent: type, returned: str) -> None:
    env = DixitSingleAgentEnv(seat=0, opponents=[opponent(), opponent(), RandomAgent()],
                              deck=DECK, edition="refresh-2021")
    env.reset(seed=0)
    info: dict[str, Any] = {}
    for _ in range(20):
        _, _, terminated, truncated, info = env.step({"card": 0, "clue": "sun"})
        if terminated or truncated:
            break
    assert "index -1" in info["illegal_action"]
    (event,) = env.unwrapped.table.illegal_actions
    assert "'card': -1" in event.action and returned in event.action
