"""
# Dixit

PettingZoo environments over the rules of :mod:`dixit_ai.rules`: every edition (`original-2008`,
`refresh-2021`, `odyssey-2011`, `odyssey-2024`), every player count it allows, any deck.

| Import             | `from envs import dixit_v0`                                     |
|--------------------|-----------------------------------------------------------------|
| Creation           | `dixit_v0.env(**config)`, `dixit_v0.parallel_env(**config)`     |
| Actions            | `Dict(card=Discrete(A), clue=Text(200) or Discrete(V))`         |
| Parallel API       | Yes (the seats of a phase act at once)                          |
| Manual Control     | No                                                              |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`                    |
| Agents             | 3-6 (2008), 3-8 (2021), 3-12 (Odyssey)                          |
| Action Values      | `card` in `[0, A-1]` (below); `clue` text or vocabulary index   |
| Observation Shape  | `Dict` (below)                                                  |
| State Shape        | `Box(int64, (S,))`, fields in `DixitCore.state_layout()`        |
| Render modes       | `"ansi"`, `"rgb_array"`, `"human"` (prints the text board)      |

## Configuration

Keyword arguments of `env`, `raw_env` and `parallel_env`:

| argument         | default         | meaning                                                   |
|------------------|-----------------|-----------------------------------------------------------|
| `edition`        | `"refresh-2021"`| the rules' edition                                        |
| `n_players`      | `4`             | players: agents `player_0 .. player_{n-1}`                |
| `deck`           | `"dream"`       | card ids (list, range), a deck spec or a `Deck`           |
| `clue_mode`      | `"text"`        | `"text"` or `"vocab"` (clues index `clue_vocab`)          |
| `clue_vocab`     | random's words  | the vocabulary of `"vocab"` mode                          |
| `max_rounds`     | `None`          | truncate the game after this many rounds                  |
| `illegal_action` | `"terminate"`   | `"terminate"` (-1, the game ends) or `"raise"`            |
| `render_mode`    | `None`          | `"ansi"`, `"rgb_array"` or `"human"`                      |
| `observation`    | `"ids"`         | `"ids"`, `"onehot"`, `"embedding"` (`envs.encoding`)      |
| `flatten`        | `False`         | classic `{"observation": Box(float32), "action_mask"}`    |
| `classic`        | `False`         | classic form, fields kept as a `Dict` (not with flatten)  |
| `actions`        | `"dict"`        | `"dict"` or `"discrete"` (one fully masked `Discrete(N)`) |
| `reward`         | `"points"`      | `"points"`, `"difference"`, `"win"`, `"rank"`             |
| `embeddings`     | `None`          | a `VectorTable` (default: loaded for `embedder`, `deck`)  |
| `embedder`       | `None`          | a `models.load_embedder` name (`None`: `"default"`); not  |
|                  |                 | with `embeddings`                                         |
| `embedding_dim`  | `None`          | principal directions shown in the vector fields           |
| `clues_per_card` | `None` (8)      | tell candidates per hand card (`actions="discrete"`)      |
| `clue_proposer`  | `None`          | `None`/`"specific"`, `"spread"` or `fn(card) -> clues`    |
|                  |                 | (`actions="discrete"`; the named ones need vectors)       |
| `acting_only`    | `False`         | Parallel: observe only the seats that act (see README)    |
| any other        |                 | a rule parameter for `RuleSet.edition` (`score_limit=20`) |

An option that would change nothing is refused with a `ValueError` naming it: `clues_per_card` or
`clue_proposer` without `actions="discrete"`; `flatten=True` with `classic=True`; `embedder`
with `embeddings`; with `actions="discrete"` and no vectors (no `embeddings`, `embedder` or
`observation="embedding"`), `clue_proposer="spread"|"specific"` or `clues_per_card` unless the
proposer is a function (every card's candidates are then the whole clue vocabulary).

The seed goes through `reset(seed=...)`: it seeds the game as `dixit_ai.play_game(seed=...)` does
(`dixit_ai.match.game_streams(seed, n)`: stream 0 for the rules, stream `1 + seat` for an agent in
that seat), so the same seed and the same decisions give the same game. `reset()` without a seed
plays the next game of a sequence derived from the last seed (`env.unwrapped.game_seed` says which).

## Turns (AEC)

A round is a sequence of AEC turns; the seat to act is `agent_selection`:

1. **tell**: the storyteller chooses a hand card (`card` = hand index) and gives the `clue`;
2. **play**: each guesser, clockwise from the storyteller's left, plays a hand card (`card` = hand
   index); in 3-player games each guesser has two turns in a row (two cards);
3. **vote**: each voter, clockwise, votes for a board position (`card` = board index); where the
   edition allows a second vote (`odyssey-2011` with 7+ players, `odyssey-2024` always) the voter
   has a second turn in a row: another position, or `card = A - 1` ("pass": no second vote);
4. after the last vote the round is revealed and scored: every seat's reward is the points it
   gained; the next storyteller tells, or the game ends.

Choices stay hidden until the reveal: an observation never holds another seat's hand or played
cards, who owns which board card, or another seat's votes. The `clue` of an action is read on tell
turns only (any value will do elsewhere). The Parallel API plays the same phases, every seat that
acts in a phase acting in the same step (one step per card and per vote).

## Observation Space

A `Dict`; card ids are padded with -1. `n` players, `H` hand size, `B` board size, `K` cards per
guesser (2 with 3 players), `M` votes per voter (1, or 2 with a second vote):

| key           | space                      | meaning                                        |
|---------------|----------------------------|------------------------------------------------|
| `phase`       | `Discrete(4)`              | 0 tell, 1 play, 2 vote, 3 over                 |
| `turn`        | `Discrete(2)`              | 1 on a second card or second-vote turn         |
| `seat`        | `Discrete(n)`              | this agent's seat                              |
| `storyteller` | `Discrete(n)`              | this round's storyteller                       |
| `round`       | `Box(int64, ())`           | the round, from 0                              |
| `hand`        | `Box(int64, (H,))`         | own hand (card ids)                            |
| `board`       | `Box(int64, (B,))`         | the board's card ids (vote phase; else -1)     |
| `clue`        | `Text(200)` / `Discrete`   | the clue ("" before it is told); in vocab mode |
|               | `(V + 1, start=-1)`        | its index (-1: none, or not in the vocabulary) |
| `my_cards`    | `Box(int64, (max(K, 1),))` | the card(s) this seat played this round        |
| `my_votes`    | `Box(int64, (M,))`         | this seat's vote(s) this round (positions)     |
| `scores`      | `Box(int64, (n,))`         | every seat's score                             |
| `last_board`  | `Box(int64, (B,))`         | the last revealed board                        |
| `last_owners` | `Box(int64, (B,))`         | the seat that owned each of its cards          |
| `last_votes`  | `Box(int64, (n, M))`       | each seat's votes in that round (-1: none)     |
| `last_points` | `Box(int64, (n,))`         | the points of that round                       |
| `action_mask` | `Box(int8, (A,))`          | 1 for each legal `card`; zeros if not to act   |

## Action Space

`Dict({"card": Discrete(A), "clue": ...})`, `A = max(H, B)` plus one "pass" index `A - 1` where a
second vote exists. `clue` is `Text(max_length=200)` over letters, digits, punctuation and space
in `clue_mode="text"`, and `Discrete(V)` (an index into `clue_vocab`) in `clue_mode="vocab"`. The
space's `sample(mask)` takes the observation's `action_mask`. The environments accept any clue the
rules accept (also characters outside the charset, and text in vocab mode), an optional
`"clue_kind"` (`"word"`, `"sentence"`, `"song"`, `"mime"`), and a bare card index on play and
vote turns.

## Rewards

The points each seat gains in a round, given to every seat when the round is scored (after the last
vote). An illegal action (masked out, malformed, or refused by the rules) gives -1 to the acting
agent and 0 to the others and ends the game (`terminations` all true), as in PettingZoo's classic
games; with `illegal_action="raise"` it raises `dixit_ai.rules.IllegalAction` and nothing changes.
Either way it is recorded in `env.unwrapped.illegal_actions` (this game's events), and the reason
is in the actor's `infos` (`"illegal_action"`) when it ends the game. `terminations` become true
when the rules end the game, `truncations` when `max_rounds` rounds are played.

## Version History

* v0: Initial release (dixit-ai 0.1.0); learning options (observation modes, flat formats,
  `Discrete` actions, reward options) added without changing the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
from pettingzoo.utils.wrappers.order_enforcing import (  # type: ignore[import-untyped]
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from dixit_ai.rules import IllegalAction, RoundResult
from envs.options import EnvOptions
from envs.parallel import DixitParallelEnv
from envs.table import METADATA, TableBase

__all__ = ["METADATA", "DixitParallelEnv", "env", "parallel_env", "raw_env"]

def env(**config: Any) -> AECEnv:
    """The AEC environment, in PettingZoo's standard wrappers.

    Only ``OrderEnforcingWrapper`` applies: ``TerminateIllegalWrapper`` and
    ``AssertOutOfBoundsWrapper`` assume ``Discrete`` actions, and the classic illegal-move
    convention they implement is built into :class:`raw_env` (``illegal_action``).

    Args:
        **config: See the module's configuration table.
    """
    return OrderEnforcingWrapper(raw_env(**config))


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``, with the hot paths in one hop.

    The base class reaches ``agents`` and ``agent_selection`` (read by ``agent_iter`` on every
    turn) and the five attributes ``last()`` reads through its ``__getattr__``; this subclass
    reads them directly once the environment is reset, and raises the base class's errors before.
    Otherwise it is the base class.
    """

    @property
    def agents(self) -> list[str]:
        """The live agents (an ``AttributeError`` before ``reset``)."""
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        agents: list[str] = self.env.agents
        return agents

    @property
    def agent_selection(self) -> str:
        """The agent to act (an ``AttributeError`` before ``reset``)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent: str = self.env.agent_selection
        return agent

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        """PettingZoo's ``agent_iter`` (the same stops and the same order check), its iterator
        reading the unwrapped environment's ``agents`` and ``agent_selection`` directly."""
        super().agent_iter(max_iter)  # PettingZoo's own checks (reset first)
        return _TurnIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``last`` of the wrapped environment (an ``AttributeError`` before ``reset``)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def step(self, action: Any) -> None:
        """``step`` of the wrapped environment, with the base class's checks."""
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def __str__(self) -> str:
        return str(self.env)


