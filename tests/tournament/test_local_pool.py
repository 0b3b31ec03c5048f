"""The local pool: this process plays games beside its spawned workers, in schedule order."""

from __future__ import annotations

import re

import pytest

from dixit_ai.tournament import GamePlayer
from dixit_ai.tournament.runner import play_local
from dixit_ai.tournament.schedule import make_schedule
from tests.tournament.helpers import random_config


class _Failing(GamePlayer):
    """A player (in this process only) whose games from schedule index ``first_bad`` fail."""

    first_bad = 10
    played: list[int]

    def play(self, game):  # type: ignore[no-untyped-def]
        if game.index >= self.first_bad:
            raise RuntimeError(f"this process failed game {game.index}")
        self.played.append(game.index)
        return super().play(game)


def test_this_process_plays_beside_the_workers_with_the_same_records():
    config = random_config(games=40)
    schedule = make_schedule(config.labels, seats=config.players, n_games=40, seed=config.seed)
    alone = list(play_local(config, schedule, workers=1))
    player = _Failing(config)
    player.first_bad, player.played = 10**9, []
    idle: list[int] = []
    lines = list(play_local(config, schedule, workers=2, player=player,
                            idle=lambda: idle.append(len(player.played))))
    assert lines == alone
    assert player.played  # this process played some of the games itself
    # idle: at most once, after this process played its last game (never when it plays alone)
    assert idle in ([], [len(player.played)])
    assert list(play_local(config, schedule[:3], workers=1, idle=lambda: idle.append(-1)))
    assert -1 not in idle


def test_an_error_here_comes_in_schedule_order_after_the_records_before_it():
    config = random_config(games=40)
    schedule = make_schedule(config.labels, seats=config.players, n_games=40, seed=config.seed)
    alone = list(play_local(config, schedule, workers=1))
    player = _Failing(config)
    player.played = []
    got: list[str] = []
    with pytest.raises(RuntimeError, match=r"this process failed game (\d+)") as caught:
        for line in play_local(config, schedule, workers=2, player=player):
            got.append(line)
    found = re.search(r"game (\d+)", str(caught.value))
    assert found is not None
    failed = int(found.group(1))
    assert failed >= player.first_bad
    assert got == alone[:failed]  # every record before the failed game, in order, and no other


def test_workers_start_during_prepare_but_make_their_agents_after_it(tmp_path, monkeypatch):
    """Pool workers are started before the one-time preparation (their imports overlap it) and
    make their agents only once it is done, so that nothing is embedded twice."""
    import os
    import time

    from dixit_ai.agents.registry import CONFIG_DIRS_VARIABLE
    from dixit_ai.tournament import TournamentConfig

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "marking.yaml").write_text(
        "name: marking-test\nentry_point: tests.tournament.marking_agent:MarkingAgent\n")
    marks = tmp_path / "marks.txt"
    monkeypatch.setenv(CONFIG_DIRS_VARIABLE, str(folder))
    monkeypatch.setenv("DIXIT_AI_TEST_MARKS", str(marks))
    config = TournamentConfig(agents=("marking-test", "random"), players=4, games=8, seed=1)
    schedule = make_schedule(config.labels, seats=config.players, n_games=8, seed=config.seed)
    calls: list[float] = []

    def prepare() -> None:
        time.sleep(0.5)
        calls.append(time.time())

    from dixit_ai.agents import load_agent_configs

    load_agent_configs(folder)
    lines = list(play_local(config, schedule, workers=2, prepare=prepare))
    assert lines == list(play_local(config, schedule, workers=1))
    assert len(calls) == 1  # the 2-process run prepared once (the 1-process run had none)
    events = [(event, int(pid), float(when))
              for event, pid, when in (line.split() for line in marks.read_text().splitlines())]
    made_in_workers = [when for event, pid, when in events
                       if event == "made" and pid != os.getpid()]
    assert made_in_workers, "no agent was made in a pool worker"
    assert min(made_in_workers) >= calls[0]


def test_a_failed_preparation_stops_the_workers_and_is_raised():
    import multiprocessing

    config = random_config(games=8)
    schedule = make_schedule(config.labels, seats=config.players, n_games=8, seed=config.seed)

    def prepare() -> None:
        raise RuntimeError("no embeddings today")

    with pytest.raises(RuntimeError, match="no embeddings today"):
        list(play_local(config, schedule, workers=2, prepare=prepare))
    assert multiprocessing.active_children() == []  # the started worker ended with the run
