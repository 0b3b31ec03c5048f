"""The batched engine's edge cases found by the differential audit (test_differential.py)."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.batched import CLUE_WORDS, BatchedRandomAgent, play_batch, to_records
from dixit_ai.replay import replay_record
from dixit_ai.rules import IllegalAction, Phase, RuleSet
from dixit_ai.rules.batched import BatchedGames


def test_a_first_reshuffle_after_the_drawn_window() -> None:
    # 3 players, 200 cards: the first reshuffle comes in round 36, after the 16 rounds drawn at
    # a game's start; the extension used to find no room for it (a numpy shape error).
    rules = RuleSet.edition("refresh-2021", score_limit=None, rounds_per_player=15)
    games = play_batch([BatchedRandomAgent(0)] * 3, rules, n_games=2, total_games=2, seed=1,
                       deck=range(200))
    records = to_records(games, games.take_finished(), clues=CLUE_WORDS)
    assert [len(r.rounds) for r in records] == [45, 45]
    assert all(sum(round_.reshuffled for round_ in r.rounds) == 1 for r in records)
    for record in records:
        replay_record(record)


@pytest.mark.parametrize("auto_reset", [True, False])
def test_a_slot_left_without_a_game_stays_as_its_game_ended(auto_reset: bool) -> None:
    # Slot 2's game ends when no game is left to start (or auto_reset is off) while the other
    # slots play on. The slot used to go on being scored, drawn from and reshuffled as if its
    # game were running: its scores grew past the final scores, and with a short draw window
    # its reshuffle read past the draws (IndexError).
    games = BatchedGames(RuleSet.edition("odyssey-2011"), 10, 3, seed=10, total_games=5,
                         cohort=3, rounds_ahead=2, auto_reset=auto_reset)
    agents = [BatchedRandomAgent(0)] * 10
    final: dict[int, list[int]] = {}
    while games.active.any():
        before = games.active.copy()
        ended = games.vote(_round(games, agents))
        for slot in np.flatnonzero(ended & before & ~games.active).tolist():
            final[slot] = games.last_scores[slot].tolist()
        for slot, scores in final.items():
            if not games.active[slot]:
                assert games.scores[slot].tolist() == scores
    records = to_records(games, games.take_finished(), clues=CLUE_WORDS)
    assert len(records) == (5 if auto_reset else 3)
    for record in records:
        replay_record(record)


def _round(games: BatchedGames, agents: list[BatchedRandomAgent]) -> np.ndarray:
    """Tell and play one round; return the votes (the caller casts them)."""
    agent = agents[0]
    games.tell(*agent.tell(games))
    games.play(agent.play(games))
    return agent.vote(games)


def test_a_clue_id_the_round_log_cannot_hold_is_refused() -> None:
    # The log keeps clue ids as int32: 2**32 + 1 used to be recorded as clue 1 (another clue,
    # silently), 2**31 as a negative id that to_records read from the end of the vocabulary.
    games = BatchedGames(RuleSet.edition("refresh-2021"), 3, 2, seed=1, total_games=2)
    for clue in (2**31, 2**32 + 1):
        with pytest.raises(IllegalAction, match=r"game 1 \(slot 1.*clue id .* at most 2147483647"):
            games.tell([0, 0], [0, clue])
        assert games.phase is Phase.TELL
    games.tell([0, 0], [0, 2**31 - 1])
    assert games.clue.tolist() == [0, 2**31 - 1]



def test_finish_mid_round_says_what_to_do() -> None:
    games = BatchedGames(RuleSet.edition("refresh-2021"), 4, 2, seed=3)
    games.tell(*BatchedRandomAgent(0).tell(games))
    with pytest.raises(IllegalAction, match=r"finish\(\) cuts games off between rounds.*play "
                                            r"phase.*play the round to its vote first"):
        games.finish()
    assert games.active.all() and games.phase is Phase.PLAY


@pytest.mark.parametrize(("deck", "named"), [
    ([i + 0.5 for i in range(84)], "0.5"), ([str(i) for i in range(84)], "'0'"),
    ([True, *range(2, 85)], "True"), ([*range(83), 83.0], "83.0")])
def test_a_deck_of_non_integer_ids_is_refused_as_the_scalar_engine_does(
        deck: list[object], named: str) -> None:
    # np.asarray(deck, dtype=int64) used to truncate 0.5 to 0, parse '0' and take True as 1,
    # silently: the games then ran on other card ids than given (the scalar engine refuses).
    with pytest.raises(ValueError, match=f"card id {named} is not an integer"):
        BatchedGames(RuleSet.edition("refresh-2021"), 4, 2, seed=0, deck=deck)


def test_an_integer_array_deck_is_taken() -> None:
    games = BatchedGames(RuleSet.edition("refresh-2021"), 4, 2, seed=0,
                         deck=np.arange(10, 94, dtype=np.uint16))
    assert sorted(games.card_ids.tolist()) == list(range(10, 94))
