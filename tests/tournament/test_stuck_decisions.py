"""Decisions past the limit that never end: their threads are bounded per entrant, and the
stall warning's delay is a setting (``stall_after``, ``--stall-warning``)."""

from __future__ import annotations

import threading

import pytest

from dixit_ai.records import GameRecord
from dixit_ai.tournament import player, run_tournament
from tests.tournament import sleeping_agent
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 10, "rating_resamples": 0}
LABEL = "stuck"


def _stuck_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate()
            if thread.name.startswith(f"decision-{LABEL}-")]


@pytest.fixture
def sleeper():
    from dixit_ai.agents import register_agent

    register_agent("sleeping-test", "tests.tournament.sleeping_agent:SleepingAgent",
                   overwrite=True)
    sleeping_agent.WAKE.clear()
    yield f"{LABEL}=sleeping-test"
    sleeping_agent.WAKE.set()  # the abandoned decisions end now
    for thread in _stuck_threads():
        thread.join(5)


def test_decisions_stuck_past_the_limit_are_bounded_per_entrant(sleeper, tmp_path):
    # Each game's hung vote() used to leave one more thread running (it cannot be stopped),
    # without bound (20 games: 13 threads). Now an entrant with MAX_STUCK_DECISIONS decisions
    # still running is set aside: its decisions fail at once, recorded, with no new thread.
    games = player.MAX_STUCK_DECISIONS + 5
    config = random_config(agents=("random", sleeper, "b=random"), players=3, games=games,
                           max_rounds=2, decision_timeout=0.05)  # the sleeper votes in each
    run = run_tournament(config, out=tmp_path / "runs", workers=1, report=False, **QUICK)
    assert run.played == games
    assert len(_stuck_threads()) == player.MAX_STUCK_DECISIONS
    records = [GameRecord.from_json(line)
               for line in (run.folder / "games.jsonl").read_text().splitlines()]
    assert all(record.failures for record in records)
    assert all(failure.error == "DecisionTimeout"
               for record in records for failure in record.failures)
    first = [record.failures[0].reason for record in records]  # in schedule order
    timed_out = ["took longer than the decision limit" in reason for reason in first]
    assert timed_out == [True] * player.MAX_STUCK_DECISIONS + [False] * 5
    set_aside = first[player.MAX_STUCK_DECISIONS]
    assert (f"{LABEL}: {player.MAX_STUCK_DECISIONS} of its decisions that passed the decision "
            f"limit of 0.05 s are still running in this process") in set_aside
    assert "fails at once" in set_aside


def test_a_stuck_decision_that_ends_frees_its_place(sleeper, tmp_path):
    config = random_config(agents=("random", sleeper, "b=random"), players=3,
                           games=player.MAX_STUCK_DECISIONS, max_rounds=2, decision_timeout=0.05)
    run_tournament(config, out=tmp_path / "runs", workers=1, report=False, **QUICK)
    # the count is the process's: a second run of the entrant starts no more threads
    run_tournament(config, out=tmp_path / "more", workers=1, report=False, **QUICK)
    assert len(_stuck_threads()) == player.MAX_STUCK_DECISIONS
    sleeping_agent.WAKE.set()
    for thread in _stuck_threads():
        thread.join(5)
    sleeping_agent.WAKE.clear()
    # the entrant's decisions run again (and time out again): none is refused at once
    run = run_tournament(config, out=tmp_path / "again", workers=1, report=False, **QUICK)
    records = [GameRecord.from_json(line)
               for line in (run.folder / "games.jsonl").read_text().splitlines()]
    assert all("took longer than the decision limit" in record.failures[0].reason
               for record in records)
    assert len(_stuck_threads()) == player.MAX_STUCK_DECISIONS


@pytest.mark.parametrize("after", [0, -1, float("nan"), float("inf")])
def test_a_bad_stall_delay_is_refused_before_anything_is_written(after, tmp_path):
    # stall_after=0 used to start a watch that said "no game finished" in a busy loop.
    with pytest.raises(ValueError, match=r"stall_after must be a number of seconds above 0"):
        run_tournament(random_config(games=1), out=tmp_path / "runs", stall_after=after,
                       **QUICK)
    assert not (tmp_path / "runs").exists()


def _cli_stall_after(monkeypatch, tmp_path, *flags: str) -> object:
    import dixit_ai.cli.tournament as cli
    from dixit_ai.cli import main

    seen: dict[str, object] = {}

    def fake_run(config, **options):
        seen.update(options)
        raise KeyboardInterrupt  # stop here: nothing is played

    monkeypatch.setattr(cli, "run_tournament", fake_run)
    main(["tournament", "--agents", "random,b=random", "--players", "3", "--games", "1",
          "--no-progress", "--out", str(tmp_path / "runs"), *flags])
    return seen.get("stall_after", "not called")


def test_the_command_line_sets_the_stall_warning(monkeypatch, tmp_path, capsys):
    from dixit_ai.tournament.run import STALL_REPORT_AFTER

    assert _cli_stall_after(monkeypatch, tmp_path) == STALL_REPORT_AFTER
    assert _cli_stall_after(monkeypatch, tmp_path, "--stall-warning", "30") == 30.0
    assert _cli_stall_after(monkeypatch, tmp_path, "--stall-warning", "0") is None  # off
    for bad in ("-1", "nan", "inf"):
        assert _cli_stall_after(monkeypatch, tmp_path, "--stall-warning", bad) == "not called"
        assert "--stall-warning must be a number of seconds, 0 (off) or above" in (
            capsys.readouterr().err)


def test_analyse_refuses_the_stall_warning(tmp_path, capsys):
    from dixit_ai.cli import main

    assert main(["tournament", "--analyse", str(tmp_path), "--stall-warning", "5"]) == 2
    assert "--stall-warning applies to a new run" in capsys.readouterr().err
