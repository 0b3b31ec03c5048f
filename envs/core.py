"""The engine shared by the AEC, Parallel and single-agent environments.

:class:`DixitCore` is a thin adapter over :mod:`dixit_ai.rules`: it owns one game (the rules'
:class:`~dixit_ai.rules.GameState` and its generator), turns environment actions (a card index and
a clue) into the rules' ``Tell``, ``Play`` and ``Vote`` actions, and encodes what a seat sees
(built from :func:`dixit_ai.rules.observe`, the one door hidden information leaves by) as arrays.

The rules take a guesser's cards (two in a 3-player game) in one ``Play`` and a voter's one or two
board positions in one ``Vote``. The environments ask for one card or one position per turn: the
core keeps a seat's first choice (its *partial* choice, seen by that seat only) until the choice is
complete, then hands the whole action to the rules. Nothing here decides what is legal: partial
choices are checked with the rules' own checks (:func:`dixit_ai.rules.check_vote`), complete ones
by :func:`dixit_ai.rules.apply_action`.

The fields the encodings share are in :mod:`envs.fields`, the whole state for centralised training
in :mod:`envs.full_state`, and the games' seeds in :mod:`envs.seeding`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from gymnasium import spaces

from dixit_ai.match import game_streams, resolve_deck
from dixit_ai.rules import (
    Action,
    Announce,
    GameState,
    IllegalAction,
    Phase,
    Play,
    RedToken,
    RoundResult,
    RuleSet,
    Tell,
    View,
    Vote,
    apply_action,
    check_action,
    check_vote,
    new_game,
    observe,
)
from envs import full_state
from envs.fields import BIG, CLUE_CHARSET, PHASE_INDEX, PHASES, Mask
from envs.seeding import SeedSource, int_like

__all__ = ["BIG", "CLUE_CHARSET", "PHASES", "PHASE_INDEX", "ClueMode", "DixitActionSpace",
           "DixitCore", "IllegalActionEvent", "IllegalActionPolicy", "Mask", "Move", "SeedSource"]

ClueMode = Literal["text", "vocab"]
IllegalActionPolicy = Literal["terminate", "raise"]


@dataclass(frozen=True)
class IllegalActionEvent:
    """One illegal action, as the environments record it.

    Attributes:
        agent: The agent that acted (``"player_2"``).
        phase: ``"tell"``, ``"play"`` or ``"vote"``.
        round: The round (0-based).
        reason: Why the action is illegal (the rules' message).
        action: The action given, as text.
    """

    agent: str
    phase: str
    round: int
    reason: str
    action: str


Move = Action | tuple[int, ...]
"""What an environment action becomes: a complete rules action, or a seat's new partial choice."""


class DixitActionSpace(spaces.Dict):
    """The action space: ``Dict(card=Discrete(A), clue=Text(...) or Discrete(V))``.

    A :class:`gymnasium.spaces.Dict` whose :meth:`sample` also takes, as PettingZoo's checkers
    pass it, the observation's ``"action_mask"`` (an ``int8`` array over card indices): the card is
    then drawn from the unmasked indices and the clue is drawn so that the rules accept it (not
    blank). A ``dict`` mask works as in ``Dict``.
    """

    def sample(
        self,
        mask: Mapping[str, Any] | np.ndarray | None = None,
        probability: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A random action; with an array ``mask``, a card index the mask allows.

        Args:
            mask: The observation's ``"action_mask"``, or a dict of masks per key.
            probability: A dict of probability masks per key (as in ``Dict``).

        Returns:
            ``{"card": numpy.int64, "clue": str or numpy.int64}``.
        """
        if isinstance(mask, np.ndarray):
            card = self.spaces["card"].sample(mask=mask.astype(np.int8, copy=False))
            return {"card": card, "clue": self._sample_clue()}
        if mask is None and probability is None:
            return {"card": self.spaces["card"].sample(), "clue": self._sample_clue()}
        return super().sample(mask=dict(mask) if mask is not None else None,
                              probability=dict(probability) if probability is not None
                              else None)

    def _sample_clue(self) -> Any:
        clue_space = self.spaces["clue"]
        clue = clue_space.sample()
        while isinstance(clue, str) and not clue.strip():
            clue = clue_space.sample()
        return clue


class DixitCore:
    """One game of Dixit as the environments see it: seats, turns, masks, encodings.

    Args:
        edition: The edition's name (``"refresh-2021"``, ...).
        n_players: Players in the game.
        deck: Card ids, or a deck spec / ``Deck`` resolved by :func:`dixit_ai.match.resolve_deck`.
        clue_mode: ``"text"`` (clues are text) or ``"vocab"`` (clues are indices into
            ``clue_vocab``).
        clue_vocab: The clue vocabulary of ``"vocab"`` mode (default: the random agent's words).
        max_rounds: Truncate the game after this many rounds (``None``: no limit).
        rule_overrides: Rule parameters, as :meth:`RuleSet.edition` takes them.

    Raises:
        ValueError: bad rules, player count, deck, clue mode, vocabulary or round limit.
    """

    def __init__(
        self,
        *,
        edition: str,
        n_players: int,
        deck: Any,
        clue_mode: str,
        clue_vocab: Sequence[str] | None,
        max_rounds: int | None,
        rule_overrides: Mapping[str, Any],
    ) -> None:
        self.rules = RuleSet.edition(edition, **rule_overrides)
        self.rules.check_players(n_players)
        self.n_players = n_players
        self.deck_source: Any = deck
        card_ids, self.deck_entry = resolve_deck(deck)
        if len(set(card_ids)) != len(card_ids) or any(card < 0 for card in card_ids):
            raise ValueError("deck card ids must be unique non-negative integers")
        self.rules.check_deck(n_players, len(card_ids))
        self.card_ids: tuple[int, ...] = card_ids
        self.max_card_id = max(card_ids)
        if max_rounds is not None and (int_like(max_rounds) is None or max_rounds < 1):
            raise ValueError(f"max_rounds must be None or a positive int, not {max_rounds!r}")
        self.max_rounds = max_rounds

        rules = self.rules
        self.hand_size = rules.hand_size_for(n_players)
        self.board_size = rules.board_size(n_players)
        self.cards_to_play = rules.cards_per_guesser_for(n_players)
        self.max_votes = rules.votes_per_guesser(n_players)
        self.played_size = max(1, self.cards_to_play)
        n_cards = max(self.hand_size, self.board_size)
        # The extra index passes: the second vote where one is allowed; in the team variant, a
        # team's designated seat passing the giving of the team's card to its partner.
        self.pass_index: int | None = n_cards if (self.max_votes > 1 or rules.teams) else None
        self.party = rules.mode == "party"
        self.n_actions = n_cards + (1 if self.pass_index is not None else 0)

        if clue_mode not in ("text", "vocab"):
            raise ValueError(f"clue_mode must be 'text' or 'vocab', not {clue_mode!r}")
        self.clue_mode: ClueMode = "text" if clue_mode == "text" else "vocab"
        self.vocab: tuple[str, ...] | None = None
        self.vocab_index: dict[str, int] = {}
        if self.clue_mode == "vocab":
            if clue_vocab is None:
                from dixit_ai.agents.random_agent import CLUE_WORDS

                clue_vocab = CLUE_WORDS
            self.vocab = self._check_vocab(clue_vocab)
            self.vocab_index = {clue: i for i, clue in enumerate(self.vocab)}
        elif clue_vocab is not None:
            raise ValueError("clue_vocab is for clue_mode='vocab'")

        # Precomputed pieces of the observations (the hot path of every step).
        self._pad_cards = (-1,) * max(self.hand_size, self.board_size, self.played_size,
                                      self.max_votes)
        self._int64 = {i: np.int64(i) for i in range(-1, max(n_players, len(PHASES),
                                                              len(self.vocab or ())) + 1)}
        self._no_mask: Mask = np.zeros(self.n_actions, dtype=np.int8)
        # Masks of the first k indices (a hand's cards, a board's positions), copied per turn.
        self._first_masks: dict[int, Mask] = {}
        for size in range(max(self.hand_size, self.board_size) + 1):
            mask = self._no_mask.copy()
            mask[:size] = 1
            self._first_masks[size] = mask
        self._no_board = (-1,) * self.board_size
        self._pads = tuple([(-1,) * (size - k) for k in range(size + 1)]
                           for size in (self.hand_size, self.played_size, self.max_votes))
        self._phase_values = {phase: np.int64(i) for phase, i in PHASE_INDEX.items()}
        self._cuts = (self.hand_size, self.hand_size + self.board_size,
                      self.hand_size + self.board_size + self.played_size)
        self.game_seed: int | None = None
        self.streams: list[np.random.SeedSequence] = []
        self.rng = np.random.default_rng(0)
        self._views: dict[int, View] = {}
        self.state: GameState = new_game(self.rules, n_players, card_ids, self.rng)
        """The rules' state of the current game (a placeholder game until ``reset``)."""
        self.partial: list[tuple[int, ...]] = [()] * n_players
        self.ended_by: IllegalActionEvent | None = None
        self.truncated = False
        self._public_key = -1
        self._public: tuple[np.ndarray, ...] = ()

    def _check_vocab(self, vocab: Iterable[str]) -> tuple[str, ...]:
        if isinstance(vocab, str | bytes):  # a string is a sequence: of its letters
            raise ValueError(f"clue_vocab must be a list of clues, not the text {vocab[:40]!r} "
                             "(which would be a vocabulary of its letters)")
        words = tuple(vocab)
        if not words:
            raise ValueError("clue_vocab is empty")
        for word in words:
            if not isinstance(word, str) or not word.strip():
                raise ValueError(f"clue_vocab entries must be non-blank text, not {word!r}")
            if len(word) > self.rules.max_clue_length:
                raise ValueError(f"clue_vocab entry {word[:20]!r}... is longer than "
                                 f"{self.rules.max_clue_length} characters")
        if len(set(words)) != len(words):
            raise ValueError("clue_vocab repeats an entry")
        return words

    # ------------------------------------------------------------------ the game

    def set_state(self, state: GameState) -> None:
        """Replace the rules' state (and forget what was derived from the old one)."""
        self.state = state
        self._views = {}
        self._public_key = -1

    def reset(self, game_seed: int) -> None:
        """Start a new game seeded as :func:`dixit_ai.play_game` seeds one.

        Stream 0 of :func:`dixit_ai.match.game_streams` drives the rules (deal, board shuffles,
        reshuffles); streams ``1..n`` are the seats' (:attr:`streams`), for agents playing them.
        """
        self.game_seed = game_seed
        self.streams = game_streams(game_seed, self.n_players)
        self.rng = np.random.default_rng(self.streams[0])
        self.partial = [()] * self.n_players
        self.ended_by = None
        self.truncated = False
        self.set_state(new_game(self.rules, self.n_players, self.card_ids, self.rng))

    def view(self, seat: int) -> View:
        """What ``seat`` may know (the rules' observer), cached until the state changes."""
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = observe(self.state, seat)
        return view

    def is_acting(self, seat: int) -> bool:
        """Whether ``seat`` may act now: it has a choice to make in this phase (the AEC
        environment asks these seats one at a time, the Parallel one all at once)."""
        return self.ended_by is None and not self.truncated and seat in self.state.pending

    def turn_index(self, seat: int) -> int:
        """0 for a seat's first choice in this phase; 1 for its second card or second vote."""
        return len(self.partial[seat])

    def is_over(self) -> bool:
        """Whether the game ended (by the rules or by an illegal action)."""
        return self.ended_by is not None or self.state.is_over

    def is_truncated(self) -> bool:
        """Whether the round limit stopped a game the rules have not ended."""
        return self.truncated

    def build(self, seat: int, action: Any) -> Move:
        """Turn an environment action of ``seat`` into a rules action or a partial choice.

        A partial choice (the first of a guesser's two cards, or a first vote where a second may
        follow) is fully checked here; a complete action is checked by the rules when applied
        (:meth:`commit`) or by :meth:`check`.

        Raises:
            IllegalAction: the action is malformed, out of range, or refused by the rules.
        """
        state = self.state
        if seat not in state.pending:
            raise IllegalAction(f"seat {seat} is not asked to act in the {state.phase.value} "
                                f"phase of round {state.round}")
        is_mapping = type(action) is dict or isinstance(action, Mapping)
        index = int_like(action.get("card") if is_mapping else action)
        if index is None:
            raise IllegalAction(f"seat {seat}'s action {action!r} has no integer 'card' index")
        phase = state.phase
        if phase is Phase.VOTE:
            return self._build_vote(seat, index)
        if phase is Phase.RED:
            if not 0 <= index < len(state.board):
                raise IllegalAction(f"seat {seat} put the red token on index {index}; the board "
                                    f"has positions 0-{len(state.board) - 1}")
            return RedToken(seat, index)
        if phase is Phase.TELL and self.party:
            if not is_mapping or index != 0:
                raise IllegalAction(f"seat {seat} announces with a dict holding 'card': 0 "
                                    f"(no card: the clue comes first) and 'clue', not {action!r}")
            return Announce(seat, self._clue(seat, action.get("clue")), action.get("clue_kind"))
        if phase is Phase.PLAY and index == self.pass_index and self.rules.teams:
            if not self.view(seat).can_pass:
                raise IllegalAction(f"seat {seat} may not pass: only a team's designated seat "
                                    "passes the giving to its partner")
            return Play(seat, ())
        hand = self.view(seat).hand
        if not 0 <= index < len(hand):
            raise IllegalAction(f"seat {seat} chose card index {index}; its hand has "
                                f"positions 0-{len(hand) - 1}")
        card = hand[index]
        if phase is Phase.TELL:
            if not is_mapping:
                raise IllegalAction(f"seat {seat} must tell with a dict holding 'card' and "
                                    f"'clue', not {action!r}")
            return Tell(seat, card, self._clue(seat, action.get("clue")),
                        action.get("clue_kind"))
        chosen = self.partial[seat]
        if card in chosen:
            raise IllegalAction(f"seat {seat} played the same card twice (hand index {index})")
        cards = (*chosen, card)
        return cards if len(cards) < self.cards_to_play else Play(seat, cards)

    def _build_vote(self, seat: int, index: int) -> Move:
        state = self.state
        chosen = self.partial[seat]
        if chosen and index == self.pass_index:
            return Vote(seat, chosen)
        if not 0 <= index < len(state.board):
            extra = "" if self.pass_index is None else (
                f", or {self.pass_index} to pass a second vote" if chosen else
                f"; {self.pass_index} (pass) is for the second vote only")
            raise IllegalAction(f"seat {seat} voted for index {index}; the board has positions "
                                f"0-{len(state.board) - 1}{extra}")
        positions = (*chosen, index)
        if len(positions) < self.max_votes:
            if not chosen and index not in self.view(seat).barred_vote_positions:
                return positions  # a pending seat's first vote, in range and not barred: legal
            check_vote(self.rules, n_players=self.n_players, storyteller=state.storyteller,
                       board_owner=state.board_owner, seat=seat, positions=positions,
                       voters=state.voters)
            return positions
        return Vote(seat, positions)

    def _clue(self, seat: int, clue: Any) -> str:
        if isinstance(clue, str):
            return clue
        if self.vocab is not None:
            index = int_like(clue)
            if index is not None:
                if 0 <= index < len(self.vocab):
                    return self.vocab[index]
                raise IllegalAction(f"seat {seat}'s clue index {index} is outside the "
                                    f"vocabulary (0-{len(self.vocab) - 1})")
            raise IllegalAction(f"seat {seat}'s clue must be a vocabulary index, not {clue!r}")
        raise IllegalAction(f"seat {seat}'s clue must be text, not {clue!r}")

    def check(self, move: Move) -> None:
        """Raise :class:`IllegalAction` unless the rules accept ``move`` now."""
        if not isinstance(move, tuple):
            check_action(self.state, move)

    def commit(self, seat: int, move: Move) -> RoundResult | None:
        """Apply ``move``; return the round's result when it completed (and scored) a round.

        Raises:
            IllegalAction: the rules refuse the action; nothing changes.
        """
        if isinstance(move, tuple):
            self.partial[seat] = move
            return None
        state = self.state
        new = apply_action(state, move, self.rng)
        self.partial[seat] = ()
        self.state = new
        self._views = {}
        if len(new.results) > len(state.results):
            if self.max_rounds is not None and not new.is_over and new.round >= self.max_rounds:
                self.truncated = True
            return new.results[-1]
        return None

    # ------------------------------------------------------------------ spaces

    def action_space(self) -> DixitActionSpace:
        """A new action space (each agent gets its own, seeded on its own)."""
        clue: spaces.Space[Any]
        if self.vocab is None:
            clue = spaces.Text(self.rules.max_clue_length, min_length=1, charset=CLUE_CHARSET)
        else:
            clue = spaces.Discrete(len(self.vocab))
        return DixitActionSpace({"card": spaces.Discrete(self.n_actions), "clue": clue})

    def observation_space(self) -> spaces.Dict:
        """A new observation space (each agent gets its own)."""
        n, board, votes = self.n_players, self.board_size, self.max_votes
        card = self.max_card_id

        def ints(low: int, high: int, shape: tuple[int, ...]) -> spaces.Box:
            return spaces.Box(low=low, high=high, shape=shape, dtype=np.int64)

        clue: spaces.Space[Any]
        if self.vocab is None:
            clue = spaces.Text(self.rules.max_clue_length, min_length=0, charset=CLUE_CHARSET)
        else:
            clue = spaces.Discrete(len(self.vocab) + 1, start=-1)
        return spaces.Dict({
            "phase": spaces.Discrete(len(PHASES)),
            "turn": spaces.Discrete(2),
            "seat": spaces.Discrete(n),
            "storyteller": spaces.Discrete(n),
            "round": ints(0, BIG, ()),
            "hand": ints(-1, card, (self.hand_size,)),
            "board": ints(-1, card, (board,)),
            "clue": clue,
            "my_cards": ints(-1, card, (self.played_size,)),
            "my_votes": ints(-1, board - 1, (votes,)),
            "scores": ints(0, BIG, (n,)),
            "last_board": ints(-1, card, (board,)),
            "last_owners": ints(-1, n - 1, (board,)),
            "last_votes": ints(-1, board - 1, (n, votes)),
            "last_points": ints(0, BIG, (n,)),
            "action_mask": spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=np.int8),
        })

    # ------------------------------------------------------------------ observations

    def action_mask(self, seat: int) -> Mask:
        """``int8`` over card indices: 1 where an action of ``seat`` is legal now, else 0.

        Every seat of the phase that has not acted yet may act (in parallel); the AEC environment
        shows this mask to the selected agent only.
        """
        return self._mask(seat, self.view(seat))

    def _mask(self, seat: int, view: View) -> Mask:
        mask: Mask
        if self.ended_by is not None or self.truncated or seat not in view.pending:
            mask = self._no_mask.copy()
            return mask
        chosen = self.partial[seat]
        if view.phase is Phase.RED:
            mask = self._no_mask.copy()
            mask[list(view.legal_red_positions())] = 1
            return mask
        if view.phase is Phase.TELL and self.party:
            mask = self._no_mask.copy()
            mask[0] = 1  # Dixit Party: announce (no card)
            return mask
        if view.phase is Phase.VOTE:
            mask = self._vote_mask(view)
            if chosen:  # a second vote: not the first one again; passing allowed
                for position in chosen:
                    mask[position] = 0
                mask[self.pass_index] = 1
            return mask
        hand = view.hand
        mask = self._first_masks[len(hand)].copy()
        for card in chosen:
            mask[hand.index(card)] = 0
        if view.can_pass and self.pass_index is not None:
            mask[self.pass_index] = 1
        return mask

    def _vote_mask(self, view: View) -> Mask:
        """A fresh mask of the board positions the viewing seat may vote for (the rules'
        ``legal_vote_positions``: every position but the barred ones), from a ones-over-the-board
        template. Building it is cheaper than the per-(round, seat) cache it replaces, which
        missed on every first vote."""
        mask = self._first_masks[len(view.board)].copy()
        for position in view.barred_vote_positions:
            mask[position] = 0
        return mask

    def observation(self, seat: int, acting: bool) -> dict[str, Any]:
        """What ``seat`` sees, as the observation space's dict.

        The fields that change with each step are fresh arrays; those that change once a round
        (round, scores, the last round's reveal) are read-only arrays shared by the round's
        observations.

        ``acting`` says whether the seat is asked to act now (the AEC environment asks one seat at
        a time, the Parallel one every seat of a phase); the mask of a seat that is not is all
        zeros.
        """
        view = self._views.get(seat) or self.view(seat)
        if view.round != self._public_key:
            self._update_public(view)
        round_, scores, last_board, last_owners, last_votes, last_points = self._public
        chosen = self.partial[seat]
        phase = view.phase
        clue: Any
        if self.vocab is None:
            clue = view.clue or ""
        else:
            clue = self._int64[self.vocab_index.get(view.clue, -1) if view.clue else -1]
        hand = view.hand
        if chosen and phase is not Phase.TELL:
            my_cards = chosen if phase is Phase.PLAY else view.my_cards
            my_votes = chosen if phase is Phase.VOTE else view.my_votes
        else:
            my_cards, my_votes = view.my_cards, view.my_votes
        hand_pad, played_pad, votes_pad = self._pads
        # One array for the fields that change from step to step; the fields are views of it.
        values = np.array([*hand, *hand_pad[len(hand)], *(view.board or self._no_board),
                           *my_cards, *played_pad[len(my_cards)],
                           *my_votes, *votes_pad[len(my_votes)]], dtype=np.int64)
        hand_end, board_end, cards_end = self._cuts
        ints = self._int64
        return {
            "phase": self._phase_values[phase],
            "turn": ints[len(chosen)],
            "seat": ints[seat],
            "storyteller": ints[view.storyteller],
            "round": round_,
            "hand": values[:hand_end],
            "board": values[hand_end:board_end],
            "clue": clue,
            "my_cards": values[board_end:cards_end],
            "my_votes": values[cards_end:],
            "scores": scores,
            "last_board": last_board,
            "last_owners": last_owners,
            "last_votes": last_votes,
            "last_points": last_points,
            "action_mask": self._mask(seat, view) if acting else self._no_mask.copy(),
        }

    def _update_public(self, view: View) -> None:
        """Rebuild the fields every seat sees alike (once per round; observations copy them)."""
        last = view.last_round
        if last is None:
            board = owners = np.full(self.board_size, -1, dtype=np.int64)
            votes = np.full((self.n_players, self.max_votes), -1, dtype=np.int64)
            points = np.zeros(self.n_players, dtype=np.int64)
        else:
            pad = self._pad_cards
            board = np.array(last.board, dtype=np.int64)
            owners = np.array(last.board_owner, dtype=np.int64)
            votes = np.array([v + pad[: self.max_votes - len(v)] for v in last.votes],
                             dtype=np.int64)
            points = np.array(last.points, dtype=np.int64)
        public = (np.array(view.round, dtype=np.int64),
                  np.array(view.scores, dtype=np.int64), board, owners, votes, points)
        for array in public:
            array.flags.writeable = False  # shared by every observation of the round
        self._public = public
        self._public_key = view.round

    # ------------------------------------------------------------------ the full state

    def state_layout(self) -> list[tuple[str, int, int, int]]:
        """The fields of :meth:`state_vector` (:func:`envs.full_state.state_layout`)."""
        return full_state.state_layout(self)

    def state_space(self) -> spaces.Box:
        """The ``Box`` that :meth:`state_vector` lies in."""
        return full_state.state_space(self)

    def state_vector(self) -> np.ndarray:
        """The whole game state, for centralised training (:func:`envs.full_state.state_vector`)."""
        return full_state.state_vector(self)
