"""An in-process entrant that hangs: a per-decision wall-clock limit (``decision_timeout``,
``--decision-timeout``) ends its decision as a recorded failure naming the seat, round and
phase, its instance is set aside and the run goes on; without a limit, a stalled run says which
games are in play and for how long."""

from __future__ import annotations

import re

import pytest

from dixit_ai.records import GameRecord
from dixit_ai.tournament import run_tournament
from dixit_ai.tournament.config import TournamentConfig
from tests.tournament import sleeping_agent
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 10, "rating_resamples": 0}


@pytest.fixture
def sleeper(tmp_path, monkeypatch):
    from dixit_ai.agents import register_agent
    from dixit_ai.agents.registry import CONFIG_DIRS_VARIABLE

    folder = tmp_path / "agents"
    folder.mkdir()
    (folder / "sleeping.yaml").write_text(
        "name: sleeping-test\nentry_point: tests.tournament.sleeping_agent:SleepingAgent\n")
    monkeypatch.setenv(CONFIG_DIRS_VARIABLE, str(folder))  # for the spawned workers
    register_agent("sleeping-test", "tests.tournament.sleeping_agent:SleepingAgent",
                   overwrite=True)
    sleeping_agent.WAKE.clear()
    yield "sleeping-test"
    sleeping_agent.WAKE.set()  # the abandoned decisions of this process end now


def _records(run):
    return [GameRecord.from_json(line)
            for line in (run.folder / "games.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("workers", [1, 2])
def test_a_hanging_decision_is_a_recorded_failure_and_the_run_goes_on(
        workers, sleeper, tmp_path, monkeypatch):
    monkeypatch.setenv("DIXIT_AI_TEST_SLEEP", "20")  # a worker's sleeper ends with its pool
    config = random_config(agents=("random", sleeper, "b=random"), players=3, games=3,
                           max_rounds=2, decision_timeout=0.5)
    run = run_tournament(config, out=tmp_path / "runs", workers=workers, **QUICK)
    assert run.played == 3 and run.results is not None
    records = _records(run)
    assert len(records) == 3
    for record in records:
        assert record.status == "complete" or record.status == "truncated"
        seat = record.header["tournament"]["seats"].index(sleeper)
        failures = record.failures
        assert failures and {f.seat for f in failures} == {seat}
        assert {f.error for f in failures} == {"DecisionTimeout"}
        first = failures[0]
        assert first.phase == "vote" and first.penalty == "forfeit"
        assert "0.5 s" in first.reason and "vote()" in first.reason
        assert f"seat {seat}" in first.reason
    assert run.results.standing(sleeper).failures == sum(len(r.failures) for r in records)
    assert run.results.standing("random").failures == 0


def test_under_abort_the_hanging_game_is_aborted_and_the_next_game_plays(sleeper, tmp_path):
    config = random_config(agents=("random", sleeper, "b=random"), players=3, games=3,
                           max_rounds=2, decision_timeout=0.3, on_failure="abort")
    run = run_tournament(config, out=tmp_path / "runs", workers=1, report=False, **QUICK)
    records = _records(run)
    assert [r.status for r in records] == ["aborted"] * 3
    assert all(len(r.failures) == 1 and r.failures[0].error == "DecisionTimeout"
               for r in records)


@pytest.mark.parametrize("value", [0, -1, float("nan"), "1", True, 1e9])
def test_a_bad_decision_timeout_is_refused(value):
    config = random_config(decision_timeout=value)
    with pytest.raises(ValueError, match="decision_timeout"):
        config.validate()


def test_the_limit_is_kept_in_the_config_file():
    config = random_config(decision_timeout=2.5)
    assert config.to_dict()["decision_timeout"] == 2.5
    assert TournamentConfig.from_dict(config.to_dict()) == config
    assert "decision_timeout" not in random_config().to_dict() or \
        random_config().to_dict()["decision_timeout"] is None


@pytest.mark.parametrize("workers", [1, 2])
def test_a_stalled_run_says_which_games_are_in_play(workers, sleeper, tmp_path, monkeypatch):
    monkeypatch.setenv("DIXIT_AI_TEST_SLEEP", "3")
    lines: list[str] = []
    config = random_config(agents=("random", sleeper, "b=random"), players=3, games=2,
                           max_rounds=1)
    run = run_tournament(config, out=tmp_path / "runs", workers=workers, report=False,
                         log=lines.append, stall_after=1.0, **QUICK)
    assert run.played == 2
    stalled = [line for line in lines if "no game finished" in line]
    assert stalled, lines
    assert re.search(rf"in play: game \d \([^)]*{sleeper}[^)]*\) in play for \d+ s in "
                     r"(this process|worker process \d+)", stalled[0]), stalled[0]
    assert "decision_timeout" in stalled[0]


def test_the_command_line_takes_the_limit_and_refuses_a_bad_one(sleeper, tmp_path, capsys):
    from dixit_ai.cli import main

    run = ["--players", "3", "--games", "1", "--max-rounds", "1", "--workers", "1",
           "--no-progress", "--resamples", "10", "--rating-resamples", "0", "--on-failure",
           "forfeit"]
    out = tmp_path / "runs"
    assert main(["tournament", "--agents", f"random,b=random,{sleeper}", *run,
                 "--decision-timeout", "nan", "--out", str(out)]) == 2
    assert "decision_timeout must be a number of seconds above 0" in capsys.readouterr().err
    assert not out.exists()
    assert main(["tournament", "--agents", f"random,b=random,{sleeper}", *run,
                 "--decision-timeout", "0.3", "--out", str(out)]) == 0
    (folder,) = out.iterdir()
    record = GameRecord.from_json((folder / "games.jsonl").read_text().splitlines()[0])
    assert record.failures and record.failures[0].error == "DecisionTimeout"
    assert '"decision_timeout": 0.3' in (folder / "config.json").read_text()
