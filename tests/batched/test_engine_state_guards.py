"""The batched engine keeps its state to itself: its masks cannot be written into, and an
engine whose games are all over takes no more moves."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai.batched import BatchedRandomAgent
from dixit_ai.rules import IllegalAction, Phase, RuleSet
from dixit_ai.rules.batched import BatchedGames


def _engine(total_games: int = 2) -> BatchedGames:
    return BatchedGames(RuleSet.edition("refresh-2021"), 4, 2, seed=1, total_games=total_games)


def _play_round(games: BatchedGames) -> None:
    agent = BatchedRandomAgent(0)
    games.tell(*agent.tell(games))
    games.play(agent.play(games))
    games.vote(agent.vote(games))


@pytest.mark.parametrize("phase", [Phase.TELL, Phase.PLAY, Phase.VOTE])
def test_the_masks_cannot_be_written_into_the_engine(phase: Phase) -> None:
    # guessers() used to return the engine's own array outside the tell phase: a caller who
    # wrote into it changed which seats the engine let play and vote.
    games = _engine()
    agent = BatchedRandomAgent(0)
    if phase is not Phase.TELL:
        games.tell(*agent.tell(games))
    if phase is Phase.VOTE:
        games.play(agent.play(games))
    accessors = {"guessers": games.guessers, "legal_tell": games.legal_tell,
                 "legal_play": games.legal_play, "legal_vote": games.legal_vote}
    before = {name: get().copy() for name, get in accessors.items()}
    for get in accessors.values():
        mask = get()
        if mask.flags.writeable:  # a fresh array: writing into it changes nothing
            mask[...] = ~mask
        else:
            with pytest.raises(ValueError, match="read-only"):
                mask[...] = ~mask
    for name, get in accessors.items():
        assert np.array_equal(get(), before[name]), name


@pytest.mark.parametrize("how", ["finish", "all games played"])
def test_an_engine_with_no_game_running_takes_no_more_moves(how: str) -> None:
    # After finish() (or once total_games had all ended), tell, play and vote used to go on:
    # every round appended a row to the log and counted in rounds_played, for no game.
    games = _engine(total_games=2)
    if how == "finish":
        _play_round(games)
        games.finish()
    else:
        while games.active.any():
            _play_round(games)
    rows, rounds_played = len(games.log), games.rounds_played
    finished = games.take_finished()
    assert len(finished) == 2
    with pytest.raises(IllegalAction, match=r"no game is running.*2 games"):
        games.tell(np.zeros(2, dtype=np.int64))
    assert games.phase is Phase.TELL
    assert (len(games.log), games.rounds_played) == (rows, rounds_played)
    with pytest.raises(IllegalAction, match="tell phase, not play"):
        games.play(np.zeros((2, 4, 1), dtype=np.int64))
    games.finish()  # cutting off no game is harmless: nothing is listed twice
    assert games.take_finished() == []
    assert (len(games.log), games.rounds_played) == (rows, rounds_played)
