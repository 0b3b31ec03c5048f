"""The registry's clip agents guess as ``clip-greedy`` does, as their descriptions and the README's
agent table say: the same vote, the same beliefs (which decide Odyssey's second vote) and the same
decoys. A storyteller compared with another is then compared as a storyteller, not by its
guesser."""

from __future__ import annotations

import inspect

from dixit_ai.agents import agent_spec, list_agents
from models.players.agent import ClipAgent

GUESSER_KWARGS = ("calibration", "vote_temperature", "belief_temperature", "second_vote", "bluff")
OWN_GUESSERS = {"clip-listener"}   # reads each storyteller's mind: a guesser of its own


def guesser_settings(name: str) -> dict[str, object]:
    defaults = {key: parameter.default
                for key, parameter in inspect.signature(ClipAgent.__init__).parameters.items()}
    kwargs = agent_spec(name).kwargs
    return {key: kwargs.get(key, defaults[key]) for key in GUESSER_KWARGS}


def test_every_clip_agent_guesses_as_clip_greedy() -> None:
    clip_agents = [spec.name for spec in list_agents()
                   if spec.entry_point.startswith("models.players")
                   and spec.kwargs.get("embedder") == "default" and spec.name not in OWN_GUESSERS
                   and not spec.name.startswith("party-")]
    assert {"clip-expected", "clip-sharp", "caption-teller", "clip-cryptic"} <= set(clip_agents)
    greedy = guesser_settings("clip-greedy")
    assert greedy["belief_temperature"] is not None    # fitted: Odyssey's second vote
    differ = {name: guesser_settings(name) for name in clip_agents
              if guesser_settings(name) != greedy}
    assert not differ, (greedy, differ)
