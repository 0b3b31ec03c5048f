"""The environments' contracts: spaces, observations, illegal actions, copies, rendering."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
from PIL import Image

from dixit_ai.agents.random_agent import CLUE_WORDS
from dixit_ai.rules import IllegalAction, Phase
from envs import dixit_v0
from envs.core import CLUE_CHARSET, DixitActionSpace
from tests.envs.helpers import DECK


def to_phase(env: Any, phase: Phase, seed: int = 0) -> None:
    """Reset and play masked random turns until ``phase``."""
    env.reset(seed=seed)
    for agent in env.possible_agents:
        env.action_space(agent).seed(seed)
    while env.unwrapped.core.state.phase is not phase:
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))


# ---------------------------------------------------------------------- spaces


@pytest.mark.parametrize(("edition", "n", "cards", "passes"), [
    ("refresh-2021", 4, 6, False), ("refresh-2021", 3, 7, False), ("odyssey-2011", 6, 6, False),
    ("odyssey-2011", 7, 7, True), ("odyssey-2024", 3, 7, True), ("odyssey-2024", 12, 12, True)])
def test_action_space_sizes(edition: str, n: int, cards: int, passes: bool) -> None:
    env = dixit_v0.raw_env(edition=edition, n_players=n, deck=DECK)
    space = env.action_space("player_0")
    assert isinstance(space, spaces.Dict) and isinstance(space, DixitActionSpace)
    assert space["card"] == spaces.Discrete(cards + passes)
    assert env.pass_index == (cards if passes else None)
    clue = space["clue"]
    assert isinstance(clue, spaces.Text) and clue.max_length == 200 and clue.min_length == 1
    assert set(CLUE_CHARSET) >= set("azAZ09 .,!?'-")
    assert env.action_space("player_0") is space and env.action_space("player_1") is not space
    assert env.observation_space("player_0") is env.observation_space("player_0")


def test_vocab_mode_spaces_and_clues() -> None:
    vocab = ["lighthouse", "a long road home", "echo"]
    env = dixit_v0.raw_env(deck=DECK, clue_mode="vocab", clue_vocab=vocab)
    assert env.action_space("player_0")["clue"] == spaces.Discrete(3)
    assert env.observation_space("player_0")["clue"] == spaces.Discrete(4, start=-1)
    env.reset(seed=0)
    assert env.observe("player_1")["clue"] == -1
    env.step({"card": 2, "clue": 1})
    observation = env.observe("player_1")
    assert observation["clue"] == 1 and env.core.state.clue == "a long road home"
    assert env.observation_space("player_1").contains(observation)
    # Text outside the vocabulary is accepted too (scripted agents), and observed as -1.
    env.reset(seed=0)
    env.step({"card": 0, "clue": "not in the vocabulary"})
    assert env.observe("player_2")["clue"] == -1 and env.illegal_actions == []
    default = dixit_v0.raw_env(deck=DECK, clue_mode="vocab")
    assert default.action_space("player_0")["clue"] == spaces.Discrete(len(CLUE_WORDS))


def test_masked_sampling_gives_unmasked_cards_and_tellable_clues() -> None:
    env = dixit_v0.raw_env(deck=DECK)
    space = env.action_space("player_0")
    space.seed(0)
    mask = np.zeros(space["card"].n, dtype=np.int8)
    mask[[1, 4]] = 1
    for _ in range(200):
        action = space.sample(mask)
        assert action["card"] in (1, 4) and action["clue"].strip()
        assert space.contains(action)
    assert space.contains(space.sample())
    assert space.contains(space.sample(mask={"card": mask, "clue": None}))


# ---------------------------------------------------------------------- observations


def test_observation_holds_the_seat_view() -> None:
    env = dixit_v0.raw_env(edition="refresh-2021", n_players=4, deck=DECK)
    env.reset(seed=1)
    core = env.core
    observation = env.observe("player_2")
    assert observation["seat"] == 2 and observation["storyteller"] == 0
    assert observation["phase"] == 0 and observation["round"] == 0 and observation["clue"] == ""
    assert list(observation["hand"]) == list(core.state.hands[2])
    assert (observation["board"] == -1).all() and not observation["action_mask"].any()
    assert env.observation_space("player_2").contains(observation)
    to_phase(env, Phase.VOTE, seed=1)
    state = core.state
    observation = env.observe("player_3")
    assert list(observation["board"]) == list(state.board)
    assert observation["clue"] == state.clue and observation["phase"] == 2
    assert list(observation["my_cards"]) == list(state.played[3])
    while core.state.round == 0:
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))
    result = core.state.results[0]
    observation = env.observe("player_1")
    assert list(observation["last_board"]) == list(result.board)
    assert list(observation["last_owners"]) == list(result.board_owner)
    assert [list(v) for v in observation["last_votes"]] == [
        list(v) or [-1] for v in result.votes]
    assert list(observation["last_points"]) == list(result.points)
    assert list(observation["scores"]) == list(core.state.scores)
    assert observation["round"] == 1


def test_observations_cannot_be_changed_through_each_other() -> None:
    """Each array is either fresh, or read-only and shared by the round's observations."""
    env = dixit_v0.raw_env(deck=DECK)
    env.reset(seed=0)
    first, second = env.observe("player_0"), env.observe("player_0")
    assert data_equivalence(first, second)
    for key, value in first.items():
        if isinstance(value, np.ndarray) and np.shares_memory(value, second[key]):
            assert not value.flags.writeable, key
            with pytest.raises(ValueError, match="read-only"):
                value[...] = 0
    first["hand"][:] = 0
    assert (env.observe("player_0")["hand"] != 0).any()


