"""``dixit-ai simulate --decision-timeout``: a hanging agent's decision is its recorded failure
(``DecisionTimeout``) instead of hanging the run; a limit that is no number of seconds is
refused before anything is played."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.records import GameRecord
from tests.tournament import sleeping_agent


@pytest.fixture
def sleeper():
    from dixit_ai.agents import register_agent

    register_agent("sleeping-sim-test", "tests.tournament.sleeping_agent:SleepingAgent",
                   overwrite=True)
    sleeping_agent.WAKE.clear()
    yield "sleeping-sim-test"
    sleeping_agent.WAKE.set()


def test_a_hanging_agent_is_a_recorded_timeout(sleeper: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "games.jsonl"
    start = time.monotonic()
    code = main(["simulate", "--agents", f"random,{sleeper},random", "--players", "3",
                 "--games", "2", "--max-rounds", "2", "--on-failure", "forfeit",
                 "--decision-timeout", "0.3", "--no-progress", "--out", str(out)])
    assert code == 0
    assert time.monotonic() - start < 15  # the sleeper would hold each vote 30 s
    records = [GameRecord.from_json(line) for line in out.read_text().splitlines()]
    assert len(records) == 2
    for record in records:
        assert record.failures and {f.seat for f in record.failures} == {1}
        assert {f.error for f in record.failures} == {"DecisionTimeout"}
        assert "decision limit of 0.3 s" in record.failures[0].reason
    assert "DecisionTimeout" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["0", "-1", "nan", "1e9"])
def test_a_bad_limit_is_refused(value: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "games.jsonl"
    capsys.readouterr()
    code = main(["simulate", "--games", "1", "--decision-timeout", value, "--no-progress",
                 "--out", str(out)])
    assert code == 2
    assert ("--decision-timeout must be a number of seconds above 0 and at most 86,400"
            in capsys.readouterr().err)
    assert not out.exists()
