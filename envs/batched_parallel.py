"""Every seat of many games at once, PettingZoo-parallel style, over the batched engine.

:class:`DixitBatchedParallel` is the all-seats sibling of :class:`envs.vector.DixitVectorEnv`
(one learning seat, the others played by batched agents): the same action format
(``[card slot or board position, clue id, second slot / second vote or C for none]``), the same
observation fields, one array per agent with an env axis, and one step per phase (tell, play,
vote) instead of two learner steps per round. Self-play and multi-agent learners drive every seat.

The masks cover each action part on its own (as ``MaskablePPO`` samples a ``MultiDiscrete``), so
a sampled action may repeat its first part in its third; both environments read such an action
as the rules allow it (:func:`resolve_repeats`): a second card on the first card's slot (3
players) is the next slot of the hand, a second vote on the first vote's position is no second
vote.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from dixit_ai.agents.random_agent import CLUE_WORDS
from dixit_ai.batched import to_records
from dixit_ai.records import GameRecord
from dixit_ai.rules import Phase, RuleSet
from dixit_ai.rules.batched import BatchedGames

Ints = npt.NDArray[np.int64]

__all__ = ["DixitBatchedParallel", "as_actions", "check_num_envs", "observation_fields",
           "resolve_repeats"]


def as_actions(actions: npt.ArrayLike, whose: str = "") -> Ints:
    """``actions`` as int64; any other kind (a float 1.9 would be truncated to 1) raises
    ``ValueError`` (``whose``: the agent's name for the message)."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":
        owner = f"{whose}'s " if whose else ""
        raise ValueError(f"{owner}actions must be integers, not {array.dtype}")
    result: Ints = array.astype(np.int64)
    return result


def check_num_envs(num_envs: object) -> int:
    """``num_envs`` as an int; anything but an int >= 1 raises ``ValueError`` naming it."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be an int >= 1, not {num_envs!r}")
    return int(num_envs)


def resolve_repeats(first: Ints, second: Ints, *, playing: bool, hand_size: int, choices: int,
                    cards_per_guesser: int, max_votes: int) -> Ints:
    """The third action part as the rules read it where it repeats the first (any shape).

    Every mask-legal action is then legal: in the play step of a 3-player game a second card on
    the first card's hand slot is the next slot (cyclically); in the vote step of an edition
    with a second vote, a second vote on the first vote's position is no second vote
    (``choices``). Elsewhere the part is returned as it is.

    >>> resolve_repeats(np.array([2, 5]), np.array([2, 1]), playing=True, hand_size=6,
    ...                 choices=7, cards_per_guesser=2, max_votes=1).tolist()
    [3, 1]
    """
    if playing and cards_per_guesser > 1:
        out: Ints = np.where(second == first, (first + 1) % hand_size, second)
        return out
    if not playing and max_votes > 1:
        out = np.where(second == first, choices, second)
        return out
    return second


def observation_fields(n_players: int, hand: int, board: int, *, top_card: int, n_clues: int,
                       steps: int) -> dict[str, spaces.Space[Any]]:
    """One game's observation fields in the batched environments (:class:`DixitBatchedParallel`,
    :class:`envs.vector.DixitVectorEnv`): ``steps`` values of ``step`` (3 phases here, 2 learner
    steps there), card ids up to ``top_card`` (``-1``: none), clue ids below ``n_clues``."""
    n = n_players
    return {
        "step": spaces.Discrete(steps), "seat": spaces.Discrete(n),
        "storyteller": spaces.Discrete(n),
        "round": spaces.Box(0, np.iinfo(np.int64).max, (), np.int64),
        "scores": spaces.Box(0, np.iinfo(np.int64).max, (n,), np.int64),
        "hand": spaces.Box(-1, top_card, (hand,), np.int64),
        "clue": spaces.Box(-1, n_clues - 1, (), np.int64),
        "board": spaces.Box(-1, top_card, (board,), np.int64),
        "own": spaces.Box(0, 1, (board,), np.int8)}


class DixitBatchedParallel:
    """Every seat of ``num_envs`` games, PettingZoo-parallel style, arrays with an env axis.

    ``possible_agents`` are ``player_0 .. player_{n-1}``; each :meth:`step` is one phase of every
    game (``phase`` 0 tell, 1 play, 2 vote, all games in the same phase) and takes one
    ``(num_envs, 3)`` action array per agent in the :class:`DixitVectorEnv` format
    (``[card slot or board position, clue id, second slot / second vote or C for none]``); an
    agent with nothing to do in a phase (the storyteller when others play or vote, the others
    when it tells) has a mask that allows only ``[0, 0, C]``, and the parts of an action a phase
    does not use are ignored. Observations are per agent, the
    fields of :class:`DixitVectorEnv` (``step`` holding the phase, ``Discrete(3)`` here).
    Rewards come at the vote step (each seat's points); games that end restart at once, with
    ``infos[agent]["final_scores"]``.

    >>> env = DixitBatchedParallel(8, n_players=4, seed=0)
    >>> observations, infos = env.reset(seed=1)
    >>> infos["player_0"]["action_mask"].shape
    (8, 45)
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (PettingZoo's class attribute)
        "name": "dixit_batched_parallel", "is_parallelizable": True}

    def __init__(self, num_envs: int = 1000, *, edition: str = "refresh-2021",
                 n_players: int = 4, deck: Any = None, seed: int = 0, record: bool = False,
                 clues: Sequence[str] = CLUE_WORDS, **rule_overrides: Any) -> None:
        self.rules = RuleSet.edition(edition, **rule_overrides)
        self.rules.check_players(n_players)
        self.num_envs = check_num_envs(num_envs)
        self.n_players = n_players
        self.deck = [int(c) for c in (range(84) if deck is None else deck)]
        self.clues = tuple(clues)
        if not self.clues:
            raise ValueError("clues must hold at least one clue (the clue ids index them)")
        self.record = record
        self.possible_agents = [f"player_{seat}" for seat in range(n_players)]
        self.agents = list(self.possible_agents)
        self._seed = int(seed)
        self.games = BatchedGames(self.rules, n_players, num_envs, seed=self._seed,
                                  deck=self.deck, record=record)
        hand, board = self.games.hand_size, self.games.board_size
        self.choices = max(hand, board)
        self._observation_space = spaces.Dict(observation_fields(
            n_players, hand, board, top_card=max(self.deck), n_clues=len(self.clues), steps=3))
        self._action_space = spaces.MultiDiscrete([self.choices, len(self.clues),
                                                   self.choices + 1])

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """One env's observation space of ``agent`` (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """One env's action space of ``agent``."""
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """New games; observations and masks per agent."""
        self._seed = int(seed) if seed is not None else self._seed + 1
        self.games = BatchedGames(self.rules, self.n_players, self.num_envs, seed=self._seed,
                                  deck=self.deck, record=self.record)
        return self._observations(), {a: {"action_mask": self.action_mask(s)}
                                      for s, a in enumerate(self.agents)}

    def _phase(self) -> int:
        return {Phase.TELL: 0, Phase.PLAY: 1, Phase.VOTE: 2}[self.games.phase]

    def action_mask(self, seat: int) -> npt.NDArray[np.int8]:
        """``(num_envs, C + V + C + 1)``: ``seat``'s legal action parts, concatenated."""
        games, c, v = self.games, self.choices, len(self.clues)
        mask = np.zeros((self.num_envs, 2 * c + v + 1), dtype=np.int8)
        first, clue, second = mask[:, :c], mask[:, c:c + v], mask[:, c + v:]
        acting = self._acting(seat)
        first[~acting, 0] = 1
        clue[:, 0] = 1
        second[:, c] = 1
        phase = self._phase()
        if phase == 0:
            first[acting, :games.hand_size] = 1
            clue[acting] = 1
        elif phase == 1:
            first[acting, :games.hand_size] = 1
            if games.cards_per_guesser > 1:
                second[acting, :games.hand_size] = 1
                second[acting, c] = 0
        else:
            legal = games.legal_vote()[:, seat]
            first[:, :games.board_size] |= legal.astype(np.int8)
            if games.max_votes > 1:
                second[:, :games.board_size] = legal
        return mask

    def _acting(self, seat: int) -> npt.NDArray[np.bool_]:
        telling = self.games.storyteller == seat
        acting: npt.NDArray[np.bool_] = (telling if self._phase() == 0 else ~telling) & (
            self.games.active)
        return acting

    def step(self, actions: dict[str, npt.ArrayLike]) -> tuple[
            dict[str, dict[str, Any]], dict[str, Ints], dict[str, Any], dict[str, Any],
            dict[str, dict[str, Any]]]:
        """One phase of every game, every agent's ``(num_envs, 3)`` action at once.

        Raises:
            IllegalAction: an action the rules refuse (the engine names game and seat).
            ValueError: a missing agent, a wrong shape, or an action outside the action space
                (the message names the agent and the env); nothing changes.
        """
        games, n, c = self.games, self.n_players, self.choices
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"no actions for {', '.join(missing)}")
        chosen = np.stack([as_actions(actions[a], a) for a in self.agents], axis=1)
        if chosen.shape != (self.num_envs, n, 3):
            raise ValueError(f"each agent's actions must have shape ({self.num_envs}, 3)")
        v = len(self.clues)
        outside = (chosen < 0).any(axis=2) | (chosen[:, :, 0] >= c) | (chosen[:, :, 1] >= v) | (
            chosen[:, :, 2] > c)
        if outside.any():
            env, seat = (int(i) for i in np.argwhere(outside)[0])
            raise ValueError(f"{self.agents[seat]}'s action for env {env}, "
                             f"{chosen[env, seat].tolist()}, is outside the action space: "
                             f"actions must lie in [0, {c}) x [0, {v}) x [0, {c}]")
        phase = self._phase()
        chosen[:, :, 2] = resolve_repeats(
            chosen[:, :, 0], chosen[:, :, 2], playing=phase == 1, hand_size=games.hand_size,
            choices=c, cards_per_guesser=games.cards_per_guesser, max_votes=games.max_votes)
        rewards = {a: np.zeros(self.num_envs, dtype=np.int64) for a in self.agents}
        done = np.zeros(self.num_envs, dtype=bool)
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        rows = np.arange(self.num_envs)
        if phase == 0:
            teller = games.storyteller
            games.tell(chosen[rows, teller, 0], chosen[rows, teller, 1])
        elif phase == 1:
            games.play(chosen[:, :, [0, 2]][:, :, :games.cards_per_guesser])
        else:
            second = np.where(chosen[:, :, 2] >= c, -1, chosen[:, :, 2])
            votes = np.stack([chosen[:, :, 0], second], axis=2)[:, :, :games.max_votes]
            done = games.vote(votes)
            for seat, agent in enumerate(self.agents):
                rewards[agent] = games.last_points[:, seat].copy()
                if done.any():
                    infos[agent]["final_scores"] = np.where(done[:, None], games.last_scores, 0)
                    infos[agent]["_final_scores"] = done
        for seat, agent in enumerate(self.agents):
            infos[agent]["action_mask"] = self.action_mask(seat)
        terminations = {a: done.copy() for a in self.agents}
        truncations = {a: np.zeros(self.num_envs, dtype=bool) for a in self.agents}
        return self._observations(), rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, dict[str, Any]]:
        games = self.games
        ids = games.card_ids
        phase = self._phase()
        voting = phase == 2
        clue = games.clue if phase > 0 else np.full(self.num_envs, -1, dtype=np.int64)
        board = ids[games.board] if voting else np.full((self.num_envs, games.board_size), -1)
        out = {}
        for seat, agent in enumerate(self.agents):
            out[agent] = {
                "step": np.full(self.num_envs, phase, dtype=np.int64),
                "seat": np.full(self.num_envs, seat, dtype=np.int64),
                "storyteller": games.storyteller.copy(), "round": games.round.copy(),
                "scores": games.scores.copy(), "hand": ids[games.hands[:, seat]],
                "clue": clue.copy(), "board": np.asarray(board, dtype=np.int64),
                "own": ((games.board_owner == seat) if voting else np.zeros(
                    (self.num_envs, games.board_size), dtype=bool)).astype(np.int8)}
        return out

    def take_records(self) -> list[GameRecord]:
        """The records of the games finished since the last call (``record=True`` only)."""
        if not self.record:
            raise ValueError("this env keeps no records: make it with record=True")
        finished = self.games.take_finished()
        records = to_records(self.games, finished, clues=self.clues)
        self.games.release()
        return records
