"""The batched engine against the scalar rules, move for move, over random legal play.

Every slot of a :class:`BatchedGames` is shadowed by a scalar :class:`~dixit_ai.rules.Game` with
the same seed; both are given the same random legal moves, and after every phase the states are
compared: hands, draw pile and discard pile (in order), board, owners, scores, round, storyteller,
each round's points, votes and reshuffle, the end of each game and its records. The masks are
checked against :func:`~dixit_ai.rules.check_action` on the way.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dixit_ai.batched import CLUE_WORDS, to_records
from dixit_ai.match import game_streams
from dixit_ai.rules import (
    EDITIONS,
    Game,
    IllegalAction,
    Phase,
    Play,
    RuleSet,
    Tell,
    Vote,
    check_action,
)
from dixit_ai.rules.batched import BatchedGames
from dixit_ai.rules.batched_log import game_seeds_at

CONFIGS = [(edition, n, {}) for edition in EDITIONS
           for n in range(RuleSet.edition(edition).min_players,
                          RuleSet.edition(edition).max_players + 1)]
VARIANTS: list[tuple[str, int, dict[str, Any]]] = [
    ("refresh-2021", 4, {"score_limit": 8}),  # ends mid-run, slots restart
    ("refresh-2021", 3, {"score_limit": 9, "first_storyteller": "random"}),
    ("odyssey-2011", 7, {"first_storyteller": "random", "score_limit": 10}),
    ("odyssey-2024", 5, {"single_vote_bonus_when": "some_found", "bonus_cap": 1}),
    ("odyssey-2011", 3, {"second_vote_from": 3, "three_player_solo_points": 4}),
    ("original-2008", 5, {"score_limit": 12}),
    ("original-2008", 3, {"on_deck_exhausted": "reshuffle", "end_on_last_card": False,
                          "score_limit": 15}),
    ("refresh-2021", 5, {"rounds_per_player": 1, "score_limit": None}),
    ("refresh-2021", 6, {"on_deck_exhausted": "end", "score_limit": None}),
]
DECKS: dict[int, Any] = {0: None, 1: range(40, 80), 2: range(5, 36)}  # reshuffles, deck ends


class Shadow:
    """A batched engine and one scalar game per slot, stepped together."""

    def __init__(self, rules: RuleSet, n: int, slots: int, total: int, seed: int,
                 deck: Any) -> None:
        self.games = BatchedGames(rules, n, slots, seed=seed, total_games=total, deck=deck,
                                  cohort=3, rounds_ahead=2)
        self.rules, self.n, self.seed = rules, n, seed
        self.ids = self.games.card_ids
        self.scalar: dict[int, Game] = {}
        self.number: dict[int, int] = {}
        self.ended: list[tuple[int, Game]] = []
        self._follow_new_games()
        self.compare()

    def _follow_new_games(self) -> None:
        for slot in np.flatnonzero(self.games.active).tolist():
            number = int(self.games.game_number[slot])
            if self.number.get(slot) != number:
                seed = game_seeds_at(self.seed, [number])[0]
                rng = np.random.default_rng(game_streams(seed, self.n)[0])
                self.scalar[slot] = Game(self.rules, self.n, self.ids.tolist(), rng)
                self.number[slot] = number

    def hand(self, slot: int, seat: int) -> list[int]:
        return self.ids[self.games.hands[slot, seat]].tolist()

    def compare(self) -> None:
        games = self.games
        for slot in np.flatnonzero(games.active).tolist():
            state = self.scalar[slot].state
            assert games.phase is state.phase, slot
            assert games.storyteller[slot] == state.storyteller
            assert games.round[slot] == state.round
            assert games.scores[slot].tolist() == list(state.scores)
            pile = self.ids[games.pile[slot, :games.pile_size[slot]]].tolist()
            assert pile == list(state.draw_pile)
            discard = self.ids[games.discard[slot, :games.discard_size[slot]]].tolist()
            assert discard == list(state.discard)
            for seat in range(self.n):
                held = self.hand(slot, seat)
                if games.phase is Phase.TELL:
                    assert sorted(held) == sorted(state.hands[seat])
                else:  # the played slots still show the played cards
                    played = state.played[seat]
                    assert sorted(held) == sorted([*state.hands[seat], *played])
            if games.phase is Phase.VOTE:
                assert self.ids[games.board[slot]].tolist() == list(state.board)
                assert games.board_owner[slot].tolist() == list(state.board_owner)

    def check_masks(self) -> None:
        games = self.games
        for slot in np.flatnonzero(games.active).tolist():
            state = self.scalar[slot].state
            teller = state.storyteller
            if games.phase is Phase.TELL:
                mask = games.legal_tell()[slot]
                for h, card in enumerate(self.hand(slot, teller)):
                    check_action(state, Tell(teller, card, "x"))
                    assert mask[h]
            elif games.phase is Phase.PLAY:
                mask = games.legal_play()[slot]
                for seat in range(self.n):
                    cards = self.hand(slot, seat)
                    for h in range(games.hand_size):
                        picks = [cards[h], *cards[:h], *cards[h + 1:]][:games.cards_per_guesser]
                        legal = _legal(state, Play(seat, tuple(picks)))
                        assert legal == bool(mask[seat, h]), (slot, seat, h)
            else:
                mask = games.legal_vote()[slot]
                size = games.board_size
                for seat in range(self.n):
                    for p in range(size):
                        assert _legal(state, Vote(seat, (p,))) == bool(mask[seat, p])
                    if games.max_votes > 1:
                        for p, q in permutations(range(size), 2):
                            assert _legal(state, Vote(seat, (p, q))) == bool(
                                mask[seat, p] and mask[seat, q])

    def round(self, rng: np.random.Generator) -> None:
        games, n = self.games, self.n
        active = np.flatnonzero(games.active).tolist()
        self.check_masks()
        slots = rng.integers(games.hand_size, size=games.n_slots)
        clues = rng.integers(len(CLUE_WORDS), size=games.n_slots)
        for slot in active:
            teller = int(games.storyteller[slot])
            card = self.hand(slot, teller)[slots[slot]]
            self.scalar[slot].apply(Tell(teller, card, CLUE_WORDS[clues[slot]]))
        games.tell(slots, clues)
        self.compare()
        self.check_masks()
        k = games.cards_per_guesser
        plays = np.argsort(rng.random((games.n_slots, n, games.hand_size)), axis=2)[:, :, :k]
        for slot in active:
            for seat in range(n):
                if seat != games.storyteller[slot]:
                    cards = tuple(np.asarray(self.hand(slot, seat))[plays[slot, seat]].tolist())
                    self.scalar[slot].apply(Play(seat, cards))
        games.play(plays)
        self.compare()
        self.check_masks()
        mask = games.legal_vote()
        first = np.argmax(rng.random(mask.shape) * mask, axis=2)
        votes = np.full((games.n_slots, n, games.max_votes), -1)
        votes[:, :, 0] = first
        if games.max_votes > 1:
            second_mask = mask.copy()
            np.put_along_axis(second_mask, first[:, :, None], False, axis=2)
            second = np.argmax(rng.random(mask.shape) * second_mask, axis=2)
            use = rng.random(first.shape) < 0.5
            votes[:, :, 1] = np.where(use & second_mask.any(axis=2), second, -1)
        results = {}
        for slot in active:
            for seat in range(n):
                if seat != games.storyteller[slot]:
                    cast = tuple(v for v in votes[slot, seat].tolist() if v >= 0)
                    results[slot] = self.scalar[slot].apply(Vote(seat, cast))
        ended = games.vote(votes)
        for slot in active:
            result, state = results[slot], self.scalar[slot].state
            assert result is not None
            assert games.last_points[slot].tolist() == list(result.points)
            if games.record:
                row = games.log[-1]
                assert bool(row.reshuffled[slot]) == result.reshuffled
                assert row.points[slot].tolist() == list(result.points)
            assert bool(ended[slot]) == state.is_over, (slot, state.round)
            if state.is_over:
                assert games.last_scores[slot].tolist() == list(state.scores)
                self.ended.append((int(self.number[slot]), self.scalar[slot]))
        self._follow_new_games()
        self.compare()


def _legal(state: Any, action: Any) -> bool:
    try:
        check_action(state, action)
    except IllegalAction:
        return False
    return True


def _run(rules: RuleSet, n: int, deck: Any, seed: int, *, slots: int = 3,
         total: int = 5) -> Shadow:
    shadow = Shadow(rules, n, slots, total, seed, deck)
    rng = np.random.default_rng(seed)
    for _ in range(400):
        if not shadow.games.active.any():
            break
        shadow.round(rng)
    assert not shadow.games.active.any()
    # The records of the finished games are the scalar games' own.
    records = {r.header["seed"]: r for r in to_records(
        shadow.games, shadow.games.take_finished(), clues=CLUE_WORDS)}
    assert len(records) == total == len(shadow.ended)
    for number, game in shadow.ended:
        record = records[game_seeds_at(seed, [number])[0]]
        state = game.state
        assert record.status == "complete"
        assert record.final_scores == list(state.scores)
        assert record.winners == list(state.winners)
        assert len(record.rounds) == len(state.results)
        for kept, result in zip(record.rounds, state.results, strict=True):
            assert kept.storyteller == result.storyteller
            assert kept.clue == result.clue
            assert kept.board == list(result.board)
            assert kept.board_owner == list(result.board_owner)
            assert kept.points == list(result.points)
            assert kept.scores == list(result.scores)
            assert kept.reshuffled == result.reshuffled
            assert kept.played == [list(p) for p in result.played]
            assert {s: list(v) for s, v in kept.votes.items()} == {
                s: list(v) for s, v in enumerate(result.votes) if v}
    return shadow


@pytest.mark.parametrize(("edition", "n", "overrides"), CONFIGS + VARIANTS)
def test_batched_and_scalar_play_the_same_games(edition: str, n: int,
                                                overrides: dict[str, Any]) -> None:
    rules = RuleSet.edition(edition, **overrides)
    deck = DECKS[n % 3] if rules.min_deck_size(n) <= 31 else None
    if deck is not None and rules.min_deck_size(n) > len(deck):
        deck = None
    _run(rules, n, deck, seed=n + len(overrides))


@pytest.mark.parametrize("seed", [11, 12, 13])
@pytest.mark.parametrize(("edition", "n", "overrides"), VARIANTS)
def test_more_seeds_of_the_variants(edition: str, n: int, overrides: dict[str, Any],
                                    seed: int) -> None:
    rules = RuleSet.edition(edition, **overrides)
    deck = DECKS[seed % 3]
    if deck is not None and rules.min_deck_size(n) > len(deck):
        deck = None
    _run(rules, n, deck, seed=seed, slots=4, total=7)


STATE = ("hands", "pile", "pile_size", "discard", "discard_size", "scores", "round",
         "storyteller", "active", "game_number", "board", "board_owner", "played_slots",
         "clue", "told_slot", "last_points")


def _snapshot(games: BatchedGames) -> dict[str, Any]:
    return {"phase": games.phase, "log": len(games.log),
            **{name: getattr(games, name).copy() for name in STATE}}


def _refused(games: BatchedGames, move: Any, call: Any, match: str) -> None:
    before = _snapshot(games)
    with pytest.raises((IllegalAction, ValueError), match=match):
        call(move)
    after = _snapshot(games)
    for name, value in before.items():
        assert np.array_equal(value, after[name]) if isinstance(value, np.ndarray) else (
            value == after[name]), name


@pytest.mark.parametrize(("edition", "n"), [("odyssey-2024", 3), ("refresh-2021", 5),
                                            ("odyssey-2011", 8)])
def test_one_games_illegal_move_changes_no_game(edition: str, n: int) -> None:
    # Each bad move is refused naming the game, and the engine then plays on exactly as the
    # scalar games do (the shadow compares every state after the legal move).
    shadow = Shadow(RuleSet.edition(edition), n, 3, 3, 5, None)
    games = shadow.games
    rng = np.random.default_rng(0)
    bad_slot, game = 1, int(games.game_number[1])
    where = rf"game {game} \(slot {bad_slot}"
    tell = np.zeros(3, dtype=np.int64)
    for value, why in ((games.hand_size, "hand slot"), (-1, "hand slot")):
        move = tell.copy()
        move[bad_slot] = value
        _refused(games, move, games.tell, where + ".*" + why)
    _refused(games, tell.astype(float), games.tell, "integers")
    _refused(games, tell[:2], games.tell, "shape")
    _refused(games, tell, lambda m: games.tell(m, [0, -2, 0]), where + ".*non-negative")
    _refused(games, np.zeros((3, n, games.cards_per_guesser), dtype=np.int64), games.play,
             "tell phase")
    shadow.round(rng)  # legal play, compared with the scalar games
    # The play phase.
    k = games.cards_per_guesser
    original = shadow.round
    real_play, real_vote = games.play, games.vote
    def probe_play(move: Any) -> None:
        seat = int((games.storyteller[bad_slot] + 1) % n)
        bad = np.array(move, copy=True)
        bad[bad_slot, seat, 0] = games.hand_size
        _refused(games, bad, real_play, where + f", seat {seat}.*hand slot")
        if k > 1:
            bad = np.array(move, copy=True)
            bad[bad_slot, seat, 1] = bad[bad_slot, seat, 0]
            _refused(games, bad, real_play, where + f", seat {seat}.*same hand slot twice")
        _refused(games, np.asarray(move)[:, :, :1].repeat(3, axis=2), real_play, "shape")

    def probe_vote(move: Any) -> None:
        seat = int((games.storyteller[bad_slot] + 1) % n)
        bad = np.array(move, copy=True)
        bad[bad_slot, seat, 0] = games.board_size
        _refused(games, bad, real_vote, where + f", seat {seat}.*position {games.board_size}")
        own = int(np.flatnonzero(games.board_owner[bad_slot] == seat)[0])
        bad = np.array(move, copy=True)
        bad[bad_slot, seat, 0] = own
        _refused(games, bad, real_vote, where + f", seat {seat}.*its own card")
        if games.max_votes > 1:
            bad = np.array(move, copy=True)
            bad[bad_slot, seat, 1] = bad[bad_slot, seat, 0]
            _refused(games, bad, real_vote, where + f", seat {seat}.*twice for the same card")

    def play(move: Any) -> None:
        probe_play(move)
        real_play(move)

    def vote(move: Any) -> Any:
        probe_vote(move)
        return real_vote(move)

    games.play, games.vote = play, vote  # type: ignore[method-assign]
    for _ in range(3):
        original(rng)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(edition=st.sampled_from(EDITIONS), data=st.data(), seed=st.integers(0, 2**32),
       deck=st.sampled_from(sorted(DECKS)), score_limit=st.sampled_from([None, 5, 30]),
       first=st.sampled_from(["seat0", "random"]), slots=st.integers(1, 4))
def test_hypothesis_draws_games_and_rules(edition: str, data: st.DataObject, seed: int,
                                          deck: int, score_limit: int | None, first: str,
                                          slots: int) -> None:
    base = RuleSet.edition(edition)
    n = data.draw(st.integers(base.min_players, base.max_players), label="n_players")
    overrides: dict[str, Any] = {"first_storyteller": first}
    if score_limit is not None or base.end_on_last_card:
        overrides["score_limit"] = score_limit
    rules = RuleSet.edition(edition, **overrides)
    cards = DECKS[deck]
    if cards is not None and rules.min_deck_size(n) > len(cards):
        cards = None
    _run(rules, n, cards, seed=seed, slots=slots, total=slots + 2)
