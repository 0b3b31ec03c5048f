"""Held out from the panel: a storyteller is checked against the panel's members by the models
its simulation uses and by the voters its fitted files were fitted on; a storyteller that does
not say is refused; the bench's report says which members it was held out from (the whole-games
study: test_held_out_study.py)."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from dixit_ai import play_game, write_records
from dixit_ai.agents import RandomAgent
from dixit_ai.agents.http_agent import HttpAgent
from dixit_ai.reporting import mean_interval
from models.bench.panel import PanelTable
from models.bench.panel_analysis import panel_results, panel_tables
from models.players import ClipAgent, GuessModel
from models.players.baselines import RandomTeller
from models.players.calibration import (
    fit_guess_model,
    fit_population,
    observations_and_voters,
    other_model_voters,
)
from models.players.policy import FEATURES, LinearCluePolicy
from models.players.population_fit import PopulationFit
from tests.players.test_panel import SMALL, related_spaces

REPO = Path(__file__).resolve().parents[2]
FAST: dict[str, Any] = dict(SMALL)
"""Small budgets for the clip players (no calibration file)."""


def check_held_out(label: str, description: dict[str, Any],
                   members: list[tuple[str, str]]) -> list[str]:
    """The bench's check of a storyteller against members ``(name, fingerprint)``."""
    table = PanelTable([(n, SimpleNamespace(fingerprint=f)) for n, f in members], None)
    return table.check_held_out(label, description)


def _games(seats: list[Any], n: int) -> list[Any]:
    """``n`` seeded games of ``seats`` on the dream deck's card ids (rotating seats)."""
    return [play_game(seats[g:] + seats[:g], edition="refresh-2021", deck="dream", seed=g)
            for g in range(n)]


@pytest.fixture(scope="module")
def minds() -> list[Any]:
    """Four embedding spaces over the dream deck's 84 card ids: the storyteller's own, and
    ``a``, ``b``, ``c``."""
    return related_spaces(4, seed=21)


@pytest.fixture(scope="module")
def cross_records(minds) -> list[Any]:
    """Two games of clip players on the storyteller's own model and on ``a`` and ``b``."""
    own, a, b, _ = minds
    seats = [ClipAgent(name=f"on-{k}", deck=r, **FAST)
             for k, r in zip("oabob", [own, a, b, own, b], strict=True)]
    return _games(seats, 2)


# ------------------------------------------------------------------ finding 4: say it or refused


@pytest.mark.parametrize("description", [
    {}, {"embedder": "fp-a"}, {"simulation_embedders": []}, {"simulation_fits": []},
    {"simulation_embedders": None, "simulation_fits": []}])
def test_a_storyteller_that_does_not_say_what_it_simulates_is_refused(description):
    with pytest.raises(ValueError, match="does not say which"):
        check_held_out("undeclared", description, [("a", "fp-a"), ("b", "fp-b")])


def test_players_without_a_simulation_declare_it_and_pass(minds):
    members = [("a", minds[1].fingerprint)]
    for agent in (RandomAgent(), HttpAgent(base_url="http://127.0.0.1:9/v1", model="x"),
                  RandomTeller(deck=minds[0], **FAST)):
        described = agent.describe()
        assert described["simulation_embedders"] == [] and described["simulation_fits"] == []
        assert check_held_out(str(described["name"]), described, members) == ["a"]


# ------------------------------------------------------------------ finding 3: fits on votes


def test_a_calibration_fitted_on_a_members_votes_is_not_held_out_from_it(
        minds, cross_records, tmp_path):
    own, a, b, c = minds
    observations, voters = observations_and_voters(cross_records, own.cards, own.texts,
                                                   other_model_voters(own.fingerprint))
    assert {v["fingerprint"] for v in voters} == {a.fingerprint, b.fingerprint}
    assert {v["name"] for v in voters} == {"on-a", "on-b"}
    path = tmp_path / "fit.json"
    fit_guess_model(observations).save(path, embedder=own.fingerprint, voter_models=voters)
    teller = ClipAgent(name="teller", deck=own, **{**FAST, "calibration": str(path)})
    assert teller.simulation_embedders() == [own.fingerprint]   # it simulates no member
    with pytest.raises(ValueError, match=r"fitted on votes of panel member\(s\) a, b"):
        PanelTable([("a", a), ("b", b), ("c", c)], None).check_held_out(
            "teller", teller.describe())
    assert PanelTable([("c", c)], None).check_held_out("teller", teller.describe()) == ["c"]


