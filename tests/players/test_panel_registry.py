"""Issue 12, item 2: the panel's and the population storytellers' registry entries: every shipped
member has an entry, and each entry warms its model through ``prepare_agents``."""

from __future__ import annotations

from typing import Any

import pytest

from dixit_ai.agents import agent_spec, list_agents, prepare_agents

pytest.importorskip("models.players.panel")

from models.family import MEMBERS, weights_dir
from models.players.panel import PANELS, member, resolve_panel

POPULATION_ENTRIES = ("clip-population", "clip-expected", "clip-population-expected",
                      "clip-reader", "clip-listener", "clip-calibrated")


def _panel_entries() -> list[str]:
    return sorted(a.name for a in list_agents() if a.name.startswith("panel-"))


def test_every_family_member_with_a_committed_head_has_a_panel_entry():
    entries = set(_panel_entries())
    shipped = [name for name, spec in MEMBERS.items()
               if spec.head_file is not None and (weights_dir() / spec.head_file).is_file()]
    assert "lite1-mpnet" in shipped
    for name in shipped:
        if f"panel-{name}" in PANELS["panel"]:
            assert f"panel-{name}" in entries, name
    assert member("panel-lite1-mpnet").embedder == "lite1-mpnet"
    assert "panel-lite1-mpnet" in [m.name for m in resolve_panel("panel")]


@pytest.mark.parametrize("name", ["panel-lite1-mpnet", "panel-sibling"])
def test_panel_entries_declare_the_clip_prepare_step(name):
    assert agent_spec(name).prepare == agent_spec("clip-greedy").prepare is not None


@pytest.mark.parametrize("name", POPULATION_ENTRIES)
def test_population_entries_declare_the_population_prepare_step(name):
    assert agent_spec(name).prepare == "models.players.population:prepare"


def test_every_panel_entry_declares_a_prepare_step():
    entries = _panel_entries()
    assert len(entries) >= 6
    assert [n for n in entries if agent_spec(n).prepare is None] == []


def test_prepare_agents_on_a_panel_member_runs_its_prepare_step(monkeypatch):
    import models.players.resources as resources_module

    real = resources_module.prepare
    calls: list[dict[str, Any]] = []

    def recording(**kwargs: Any) -> Any:
        calls.append(kwargs)
        out = real(**kwargs)
        calls[-1]["returned"] = out
        return out

    monkeypatch.setattr(resources_module, "prepare", recording)
    prepare_agents(["panel-sibling", "panel-sibling"], deck="dream")
    assert len(calls) == 1  # the same entry and arguments: once
    assert calls[0]["embedder"] == agent_spec("panel-sibling").kwargs["embedder"]
    assert calls[0]["embedder"] == "panel:sibling" and calls[0]["deck"] == "dream"
    resources = calls[0]["returned"]
    assert len(resources.card_ids) == 84  # the default deck's cards, embedded by the member
    assert resources.card_vectors.shape[0] == 84


def test_prepare_agents_on_a_population_storyteller_warms_its_other_minds(monkeypatch):
    from models.players.resources import PlayerResources

    real = PlayerResources.texts
    asked: list[tuple[str, int]] = []

    def recording(self: Any, texts: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append((self.fingerprint, len(list(texts))))
        return real(self, texts, *args, **kwargs)

    monkeypatch.setattr(PlayerResources, "texts", recording)
    lines: list[str] = []
    prepare_agents(["clip-population"], deck="dream", progress=lines.append)
    fingerprints = [f for f, n in asked if n > 0]
    assert len(set(fingerprints)) >= 2, asked  # its own space and the sibling's
