"""The scalar engine's random draws, computed for many games at once.

A game of :mod:`dixit_ai.rules.game` draws all its randomness from one ``numpy.random.Generator``
(PCG64, seeded with stream 0 of :func:`dixit_ai.match.game_streams`): ``permutation(deck)`` for
the deal, ``integers(n)`` for a random first storyteller, ``permutation(board)`` each round and
``permutation(discard)`` at each reshuffle. How many cards each draw covers never depends on the
players' choices (every round lays the same number of cards and refills the same number), so
the whole sequence of draws of a game follows from its rules, player count and deck size alone
(:class:`DrawSchedule`), and the draws themselves from its seed.

:func:`draw_games` computes them for many seeds with array operations, reproducing numpy's
algorithms on the generator's stream of 32-bit words: ``permutation`` is a Fisher-Yates shuffle
whose swap index for position ``i`` is the first word ``w`` with ``w & mask(i) <= i`` (masked
rejection), ``integers(n)`` is Lemire's bounded method. The batched engine therefore deals,
lays out boards and reshuffles exactly as the scalar engine would with the same seed, so that
``dixit-ai replay`` verifies a batched game's record through the scalar engine.

>>> import numpy as np
>>> from dixit_ai.rules import RuleSet
>>> schedule = DrawSchedule.build(RuleSet.edition("refresh-2021"), 5, 84, rounds=3)
>>> draws = draw_games(schedule, [7])
>>> stream = np.random.SeedSequence(7).spawn(6)[0]
>>> bool((draws.deal[0] == np.random.default_rng(stream).permutation(84)).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from dixit_ai.rules.ruleset import RuleSet

Ints = npt.NDArray[np.int64]
Small = npt.NDArray[np.int16]
Words = npt.NDArray[np.uint32]

__all__ = ["DrawSchedule", "GameDraws", "draw_games", "draw_games_one_by_one", "rules_words",
           "word_at"]


def _mask(i: Ints) -> Ints:
    """The smallest ``2**k - 1 >= i``, elementwise (numpy's ``random_interval`` mask)."""
    m: Ints = i.copy()
    for shift in (1, 2, 4, 8, 16):
        m |= m >> shift
    return m


@dataclass(frozen=True)
class DrawSchedule:
    """The sequence of random draws of one game, for given rules, players and deck size.

    Attributes:
        deck_size: Cards in the deck (the deal shuffles them all).
        n_players: Players in the game.
        board_size: Cards on the board each round.
        random_first: Whether a first storyteller is drawn (``integers(n_players)``).
        rounds: Rounds whose draws the schedule covers.
        reshuffle_round: ``(rounds,)`` whether the discard pile is reshuffled in that round.
        reshuffle_index: ``(rounds,)`` how many reshuffles come before that round.
        reshuffle_size: Cards in each reshuffle (the same every time; 0 if none happen).
        pile_size: Cards in the draw pile after the deal.
        forced_end: The number of rounds after which the game ends whatever the scores (the draw
            pile ran out, or the round limit), if it falls within ``rounds``; else ``None``.
    """

    deck_size: int
    n_players: int
    board_size: int
    random_first: bool
    rounds: int
    reshuffle_round: tuple[bool, ...]
    reshuffle_index: tuple[int, ...]
    reshuffle_size: int
    pile_size: int
    forced_end: int | None

    @classmethod
    def build(cls, rules: RuleSet, n_players: int, deck_size: int, *,
              rounds: int) -> DrawSchedule:
        """Follow the draw pile through ``rounds`` rounds (fewer if the game must end sooner)."""
        hand = rules.hand_size_for(n_players)
        board = rules.board_size(n_players)
        per_guesser = rules.cards_per_guesser_for(n_players)
        pile = deck_size - n_players * hand
        discard = 0
        limit = rules.n_rounds_for(n_players)
        reshuffles: list[bool] = []
        indices: list[int] = []
        size = 0
        count = 0
        forced: int | None = None
        needs = [per_guesser] * (n_players - 1) + [1]
        for round_ in range(rounds):
            discard += board
            shuffled = short = False
            for need in needs:
                if pile < need and rules.on_deck_exhausted == "reshuffle" and discard:
                    if size and discard != size:
                        raise AssertionError("reshuffles of different sizes")  # pragma: no cover
                    size, pile, discard, shuffled = discard, pile + discard, 0, True
                take = min(need, pile)
                short |= take < need
                pile -= take
            reshuffles.append(shuffled)
            indices.append(count)
            count += shuffled
            if short or (rules.end_on_last_card and pile == 0) or (
                    limit is not None and round_ + 1 >= limit):
                forced = round_ + 1
                break
        return cls(deck_size=deck_size, n_players=n_players, board_size=board,
                   random_first=rules.first_storyteller == "random", rounds=len(reshuffles),
                   reshuffle_round=tuple(reshuffles), reshuffle_index=tuple(indices),
                   reshuffle_size=size, pile_size=deck_size - n_players * hand,
                   forced_end=forced)

    @property
    def n_reshuffles(self) -> int:
        """Reshuffles within the covered rounds."""
        return sum(self.reshuffle_round)

    def steps(self) -> tuple[Ints, Ints]:
        """The Fisher-Yates positions ``i`` after the deal, in draw order, and where each round's
        board steps start in that sequence."""
        parts: list[Ints] = []
        starts = []
        offset = 0
        board_steps = np.arange(self.board_size - 1, 0, -1, dtype=np.int64)
        reshuffle_steps = np.arange(self.reshuffle_size - 1, 0, -1, dtype=np.int64)
        for shuffled in self.reshuffle_round:
            starts.append(offset)
            parts.append(board_steps)
            offset += len(board_steps)
            if shuffled:
                parts.append(reshuffle_steps)
                offset += len(reshuffle_steps)
        empty = np.zeros(0, dtype=np.int64)
        return (np.concatenate(parts) if parts else empty), np.asarray(starts, dtype=np.int64)


@dataclass
class GameDraws:
    """Every random draw of a cohort of games (``G`` seeds), as the scalar engine makes them.

    Attributes:
        deal: ``(G, deck_size)`` the deal's permutation of the deck.
        first_storyteller: ``(G,)`` the first storyteller (0 unless drawn).
        boards: ``(G, rounds, board_size)`` each round's permutation of the laid cards.
        reshuffles: ``(G, n_reshuffles, reshuffle_size)`` each reshuffle's permutation.
    """

    deal: Small
    first_storyteller: Ints
    boards: Small
    reshuffles: Small


_INIT_A, _MULT_A, _INIT_B, _MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645
_MASK_128 = (1 << 128) - 1


def _seed_words(seeds: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """``(G, 4)``: ``SeedSequence(seed, spawn_key=(0,)).generate_state(4, uint64)`` per seed.

    numpy's SeedSequence hash, on arrays: a seed below 2**64 is the entropy words ``[lo, hi]``,
    padded with zeros to the pool size (4), then the spawn key's word ``0``.
    """
    games = len(seeds)
    zero = np.zeros(games, dtype=np.uint32)
    entropy = [(seeds & np.uint64(0xFFFFFFFF)).astype(np.uint32),
               (seeds >> np.uint64(32)).astype(np.uint32), zero, zero, zero]
    hash_const = [_INIT_A]

    def hashmix(value: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
        value = value ^ np.uint32(hash_const[0])
        hash_const[0] = (hash_const[0] * _MULT_A) & 0xFFFFFFFF
        value = value * np.uint32(hash_const[0])
        mixed: npt.NDArray[np.uint32] = value ^ (value >> np.uint32(16))
        return mixed

    def mix(x: npt.NDArray[np.uint32], y: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint32]:
        result = np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
        mixed: npt.NDArray[np.uint32] = result ^ (result >> np.uint32(16))
        return mixed

    with np.errstate(over="ignore"):
        mixer = [hashmix(entropy[i]) for i in range(4)]
        for source in range(4):
            for target in range(4):
                if source != target:
                    mixer[target] = mix(mixer[target], hashmix(mixer[source]))
        for target in range(4):
            mixer[target] = mix(mixer[target], hashmix(entropy[4]))
        constant = _INIT_B
        out = []
        for i in range(8):
            value = mixer[i % 4] ^ np.uint32(constant)
            constant = (constant * _MULT_B) & 0xFFFFFFFF
            value = value * np.uint32(constant)
            out.append(value ^ (value >> np.uint32(16)))
    return np.ascontiguousarray(np.stack(out, axis=1)).view(np.uint64)


def rules_words(seeds: Any, count: int) -> npt.NDArray[np.uint64]:
    """``(ceil(count / 2), G)``: each game's first 64-bit outputs of its rules generator.

    The generator is ``PCG64(SeedSequence(seed).spawn(n + 1)[0])`` (the match runner's rules
    stream, seeded here with numpy's SeedSequence hash on arrays). Its 32-bit words, what
    ``Generator.integers(2**32, dtype=uint32)`` returns, are each output's low half, then its
    high half: :func:`word_at` reads them.
    """
    seed_list = [int(s) for s in seeds]
    if any(not 0 <= s < 2**64 for s in seed_list):
        raise ValueError("batched games take seeds in [0, 2**64)")
    games = len(seed_list)
    raw = (count + 1) // 2
    out = np.empty((games, raw), dtype=np.uint64)
    generator = np.random.PCG64(0)
    inner = {"state": 0, "inc": 1}
    state: dict[str, Any] = {"bit_generator": "PCG64", "has_uint32": 0, "uinteger": 0,
                             "state": inner}
    for g, words in enumerate(_seed_words(np.asarray(seed_list, dtype=np.uint64)).tolist()):
        seed = (words[0] << 64) | words[1]
        inc = ((((words[2] << 64) | words[3]) << 1) | 1) & _MASK_128
        inner["state"] = ((inc + seed) * _PCG_MULT + inc) & _MASK_128
        inner["inc"] = inc
        generator.state = state  # type: ignore[assignment]
        out[g] = generator.random_raw(raw)
    return np.ascontiguousarray(out.T)


def word_at(raw: npt.NDArray[np.uint64], index: Ints) -> Ints:
    """Word ``index[g]`` of game ``g``'s 32-bit stream (``raw`` from :func:`rules_words`)."""
    halves = raw.view(np.uint32).reshape(-1)
    games = raw.shape[1]
    address = (index >> 1) * (2 * games) + 2 * np.arange(games) + (index & 1)
    found: Ints = halves[address].astype(np.int64)
    return found


def _fisher_yates_indices(raw: npt.NDArray[np.uint64], start: Ints | None,
                          positions: Ints) -> tuple[Ints, Ints]:
    """The swap index of every Fisher-Yates step, scanning each game's words.

    Every game reads one word per iteration, from word ``start[g]`` (``None``: from word 0,
    which lets each iteration read one strided row instead of gathering).

    Returns:
        ``(len(positions), G)`` indices, and each game's next unread word (``-1`` where the
        words ran out before its last step).
    """
    n_raw, games = raw.shape
    n_words = 2 * n_raw
    steps = len(positions)
    begin = np.zeros(games, dtype=np.int64) if start is None else start
    if steps == 0:
        return np.zeros((0, games), dtype=np.int16), begin.copy()
    pad = n_words + 1
    bound = np.concatenate([positions, np.full(pad, 1 << 30, dtype=np.int64)]).astype(np.int32)
    mask = np.concatenate([_mask(positions), np.zeros(pad, dtype=np.int64)]).astype(np.int32)
    found = np.zeros((steps + pad, games), dtype=np.int16)
    flat_found = found.reshape(-1)
    halves = raw.view(np.int32)  # (n_raw, 2 G): low and high half of each output, per game
    flat_halves = halves.reshape(-1)
    columns = np.arange(games, dtype=np.int64)
    step = np.zeros(games, dtype=np.int64)
    remaining = n_words - int(begin.max())
    t = 0
    while t < remaining:
        if t % 16 == 0 and int(step.min()) >= steps:
            break
        if start is None:
            word = halves[t >> 1, (t & 1)::2]
        else:
            index = begin + t
            word = flat_halves[(index >> 1) * (2 * games) + 2 * columns + (index & 1)]
        value = word & mask[step]
        flat_found[step * games + columns] = value
        step += value <= bound[step]
        t += 1
    next_word = np.where(step >= steps, begin + t - (step - steps), -1)
    return found[:steps], next_word


def _lemire(raw: npt.NDArray[np.uint64], start: Ints, n: int) -> tuple[Ints, Ints]:
    """numpy's ``integers(n)`` (Lemire's method) on each game's words from ``start``."""
    games = raw.shape[1]
    threshold = (2**32 - n) % n
    pointer = start.copy()
    result = np.zeros(games, dtype=np.int64)
    pending = pointer >= 0
    while pending.any():
        if int(pointer[pending].max()) >= 2 * raw.shape[0]:
            pointer[pending] = -1
            break
        word = word_at(raw, np.where(pending, pointer, 0)).astype(np.uint64)
        product = word * np.uint64(n)
        accept = pending & ((product & np.uint64(0xFFFFFFFF)) >= threshold)
        result[accept] = (product[accept] >> np.uint64(32)).astype(np.int64)
        pointer[pending] += 1
        pending &= ~accept
    return result, pointer


def _apply(perms: Small, indices: Any) -> None:
    """Run the Fisher-Yates swaps ``indices`` (``(M, L - 1)``) on ``perms`` (``(M, L)``)."""
    count, size = perms.shape
    flat = perms.reshape(-1)
    base = np.arange(count, dtype=np.int64) * size
    for k, i in enumerate(range(size - 1, 0, -1)):
        at = base + indices[:, k]
        held = flat[at]
        flat[at] = perms[:, i]
        perms[:, i] = held


def draw_games(schedule: DrawSchedule, seeds: Any, *, _count: int | None = None) -> GameDraws:
    """Every random draw that ``schedule`` lists, for each seed, exactly as numpy makes them.

    Args:
        schedule: The draws of one game.
        seeds: The games' seeds (as ``play_game(seed=...)`` takes them), in ``[0, 2**64)``.
    """
    seed_list = [int(s) for s in seeds]
    games = len(seed_list)
    if games < SMALL_COHORT and _count is None:
        return draw_games_one_by_one(schedule, seed_list)
    positions, starts = schedule.steps()
    deal_positions = np.arange(schedule.deck_size - 1, 0, -1, dtype=np.int64)
    count = _count or _words_needed(np.concatenate([deal_positions, positions]))
    words = rules_words(seed_list, count)
    first = np.zeros(games, dtype=np.int64)
    deal_steps = len(deal_positions)
    if schedule.random_first:
        deal_j, pointer = _fisher_yates_indices(words, None, deal_positions)
        first, pointer = _lemire(words, pointer, schedule.n_players)
        ok = pointer >= 0
        round_j, pointer = _fisher_yates_indices(words, np.where(ok, pointer, 0), positions)
    else:  # one scan from word 0 for the deal and every round
        both, pointer = _fisher_yates_indices(
            words, None, np.concatenate([deal_positions, positions]))
        ok = np.ones(games, dtype=bool)
        deal_j, round_j = both[:deal_steps], both[deal_steps:]
    ok &= pointer >= 0
    deal = np.broadcast_to(np.arange(schedule.deck_size, dtype=np.int16),
                           (games, schedule.deck_size)).copy()
    _apply(deal, deal_j.T)
    draws = _assemble(schedule, deal, first, round_j, starts)
    short = np.flatnonzero(~ok)
    if len(short):  # rare: the words ran out; redraw those games with twice as many
        again = draw_games(schedule, [seed_list[g] for g in short], _count=2 * count)
        draws.deal[short] = again.deal
        draws.first_storyteller[short] = again.first_storyteller
        draws.boards[short] = again.boards
        draws.reshuffles[short] = again.reshuffles
    return draws


def _words_needed(positions: Ints) -> int:
    """Words that cover the steps ``positions`` for all but about one game in a billion.

    A step at position ``i`` with mask ``m`` reads a geometric number of words (success
    ``(i + 1) / (m + 1)``): the mean plus six standard deviations of their sum, and a margin.
    """
    success = (positions + 1) / (_mask(positions) + 1)
    mean = float((1 / success).sum())
    spread = float(np.sqrt(((1 - success) / success**2).sum()))
    return int(mean + 6 * spread) + 24


SMALL_COHORT = 48
"""Below this many games, :func:`draw_games` asks numpy's own generators, one game at a time
(the array scan pays a fixed cost per word that only many games amortise)."""


def draw_games_one_by_one(schedule: DrawSchedule, seeds: Any) -> GameDraws:
    """The draws of :func:`draw_games`, made by each game's own ``numpy`` generator."""
    seed_list = [int(s) for s in seeds]
    games = len(seed_list)
    deal = np.zeros((games, schedule.deck_size), dtype=np.int16)
    first = np.zeros(games, dtype=np.int64)
    boards = np.zeros((games, schedule.rounds, schedule.board_size), dtype=np.int16)
    reshuffles = np.zeros((games, schedule.n_reshuffles, schedule.reshuffle_size),
                          dtype=np.int16)
    for g, seed in enumerate(seed_list):
        generator = np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))))
        deal[g] = generator.permutation(schedule.deck_size)
        if schedule.random_first:
            first[g] = generator.integers(schedule.n_players)
        shuffles = 0
        for round_, shuffled in enumerate(schedule.reshuffle_round):
            boards[g, round_] = generator.permutation(schedule.board_size)
            if shuffled:
                reshuffles[g, shuffles] = generator.permutation(schedule.reshuffle_size)
                shuffles += 1
    return GameDraws(deal=deal, first_storyteller=first, boards=boards, reshuffles=reshuffles)