def test_state_is_the_full_state() -> None:
    env = dixit_v0.raw_env(edition="odyssey-2024", n_players=3, deck=DECK)
    to_phase(env, Phase.VOTE, seed=2)
    state = env.state()
    assert env.state_space.contains(state) and state.dtype == np.int64
    layout = env.core.state_layout()
    assert sum(size for _, size, _, _ in layout) == state.shape[0]
    offsets = {}
    start = 0
    for name, size, _, _ in layout:
        offsets[name] = state[start:start + size]
        start += size
    hands = offsets["hands"].reshape(3, -1)
    for seat in range(3):  # every hand, including those nobody else may see
        held = env.core.state.hands[seat]
        assert list(hands[seat][: len(held)]) == list(held)
    assert list(offsets["board_owner"]) == list(env.core.state.board_owner)


# ---------------------------------------------------------------------- illegal actions


def test_illegal_action_terminates_with_minus_one_and_is_recorded() -> None:
    env = dixit_v0.env(deck=DECK, render_mode="ansi")
    env.reset(seed=0)
    env.step({"card": 2, "clue": "a lonely lighthouse"})
    agent = env.agent_selection
    env.step({"card": 99, "clue": "-"})
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards[agent] == -1.0
    assert all(r == 0.0 for a, r in env.rewards.items() if a != agent)
    assert "hand has positions 0-5" in env.infos[agent]["illegal_action"]
    [event] = env.unwrapped.illegal_actions
    assert (event.agent, event.phase, event.round) == (agent, "play", 0)
    assert "99" in event.action
    assert "illegal action by player_1" in env.render()
    seen = {}
    for name in env.agent_iter():
        _, reward, termination, _, _ = env.last()
        assert termination
        seen[name] = reward
        env.step(None)
    assert seen[agent] == -1.0 and not env.agents


@pytest.mark.parametrize("action", [
    None, "3", 2.0, True, {"clue": "x"}, {"card": "1", "clue": "x"}, {"card": 0, "clue": "   "},
    {"card": 0, "clue": 7}, {"card": 0, "clue": "x" * 201}, {"card": -1, "clue": "x"}])
def test_malformed_tells_are_illegal(action: Any) -> None:
    env = dixit_v0.raw_env(deck=DECK)
    env.reset(seed=0)
    env.step(action)
    assert len(env.illegal_actions) == 1 and all(env.terminations.values())


def test_raise_mode_raises_records_and_changes_nothing() -> None:
    env = dixit_v0.env(deck=DECK, illegal_action="raise")
    env.reset(seed=0)
    before = env.state()
    with pytest.raises(IllegalAction, match="empty"):
        env.step({"card": 0, "clue": " "})
    assert np.array_equal(env.state(), before) and not any(env.terminations.values())
    assert len(env.unwrapped.illegal_actions) == 1
    env.step({"card": 0, "clue": "now a real clue"})
    assert env.unwrapped.core.state.phase is Phase.PLAY


def test_voting_for_ones_own_card_is_illegal() -> None:
    env = dixit_v0.raw_env(deck=DECK)
    to_phase(env, Phase.VOTE)
    agent = env.agent_selection
    own = env.core.view(env.seat_of[agent]).my_positions[0]
    assert env.observe(agent)["action_mask"][own] == 0
    env.step({"card": own, "clue": "-"})
    assert "its own card" in env.illegal_actions[0].reason