def test_a_fitted_file_that_does_not_record_its_voters_is_refused(minds, tmp_path):
    own, _, _, c = minds
    table = PanelTable([("c", c)], None)
    GuessModel(0.05, 0.0).save(tmp_path / "old.json", embedder=own.fingerprint)
    old = ClipAgent(name="old", deck=own, **{**FAST, "calibration": str(tmp_path / "old.json")})
    with pytest.raises(ValueError, match=r"old\.json, which does not record which voters"):
        table.check_held_out("old", old.describe())
    policy = tmp_path / "policy.json"
    LinearCluePolicy(np.zeros(len(FEATURES)), shortlist=4).save(policy)
    learned = ClipAgent(name="learned", deck=own, **{**FAST, "policy": str(policy)})
    with pytest.raises(ValueError, match=r"policy file .*does not record which voters"):
        table.check_held_out("learned", learned.describe())
    LinearCluePolicy(np.zeros(len(FEATURES)), shortlist=4).save(
        policy, voter_models=[{"fingerprint": own.fingerprint, "name": "learner"}])
    learned = ClipAgent(name="learned", deck=own, **{**FAST, "policy": str(policy)})
    assert table.check_held_out("learned", learned.describe()) == ["c"]
    # A record that is not a list of voters is an error naming the file, not a pass.
    GuessModel(0.05, 0.0).save(tmp_path / "bad.json", voter_models=["a"])
    bad = ClipAgent(name="bad", deck=own, **{**FAST, "calibration": str(tmp_path / "bad.json")})
    with pytest.raises(ValueError, match=r"bad\.json: voter_models entry 'a' is not a voter"):
        bad.describe()


def test_a_population_fit_on_a_members_votes_is_not_held_out_from_it(
        minds, cross_records, tmp_path):
    own, a, b, c = minds
    fit, notes = fit_population(cross_records, [("own", own), ("b", b)])
    assert {v["fingerprint"] for v in notes["voter_models"]} == {
        own.fingerprint, a.fingerprint, b.fingerprint}
    path = tmp_path / "population.json"
    fit.save(path)
    assert PopulationFit.load(path).voters == notes["voter_models"]
    # It simulates only itself and b, but its members' guess models learned from a's votes.
    crowd = ClipAgent(name="crowd", deck=own, population=[own, b],
                      population_calibration=str(path), **FAST)
    assert a.fingerprint not in crowd.simulation_embedders()
    with pytest.raises(ValueError, match=r"population file .*fitted on votes of panel "
                                         r"member\(s\) a"):
        PanelTable([("a", a), ("c", c)], None).check_held_out("crowd", crowd.describe())
    assert PanelTable([("c", c)], None).check_held_out("crowd", crowd.describe()) == ["c"]


def test_fit_calibration_records_the_voters_it_fitted(minds, cross_records, tmp_path,
                                                      monkeypatch, capsys):
    from models.players import panel_models

    own, a, b, _ = minds
    records = tmp_path / "games.jsonl"
    write_records(records, cross_records)
    monkeypatch.setattr(panel_models, "load_member_resources",
                        lambda name, deck, **_: {"own": own, "b": b}[name])
    monkeypatch.setattr(sys, "argv", [
        "fit_calibration.py", "--records", str(records), "--voters", "other-models",
        "--embedder", "own", "--population", "own", "b", "--out", str(tmp_path / "fit.json"),
        "--population-out", str(tmp_path / "population.json"), "--runs-dir",
        str(tmp_path / "runs")])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / "fit_calibration.py"), run_name="__main__")
    assert done.value.code == 0, capsys.readouterr().err
    fitted = json.loads((tmp_path / "fit.json").read_text())
    # Even games are fitted: their voters on other models than own.
    assert {v["fingerprint"] for v in fitted["voter_models"]} == {a.fingerprint, b.fingerprint}
    population = json.loads((tmp_path / "population.json").read_text())
    assert {v["fingerprint"] for v in population["voter_models"]} == {
        own.fingerprint, a.fingerprint, b.fingerprint}