def _assemble(schedule: DrawSchedule, deal: Small, first: Ints, round_j: Ints,
              starts: Ints) -> GameDraws:
    games = len(deal)
    board = schedule.board_size
    rounds = schedule.rounds
    boards = np.broadcast_to(np.arange(board, dtype=np.int16), (games * rounds, board)).copy()
    if rounds and board > 1:
        rows = starts[:, None] + np.arange(board - 1)[None, :]  # (rounds, board - 1)
        _apply(boards, round_j.T[:, rows].reshape(games * rounds, board - 1))
    size = schedule.reshuffle_size
    n_reshuffles = schedule.n_reshuffles
    reshuffles = np.broadcast_to(np.arange(size, dtype=np.int16),
                                 (games * n_reshuffles, size)).copy()
    if n_reshuffles and size > 1:
        shuffled_rounds = np.flatnonzero(np.asarray(schedule.reshuffle_round))
        first_rows = starts[shuffled_rounds] + board - 1
        rows = first_rows[:, None] + np.arange(size - 1)[None, :]  # (n_reshuffles, size - 1)
        _apply(reshuffles, round_j.T[:, rows].reshape(games * n_reshuffles, size - 1))
    return GameDraws(deal=deal, first_storyteller=first,
                     boards=boards.reshape(games, rounds, board),
                     reshuffles=reshuffles.reshape(games, n_reshuffles, size))
