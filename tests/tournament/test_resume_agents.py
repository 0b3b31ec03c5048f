"""A resume with a changed agent is refused: the run keeps each agent's definition (entry point
and merged keyword arguments) in config.json, and the resumed games' descriptions must be the
recorded ones. A YAML agent's kwargs (or its embedder) changed between run and resume were
accepted: games 0-3 and 4-7 were played by two agents rated as one."""

from __future__ import annotations

import json
import warnings

import pytest

from dixit_ai.agents import registry
from dixit_ai.records import GameRecord
from dixit_ai.tournament import ResumeError, run_tournament
from tests.tournament import quitting_agent
from tests.tournament.helpers import random_config

QUICK = {"progress": False, "n_resamples": 100, "rating_resamples": 10}
CONFIG = {"agents": ("random", "mine", "b=random"), "players": 3, "games": 6, "max_rounds": 2}


def define(monkeypatch, point="dixit_ai.agents.random_agent:RandomAgent", **kwargs):
    """Register (for this test only) the agent ``mine`` with ``kwargs``."""
    registry._ensure_configs()
    monkeypatch.setitem(registry._REGISTRY, "mine",
                        registry.AgentSpec("mine", point, dict(kwargs)))


def test_the_run_keeps_each_agents_definition(tmp_path, monkeypatch):
    define(monkeypatch, second_vote_rate=0.1)
    run = run_tournament(random_config(**CONFIG), out=tmp_path, stop_after=2, **QUICK)
    kept = json.loads((run.folder / "config.json").read_text())["agent_definitions"]
    assert kept["mine"] == {"agent": "mine",
                            "entry_point": "dixit_ai.agents.random_agent:RandomAgent",
                            "kwargs": {"second_vote_rate": 0.1}}
    assert kept["b"]["agent"] == "random" and kept["b"]["kwargs"] == {}


def test_a_changed_definition_is_refused_before_anything_is_played(tmp_path, monkeypatch):
    define(monkeypatch, second_vote_rate=0.1)
    run = run_tournament(random_config(**CONFIG), out=tmp_path, stop_after=2, **QUICK)
    before = (run.folder / "games.jsonl").read_bytes()
    define(monkeypatch, second_vote_rate=0.3)
    with pytest.raises(ResumeError, match=r"other agent definitions \(stored != now\): mine: "
                       r"kwargs second_vote_rate: 0.1 != 0.3"):
        run_tournament(random_config(**CONFIG), resume=run.folder, **QUICK)
    define(monkeypatch, "tests.tournament.quitting_agent:QuittingAgent", second_vote_rate=0.1)
    with pytest.raises(ResumeError, match=r"mine: entry_point 'dixit_ai.agents.random_agent:"
                       r"RandomAgent' != 'tests.tournament.quitting_agent:QuittingAgent'"):
        run_tournament(random_config(**CONFIG), resume=run.folder, **QUICK)
    assert (run.folder / "games.jsonl").read_bytes() == before
    define(monkeypatch, second_vote_rate=0.1)  # restored: the run goes on
    assert run_tournament(random_config(**CONFIG), resume=run.folder, **QUICK).played == 4


def test_a_record_describing_an_agent_otherwise_stops_the_run_unwritten(tmp_path, monkeypatch):
    define(monkeypatch, "tests.tournament.quitting_agent:DescribingItsModel")
    monkeypatch.setattr(quitting_agent, "MODEL", ["model-a"])
    run = run_tournament(random_config(**CONFIG), out=tmp_path, stop_after=2, **QUICK)
    quitting_agent.MODEL[0] = "model-b"  # the same definition, another model behind it
    with pytest.raises(ResumeError, match=r"game 2 describes 'mine' otherwise than game 0 did "
                       r"\(model: \"model-a\" != \"model-b\"\).*not recorded"):
        run_tournament(random_config(**CONFIG), resume=run.folder, **QUICK)
    lines = (run.folder / "games.jsonl").read_text().splitlines()
    assert len(lines) == 2
    described = [agent for line in lines for agent in GameRecord.from_json(line).header["agents"]
                 if agent["name"] == "mine"]
    assert described and {agent["model"] for agent in described} == {"model-a"}


def test_a_run_that_kept_no_definitions_is_resumed_with_a_warning(tmp_path, monkeypatch):
    define(monkeypatch, second_vote_rate=0.1)
    run = run_tournament(random_config(**CONFIG), out=tmp_path, stop_after=2, **QUICK)
    path = run.folder / "config.json"
    data = json.loads(path.read_text())
    del data["agent_definitions"]
    path.write_text(json.dumps(data))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = run_tournament(random_config(**CONFIG), resume=run.folder, **QUICK)
    assert resumed.played == 4
    assert any("keeps no agent definitions" in str(w.message) for w in caught)
    assert "agent_definitions" not in json.loads(path.read_text())


def test_the_report_says_what_each_agent_was(tmp_path, monkeypatch):
    """report.md named agents only (with empty kwargs for a registry's YAML agent): it now says
    each one's definition and description (an embedder's fingerprint, an endpoint's model)."""
    define(monkeypatch, "tests.tournament.quitting_agent:DescribingItsModel",
           second_vote_rate=0.1)
    monkeypatch.setattr(quitting_agent, "MODEL", ["model-a"])
    run = run_tournament(random_config(**CONFIG), out=tmp_path, **QUICK)
    report = (run.folder / "report.md").read_text().replace("\\", "")  # Markdown's escapes
    assert "## Agents" in report
    (line,) = [line for line in report.splitlines() if line.startswith("- mine:")]
    assert "tests.tournament.quitting_agent:DescribingItsModel" in line
    assert '"second_vote_rate": 0.1' in line and '"model": "model-a"' in line


def test_an_agent_given_the_games_deck_is_defined_with_the_tournaments(tmp_path, monkeypatch):
    """An agent that takes a deck is given the tournament's, whatever its entry names: its
    definition says so (it said the entry's 'dream' for a run on another deck)."""
    define(monkeypatch, point="models.players.baselines:CaptionTeller", deck="dream")
    config = random_config(**{**CONFIG, "deck": "dream:size=40"})
    run = run_tournament(config, out=tmp_path, stop_after=1, **QUICK)
    kept = json.loads((run.folder / "config.json").read_text())["agent_definitions"]
    assert kept["mine"]["kwargs"]["deck"] == "dream:size=40"
    assert "deck" not in kept["b"]["kwargs"]  # the random agent takes none
