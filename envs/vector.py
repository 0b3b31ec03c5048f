"""A Gymnasium ``VectorEnv`` over the batched engine: one learning seat in many games at once.

:class:`DixitVectorEnv` runs ``num_envs`` games of :class:`dixit_ai.rules.batched.BatchedGames` in
lockstep; in each, the learner plays seat ``learner_seat`` and batched agents
(:mod:`dixit_ai.batched`: random, or embedding players over a vector table) play the others. A
round is **two learner steps** in every game:

1. the **card step**: the learner tells (hand slot and clue id) if it is the storyteller, else
   plays a hand card (two in a 3-player game) for the storyteller's clue, which it sees;
2. the **vote step**: the learner votes (one board position, and a second one or none where the
   edition allows it); as the storyteller it has nothing to do (the mask allows one ignored
   action). The round is then revealed; the reward is the learner's points in it.

Games that end restart at once with the next seed (``autoreset_mode`` ``SAME_STEP``); the final
observation (final scores, the rounds played and the next storyteller; hand and board ``-1``:
nothing is left to play) and the final scores are in ``info["final_obs"]`` and
``info["final_scores"]`` (masks ``info["_final_obs"]``, ``info["_final_scores"]``). As in
Gymnasium's own vector envs, ``info["final_obs"]`` is an object array with one observation
(a dict of one game's fields) per game that ended and ``None`` elsewhere.

| space        | value                                                                     |
|--------------|---------------------------------------------------------------------------|
| action       | ``MultiDiscrete([C, V, C + 1])``: ``C = max(H, B)``; card slot or board  |
|              | position; clue id (telling only); second hand slot (3 players) or second |
|              | vote (``C``: none)                                                        |
| action mask  | ``info["action_mask"]``, ``(num_envs, C + V + C + 1)`` int8, the three   |
|              | parts' masks concatenated (what ``MaskablePPO`` reads for MultiDiscrete); |
|              | a third part that repeats the first is read as the rules allow it         |
|              | (:func:`envs.batched_parallel.resolve_repeats`: the next hand slot, or no |
|              | second vote), so every action the mask allows is legal                    |
| observation  | ``Dict``: ``step`` ``Discrete(2)``, ``seat`` / ``storyteller``            |
|              | ``Discrete(n)``, ``round`` and ``scores`` (``(n,)``) ``Box(int64)``,      |
|              | ``hand`` ``(H,)`` card ids, ``clue`` (-1: none yet), ``board`` ``(B,)``   |
|              | card ids (-1 in the card step), ``own`` ``(B,)`` 1 on the learner's own  |
|              | board cards; with ``vector_observations`` also ``hand_vectors`` ``(H, d)``,|
|              | ``board_vectors`` ``(B, d)``, ``clue_vector`` ``(d,)`` float32            |
| reward       | the learner's points in the round (at the vote step; 0 at the card step) |

Illegal actions raise :class:`dixit_ai.rules.IllegalAction` (``illegal_action="raise"``) or are
replaced by the first legal action with reward -1 (``"penalty"``; ``info["illegal"]``).

>>> env = DixitVectorEnv(4, n_players=4, seed=0)
>>> obs, info = env.reset(seed=0)
>>> obs["hand"].shape, info["action_mask"].shape
((4, 6), (4, 45))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from dixit_ai.agents.random_agent import CLUE_WORDS
from dixit_ai.batched import (
    BatchedAgent,
    BatchedEmbeddingAgent,
    BatchedRandomAgent,
    to_records,
)
from dixit_ai.records import GameRecord
from dixit_ai.rules import IllegalAction, Phase, RuleSet
from dixit_ai.rules.batched import BatchedGames
from envs.batched_parallel import (  # every seat at once: its own module
    DixitBatchedParallel,
    as_actions,
    check_num_envs,
    observation_fields,
    resolve_repeats,
)
from envs.options import check_rule_overrides, options_of

Ints = npt.NDArray[np.int64]

__all__ = ["DixitBatchedParallel", "DixitVectorEnv"]


class DixitVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, one learning seat each, opponents played by batched agents.

    Args:
        num_envs: Games played at once.
        edition: The rules' edition.
        n_players: Players per game.
        learner_seat: The learner's seat in every game.
        opponents: ``"random"``, ``"embedding"`` (needs ``vectors``), one batched agent for every
            other seat, or a sequence of one per seat (the learner's entry is ignored).
        vectors: A vector table (``envs.vectors.VectorTable`` or alike: ``rows``,
            ``card_vectors``, ``clue_vectors``, ``clues``) over the deck: clue ids are its
            clues, embedding opponents read it, and observations carry its vectors.
        deck: Card ids (default ``range(84)``; the table's card ids when ``vectors`` is given).
        seed: The first seed (``reset(seed=...)`` replaces it).
        illegal_action: ``"raise"`` or ``"penalty"``.
        record: Keep the games' rounds so that :meth:`take_records` returns their records.
        vector_observations: Put the table's vectors of the hand, board and clue in the
            observations (default: when ``vectors`` is given).
        opponent_options: Keyword arguments for the ``"random"`` or ``"embedding"`` opponents
            (``BatchedRandomAgent``, ``BatchedEmbeddingAgent``: ``target_specificity=(0.5,
            2.0)``, ``temperature=0.05``, ...); refused with batched agents as opponents.
        **rule_overrides: Rule parameters for ``RuleSet.edition``.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium's class attribute)
        "autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1000, *, edition: str = "refresh-2021",
                 n_players: int = 5, learner_seat: int = 0,
                 opponents: str | BatchedAgent | Sequence[BatchedAgent | None] = "random",
                 vectors: Any = None, deck: Any = None, seed: int = 0,
                 illegal_action: str = "raise", record: bool = False,
                 vector_observations: bool | None = None,
                 opponent_options: dict[str, Any] | None = None, **rule_overrides: Any) -> None:
        check_rule_overrides(rule_overrides, environment="envs.vector.DixitVectorEnv",
                             options=options_of(DixitVectorEnv.__init__))
        self.rules = RuleSet.edition(edition, **rule_overrides)
        self.rules.check_players(n_players)
        if isinstance(learner_seat, bool) or not isinstance(learner_seat, int | np.integer) or \
                not 0 <= learner_seat < n_players:
            raise ValueError(f"learner_seat must be in [0, {n_players - 1}], not {learner_seat}")
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalty', not "
                             f"{illegal_action!r}")
        self.num_envs = check_num_envs(num_envs)
        self.n_players = n_players
        self.learner_seat = learner_seat
        self.vectors = vectors
        self.illegal_action = illegal_action
        self.record = record
        self.vector_observations = (vectors is not None) if vector_observations is None else (
            bool(vector_observations))
        if self.vector_observations and vectors is None:
            raise ValueError("vector_observations=True needs vectors=VectorTable(...)")
        if deck is None:
            deck = list(vectors.card_ids) if vectors is not None else list(range(84))
        self.deck = [int(card) for card in deck]
        self.clues: tuple[str, ...] = tuple(vectors.clues) if vectors is not None else CLUE_WORDS
        if opponent_options and not isinstance(opponents, str):
            raise ValueError(f"opponent_options are keyword arguments of the 'random' and "
                             f"'embedding' opponents the env builds; with batched agents given "
                             f"as opponents, {dict(opponent_options)!r} would change nothing")
        self._opponent_spec = opponents
        self._opponent_options = dict(opponent_options or {})
        self._seed = int(seed)
        self._card_rows: npt.NDArray[np.intp] | None = None
        if vectors is not None:
            self._card_rows = np.asarray(vectors.rows(self.deck), dtype=np.intp)
        self.games = self._new_games(self._seed)
        self._build_spaces()

    # ------------------------------------------------------------------ set-up

    def _new_games(self, seed: int) -> BatchedGames:
        games = BatchedGames(self.rules, self.n_players, self.num_envs, seed=seed,
                             deck=self.deck, record=self.record)
        streams = np.random.SeedSequence(seed).spawn(self.n_players + 1)
        self.opponents = self._make_opponents(games, streams)
        self._distinct = list({id(a): a for a in self.opponents if a is not None}.values())
        return games

    def _make_opponents(self, games: BatchedGames,
                        streams: list[np.random.SeedSequence]) -> list[BatchedAgent | None]:
        spec = self._opponent_spec
        n = self.n_players
        seed = int(streams[-1].generate_state(1)[0])
        if spec == "random":
            shared: BatchedAgent = BatchedRandomAgent(seed, n_clues=len(self.clues),
                                                      **self._opponent_options)
            agents: list[BatchedAgent | None] = [shared] * n
        elif spec == "embedding":
            if self.vectors is None:
                raise ValueError("embedding opponents need vectors=VectorTable(...) (for example "
                                 "envs.vectors.load_vector_table())")
            shared = BatchedEmbeddingAgent.from_table(self.vectors, games.card_ids, seed=seed,
                                                      **self._opponent_options)
            agents = [shared] * n
        elif isinstance(spec, str):
            raise ValueError(f"opponents must be 'random', 'embedding' or batched agents, "
                             f"not {spec!r}")
        elif isinstance(spec, Sequence):
            if len(spec) != n:
                raise ValueError(f"{len(spec)} opponents for {n} seats")
            agents = [a for a in spec if not isinstance(a, str)]
            if len(agents) != n:
                raise ValueError("opponents in a sequence must be batched agents or None")
        else:
            agents = [spec] * n
        agents[self.learner_seat] = None
        if any(a is None for s, a in enumerate(agents) if s != self.learner_seat):
            raise ValueError("every seat but the learner's needs an opponent")
        return agents

    def _build_spaces(self) -> None:
        n, games = self.n_players, self.games
        hand, board = games.hand_size, games.board_size
        self.choices = choices = max(hand, board)
        fields = observation_fields(n, hand, board, top_card=max(self.deck),
                                    n_clues=len(self.clues), steps=2)
        if self.vector_observations:
            dim = int(np.asarray(self.vectors.card_vectors).shape[1])
            fields["hand_vectors"] = spaces.Box(-1, 1, (hand, dim), np.float32)
            fields["board_vectors"] = spaces.Box(-1, 1, (board, dim), np.float32)
            fields["clue_vector"] = spaces.Box(-1, 1, (dim,), np.float32)
        self.single_observation_space = spaces.Dict(fields)
        self.single_action_space = spaces.MultiDiscrete([choices, len(self.clues), choices + 1])
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs)

    # ------------------------------------------------------------------ the API

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start ``num_envs`` new games (seeded with ``seed``, else the next seed)."""
        if seed is not None:
            self._seed = int(seed)
        else:
            self._seed += 1
        self.games = self._new_games(self._seed)
        self._step = 0
        self._pending_tell = self._opponent_tells()
        return self._observe(), {"action_mask": self.action_masks()}

    def step(self, actions: npt.ArrayLike) -> tuple[dict[str, Any], Ints, Any, Any,
                                                    dict[str, Any]]:
        """One learner step in every game (the card step, then the vote step)."""
        action = as_actions(actions)
        if action.shape != (self.num_envs, 3):
            raise ValueError(f"actions must have shape ({self.num_envs}, 3), not {action.shape}")
        games = self.games
        action = action.copy()
        action[:, 2] = resolve_repeats(
            action[:, 0], action[:, 2], playing=self._step == 0, hand_size=games.hand_size,
            choices=self.choices, cards_per_guesser=games.cards_per_guesser,
            max_votes=games.max_votes)
        rewards = np.zeros(self.num_envs, dtype=np.int64)
        terminated = np.zeros(self.num_envs, dtype=bool)
        illegal = self._check(action)
        if illegal.any():
            if self.illegal_action == "raise":
                env = int(np.flatnonzero(illegal)[0])
                raise IllegalAction(f"env {env}: action {action[env].tolist()} is not allowed "
                                    f"by the mask (step {self._step})")
            action = np.where(illegal[:, None], self._first_legal(), action)
        infos: dict[str, Any] = {}
        if self._step == 0:
            self._card_step(action)
            self._step = 1
        else:
            over = self._vote_step(action)
            rewards = games.last_points[:, self.learner_seat].copy()
            terminated = over
            if over.any():
                infos["final_scores"] = np.where(over[:, None], games.last_scores, 0)
                infos["_final_scores"] = over
                infos["final_obs"] = self._final_observation
                infos["_final_obs"] = over
            self._step = 0
            self._pending_tell = self._opponent_tells()
        rewards = np.where(illegal, -1, rewards)
        infos["illegal"] = illegal
        infos["action_mask"] = self.action_masks()
        return (self._observe(), rewards, terminated, np.zeros(self.num_envs, dtype=bool),
                infos)

    # ------------------------------------------------------------------ phases

    def _merge(self, answers: dict[int, Ints]) -> Ints:
        first = next(iter(answers.values()))
        merged: Ints = np.array(first, dtype=np.int64, copy=True)
        if len(answers) == 1:
            return merged
        for seat, agent in enumerate(self.opponents):
            if agent is not None:
                merged[:, seat] = answers[id(agent)][:, seat]
        return merged

    def _opponent_tells(self) -> tuple[Ints, Ints]:
        games = self.games
        slots = np.zeros(self.num_envs, dtype=np.int64)
        clues = np.zeros(self.num_envs, dtype=np.int64)
        tells = {id(a): a.tell(games) for a in self._distinct}
        for seat, agent in enumerate(self.opponents):
            if agent is not None:
                mine = games.storyteller == seat
                slots = np.where(mine, tells[id(agent)][0], slots)
                clues = np.where(mine, tells[id(agent)][1], clues)
        return slots, clues

    def _card_step(self, action: Ints) -> None:
        games, seat = self.games, self.learner_seat
        telling = games.storyteller == seat
        slots, clues = self._pending_tell
        games.tell(np.where(telling, action[:, 0], slots), np.where(telling, action[:, 1], clues))
        plays = self._merge({id(a): a.play(games) for a in self._distinct})
        mine = action[:, [0, 2]][:, :games.cards_per_guesser]
        plays[:, seat] = np.where(telling[:, None], 0, mine)
        games.play(plays)

    def _vote_step(self, action: Ints) -> npt.NDArray[np.bool_]:
        games, seat = self.games, self.learner_seat
        votes = self._merge({id(a): a.vote(games) for a in self._distinct})
        mine = np.stack([action[:, 0], np.where(action[:, 2] >= self.choices, -1, action[:, 2])],
                        axis=1)[:, :games.max_votes]
        votes[:, seat] = np.where((games.storyteller == seat)[:, None], -1, mine)
        played, teller = games.round + 1, (games.storyteller + 1) % games.n_players
        over: npt.NDArray[np.bool_] = games.vote(votes)
        if over.any():
            # The games that ended have restarted: their last round and next storyteller are
            # the ones they ended with, not the new games'.
            batch = self._observe(final=True)
            batch["round"] = np.where(over, played, batch["round"])
            batch["storyteller"] = np.where(over, teller, batch["storyteller"])
            final = np.full(self.num_envs, None, dtype=object)
            for i in np.flatnonzero(over):
                final[i] = {key: np.asarray(value[i]) for key, value in batch.items()}
            self._final_observation = final
        return over

    # ------------------------------------------------------------------ masks and views

    def action_masks(self) -> npt.NDArray[np.int8]:
        """``(num_envs, C + V + C + 1)``: the legal values of each action part, concatenated."""
        games, seat, c = self.games, self.learner_seat, self.choices
        v = len(self.clues)
        mask = np.zeros((self.num_envs, 2 * c + v + 1), dtype=np.int8)
        first, clue, second = mask[:, :c], mask[:, c:c + v], mask[:, c + v:]
        telling = games.storyteller == seat
        hand = games.hand_size
        second[:, c] = 1
        if self._step == 0:
            first[:, :hand] = 1
            clue[:, 0] = 1
            clue[telling] = 1
            if games.cards_per_guesser > 1:
                second[~telling, :hand] = 1
                second[~telling, c] = 0
        else:
            legal = games.legal_vote()[:, seat]
            first[:, :games.board_size] = legal
            first[telling, 0] = 1
            clue[:, 0] = 1
            if games.max_votes > 1:
                second[:, :games.board_size] = legal
        return mask

    def _check(self, action: Ints) -> npt.NDArray[np.bool_]:
        """Which envs' actions break the mask or repeat a card or a vote."""
        games, seat, c = self.games, self.learner_seat, self.choices
        v = len(self.clues)
        if (action < 0).any() or (action[:, 0] >= c).any() or (action[:, 1] >= v).any() or (
                action[:, 2] > c).any():
            raise ValueError(f"actions must lie in [0, {c}) x [0, {v}) x [0, {c}]")
        telling = games.storyteller == seat
        card, clue, extra = action[:, 0], action[:, 1], action[:, 2]
        bad = ~telling & (clue != 0)
        if self._step == 0:
            bad |= card >= games.hand_size
            if games.cards_per_guesser > 1:
                bad |= ~telling & ((extra >= games.hand_size) | (extra == card))
                bad |= telling & (extra != c)
            else:
                bad |= extra != c
        else:
            rows = np.arange(self.num_envs)
            size = games.board_size
            legal = games.legal_vote()[:, seat]
            bad |= ~telling & ((card >= size) | ~legal[rows, np.minimum(card, size - 1)])
            bad |= telling & (card != 0)
            if games.max_votes > 1:
                second_ok = (extra == c) | ((extra < size) & (extra != card)
                                            & legal[rows, np.minimum(extra, size - 1)])
                bad |= ~telling & ~second_ok
                bad |= telling & (extra != c)
            else:
                bad |= extra != c
        result: npt.NDArray[np.bool_] = bad
        return result

    def _first_legal(self) -> Ints:
        c, v = self.choices, len(self.clues)
        mask = self.action_masks().astype(bool)
        first = np.argmax(mask[:, :c], axis=1)
        clue = np.argmax(mask[:, c:c + v], axis=1)
        part = mask[:, c + v:].copy()
        part[np.arange(self.num_envs), first] = False
        second = np.where(part[:, c], c, np.argmax(part, axis=1))
        fallback: Ints = np.stack([first, clue, second], axis=1).astype(np.int64)
        return fallback

    def _observe(self, final: bool = False) -> dict[str, Any]:
        games, seat = self.games, self.learner_seat
        ids = games.card_ids
        hand_index = games.hands[:, seat]
        voting = self._step == 1 and not final
        telling = games.storyteller == seat
        if self._step == 0 and not final:
            clue = np.where(telling, -1, self._pending_tell[1])
        elif final:
            clue = np.full(self.num_envs, -1, dtype=np.int64)
        else:
            clue = games.clue.copy()
        board = np.where(voting, ids[games.board], -1) if voting else np.full(
            (self.num_envs, games.board_size), -1, dtype=np.int64)
        own = (games.board_owner == seat).astype(np.int8) if voting else np.zeros(
            (self.num_envs, games.board_size), dtype=np.int8)
        obs: dict[str, Any] = {
            "step": np.full(self.num_envs, 0 if final else self._step, dtype=np.int64),
            "seat": np.full(self.num_envs, seat, dtype=np.int64),
            "storyteller": games.storyteller.copy(),
            "round": games.round.copy(),
            "scores": (games.last_scores if final else games.scores).copy(),
            "hand": np.full_like(hand_index, -1) if final else ids[hand_index],
            "clue": clue,
            "board": board,
            "own": own,
        }
        if self.vector_observations and self._card_rows is not None:
            cards = np.asarray(self.vectors.card_vectors, dtype=np.float32)
            clue_table = np.asarray(self.vectors.clue_vectors, dtype=np.float32)
            obs["hand_vectors"] = np.zeros((self.num_envs, games.hand_size, cards.shape[1]),
                                           np.float32) if final else cards[
                                               self._card_rows[hand_index]]
            obs["board_vectors"] = np.where(
                voting, cards[self._card_rows[games.board]], 0.0).astype(np.float32) if voting \
                else np.zeros((self.num_envs, games.board_size, cards.shape[1]), np.float32)
            obs["clue_vector"] = np.where((clue >= 0)[:, None], clue_table[np.maximum(clue, 0)],
                                          0.0).astype(np.float32)
        return obs

    # ------------------------------------------------------------------ records

    def take_records(self) -> list[GameRecord]:
        """The records of the games finished since the last call (``record=True`` only)."""
        if not self.record:
            raise ValueError("this env keeps no records: make it with record=True")
        games = self.games
        finished = games.take_finished()
        names = [{"name": "learner"} if a is None else a.describe() for a in self.opponents]
        records = to_records(games, finished, clues=self.clues, agents=names)
        games.release()
        return records

    @property
    def phase(self) -> Phase:
        """The engine's phase (``TELL`` before a card step, ``VOTE`` before a vote step)."""
        return self.games.phase
