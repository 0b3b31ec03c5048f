"""The arrays of many games in lockstep and their dealing (:mod:`dixit_ai.rules.batched`).

:class:`BatchedState` holds what :class:`~dixit_ai.rules.batched.BatchedGames` plays on: the
checked arguments, every slot's hands, piles, scores and round, the layout tables of a board, and
the random draws of each game (the deal, its boards and its reshuffles, from
:mod:`dixit_ai.rules.batched_random`, held a window of rounds at a time and drawn again when a
game outlives its window). It starts the run's next games in free slots, reshuffles a discard
pile and parks a slot left without a game; the moves, the reveal and the log are
:class:`~dixit_ai.rules.batched.BatchedGames`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dixit_ai.rules._fast import is_int
from dixit_ai.rules.batched_log import RoundArrays, game_seeds_at
from dixit_ai.rules.batched_random import DrawSchedule, GameDraws, draw_games
from dixit_ai.rules.ruleset import RuleSet
from dixit_ai.rules.state import Phase

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

__all__ = ["BatchedState"]


class BatchedState:
    """The arrays and the draws of ``n_games`` games in lockstep.

    The arguments are :class:`~dixit_ai.rules.batched.BatchedGames`'s (see there).
    """

    def __init__(self, rules: RuleSet, n_players: int, n_games: int, *, seed: int,
                 deck: Any = None, total_games: int | None = None, auto_reset: bool = True,
                 record: bool = True, cohort: int = 4096, rounds_ahead: int = 16) -> None:
        if rules.teams:
            raise ValueError("the batched engine does not implement the team variant "
                             "(teams=True); play it with the scalar engine")
        if rules.mode != "standard":
            raise ValueError(f"the batched engine does not implement mode {rules.mode!r} "
                             f"(Dixit Party); play it with the scalar engine")
        rules.check_players(n_players)
        given = range(84) if deck is None else deck
        if not (isinstance(given, np.ndarray) and given.dtype.kind in "iu"):
            given = list(given)
            for card in given:  # as the scalar engine's new_game: no float, str or bool ids
                if not is_int(card):
                    raise ValueError(f"card id {card!r} is not an integer")
        card_ids = np.asarray(given, dtype=np.int64)
        if card_ids.ndim != 1 or len(np.unique(card_ids)) != len(card_ids) or (
                len(card_ids) and card_ids.min() < 0):
            raise ValueError("the deck must be distinct non-negative card ids")
        if len(card_ids) > 32767:
            raise ValueError(f"the batched engine takes decks of at most 32767 cards, "
                             f"not {len(card_ids)}")
        rules.check_deck(n_players, len(card_ids))
        for name, value, low in (("n_games", n_games, 1), ("cohort", cohort, 1),
                                 ("rounds_ahead", rounds_ahead, 1)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an int >= {low}, not {value!r}")
        if total_games is not None and (isinstance(total_games, bool) or not isinstance(
                total_games, int) or total_games < 1):
            raise ValueError(f"total_games must be None or an int >= 1, not {total_games!r}")
        if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
            raise ValueError(f"seed must be a non-negative int, not {seed!r}")
        self.rules = rules
        self.n_players = n = n_players
        self.card_ids = card_ids
        self.seed = int(seed)
        self.total_games = total_games
        self.auto_reset = auto_reset
        self.record = record
        self.cohort = cohort
        self.hand_size = rules.hand_size_for(n)
        self.cards_per_guesser = rules.cards_per_guesser_for(n)
        self.board_size = rules.board_size(n)
        self.max_votes = rules.votes_per_guesser(n)
        self.n_rounds = rules.n_rounds_for(n)
        self.n_slots = g_count = n_games if total_games is None else min(n_games, total_games)
        self._rows = np.arange(g_count)
        self._schedule = DrawSchedule.build(rules, n, len(card_ids), rounds=rounds_ahead)
        self._cohort_start = 0
        self._cohort: GameDraws | None = None
        self._next_game = 0
        # The laid-out order (seat by seat, the storyteller's one card at its seat) for each
        # storyteller: index into the (n, K) played array, and the owner of each laid card.
        k = self.cards_per_guesser
        self._laid_index = np.zeros((n, self.board_size), dtype=np.int64)
        self._laid_owner = np.zeros((n, self.board_size), dtype=np.int64)
        for teller in range(n):
            index = [seat * k + c for seat in range(n)
                     for c in range(1 if seat == teller else k)]
            self._laid_index[teller] = index
            self._laid_owner[teller] = [i // k for i in index]
        # Refill: the draws go clockwise from the storyteller's left, the storyteller last.
        self._draw_order = np.zeros((n, n, k), dtype=np.int64)  # [teller, seat, c]
        for teller in range(n):
            for seat in range(n):
                turn = (seat - teller) % n
                for c in range(k):
                    self._draw_order[teller, seat, c] = (
                        self.board_size - 1 if turn == 0 else (turn - 1) * k + c)
        capacity = len(card_ids) - n * self.hand_size + self.board_size
        self.hands = np.zeros((g_count, n, self.hand_size), dtype=np.int64)
        self.pile = np.zeros((g_count, capacity), dtype=np.int64)
        self.pile_size = np.zeros(g_count, dtype=np.int64)
        self.discard = np.zeros((g_count, capacity), dtype=np.int64)
        self.discard_size = np.zeros(g_count, dtype=np.int64)
        self.scores = np.zeros((g_count, n), dtype=np.int64)
        self.round = np.zeros(g_count, dtype=np.int64)
        self.storyteller = np.zeros(g_count, dtype=np.int64)
        self.active = np.zeros(g_count, dtype=bool)
        self.game_number = np.full(g_count, -1, dtype=np.int64)
        self.first_row = np.zeros(g_count, dtype=np.int64)
        rounds = self._schedule.rounds
        self._boards = np.zeros((g_count, rounds, self.board_size), dtype=np.int16)
        # A window of ``rounds`` rounds may hold more reshuffles than the first one does, and
        # the first reshuffle may come after the first window: the longer schedule reaches
        # past the first reshuffle by a whole cycle of the piles (the reshuffles repeat with
        # that cycle), which gives both the most reshuffles a window holds and their size.
        cycle = len(card_ids) // self.board_size + 2  # rounds between reshuffles, at most
        longer = DrawSchedule.build(rules, n, len(card_ids), rounds=3 * rounds + 2 * cycle + 64)
        marks = np.concatenate([[0], np.cumsum(longer.reshuffle_round)])
        capacity = int((marks[rounds:] - marks[:-rounds]).max()) if len(marks) > rounds else 0
        self._reshuffles = np.zeros(
            (g_count, max(capacity, self._schedule.n_reshuffles), longer.reshuffle_size),
            dtype=np.int16)
        self._reshuffle_index = np.asarray(longer.reshuffle_index, dtype=np.int64)
        self._window = np.zeros(g_count, dtype=np.int64)  # first round held in _boards
        self._reshuffle_base = np.zeros(g_count, dtype=np.int64)  # first reshuffle held
        self.extensions = 0
        self.phase = Phase.TELL
        self.log: list[RoundArrays] = []
        self._finished: list[tuple[Ints, Ints, Ints, int, bool]] = []
        self._log_offset = 0
        self.rounds_played = 0
        self.games_finished = 0
        """Games the rules ended so far (cut-off games not counted)."""
        self.told_slot = np.zeros(g_count, dtype=np.int64)
        self.clue = np.zeros(g_count, dtype=np.int64)
        self.played_slots = np.zeros((g_count, n, k), dtype=np.int64)
        self.played_cards = np.zeros((g_count, n, k), dtype=np.int64)
        self.board = np.zeros((g_count, self.board_size), dtype=np.int64)
        self.board_owner = np.zeros((g_count, self.board_size), dtype=np.int64)
        self.storyteller_position = np.zeros(g_count, dtype=np.int64)
        self._rows2 = self._rows[:, None]
        self._rows3 = self._rows[:, None, None]
        self._seats = np.arange(n)
        self._hand_base = (self._rows2 * n + self._seats[None, :]) * self.hand_size
        self._board_range = np.arange(self.board_size)[None, :]
        self._guessing = np.zeros((g_count, n), dtype=bool)
        self._all_active = True
        self.last_points = np.zeros((g_count, n), dtype=np.int64)
        """``(G, n)``: each seat's points in the last revealed round."""
        self.last_scores = self.scores
        """``(G, n)``: the scores after the last round (a game that ended: its final scores)."""
        self._start_games(np.arange(g_count))

    # ------------------------------------------------------------------ games and draws

    def _seeds_of(self, numbers: Any) -> list[int]:
        """The seeds of games ``numbers`` of this run."""
        return game_seeds_at(self.seed, numbers)

    def _draws_for(self, numbers: Ints) -> GameDraws:
        """The draws of games ``numbers`` (consecutive), computed a cohort at a time."""
        first, last = int(numbers[0]), int(numbers[-1])
        cohort = self._cohort
        begin = self._cohort_start
        end = begin + (0 if cohort is None else len(cohort.deal))
        if cohort is not None and begin <= first < end <= last:  # straddles: two parts
            head, tail = self._draws_for(numbers[:end - first]), self._draws_for(
                numbers[end - first:])
            return GameDraws(*(np.concatenate([a, b]) for a, b in zip(
                (head.deal, head.first_storyteller, head.boards, head.reshuffles),
                (tail.deal, tail.first_storyteller, tail.boards, tail.reshuffles), strict=True)))
        if cohort is None or not begin <= first <= last < end:
            size = max(self.cohort, len(numbers))
            cohort = draw_games(self._schedule, self._seeds_of(np.arange(first, first + size)))
            self._cohort, self._cohort_start = cohort, first
        at = numbers - self._cohort_start
        return GameDraws(deal=cohort.deal[at], first_storyteller=cohort.first_storyteller[at],
                         boards=cohort.boards[at], reshuffles=cohort.reshuffles[at])

    def _start_games(self, slots: Ints) -> None:
        """Start the next games of the run in ``slots`` (or leave them inactive)."""
        if self.total_games is not None:
            slots = slots[:max(0, self.total_games - self._next_game)]
        if len(slots):
            numbers = np.arange(self._next_game, self._next_game + len(slots))
            self._next_game += len(slots)
            self._place(slots, numbers)
        # Also where no game started: a slot left without one is parked from now on.
        self._all_active = bool(self.active.all())

    def _place(self, slots: Ints, numbers: Ints) -> None:
        draws = self._draws_for(numbers)
        n, hand = self.n_players, self.hand_size
        deck_size = len(self.card_ids)
        order = draws.deal.astype(np.int64)  # the scalar engine's shuffled deck, as indices
        # Seat s holds order[-hand * (s + 1): deck_size - hand * s], in order: the last n hands
        # of the shuffled deck, seat n - 1 first.
        pile = deck_size - n * hand
        self.hands[slots] = order[:, pile:].reshape(len(slots), n, hand)[:, ::-1]
        self.pile[slots, :pile] = order[:, :pile]
        self.pile_size[slots] = pile
        self.discard_size[slots] = 0
        self.scores[slots] = 0
        self.round[slots] = 0
        self.storyteller[slots] = draws.first_storyteller
        self.active[slots] = True
        self.game_number[slots] = numbers
        self.first_row[slots] = self.rounds_played
        self._boards[slots] = draws.boards
        if draws.reshuffles.size:
            self._reshuffles[slots, :draws.reshuffles.shape[1]] = draws.reshuffles
        self._window[slots] = 0
        self._reshuffle_base[slots] = 0

    def _reshuffles_before(self, rounds: Ints) -> Ints:
        """How many reshuffles come before each of ``rounds`` (the schedule grown on demand)."""
        top = int(rounds.max()) + 1
        if top > len(self._reshuffle_index):
            longer = DrawSchedule.build(self.rules, self.n_players, len(self.card_ids),
                                        rounds=max(top, 2 * len(self._reshuffle_index)))
            self._reshuffle_index = np.asarray(longer.reshuffle_index, dtype=np.int64)
        found: Ints = self._reshuffle_index[rounds]
        return found

    def _extend_draws(self, slots: Ints) -> None:
        """Games in ``slots`` outlived the rounds drawn for them: draw the next window."""
        held = self._boards.shape[1]
        for start in np.unique(self.round[slots]).tolist():
            group = slots[self.round[slots] == start]
            schedule = DrawSchedule.build(self.rules, self.n_players, len(self.card_ids),
                                          rounds=start + held)
            draws = draw_games(schedule, self._seeds_of(self.game_number[group]))
            base = int(self._reshuffles_before(np.asarray([start]))[0])
            window = draws.boards[:, start:start + held]
            self._boards[group, :window.shape[1]] = window
            kept = draws.reshuffles[:, base:base + self._reshuffles.shape[1]]
            if kept.size:
                self._reshuffles[group, :kept.shape[1]] = kept
            self._window[group] = start
            self._reshuffle_base[group] = base
            self.extensions += len(group)

    # ------------------------------------------------------------------ the piles

    def _reshuffle(self, shuffled: Ints) -> None:
        """Shuffle the discard pile of games ``shuffled`` under what is left of the draw pile."""
        which = self._reshuffles_before(self.round[shuffled]) - self._reshuffle_base[shuffled]
        perm = self._reshuffles[shuffled, which]
        length = perm.shape[1]
        remaining = self.pile_size[shuffled]
        rest = int(remaining[0])
        new = self.discard[shuffled[:, None], perm]
        if (remaining == rest).all():  # always so: every game's piles follow one schedule
            self.pile[shuffled, length:length + rest] = self.pile[shuffled, :rest]
        else:  # pragma: no cover - kept for safety
            raise AssertionError("games reshuffled with different draw piles left")
        self.pile[shuffled, :length] = new
        self.pile_size[shuffled] = length + rest
        self.discard_size[shuffled] = 0

    def _park(self, slots: Ints) -> None:
        """Keep the piles of slots left without a game in range (their contents are unused)."""
        self.pile_size[slots] = self.board_size
        self.discard_size[slots] = 0
        self._all_active = bool(self.active.all())
