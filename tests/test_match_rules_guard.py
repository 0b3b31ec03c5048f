"""An in-process agent that writes to the game's rules (a frozen RuleSet shared by every game of
the process on its edition) is caught after its decision: the rules are put back and the game
stops naming it. It changed storyteller_points to 30 for every later game of the process."""

from __future__ import annotations

from typing import Any

import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent, Story
from dixit_ai.agents.checks import RulesChanged
from dixit_ai.rules import RuleSet, View


class Mutator(RandomAgent):
    def __init__(self, then_raise: bool = False) -> None:
        super().__init__(name="mutator")
        self.then_raise = then_raise

    def tell(self, view: View) -> Story:
        object.__setattr__(view.rules, "storyteller_points", 30)
        if self.then_raise:
            raise RuntimeError("covering my tracks")
        return super().tell(view)


def game(agent: Any, on_failure: str = "abort") -> Any:
    return play_game([agent, RandomAgent(), RandomAgent()], edition="refresh-2021",
                     deck=range(84), seed=1, max_rounds=3, on_failure=on_failure)


@pytest.mark.parametrize("then_raise", [False, True])
@pytest.mark.parametrize("on_failure", ["abort", "forfeit"])
def test_an_agent_that_changes_the_rules_stops_the_game_and_they_are_put_back(
        then_raise: bool, on_failure: str) -> None:
    before = RuleSet.edition("refresh-2021").storyteller_points
    with pytest.raises(RulesChanged, match=r"seat 0: agent 'mutator' \(Mutator\) changed the "
                       r"game's rules in its tell decision \(storyteller_points 3 -> 30\)"):
        game(Mutator(then_raise), on_failure)
    assert RuleSet.edition("refresh-2021").storyteller_points == before == 3
    record = game(RandomAgent())
    assert record.header["rules"]["storyteller_points"] == 3


class ConstructorMutator(RandomAgent):
    """Changes the shared rules as it is made (the probe's ``initmut``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(name="initmut")
        object.__setattr__(RuleSet.edition("refresh-2021"), "score_limit", 3)


def test_an_agent_that_changes_the_rules_as_it_is_made_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Named by string, it is made inside the game: its constructor is checked like its
    decisions (the game was played to a 3-point limit in a refresh-2021 record). Made outside,
    the next game's rules refuse (and are put back), so no later game plays them."""
    from dixit_ai.agents import registry
    from dixit_ai.rules.ruleset import SharedRulesChanged

    registry._ensure_configs()  # read once, before this test's entry (taken out after it)
    monkeypatch.setitem(registry._REGISTRY, "initmut-test", registry.AgentSpec(
        "initmut-test", f"{__name__}:ConstructorMutator", {}))
    with pytest.raises(RulesChanged, match=r"seat 0: agent 'initmut' \(ConstructorMutator\) "
                       r"changed the game's rules in its constructor \(score_limit 30 -> 3\)"):
        play_game(["initmut-test", "random", "random"], edition="refresh-2021", deck=range(84),
                  seed=1)
    assert RuleSet.edition("refresh-2021").score_limit == 30
    ConstructorMutator()  # made outside any game
    with pytest.raises(SharedRulesChanged, match=r"score_limit 30 -> 3"):
        game(RandomAgent())
    assert game(RandomAgent()).header["rules"]["score_limit"] == 30
