"""Issue 12, item 2: ``bench --panel`` and a tournament of a named panel, through the console
script (small budgets: two cheap members on the default towers, a few items or games)."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import dixit

pytest.importorskip("models.players.panel")

CHEAP_PANEL = "sibling,default-zeroshot"
"""Two members on the default model's towers (no other model to load)."""


def test_bench_panel_plays_the_tell_task_against_the_named_members(tmp_path):
    result = dixit("bench", "--models", "random", "--tasks", "tell", "--panel", CHEAP_PANEL,
                   "--items", "2", "--bootstrap", "20", "--no-progress", "--out", "runs",
                   cwd=tmp_path, timeout=400)
    assert result.returncode == 0, result.output
    assert "tell against the panel" in result.stdout
    (header_file,) = (tmp_path / "runs").glob("bench__*/bench.json")
    header = json.loads(header_file.read_text(encoding="utf-8"))
    members = [m["name"] for m in header["panel"]["members"]]
    assert members == ["panel-sibling", "panel-default-zeroshot"]
    (records,) = (tmp_path / "runs").glob("bench__*/records.jsonl")
    rows = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()]
    played = [r for r in rows if r.get("task") == "tell" and r.get("panel")]
    assert played, "no tell record was played against the panel"
    assert set(played[0]["panel"]["seen"]) == set(members)


def test_bench_panel_without_the_tell_task_is_refused(tmp_path):
    result = dixit("bench", "--models", "random", "--tasks", "guess", "--panel", CHEAP_PANEL,
                   "--items", "2", "--no-progress", cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert "tell" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()


def test_bench_panel_refusal_names_the_tasks_given_as_one_word(tmp_path):
    """'--tasks guess' (and 'tasks: guess' in a YAML file) was joined letter by letter."""
    (tmp_path / "bench.yaml").write_text("models: [random]\ntasks: guess\nitems: 2\n")
    for args in (["--models", "random", "--tasks", "guess"], ["--config", "bench.yaml"]):
        result = dixit("bench", *args, "--panel", "panel", "--no-progress", cwd=tmp_path)
        assert result.returncode == 2, result.output
        assert "plays only in the tell task; the tasks are guess: add tell" in result.stderr
        assert "g, u, e, s, s" not in result.stderr
    assert not (tmp_path / "runs").exists()


def test_bench_unknown_panel_member_is_refused(tmp_path):
    result = dixit("bench", "--models", "random", "--tasks", "tell", "--panel", "no-such-mind",
                   "--items", "2", "--no-progress", cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert "no panel member named 'no-such-mind'" in result.stderr
    assert "panel-sibling" in result.stderr and "Traceback" not in result.output


def test_tournament_expands_panel_entries_and_the_panel_flag(tmp_path):
    result = dixit("tournament", "--agents", "random,panel:panel-sibling", "--panel",
                   "default-zeroshot", "--players", "3", "--games", "3", "--max-rounds", "1",
                   "--workers", "1", "--no-progress", "--resamples", "10",
                   "--rating-resamples", "0", "--out", "runs", cwd=tmp_path, timeout=400)
    assert result.returncode == 0, result.output
    (config_file,) = (tmp_path / "runs").glob("tournament__*/config.json")
    agents = [a["agent"] for a in json.loads(config_file.read_text())["config"]["agents"]]
    assert agents == ["random", "panel-sibling", "panel-default-zeroshot"]
    assert "panel-default-zer" in result.stdout  # on the leaderboard


def test_tournament_named_panel_expands_to_its_members():
    from dixit_ai.agents import agent_spec
    from dixit_ai.cli.tournament import expand_panels
    from models.players.panel import panel_agents, resolve_panel

    members = panel_agents("panel-heldout")
    # Held out: no member is on a model the shipped population storytellers simulate.
    simulated = set(agent_spec("clip-population").kwargs["population"].split(","))
    assert len(members) >= 2
    assert not simulated & {m.embedder for m in resolve_panel("panel-heldout")}
    assert expand_panels(["random", "panel:panel-heldout"]) == ["random", *members]
    assert expand_panels(["random"], "panel-derived") == ["random", *panel_agents("panel-derived")]


def test_tournament_unknown_or_empty_panel_is_refused(tmp_path):
    for entry in ("random,panel:no-such-panel", "random,panel:"):
        result = dixit("tournament", "--agents", entry, "--games", "2", "--workers", "1",
                       "--out", "runs", cwd=tmp_path)
        assert result.returncode == 2, (entry, result.output)
        assert "panel" in result.stderr and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists()


def test_tournament_panel_flag_adds_members_to_a_config_file_and_refuses_resume(tmp_path):
    from dixit_ai.cli import build_parser
    from dixit_ai.cli.tournament import build_config
    from dixit_ai.tournament import load_config
    from models.players.panel import panel_agents
    from tests.cli.helpers import ROOT

    config_file = ROOT / "configs" / "tournaments" / "clip-four.yaml"
    base = [entry.label for entry in load_config(config_file).agents]
    args = build_parser().parse_args(["tournament", "--config", str(config_file),
                                      "--panel", "panel-derived"])
    assert build_config(args).labels == [*base, *panel_agents("panel-derived")]
    args = build_parser().parse_args(["tournament", "--resume", str(tmp_path), "--panel",
                                      "panel-derived"])
    with pytest.raises(ValueError, match="--panel does not go with --resume"):
        build_config(args)
