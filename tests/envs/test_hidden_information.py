"""Hidden information: no observation carries another seat's hand or unrevealed choices.

As in the rules' test, everything a seat may not know is permuted (other hands, the draw pile,
other seats' played cards before the board is laid, who owns which board card and the other votes
before the reveal) together with what only the environment holds (other seats' partial choices: a
first card, a first vote); the seat's observation must not change.
"""

from __future__ import annotations

import copy

import numpy as np
from gymnasium.utils.env_checker import data_equivalence
from hypothesis import given, settings
from hypothesis import strategies as st

from dixit_ai.rules import EDITIONS, Phase
from envs import dixit_v0
from tests.envs.helpers import DECK
from tests.rules.test_hidden_information import scramble_hidden


def advance(env: dixit_v0.raw_env, steps: int) -> None:
    """Play ``steps`` masked random turns (fewer if the game ends)."""
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))


def scrambled(env: dixit_v0.raw_env, seat: int, seed: int) -> dixit_v0.raw_env:
    """A copy of ``env`` with everything ``seat`` may not know permuted."""
    other = copy.deepcopy(env)
    core = other.core
    rng = np.random.default_rng(seed)
    core.set_state(scramble_hidden(core.state, seat, rng))
    state = core.state
    for s in range(core.n_players):
        if s == seat or not core.partial[s]:
            continue
        if state.phase is Phase.PLAY:  # a first card, from the (scrambled) hand
            core.partial[s] = (state.hands[s][int(rng.integers(len(state.hands[s])))],)
        elif state.phase is Phase.VOTE:  # a first vote, anywhere on the board
            core.partial[s] = (int(rng.integers(len(state.board))),)
    return other


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(EDITIONS), st.sampled_from([3, 4, 5, 6]), st.integers(0, 2**31),
       st.integers(0, 60), st.sampled_from(["text", "vocab"]))
def test_observations_ignore_hidden_information(edition: str, n: int, seed: int, steps: int,
                                                clue_mode: str) -> None:
    env = dixit_v0.raw_env(edition=edition, n_players=n, deck=DECK, clue_mode=clue_mode)
    env.reset(seed=seed)
    for agent in env.possible_agents:
        env.action_space(agent).seed(seed)
    advance(env, steps)
    for seat, agent in enumerate(env.possible_agents):
        observation = env.observe(agent)
        for k in range(3):
            other = scrambled(env, seat, seed + k)
            assert data_equivalence(other.observe(agent), observation), (agent, k)


def test_the_scramble_changes_the_state() -> None:
    """Guard: the property above is not vacuous (the full state does change)."""
    env = dixit_v0.raw_env(edition="refresh-2021", n_players=3, deck=DECK)
    env.reset(seed=0)
    for agent in env.possible_agents:
        env.action_space(agent).seed(0)
    advance(env, 2)  # the tell and player_1's first card: a partial choice in the PLAY phase
    assert env.core.state.phase is Phase.PLAY and env.core.partial[1]
    other = scrambled(env, 0, 1)
    assert not np.array_equal(other.state(), env.state())
    assert other.core.partial[1] != env.core.partial[1] or (
        other.core.state.hands != env.core.state.hands)
    assert data_equivalence(other.observe("player_0"), env.observe("player_0"))
    assert not data_equivalence(other.observe("player_1"), env.observe("player_1"))


def test_partial_choices_show_only_to_their_seat() -> None:
    env = dixit_v0.raw_env(edition="odyssey-2024", n_players=4, deck=DECK)
    env.reset(seed=2)
    while env.core.state.phase is not Phase.VOTE:
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))
    voter = env.agent_selection
    mask = env.observe(voter)["action_mask"]
    first = int(np.flatnonzero(mask)[0])
    env.step({"card": first, "clue": "-"})
    assert env.agent_selection == voter  # the second-vote turn
    mine = env.observe(voter)
    assert mine["turn"] == 1 and mine["my_votes"][0] == first and mine["action_mask"][first] == 0
    assert mine["action_mask"][env.pass_index] == 1
    for agent in env.possible_agents:
        if agent != voter:
            seen = env.observe(agent)
            assert seen["turn"] == 0 and not seen["action_mask"].any()
            assert (seen["last_votes"] == -1).all() or env.core.state.round > 0