def test_the_shipped_fits_record_their_voters_and_the_registry_storytellers_are_held_out():
    from dixit_ai.agents import list_agents, make_agent
    from models.players.panel import resolve_panel
    from models.players.panel_models import resolve_embedder

    data = REPO / "models" / "data"
    guess = json.loads((data / "guess_model.json").read_text())
    assert guess["voter_models"] == [{"fingerprint": guess["embedder"], "name": "clip-greedy"}]
    for name in ("population.json", "population_wide.json"):
        fit = json.loads((data / name).read_text())   # every member voted at the others' tables
        assert [v["fingerprint"] for v in fit["voter_models"]] == sorted(fit["members"])
    members = [(m.name, resolve_embedder(m.embedder).fingerprint)
               for m in resolve_panel("panel-heldout")]
    for spec in list_agents():
        if spec.name.startswith(("panel-", "http")) or spec.name == "party-embedding":
            continue
        if spec.entry_point.startswith("tests."):  # registered by another test module
            continue
        described = make_agent(spec.name).describe()
        assert check_held_out(spec.name, described, members) == [n for n, _ in members]


# ------------------------------------------------------------------ finding 5: the report says


def _record(model: str, item: int, held_out: list[str] | None) -> dict[str, Any]:
    found, seen = {"a": 1, "b": 0}, {"a": 2, "b": 2}
    row = {"task": "tell", "model": model, "item": item, "predicted": 0.5, "target": 0.5,
           "observed": 0.5, "invalid": False, "card": item, "clue": "x",
           "panel": {"found": found, "seen": seen, "success": 1.0, "points": 3.0,
                     "finders": [], "random_found": found, "random_seen": seen,
                     "random_success": 0.0, "random_points": 0.0}}
    if held_out is not None:
        row["held_out"] = held_out
    return row


def test_the_report_says_which_members_each_storyteller_was_held_out_from():
    from models.bench.analysis import report

    header = {"panel": {"members": [{"name": "a"}, {"name": "b"}]}}
    rows = [_record("checked", i, ["a", "b"]) for i in range(2)]
    rows += [_record("unchecked", i, None) for i in range(2)]
    rows += [_record("mixed", 0, ["a", "b"]), _record("mixed", 1, None)]
    panel = panel_results(header, rows, lambda v, clusters=None: mean_interval(
        v, seed=0, n_resamples=50, clusters=clusters))
    assert panel is not None
    assert panel["models"]["checked"]["held_out"] == ["a", "b"]
    # A record without the field was never checked: nothing is claimed for it.
    assert panel["models"]["unchecked"]["held_out"] is None
    assert panel["models"]["mixed"]["held_out"] is None
    (table,) = [t for t in panel_tables(panel) if "held out" in t[0]]
    assert dict(map(tuple, table[2])) == {"checked": "all: a, b", "unchecked": "not checked",
                                          "mixed": "not checked"}
    interval = mean_interval([0.5, 0.5], seed=0, n_resamples=50)
    results = {
        "run": {"name": "t", "seed": 0, "items": 2, "edition": "refresh-2021",
                "deck": {"spec": "dream", "size": 84, "fingerprint": "0" * 16}},
        "models": [{"label": m, "kind": "agent"} for m in panel["models"]],
        "tell": {"models": {m: {"success": interval, "guess_rate": interval, "target": 0.5,
                                "target_gap": 0.0, "ece": 0.0, "invalid_rate": 0.0}
                            for m in panel["models"]}, "panel": panel}}
    text = report(results, {"calibration": "calibration.png"}, None)
    assert "the members each storyteller was held out from" in text
    assert "| checked | all: a, b |" in text and "| unchecked | not checked |" in text
    assert text.count("![calibration](calibration.png)") == 1   # not under every tell table


def test_the_bench_refuses_a_storyteller_not_held_out_before_its_run_folder(tmp_path: Path
                                                                          ) -> None:
    """Before, the refusal came once the run folder was made (exit 1, a bench.json and an
    empty records file left behind)."""
    from tests.cli.helpers import dixit

    result = dixit("bench", "--models", "clip-population", "--tasks", "tell", "--panel",
                   "panel-lite1-minilm", "--items", "2", "--no-progress", "--out",
                   str(tmp_path / "runs"), cwd=tmp_path)
    assert result.returncode == 2, result.output
    assert ("storyteller 'clip-population' simulates with the model of panel member(s) "
            "panel-lite1-minilm") in result.stderr
    assert not (tmp_path / "runs").exists()