def test_a_first_of_two_votes_is_checked_by_the_rules() -> None:
    """Where a second vote may follow, the first is a partial choice: every position the mask
    allows is taken as one, and one's own card is refused with the rules' reason at once."""
    env = dixit_v0.raw_env(edition="odyssey-2024", n_players=4, deck=DECK)
    to_phase(env, Phase.VOTE, seed=5)
    agent = env.agent_selection
    seat = env.seat_of[agent]
    mask = env.observe(agent)["action_mask"]
    board = len(env.core.state.board)
    for index in range(board):
        if mask[index]:
            assert env.core.build(seat, {"card": index, "clue": "-"}) == (index,)
        else:
            with pytest.raises(IllegalAction, match="its own card"):
                env.core.build(seat, {"card": index, "clue": "-"})
    own = env.core.view(seat).my_positions[0]
    env.step({"card": own, "clue": "-"})
    assert "its own card" in env.illegal_actions[0].reason
    assert env.terminations[agent]


@pytest.mark.parametrize("wrap", [dixit_v0.OrderEnforcingWrapper,
                                  wrappers.OrderEnforcingWrapper], ids=["ours", "pettingzoo"])
def test_agent_iter_keeps_pettingzoos_order_checks(wrap: Any) -> None:
    """The environment's own agent_iter stops and checks as PettingZoo's wrapper does."""
    env = wrap(dixit_v0.raw_env(deck=DECK))
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before agent_iter"):
        env.agent_iter()
    env.reset(seed=0)
    turns = iter(env.agent_iter(max_iter=4))
    assert next(turns) == env.unwrapped.agent_selection
    with pytest.raises(AssertionError, match="need to call step"):
        next(turns)  # no step since the last turn (the turn counts all the same)
    for action in ({"card": 0, "clue": "a clue"}, {"card": 0, "clue": "-"}):
        env.step(action)
        assert next(turns) == env.unwrapped.agent_selection
    env.step({"card": 0, "clue": "-"})
    assert list(turns) == []  # max_iter turns given


def test_second_vote_and_pass() -> None:
    env = dixit_v0.raw_env(edition="odyssey-2024", n_players=4, deck=DECK)
    to_phase(env, Phase.VOTE, seed=5)
    voter = env.agent_selection
    seat = env.seat_of[voter]
    legal = np.flatnonzero(env.observe(voter)["action_mask"])
    assert env.pass_index not in legal  # no pass on the first vote
    env.step({"card": int(legal[0]), "clue": "-"})
    assert env.agent_selection == voter and env.turn_index(voter) == 1
    env.step({"card": env.pass_index, "clue": "-"})
    assert env.core.state.votes[seat] == (int(legal[0]),)
    voter = env.agent_selection
    seat = env.seat_of[voter]
    legal = np.flatnonzero(env.observe(voter)["action_mask"])
    env.step({"card": int(legal[0]), "clue": "-"})
    second = [i for i in np.flatnonzero(env.observe(voter)["action_mask"]) if i != env.pass_index]
    env.step(int(second[0]))  # a bare index is accepted on play and vote turns
    assert env.core.state.votes[seat] == (int(legal[0]), int(second[0]))


def test_three_player_guessers_play_two_cards_in_a_row() -> None:
    env = dixit_v0.raw_env(edition="refresh-2021", n_players=3, deck=DECK)
    env.reset(seed=0)
    env.step({"card": 0, "clue": "two of a kind"})
    hand = env.core.state.hands[1]
    env.step({"card": 3, "clue": "-"})
    assert env.agent_selection == "player_1"
    assert env.observe("player_1")["action_mask"][3] == 0
    assert list(env.observe("player_1")["my_cards"]) == [hand[3], -1]
    env.step({"card": 3, "clue": "-"})  # the same card twice
    assert "same card twice" in env.illegal_actions[0].reason


def test_parallel_missing_and_ignored_actions() -> None:
    env = dixit_v0.parallel_env(deck=DECK)
    env.reset(seed=0)
    assert env.acting_agents() == ["player_0"]
    _, rewards, terminations, _, _ = env.step(
        {"player_0": {"card": 1, "clue": "tide"}, "player_2": {"card": 99, "clue": "ignored"}})
    assert not any(terminations.values()) and env.illegal_actions == []
    assert env.acting_agents() == ["player_1", "player_2", "player_3"]
    _, rewards, terminations, _, infos = env.step({"player_1": 0, "player_2": 0})
    assert all(terminations.values()) and rewards["player_3"] == -1.0 and not env.agents
    assert "no action" in infos["player_3"]["illegal_action"]


