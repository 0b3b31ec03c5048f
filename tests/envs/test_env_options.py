"""A keyword an environment does not know is refused as what it is: a misspelt option, an option of
another environment, or a misspelt rule parameter, with what it may have meant. Before, each was
an "unknown rule parameter" whose list named rule parameters only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import pytest

import envs  # noqa: F401  (registers dixit_ai/Dixit-v0)
from envs import dixit_v0
from envs.vector import DixitVectorEnv

DECK = list(range(84))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: dixit_v0.env(deck=DECK, observations="embedding"),
     "'observations' is neither an option of dixit_v0.env nor a rule parameter (did you mean "
     "'observation'?): its options are edition, n_players, deck,"),
    (lambda: dixit_v0.env(deck=DECK, acting_only=True),
     "'acting_only' is an option of dixit_v0.parallel_env, not of dixit_v0.env"),
    (lambda: dixit_v0.parallel_env(deck=DECK, oponents="embedding"),
     "'oponents' is neither an option of dixit_v0.parallel_env nor a rule parameter (did you "
     "mean 'opponents', an option of the single-agent environment (dixit_ai/Dixit-v0)?)"),
    (lambda: dixit_v0.env(deck=DECK, score_limt=3),
     "(did you mean 'score_limit', a rule parameter?)"),
    (lambda: gymnasium.make("dixit_ai/Dixit-v0", deck=DECK, oponents="embedding"),
     "'oponents' is neither an option of the single-agent environment (dixit_ai/Dixit-v0) nor a "
     "rule parameter (did you mean 'opponents'?): its options are seat, opponents,"),
    (lambda: gymnasium.make("dixit_ai/Dixit-v0", deck=DECK, acting_only=True),
     "'acting_only' is an option of dixit_v0.parallel_env, not of the single-agent environment"),
    (lambda: DixitVectorEnv(2, oponents="random"),
     "'oponents' is neither an option of envs.vector.DixitVectorEnv nor a rule parameter (did "
     "you mean 'opponents'?)"),
])
def test_an_unknown_keyword_is_named_with_what_it_may_have_meant(
        make: Callable[[], Any], message: str) -> None:
    with pytest.raises(ValueError) as refused:
        make()
    assert message in str(refused.value)


def test_rule_parameters_still_pass_and_the_list_names_them() -> None:
    assert dixit_v0.env(deck=DECK, score_limit=10).unwrapped.rules.score_limit == 10
    with pytest.raises(ValueError, match="and the rule parameters are all_or_none_points, "):
        dixit_v0.env(deck=DECK, nonsense=1)


def test_a_vocabulary_given_as_one_string_is_refused() -> None:
    """Before, clue_vocab="abc" made a vocabulary of three clues: a, b and c."""
    with pytest.raises(ValueError, match="clue_vocab must be a list of clues, not the text "
                                         "'abc'"):
        dixit_v0.env(deck=DECK, clue_mode="vocab", clue_vocab="abc")
    assert dixit_v0.env(deck=DECK, clue_mode="vocab",
                        clue_vocab=["abc"]).unwrapped.core.vocab == ("abc",)


def test_the_single_agent_env_gives_its_game_seed_and_illegal_actions_as_the_readme_says() -> None:
    """The README says ``env.unwrapped.game_seed`` and ``env.unwrapped.illegal_actions``;
    the single-agent environment had neither (they were on ``env.unwrapped.table``)."""
    env = gymnasium.make("dixit_ai/Dixit-v0", deck=DECK)
    env.reset(seed=5)
    assert env.unwrapped.game_seed == env.unwrapped.table.game_seed is not None
    assert env.unwrapped.illegal_actions == []
    env.step({"card": 99, "clue": ""})   # no such card, an empty clue: illegal
    (event,) = env.unwrapped.illegal_actions
    assert event is env.unwrapped.table.illegal_actions[0]


def test_the_options_other_environments_take_are_listed_as_they_are() -> None:
    """``OPTIONS_ELSEWHERE`` names each option one environment takes and another does not; it
    is checked against the signatures here, so that a new option is not left out of the
    hints."""
    from envs.dixit_v0 import raw_env
    from envs.options import OPTIONS_ELSEWHERE, SINGLE_AGENT, options_of
    from envs.parallel import DixitParallelEnv
    from envs.single_agent import DixitSingleAgentEnv

    table = set(options_of(raw_env.__init__))
    assert {name for name, where in OPTIONS_ELSEWHERE.items() if where == SINGLE_AGENT} == (
        set(options_of(DixitSingleAgentEnv.__init__)) - table)
    parallel = set(options_of(DixitParallelEnv.__init__)) - table
    assert {name for name, where in OPTIONS_ELSEWHERE.items()
            if where == "dixit_v0.parallel_env"} == parallel
