"""A Dixit Party game with an agent that cannot play Party is refused before any work: exit 2,
naming the seat or entry and the agents that can, with no run folder or records file made.

``simulate`` failed once the games had begun (exit 1); ``tournament`` made its run folder, then
failed and advised a ``--resume`` that could never succeed."""

from __future__ import annotations

from pathlib import Path

import pytest

from dixit_ai.agents import party_agents, party_problem, register_agent
from dixit_ai.cli import main

PARTY = ["--edition", "odyssey-2011", "--players", "6", "--rule", "mode=party"]


@pytest.fixture(autouse=True)
def _no_party_agent() -> None:
    register_agent("no-party-test", "tests.test_play_hotseat:_NoPartyAgent", overwrite=True)


def test_the_registry_reads_party_play_from_the_class() -> None:
    assert party_problem("random") is None
    assert party_problem("party-embedding") is None
    problem = party_problem("no-party-test")
    assert problem is not None and "no announce() or red_token()" in problem
    able = party_agents()
    assert {"random", "party-embedding"} <= set(able)
    assert "no-party-test" not in able and "clip-greedy" not in able
    assert problem.endswith("Party agents: " + ", ".join(able))


def test_simulate_refuses_before_the_games(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    code = main(["simulate", *PARTY, "--games", "2", "--no-progress", "--out", str(out),
                 "--agents", "random,random,random,random,random,no-party-test"])
    assert code == 2
    err = capsys.readouterr().err
    assert "seat 5: agent 'no-party-test' cannot play Dixit Party" in err
    assert "failed" not in err
    assert list(tmp_path.iterdir()) == []


def test_a_tournament_refuses_before_its_run_folder(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", *PARTY, "--games", "1", "--workers", "1", "--no-progress",
                 "--agents", "random,no-party-test", "--out", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "agent 'no-party-test' cannot play Dixit Party" in err
    assert "--resume" not in err
    assert list(tmp_path.iterdir()) == []
