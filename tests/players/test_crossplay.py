"""Leave-one-out cross-play: fitting a population's guess models on minds nobody simulated."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dixit_ai import play_game
from models.players import ClipAgent
from models.players.calibration import (
    fit_population,
    other_model_voters,
    unsimulated_voters,
    vote_observations,
)
from models.players.crossplay import (
    TARGETS,
    fit_population_crossplay,
    held_out_by_target,
    held_out_calibration,
)
from models.players.population_fit import PopulationFit
from tests.players.test_panel import SMALL, related_spaces

FAST = dict(SMALL)


def test_every_vote_at_a_leave_one_out_table_is_by_a_mind_the_storyteller_did_not_simulate(
        tmp_path):
    spaces = related_spaces(3, seed=11)
    result = fit_population_crossplay(spaces, games=1, iterations=2, start=None,
                                      agent_options=FAST, folder=tmp_path)
    fingerprints = [s.fingerprint for s in spaces]
    assert len(result.records) == 2 * 3 and len(result.iterations) == 2
    for record in result.records:
        left_out = record.header["crossplay"]["left_out"]
        agents = record.header["agents"]
        # Every seat is on the left-out model, and no storyteller simulates it.
        assert {a["embedder"] for a in agents} == {left_out}
        for entry in agents:
            assert left_out not in entry["simulation_embedders"]
            assert set(entry["simulation_embedders"]) == set(fingerprints) - {left_out}
        for rnd in record.rounds:
            assert all(unsimulated_voters(record, rnd, int(seat)) for seat in rnd.votes)
    # Iteration 2's tables played with iteration 1's fit, and the last fit is returned.
    played_with = PopulationFit.load(tmp_path / "population_iteration1.json")
    assert played_with.members == result.iterations[0]["fitted"]
    assert result.fit.members == result.iterations[1]["fitted"]
    assert set(result.fit.members) == set(fingerprints)
    for entry in result.fit.members.values():
        assert entry["bias"] == 0.0 and entry["votes"] > 0
    # The held-out calibration is per left-out member and pooled.
    calibration = result.iterations[1]["held_out_calibration"]
    assert set(calibration) == {*fingerprints, "pooled"}
    assert calibration["pooled"]["rounds"] == sum(
        calibration[f]["rounds"] for f in fingerprints)


def test_held_out_fit_leaves_out_the_votes_a_storyteller_simulated():
    spaces = related_spaces(2, seed=12)
    a, b = spaces
    # Seats 0 and 2 sit on a and simulate b; seats 1 and 3 sit on b and simulate b (themselves).
    players = [ClipAgent(name="a-crowd", deck=a, population=[b], **FAST),
               ClipAgent(name="b", deck=b, **FAST),
               ClipAgent(name="a-crowd2", deck=a, population=[b], **FAST),
               ClipAgent(name="b2", deck=b, **FAST)]
    record = play_game(players, edition="refresh-2021", deck=list(a.card_ids), seed=3)
    kept_all = vote_observations([record], a.cards, a.texts, other_model_voters(a.fingerprint))
    kept = vote_observations([record], a.cards, a.texts, other_model_voters(a.fingerprint),
                             unsimulated_voters)
    # For a, only b's votes count; every storyteller simulated b, so none of them is held out.
    assert len(kept_all) > 0 and len(kept) == 0
    # For b, a's votes count (seats 0 and 2): nobody simulated a.
    for_b = vote_observations([record], b.cards, b.texts, other_model_voters(b.fingerprint),
                              unsimulated_voters)
    by_a = sum(1 for rnd in record.rounds for seat in rnd.votes if int(seat) in (0, 2))
    assert 0 < len(for_b) == by_a
    fit, notes = fit_population([record], [("a", a), ("b", b)], held_out=True)
    assert notes["unfitted"] == ["a"] and set(fit.members) == {b.fingerprint}
    assert fit.members[b.fingerprint]["votes"] == by_a
    assert "did not simulate" in notes["fitted_on"]
    fit, notes = fit_population([record], [("a", a), ("b", b)], held_out=False)
    assert set(fit.members) == {a.fingerprint, b.fingerprint}


def test_held_out_calibration_is_per_left_out_member(tmp_path):
    spaces = related_spaces(2, seed=13)
    result = fit_population_crossplay(spaces, games=1, iterations=1, start=None,
                                      agent_options=FAST, folder=tmp_path)
    table = held_out_calibration(result.records)
    rows = [(r.header["crossplay"]["left_out"], rnd) for r in result.records for rnd in r.rounds
            if rnd.predicted_guess_rate is not None and rnd.votes]
    for name in (s.fingerprint for s in spaces):
        mine = [rnd for who, rnd in rows if who == name]
        assert table[name]["rounds"] == len(mine)
        assert table[name]["predicted"] == pytest.approx(
            np.mean([rnd.predicted_guess_rate for rnd in mine]))


def test_validation_plays_fresh_tables_with_the_last_fit(tmp_path):
    spaces = related_spaces(2, seed=15)
    result = fit_population_crossplay(spaces, games=1, iterations=1, start=None,
                                      agent_options=FAST, folder=tmp_path, validate=2)
    fitting = [r for r in result.records if r.header["crossplay"]["iteration"] == 0]
    checking = [r for r in result.records if r.header["crossplay"]["iteration"] == 1]
    assert len(fitting) == 2 and len(checking) == 2 * 2
    assert all("validation" in r.header["crossplay"]["label"] for r in checking)
    # The validation tables played with the fit returned, on seeds no fitting table used.
    assert PopulationFit.load(tmp_path / "population_validation.json").members == \
        result.fit.members
    assert not {r.seed for r in fitting} & {r.seed for r in checking}
    assert result.validation is not None and result.validation["games"] == 4
    assert result.validation["held_out_calibration"] == held_out_calibration(checking)
    # Per target: every seat's target, and the rounds add up to the pooled count.
    by_target = result.validation["by_target"]
    assert set(by_target) <= set(TARGETS) and len(by_target) >= 3
    assert sum(c["rounds"] for c in by_target.values()) == \
        result.validation["held_out_calibration"]["pooled"]["rounds"]
    lines = "\n".join(result.summary_lines())
    assert "validation (4 games" in lines and "by target (validation)" in lines
    # Without validate, nothing is played after the last iteration.
    assert fit_population_crossplay(spaces, games=1, iterations=1, start=None,
                                    agent_options=FAST).validation is None


def test_held_out_by_target_is_per_storyteller_target(tmp_path):
    spaces = related_spaces(2, seed=16)
    result = fit_population_crossplay(spaces, games=1, iterations=1, start=None,
                                      agent_options=FAST, folder=tmp_path)
    table = held_out_by_target(result.records)
    for target, cell in table.items():
        mine = [rnd for r in result.records for rnd in r.rounds
                if rnd.notes[str(rnd.storyteller)]["tell"]["target_guess_rate"] == target
                and rnd.votes]
        assert cell["rounds"] == len(mine)
        assert cell["predicted"] == pytest.approx(
            np.mean([rnd.predicted_guess_rate for rnd in mine]))


def test_crossplay_refuses_bad_members():
    spaces = related_spaces(2, seed=14)
    with pytest.raises(ValueError, match="at least two members"):
        fit_population_crossplay(spaces[:1])
    with pytest.raises(ValueError, match="name one twice"):
        fit_population_crossplay([spaces[0], spaces[0]])
    with pytest.raises(ValueError, match="every member as an embedder name"):
        fit_population_crossplay([spaces[0], "default"])
    with pytest.raises(ValueError, match="ground truth"):
        fit_population_crossplay(["default", "caption-reader"])
    with pytest.raises(ValueError, match="must be at least 1"):
        fit_population_crossplay(spaces, games=0)
    with pytest.raises(ValueError, match=r"validate \(-1\) must be at least 0"):
        fit_population_crossplay(spaces, validate=-1)


def test_population_file_notes_may_not_shadow_its_members(tmp_path):
    fit = PopulationFit({}, {"members": ["a"]})
    with pytest.raises(ValueError, match="may not be named"):
        fit.save(tmp_path / "p.json")
    assert not (tmp_path / "p.json").exists()
    PopulationFit({}, {"member_names": ["a"]}).save(tmp_path / "p.json")
    assert json.loads((tmp_path / "p.json").read_text())["member_names"] == ["a"]


def test_population_fitted_by_leave_one_out_is_better_calibrated_against_a_panel_than_self(
        tmp_path):
    """Against a panel of minds neither storyteller simulated, the population storyteller
    (leave-one-out fit) lands nearer its target guess rates than the one tuned to itself."""
    from dixit_ai.rules import RuleSet, observe
    from models.bench.panel import PanelTable
    from models.bench.tables import round_start
    from tests.players.test_panel import _tell_items

    spaces = related_spaces(7, seed=0)
    own, population, panel = spaces[0], spaces[:3], spaces[3:]
    ids = list(own.card_ids)
    result = fit_population_crossplay(population, games=2, iterations=2, start=None,
                                      agent_options=FAST, folder=tmp_path)
    path = tmp_path / "population.json"
    result.fit.save(path)
    table = PanelTable([(f"m{k}", r) for k, r in enumerate(panel)], None, seed=0)
    rules = RuleSet.edition("refresh-2021")
    items = _tell_items(ids, 40, seed=1)
    gaps: dict[str, list[float]] = {"self": [], "population": []}
    means: list[float] = []
    for target in (0.25, 0.5, 0.75):
        common = {"deck": own, "target_guess_rate": target, **FAST}
        agents = {"self": ClipAgent(name="self", **common),
                  "population": ClipAgent(name="population", population=population,
                                          population_calibration=str(path), **common)}
        assert table.check_held_out("population", agents["population"].describe())
        for name, agent in agents.items():
            observed = []
            for i, (hands, deals) in enumerate(items):
                agent.reset(seat=0, rng=np.random.default_rng(i))
                story = agent.tell(observe(round_start(rules, hands, ids), 0))
                out = table.story_outcome(story.clue, story.card, deals, i)
                observed.append(sum(out["found"].values()) / sum(out["seen"].values()))
            gaps[name].append(abs(float(np.mean(observed)) - target))
            if name == "population":
                means.append(float(np.mean(observed)))
    assert np.mean(gaps["population"]) < np.mean(gaps["self"])
    assert means[0] < means[1] <= means[2]


def test_expected_points_with_robustness_prefer_clues_every_member_links_to_the_card():
    """Two candidates: one the population's members disagree on (one always finds, the other
    never: certain "some but not all" in a simulation of independent members), one every member
    finds half the time. Plain expected points take the first; robustness takes the second."""
    from models.players.storyteller import ClipStoryteller

    rate = np.array([[0.5, 0.5]])
    points = np.array([[3.0, 2.6]])
    spread = np.array([[0.5, 0.0]])
    allowed = np.ones((1, 2), dtype=bool)
    plain = ClipStoryteller(mode="expected_points")
    robust = ClipStoryteller(mode="expected_points", robustness=0.5)
    assert plain._order(rate, points, allowed, spread, best=3.0)[0] == 0
    assert robust._order(rate, points, allowed, spread, best=3.0)[0] == 1
    # Without a population there is no spread, and robustness changes nothing.
    assert robust._order(rate, points, allowed, None, best=3.0)[0] == 0


def test_crossplay_without_a_folder_leaves_no_files(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = fit_population_crossplay(related_spaces(2, seed=15), games=1, iterations=1,
                                      start=None, agent_options=FAST)
    assert result.fit.members and list(tmp_path.iterdir()) == []
