"""Many games of Dixit in lockstep, as numpy arrays.

:class:`BatchedGames` plays ``n_games`` games of the same rules and player count at once: every
game is in the same phase, and one call advances all of them (the seats of a phase act together,
as in the PettingZoo parallel API). Each game is exactly the game the scalar engine
(:mod:`dixit_ai.rules.game`) plays with the same seed and the same moves: the deal, every board
and every reshuffle come from the same random stream (:mod:`dixit_ai.rules.batched_random`), the
scoring, refill and end follow the same rules. A finished game's rounds are kept as arrays and
convert to a :class:`~dixit_ai.records.GameRecord` (:mod:`dixit_ai.batched.records`) that
``dixit-ai replay`` verifies through the scalar engine.

Cards are *deck indices* (positions in ``card_ids``); hands have ``H`` slots and a move names
slots. Arrays are indexed ``[game, seat, ...]``. A round is three calls:

1. :meth:`BatchedGames.tell`: each storyteller's hand slot and clue id (``(G,)`` each);
2. :meth:`BatchedGames.play`: each guesser's hand slot(s), ``(G, n, K)`` (``K`` = 2 with 3
   players); the storyteller's row is ignored;
3. :meth:`BatchedGames.vote`: each guesser's board position(s), ``(G, n, M)`` (``M`` = 2 where a
   second vote is allowed; ``-1``: no second vote); the storyteller's row is ignored.

The last call scores the round, refills the hands and starts the next round; a game that ends is
replaced by the next game of the run (``auto_reset``) until ``total_games`` have started, then
its slot stays inactive (``active`` is ``False``; its moves are ignored). Every call checks the
moves of every active game against the legality masks (:meth:`legal_tell`, :meth:`legal_play`,
:meth:`legal_vote`) and raises :class:`~dixit_ai.rules.IllegalAction` naming the game, the seat and
the reason, changing nothing. The team variant and Dixit Party are refused.

The arrays, the deal and the random draws are :class:`~dixit_ai.rules.batched_state.BatchedState`'s
(:mod:`dixit_ai.rules.batched_state`); this module holds the masks, the moves, the reveal and the
log.

>>> from dixit_ai.rules import RuleSet
>>> games = BatchedGames(RuleSet.edition("refresh-2021"), 4, 3, seed=1, total_games=3)
>>> games.phase.value, games.hands.shape
('tell', (3, 4, 6))
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dixit_ai.rules.batched_log import FinishedGame, RoundArrays, batch_game_seeds
from dixit_ai.rules.batched_scoring import as_ints, round_points
from dixit_ai.rules.batched_state import BatchedState
from dixit_ai.rules.errors import IllegalAction
from dixit_ai.rules.state import Phase

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

__all__ = ["MAX_CLUE_ID", "BatchedGames", "FinishedGame", "RoundArrays", "batch_game_seeds"]

MAX_CLUE_ID = 2**31 - 1
"""The largest clue id :meth:`BatchedGames.tell` takes (the round log keeps them as int32)."""


class BatchedGames(BatchedState):
    """``n_games`` games of Dixit advanced in lockstep.

    Args:
        rules: The edition's rules (not the team variant, not Dixit Party).
        n_players: Players in every game.
        n_games: Games played at once (slots).
        seed: The run's seed; game ``k`` has seed ``batch_game_seeds(seed, k + 1)[k]``.
        deck: Card ids (default ``range(84)``).
        total_games: Games to start in all (``None``: no end; slots restart forever).
        auto_reset: Start the next game in a slot as soon as its game ends.
        record: Keep every round's arrays so that finished games convert to records.
        cohort: Games whose random draws are computed together (larger is faster per game).
        rounds_ahead: Rounds of draws computed at a game's start (more on demand).

    Raises:
        ValueError: rules this engine does not implement, a bad player count, deck or size.
    """

    # ------------------------------------------------------------------ masks

    def legal_tell(self) -> Bools:
        """``(G, H)``: the hand slots each storyteller may tell (all, in an active game)."""
        mask: Bools = np.broadcast_to(self.active[:, None], (self.n_slots, self.hand_size))
        if self.phase is not Phase.TELL:
            mask = np.zeros((self.n_slots, self.hand_size), dtype=bool)
        return mask

    def guessers(self) -> Bools:
        """``(G, n)``: the seats that play and vote this round (every seat but the storyteller).

        Like every mask here, a read-only view or a fresh array: writing into it cannot change
        the engine.
        """
        if self.phase is not Phase.TELL:
            view: Bools = self._guessing.view()
            view.flags.writeable = False
            return view
        guessing: Bools = (self._seats[None, :] != self.storyteller[:, None]) & (
            self.active[:, None])
        return guessing

    def legal_play(self) -> Bools:
        """``(G, n, H)``: the hand slots each seat may play (guessers of active games)."""
        if self.phase is not Phase.PLAY:
            return np.zeros((self.n_slots, self.n_players, self.hand_size), dtype=bool)
        mask: Bools = np.broadcast_to(self.guessers()[:, :, None],
                                      (self.n_slots, self.n_players, self.hand_size))
        return mask

    def legal_vote(self) -> Bools:
        """``(G, n, B)``: the board positions each seat may vote for (never its own card)."""
        if self.phase is not Phase.VOTE:
            return np.zeros((self.n_slots, self.n_players, self.board_size), dtype=bool)
        mask: Bools = (self.board_owner[:, None, :] != self._seats[None, :, None]) & (
            self._guessing[:, :, None])
        return mask

    # ------------------------------------------------------------------ moves

    def _fail(self, bad: Bools, why: str) -> None:
        where = np.argwhere(bad)[0]
        slot = int(where[0])
        seat = f", seat {int(where[1])}" if len(where) > 1 else ""
        raise IllegalAction(f"game {int(self.game_number[slot])} (slot {slot}{seat}, round "
                            f"{int(self.round[slot])}): {why}")

    def _check_phase(self, phase: Phase) -> None:
        if self.phase is not phase:
            raise IllegalAction(f"the games are in the {self.phase.value} phase, not "
                                f"{phase.value}")

    def tell(self, slots: npt.ArrayLike, clues: npt.ArrayLike | None = None) -> None:
        """Each storyteller tells the card in hand slot ``slots[g]`` with clue id ``clues[g]``.

        Raises:
            IllegalAction: outside the tell phase, no game running (after :meth:`finish`, or
                once all ``total_games`` have ended), a slot out of range, a clue id below 0 or
                above :data:`MAX_CLUE_ID`.
            ValueError: arrays of the wrong shape.
        """
        self._check_phase(Phase.TELL)
        if not self.active.any():  # a round of no game would only add an empty log row
            raise IllegalAction(f"no game is running: all {self._next_game} games have ended "
                                f"or were cut off by finish(); this engine takes no more moves")
        told = as_ints(slots, (self.n_slots,), "tell slots")
        clue = np.zeros(self.n_slots, dtype=np.int64) if clues is None else as_ints(
            clues, (self.n_slots,), "clue ids")
        active = self.active
        self._check_range(active, told, self.hand_size, "tells from hand slot")
        if (active & (clue < 0)).any():
            self._fail(active & (clue < 0), "a clue id must be non-negative")
        too_large = active & (clue > MAX_CLUE_ID)
        if too_large.any():  # the round log keeps clue ids as int32
            self._fail(too_large, f"clue id {int(clue[too_large][0])}; clue ids are at most "
                                  f"{MAX_CLUE_ID}")
        self.told_slot = np.where(active, told, 0)
        self.clue = clue.copy()
        self._guessing = (self._seats[None, :] != self.storyteller[:, None]) & active[:, None]
        self.phase = Phase.PLAY

    def _check_range(self, where: Bools, values: Ints, size: int, what: str) -> None:
        bad = where & ((values < 0) | (values >= size))
        if bad.any():
            index = tuple(np.argwhere(bad)[0])
            self._fail(bad, f"{what} {int(values[index])}; there are {size} (0-{size - 1})")

    def play(self, slots: npt.ArrayLike) -> None:
        """Each guesser plays the card(s) in hand slots ``slots[g, seat]`` (``(G, n, K)``).

        The storyteller's row is ignored. Raises :class:`IllegalAction` for a slot out of range
        or the same slot twice; ``ValueError`` for a wrong shape.
        """
        self._check_phase(Phase.PLAY)
        n, k, games = self.n_players, self.cards_per_guesser, self.n_slots
        chosen = as_ints(slots, (games, n, k), "play slots")
        guessing = self._guessing
        out_of_range = guessing[:, :, None] & (chosen.view(np.uint64) >= self.hand_size)
        if out_of_range.any():
            self._check_range(guessing[:, :, None] & np.ones(k, dtype=bool), chosen,
                              self.hand_size, "plays hand slot")
        if k > 1:
            same = np.zeros((games, n), dtype=bool)
            for a in range(k):
                for b in range(a + 1, k):
                    same |= chosen[:, :, a] == chosen[:, :, b]
            if (guessing & same).any():
                self._fail(guessing & same, "plays the same hand slot twice")
        teller = self.storyteller
        rows = self._rows
        chosen = np.where(guessing[:, :, None], chosen, 0)
        chosen[rows, teller] = self.told_slot[:, None]
        self.played_slots = chosen
        held = np.minimum(self.round - self._window, self._boards.shape[1] - 1)
        perm = self._boards[rows, held]
        if k == 1:
            cards = self.hands.reshape(-1)[self._hand_base + chosen[:, :, 0]]  # (G, n)
            self.played_cards = cards[:, :, None]
            self.board = cards[self._rows2, perm]
            self.board_owner = perm.astype(np.int64)
        else:
            cards = np.take_along_axis(self.hands, chosen, axis=2)  # (G, n, k)
            laid = np.take_along_axis(cards.reshape(games, n * k), self._laid_index[teller],
                                      axis=1)
            self.board = laid[self._rows2, perm]
            self.board_owner = self._laid_owner[teller][self._rows2, perm]
            played = cards.copy()
            played[rows, teller, 1:] = -1
            self.played_cards = played
        self.storyteller_position = np.argmax(self.board_owner == teller[:, None], axis=1)
        self.phase = Phase.VOTE

    def vote(self, positions: npt.ArrayLike) -> Bools:
        """Each guesser votes for ``positions[g, seat]`` (``(G, n, M)``, ``-1``: no 2nd vote).

        Scores the round, refills the hands, and starts the next round (or the next game).

        Returns:
            ``(G,)`` which slots' games ended with this round.

        Raises:
            IllegalAction: a missing vote, a position out of range, a vote for one's own card,
                the same card twice; ``ValueError`` for a wrong shape.
        """
        self._check_phase(Phase.VOTE)
        n, m, games = self.n_players, self.max_votes, self.n_slots
        votes = as_ints(positions, (games, n, m), "votes")
        guessing = self._guessing
        size = self.board_size
        first = votes[:, :, 0]
        if (guessing & (first.view(np.uint64) >= size)).any():
            self._check_range(guessing, first, size, "votes for position")
        if m > 1:
            second = votes[:, :, 1]
            bad = guessing & (second != -1) & (second.view(np.uint64) >= size)
            if bad.any():
                self._check_range(guessing & (second != -1), second, size, "votes for position")
            if (guessing & (second == first)).any():
                self._fail(guessing & (second == first), "votes twice for the same card")
            cast = guessing[:, :, None] & (votes >= 0)
            safe = np.where(cast, votes, 0)
            owner = self.board_owner[self._rows3, safe]  # (G, n, m)
            own = cast & (owner == self._seats[None, :, None])
            if own.any():
                self._fail(own.any(axis=2), "votes for its own card")
            votes = np.where(cast, votes, -1)
        else:
            safe = np.where(guessing, first, 0)
            owner = self.board_owner[self._rows2, safe]  # (G, n)
            own = guessing & (owner == self._seats)
            if own.any():
                self._fail(own, "votes for its own card")
            votes = np.where(guessing, first, -1)[:, :, None]
            cast = guessing[:, :, None]
            owner = owner[:, :, None]
        return self._reveal(votes, owner, cast)

    # ------------------------------------------------------------------ the reveal

    def _reveal(self, votes: Ints, owner: Ints, cast: Bools) -> Bools:
        rules, n, k = self.rules, self.n_players, self.cards_per_guesser
        games = self.n_slots
        active = self.active
        teller = self.storyteller
        points = round_points(self.rules, teller, self.storyteller_position, votes, owner,
                              cast, self.max_votes)
        if not self._all_active:
            points *= active[:, None]
        self.last_points = points
        self.scores += points
        board = self.board
        size = self.board_size
        # The board goes onto the discard pile, in board order. (An inactive slot's piles are
        # kept in range and its hands may change: nothing of it is read again.)
        self.discard[self._rows2, self.discard_size[:, None] + self._board_range] = board
        self.discard_size += size
        # Reshuffle where the draw pile cannot refill every hand.
        short = self.pile_size < size
        reshuffled = short
        if rules.on_deck_exhausted == "reshuffle":
            shuffled = np.flatnonzero(short)
            if len(shuffled):
                self._reshuffle(shuffled)
            short = np.zeros(games, dtype=bool)
        else:
            reshuffled = np.zeros(games, dtype=bool)
        # Refill: the top cards, clockwise from the storyteller's left, the storyteller last.
        top = self.pile_size[:, None, None] - 1 - self._draw_order[teller]  # (G, n, k)
        np.maximum(top, 0, out=top)
        if k == 1:
            drawn = self.pile[self._rows2, top[:, :, 0]]
            self.hands.reshape(-1)[self._hand_base + self.played_slots[:, :, 0]] = drawn
        else:
            drawn = self.pile[self._rows3, top]
            self.hands[self._rows3, self._seats[None, :, None], self.played_slots] = drawn
        self.pile_size -= size
        if self.record:
            # Kept in small integer types: a row costs about 60 bytes per game (5 players).
            self.log.append(RoundArrays(
                storyteller=teller.astype(np.int8), clue=self.clue.astype(np.int32),
                played=self.played_cards.astype(np.int16), board=board.astype(np.int16),
                board_owner=self.board_owner.astype(np.int8), votes=votes.astype(np.int8),
                points=points.astype(np.int16), scores=self.scores.astype(np.int32),
                reshuffled=reshuffled))
        self.rounds_played += 1
        self.round += active
        over = short | ((self.pile_size == 0) & rules.end_on_last_card)
        if rules.score_limit is not None:
            over |= self.scores.max(axis=1) >= rules.score_limit
        if self.n_rounds is not None:
            over |= self.round >= self.n_rounds
        over &= active
        self.storyteller = (teller + 1) % n
        self.phase = Phase.TELL
        ended = np.flatnonzero(over)
        self.last_scores = self.scores.copy() if len(ended) else self.scores
        if len(ended):
            self.games_finished += len(ended)
            if self.record:
                self._finished.append((self.game_number[ended], ended, self.first_row[ended],
                                       self.rounds_played, True))
            self.active[ended] = False
            self._all_active = False  # until a game starts in every ended slot
            if self.auto_reset:
                self._start_games(ended)
        if not self._all_active:
            self._park(np.flatnonzero(~self.active))
        outlived = self.active & (self.round - self._window >= self._boards.shape[1])
        if outlived.any():
            self._extend_draws(np.flatnonzero(outlived))
        ended_now: Bools = over
        return ended_now

    # ------------------------------------------------------------------ the log

    def finish(self) -> None:
        """Cut off every game still running (its record is ``"truncated"``); no more start.

        Raises:
            IllegalAction: in the middle of a round (the play or vote phase).
        """
        if self.phase is not Phase.TELL:
            raise IllegalAction(f"finish() cuts games off between rounds; the games are in the "
                                f"{self.phase.value} phase: play the round to its vote first")
        running = np.flatnonzero(self.active)
        if self.record:
            self._finished.append((self.game_number[running], running,
                                   self.first_row[running], self.rounds_played, False))
        self.active[:] = False
        self._park(running)
        self.total_games = self._next_game

    def rows(self, game: FinishedGame) -> list[RoundArrays]:
        """The log rows of a finished game (every slot's; the game's is ``game.slot``).

        Raises:
            ValueError: the rows were released, or the engine keeps no record.
        """
        if not self.record:
            raise ValueError("these games keep no record (record=False)")
        if game.first_row < self._log_offset:
            raise ValueError(f"the rounds of game {game.number} were released")
        return self.log[game.first_row - self._log_offset:game.end_row - self._log_offset]

    def take_finished(self) -> list[FinishedGame]:
        """The games finished since the last call (their rows stay until :meth:`release`).

        Only an engine with ``record=True`` lists them. A long run should take and convert
        them now and then, and :meth:`release` the rows: the log keeps every round until then.
        """
        taken, self._finished = self._finished, []
        if not taken:
            return []
        seeds = iter(self._seeds_of(np.concatenate([part[0] for part in taken])))
        return [FinishedGame(number=number, seed=next(seeds), slot=slot,
                             first_row=first, end_row=end, complete=complete)
                for numbers, slots, firsts, end, complete in taken
                for number, slot, first in zip(numbers.tolist(), slots.tolist(),
                                               firsts.tolist(), strict=True)]

    @property
    def n_finished(self) -> int:
        """Games finished and not yet taken (``record=True``; see also ``games_finished``)."""
        return sum(len(part[0]) for part in self._finished)

    def release(self, keep_games: Any = ()) -> None:
        """Drop the log rows that no running game, untaken game or ``keep_games`` needs."""
        keep = [int(r) for r in self.first_row[self.active]] + [
            g.first_row for g in keep_games] + [int(part[2].min()) for part in self._finished
                                                if len(part[2])]
        oldest = min(keep) if keep else self.rounds_played
        drop = oldest - self._log_offset
        if drop > 0:
            del self.log[:drop]
            self._log_offset = oldest
