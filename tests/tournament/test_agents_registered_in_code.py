"""An agent registered in code only (``register_agent`` under ``if __name__ == "__main__":``,
no YAML file) plays in a tournament's worker processes: they are spawned, so the registration
was not there, and the run failed with "no agent named ..." from inside a worker, leaving an
empty run folder. The parent's entries now go to the workers."""

from __future__ import annotations

import json

import pytest

from dixit_ai.agents import registry
from dixit_ai.tournament import run_tournament
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 100, "rating_resamples": 10}


@pytest.mark.parametrize("workers", [1, 2])
def test_an_agent_registered_in_code_plays_in_the_workers(workers, tmp_path, monkeypatch):
    registry._ensure_configs()
    monkeypatch.setitem(registry._REGISTRY, "coded-only", registry.AgentSpec(
        "coded-only", "dixit_ai.agents.random_agent:RandomAgent", {"second_vote_rate": 0.0}))
    config = random_config(agents=("random", "coded-only", "b=random"), players=3, games=4,
                           max_rounds=2)
    run = run_tournament(config, out=tmp_path, workers=workers, **QUICK)
    assert run.played == 4
    described = [agent for line in (run.folder / "games.jsonl").read_text().splitlines()
                 for agent in json.loads(line)["header"]["agents"]
                 if agent["name"] == "coded-only"]
    # every game, played here or in a worker, by the parent's entry (its kwargs)
    assert len(described) == 4 and {a["second_vote_rate"] for a in described} == {0.0}
