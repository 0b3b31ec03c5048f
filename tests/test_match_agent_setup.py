"""An agent's reset() and describe() are checked at the start of a game: a failure is named
(seat, agent, method, field) before anything is played, as a ValueError (AgentSetupError), not a
raw error from inside the runner, nor a record that cannot be written after the game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent
from dixit_ai.agents.checks import AgentSetupError


class Described(RandomAgent):
    """A random agent whose describe() returns ``description`` (or raises it)."""

    def __init__(self, description: Any, name: str = "desc") -> None:
        super().__init__(name=name)
        self.description = description

    def describe(self) -> Any:
        if isinstance(self.description, BaseException):
            raise self.description
        return self.description


class ResetRaises(RandomAgent):
    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        raise RuntimeError("reset broke")


def game(agent: Any, writable: bool = True) -> Any:
    return play_game([RandomAgent(), agent, RandomAgent()], edition="refresh-2021",
                     deck=range(84), seed=1, max_rounds=1, writable=writable)


def test_a_reset_that_raises_is_named_with_its_seat_and_agent() -> None:
    with pytest.raises(AgentSetupError, match=r"seat 1: agent 'random' \(ResetRaises\): "
                       r"reset\(\) raised RuntimeError: reset broke"):
        game(ResetRaises())


@pytest.mark.parametrize(("description", "field"), [
    ({"name": "desc", "temp": np.float32(0.5)},
     r"describe\(\)\['temp'\] is a numpy float32 .*float\(x\)"),
    ({"name": "desc", "s": {1, 2}}, r"describe\(\)\['s'\] is a set"),
    ({"name": "desc", "model": {"t": float("nan")}}, r"describe\(\)\['model'\]\['t'\] is nan"),
    ({"name": "desc", "ids": [1, np.int64(2)]}, r"describe\(\)\['ids'\]\[1\] is a numpy int64"),
    ({"name": "desc", 3: "x"}, r"describe\(\) mixes keys of the types int, str"),
    ({"name": "desc", "k": {(1, 2): "x"}}, r"describe\(\)\['k'\] has the key \(1, 2\) \(tuple\)"),
    (None, r"describe\(\) must return a dict .* not None"),
    ({"x": 1}, r"describe\(\) must give the agent's name as 'name'"),
    ({"name": "impostor"}, r"describe\(\)\['name'\] is 'impostor' but the agent is named "
                           r"'desc'"),
    (RuntimeError("describe broke"), r"describe\(\) raised RuntimeError: describe broke"),
    (SystemExit(3), r"describe\(\) called sys.exit\(3\)"),
])
def test_a_description_a_record_cannot_hold_is_refused_naming_the_field(
        description: Any, field: str) -> None:
    with pytest.raises(AgentSetupError, match=r"seat 1: agent 'desc' \(Described\)(: | )"
                       + field):
        game(Described(description))


def test_a_long_description_is_refused() -> None:
    with pytest.raises(AgentSetupError, match="at most 100,000 per agent"):
        game(Described({"name": "desc", "text": "x" * 100_001}))


def test_a_description_with_a_dataclass_or_number_keys_is_recorded() -> None:
    """The record writes a dataclass as its fields and number keys as text: the check takes
    what the writer takes (a dataclass made the check itself raise a TypeError)."""
    import dataclasses

    @dataclasses.dataclass
    class Settings:
        temp: float = 0.5

    record = game(Described({"name": "desc", "settings": Settings(), "by_seat": {0: 1, 2: 3}}))
    assert '"by_seat":{"0":1,"2":3}' in record.to_json()
    assert '"settings":{"temp":0.5}' in record.to_json()


def test_a_plain_description_is_recorded_as_given() -> None:
    given = {"name": "desc", "temp": 0.5, "layers": [1, 2], "model": {"id": None, "on": True}}
    record = game(Described(given))
    assert record.header["agents"][1] == given
    record.to_json()


def test_a_record_kept_in_memory_takes_any_description_and_to_json_names_the_field() -> None:
    record = game(Described({"name": "desc", "temp": np.float32(0.5)}), writable=False)
    with pytest.raises(ValueError, match=r"cannot be written: header\['agents'\]\[1\]\['temp'\] "
                       "is a numpy float32"):
        record.to_json()


def test_a_description_without_the_name_is_refused_even_in_memory() -> None:
    with pytest.raises(AgentSetupError, match="must return a dict"):
        game(Described(None), writable=False)