def test_bad_configurations_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        dixit_v0.env(deck=DECK, render_mode="video")
    with pytest.raises(ValueError, match="clue_mode"):
        dixit_v0.env(deck=DECK, clue_mode="emoji")
    with pytest.raises(ValueError, match="illegal_action"):
        dixit_v0.env(deck=DECK, illegal_action="ignore")
    with pytest.raises(ValueError, match="3-6 players, not 7"):
        dixit_v0.env(edition="original-2008", n_players=7, deck=DECK)
    with pytest.raises(ValueError, match="too small"):
        dixit_v0.env(n_players=8, deck=range(30))
    with pytest.raises(ValueError, match="team variant"):
        dixit_v0.env(edition="refresh-2021", deck=DECK, teams=True)
    with pytest.raises(ValueError, match="clue_vocab"):
        dixit_v0.env(deck=DECK, clue_vocab=["a"])
    with pytest.raises(ValueError, match="repeats"):
        dixit_v0.env(deck=DECK, clue_mode="vocab", clue_vocab=["a", "a"])
    with pytest.raises(ValueError, match="max_rounds"):
        dixit_v0.env(deck=DECK, max_rounds=0)
    with pytest.raises(ValueError, match="seed"):
        dixit_v0.env(deck=DECK).reset(seed=-1)
    env = dixit_v0.raw_env(deck=DECK, score_limit=10)
    assert env.rules.score_limit == 10


# ---------------------------------------------------------------------- copies


def test_copy_mid_game_is_independent() -> None:
    env = dixit_v0.env(edition="refresh-2021", n_players=3, deck=DECK)
    to_phase(env, Phase.PLAY, seed=3)
    env.step({"card": 0, "clue": "-"})  # a partial choice: player_1's first card
    copied = copy.deepcopy(env)
    pickled = pickle.loads(pickle.dumps(env))
    for other in (copied, pickled):
        assert data_equivalence(other.observe("player_1"), env.observe("player_1"))
        assert np.array_equal(other.state(), env.state())
    copied.step({"card": 1, "clue": "-"})
    assert env.agent_selection == "player_1" and env.unwrapped.core.partial[1]
    assert copied.agent_selection == "player_2" and not copied.unwrapped.core.partial[1]
    # The original and the pickled copy go on identically.
    for _ in range(30):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        action = {"card": int(np.flatnonzero(mask)[-1]), "clue": "same"}
        env.step(action)
        pickled.step(action)
    assert np.array_equal(env.state(), pickled.state())
    assert np.array_equal(env.unwrapped.core.rng.random(3), pickled.unwrapped.core.rng.random(3))


# ---------------------------------------------------------------------- rendering


def test_ansi_board_shows_clue_board_votes_and_scores() -> None:
    env = dixit_v0.env(deck=DECK, render_mode="ansi")
    to_phase(env, Phase.VOTE, seed=0)
    text = env.render()
    state = env.unwrapped.core.state
    assert f"Clue: {state.clue!r}" in text and "Board: [0] #" in text and "Scores" in text
    assert "votes:" not in text  # nothing revealed yet
    while env.unwrapped.core.state.round == 0:
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))
    text = env.render()
    assert "Last round (round 0)" in text and "votes:" in text and "(storyteller)" in text
    assert "points:" in text


def green_deck() -> Any:
    """A ``Deck`` of 84 plain green cards."""
    decks = pytest.importorskip("dixit_ai.decks")

    class GreenDeck(decks.Deck):  # type: ignore[misc]
        name = source = "green"
        license = attribution = ""

        def image(self, card_id: int, size: tuple[int, int] | None = (72, 108)) -> Image.Image:
            return Image.new("RGB", size or (400, 600), (10, 200, 30))

        def card_hash(self, card_id: int) -> str:
            return f"green-{card_id}"

    return GreenDeck(range(84))


def test_rgb_array_frames() -> None:
    env = dixit_v0.env(deck=DECK, render_mode="rgb_array")
    to_phase(env, Phase.VOTE, seed=0)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # numbered placeholders
    for _ in range(10):
        agent = env.agent_selection
        env.step(env.action_space(agent).sample(env.observe(agent)["action_mask"]))
        assert env.render().shape == frame.shape
    pictured = dixit_v0.env(deck=green_deck(), render_mode="rgb_array")
    to_phase(pictured, Phase.VOTE, seed=0)
    frame = pictured.render()
    assert ((frame == (10, 200, 30)).all(axis=2)).sum() > 4 * 60 * 100
    pictured.close()


def test_human_mode_prints(capsys: pytest.CaptureFixture[str]) -> None:
    env = dixit_v0.env(deck=DECK, render_mode="human")
    env.reset(seed=0)
    env.step({"card": 0, "clue": "printed"})
    assert "Clue: 'printed'" in capsys.readouterr().out
