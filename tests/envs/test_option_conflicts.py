"""Environment options that do not apply are refused, not ignored, in every environment.

``clues_per_card`` and ``clue_proposer`` without ``actions="discrete"`` changed nothing;
``flatten=True`` with ``classic=True`` gave the flat form (``classic`` silently lost);
``actions="discrete"`` without vectors used the whole vocabulary as every card's candidates
whatever ``clue_proposer="spread"`` or ``clues_per_card`` said; ``embedder`` beside
``embeddings`` was never loaded; the single-agent env's ``stand_in`` and ``opponent_options``
were dropped where no seat used them. Options left at their defaults stay accepted.
"""

from __future__ import annotations

from typing import Any

import pytest

from envs import dixit_v0
from envs.single_agent import DixitSingleAgentEnv
from envs.vectors import VectorTable
from tests.envs.helpers import DECK

TABLE = VectorTable.random(DECK, [f"word{i}" for i in range(40)], dim=8, seed=3)

FACTORIES = {"aec": dixit_v0.env, "parallel": dixit_v0.parallel_env,
             "single-agent": DixitSingleAgentEnv}


@pytest.mark.parametrize("factory", FACTORIES.values(), ids=list(FACTORIES))
@pytest.mark.parametrize("options, message", [
    ({"embeddings": TABLE, "clues_per_card": 4},
     "clues_per_card is an option of actions='discrete'"),
    ({"embeddings": TABLE, "clue_proposer": "spread"},
     "clue_proposer is an option of actions='discrete'"),
    ({"embeddings": TABLE, "clue_proposer": lambda card: ("a",)},
     "clue_proposer is an option of actions='discrete'"),
    ({"flatten": True, "classic": True}, "flatten=True and classic=True do not go together"),
    ({"actions": "discrete", "clue_proposer": "spread"},
     "clue_proposer='spread' needs card and clue vectors"),
    ({"actions": "discrete", "clue_proposer": "specific"},
     "clue_proposer='specific' needs card and clue vectors"),
    ({"actions": "discrete", "clues_per_card": 4},
     "clues_per_card needs card and clue vectors or a clue_proposer function"),
    ({"embeddings": TABLE, "embedder": "default"},
     "embedder names the model to load vectors with"),
])
def test_options_that_do_not_apply_are_refused(factory: Any, options: dict[str, Any],
                                               message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        factory(deck=DECK, **options)


def _label(value: object) -> str:
    """A test id part that is the same in every process (no object addresses: pytest-xdist's
    workers must collect the same ids)."""
    if isinstance(value, str | int | float | bool) or value is None:
        return str(value)
    return type(value).__name__


@pytest.mark.parametrize("factory", FACTORIES.values(), ids=list(FACTORIES))
@pytest.mark.parametrize("options", [
    {},
    {"flatten": True},
    {"classic": True},
    {"flatten": True, "classic": False},
    {"clues_per_card": None, "clue_proposer": None},
    {"actions": "discrete"},
    {"actions": "discrete", "clue_proposer": lambda card: ("a", "b", "c"), "clues_per_card": 3},
    {"actions": "discrete", "embeddings": TABLE, "clues_per_card": 4, "clue_proposer": "spread"},
    {"actions": "discrete", "embeddings": TABLE, "clues_per_card": 8,
     "clue_proposer": "specific"},
], ids=lambda options: ",".join(f"{key}={_label(value)}" for key, value in options.items())
    or "none")
def test_defaults_and_options_that_apply_are_accepted(factory: Any,
                                                      options: dict[str, Any]) -> None:
    extra = {"clue_mode": "vocab"} if factory is DixitSingleAgentEnv and options.get(
        "actions") != "discrete" else {}
    env = factory(deck=DECK, **options, **extra)
    env.reset(seed=0)


def test_discrete_actions_without_vectors_tell_with_the_whole_vocabulary() -> None:
    env = dixit_v0.env(deck=DECK, actions="discrete")
    encoding = env.unwrapped.encoding
    assert encoding.clues_per_card == len(encoding.vocabulary)
    assert dixit_v0.env(deck=DECK, actions="discrete", embeddings=TABLE).unwrapped.encoding \
        .clues_per_card == 8


def test_single_agent_stand_in_needs_learner_phases() -> None:
    with pytest.raises(ValueError, match="stand_in plays the learner seat's phases outside "
                                         "learner_phases"):
        DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, stand_in="random", clue_mode="vocab")
    env = DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, stand_in="random",
                              learner_phases=("vote",), clue_mode="vocab")
    assert env.stand_in is not None and env.stand_in.agent.name == "random"


def test_single_agent_opponent_options_need_an_embedding_seat() -> None:
    with pytest.raises(ValueError, match="opponent_options are keyword arguments of the "
                                         "'embedding' opponents and stand-in"):
        DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, opponents="random",
                            opponent_options={"temperature": 0.1}, clue_mode="vocab")
    DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, opponents="embedding",
                        opponent_options={"temperature": 0.1}, clue_mode="vocab")
    DixitSingleAgentEnv(deck=DECK, embeddings=TABLE, opponents="random",
                        learner_phases=("vote",), opponent_options={"temperature": 0.1},
                        clue_mode="vocab")