class _TurnIterable(AECOrderEnforcingIterable):  # type: ignore[misc]
    def __iter__(self) -> _TurnIterator:
        return _TurnIterator(self.env, self.max_iter)


class _TurnIterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    """``AECOrderEnforcingIterator`` in one hop: the base class reads ``agents`` and
    ``agent_selection`` through the wrapper's properties on every turn."""

    def __next__(self) -> str:
        wrapper = self.env
        if not wrapper._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        env = wrapper.env
        if not env.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        agent: str = env.agent_selection
        return agent


def parallel_env(**config: Any) -> DixitParallelEnv:
    """The Parallel environment: each phase's seats act at once.

    Args:
        **config: See the module's configuration table.
    """
    return DixitParallelEnv(**config)


class raw_env(TableBase, AECEnv):  # type: ignore[misc]
    """The AEC environment, unwrapped (see the module's docstring for spaces and turns).

    Args:
        edition: The rules' edition.
        n_players: Players in the game.
        deck: Card ids, a deck spec or a ``Deck``.
        clue_mode: ``"text"`` or ``"vocab"``.
        clue_vocab: The vocabulary of ``"vocab"`` mode.
        max_rounds: Truncate after this many rounds (``None``: no limit).
        illegal_action: ``"terminate"`` (-1, the game ends) or ``"raise"``.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or ``None``.
        **rule_overrides: Rule parameters, as ``RuleSet.edition`` takes them.

    Raises:
        ValueError: a bad configuration (the message names the limit).
    """

    environment_name = "dixit_v0.env"

    metadata: ClassVar[dict[str, Any]] = {**METADATA, "is_parallelizable": False}

    def __init__(
        self,
        *,
        edition: str = "refresh-2021",
        n_players: int = 4,
        deck: Any = "dream",
        clue_mode: str = "text",
        clue_vocab: Sequence[str] | None = None,
        max_rounds: int | None = None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        observation: str = "ids",
        flatten: bool = False,
        classic: bool = False,
        actions: str = "dict",
        reward: str = "points",
        embeddings: Any = None,
        embedder: str | None = None,
        embedding_dim: int | None = None,
        clues_per_card: int | None = None,
        clue_proposer: Any = None,
        **rule_overrides: Any,
    ) -> None:
        AECEnv.__init__(self)
        self._setup(edition=edition, n_players=n_players, deck=deck, clue_mode=clue_mode,
                    clue_vocab=clue_vocab, max_rounds=max_rounds, illegal_action=illegal_action,
                    render_mode=render_mode, rule_overrides=rule_overrides,
                    options=EnvOptions(observation=observation, flatten=flatten,
                                       classic=classic, actions=actions, reward=reward,
                                       embeddings=embeddings, embedder=embedder,
                                       embedding_dim=embedding_dim,
                                       clues_per_card=clues_per_card,
                                       clue_proposer=clue_proposer))
        self._stale_rewards = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` seeds it as ``play_game(seed=...)`` would."""
        self._seed_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._stale_rewards = False
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[self.core.state.pending[0]]

    def observe(self, agent: str) -> Any:
        """What ``agent`` sees now (its ``action_mask`` is all zeros unless it is to act)."""
        acting = agent == self.agent_selection and self.terminations.get(agent) is False
        return self.encoding.observe(self.seat_of[agent], acting)

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (``None`` for a finished agent)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        core = self.core
        seat = self.seat_of[agent]
        try:
            move = core.build(seat, self.encoding.core_action(seat, action))
            if self.encoding.embeds(move):
                # A tell whose clue the observations embed: the rules judge it first (an illegal
                # tell is refused as such), then a clue that cannot be embedded raises, the game
                # unchanged, instead of failing the next observation after the tell was applied.
                core.check(move)
                self.encoding.admit(move)
            result = core.commit(seat, move)
        except IllegalAction as error:
            self._illegal(agent, action, error)
            return
        self._cumulative_rewards[agent] = 0.0
        if self._stale_rewards:
            self._clear_rewards()
            self._stale_rewards = False
        if result is not None:
            self._scored(result)
        else:
            self.agent_selection = self.possible_agents[core.state.pending[0]]
        if self.render_mode == "human":
            self.render()

    def _scored(self, result: RoundResult) -> None:
        rewards = self.rewards
        for agent, reward in zip(self.possible_agents, self._round_rewards(result), strict=True):
            rewards[agent] = reward
        self._accumulate_rewards()
        self._stale_rewards = True
        core = self.core
        if core.state.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif core.is_truncated():
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[core.state.pending[0]]
            return
        self._deads_step_first()

    def _illegal(self, agent: str, action: Any, error: IllegalAction) -> None:
        event = self._record_illegal(agent, action, error)
        if self.illegal_action == "raise":
            raise error
        self.core.ended_by = event
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = -1.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent] = {"illegal_action": event.reason}
        self._accumulate_rewards()
        self._stale_rewards = True
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()
