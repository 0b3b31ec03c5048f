"""The unseen-minds map: what a population storyteller's predictions mean among minds it did not
simulate, fitted by leave-one-mind-out telling, and the storyteller that aims by it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from dixit_ai.decks.cache import file_sha256
from dixit_ai.rules import RuleSet, new_game, observe
from models.bench.panel import PanelTable
from models.players import ClipAgent
from models.players.unseen_minds import UnseenMindMap, isotonic
from tests.players.test_panel import SMALL, crossplay_fit, related_spaces


def test_isotonic_pools_adjacent_violators():
    knots, values = isotonic(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0.0, 1.0, 0.0, 1.0]),
                             np.ones(4))
    assert values.tolist() == [0.0, 0.5, 1.0]
    assert knots.tolist() == pytest.approx([0.1, 0.25, 0.4])


def test_the_fit_recovers_a_mind_that_finds_less_than_predicted():
    rng = np.random.default_rng(0)
    predicted = rng.uniform(0.05, 0.95, 4000)
    observed = (rng.random(4000) < 0.6 * predicted).astype(float)
    fitted = UnseenMindMap.fit(predicted, observed, settings={"aim": "rms"},
                               meta={"voter_models": []})
    for p in (0.2, 0.5, 0.8):
        assert fitted(p) == pytest.approx(0.6 * p, abs=0.06)
    assert (np.diff(fitted.values) > 0).all() and fitted.knots[0] == 0 and fitted.knots[-1] == 1
    aimed, reachable = fitted.aim(0.3)
    assert reachable and fitted(aimed) == pytest.approx(0.3, abs=1e-6)
    assert aimed == pytest.approx(0.5, abs=0.1)
    top, reachable = fitted.aim(0.9)  # beyond what any prediction reaches: aim as high as it can
    assert not reachable and top == 1.0


@pytest.mark.parametrize("knots, values, message", [
    ([0.0, 0.5, 1.0], [0.1, 0.1, 0.9], "rise strictly"),
    ([0.0, 0.6, 0.5, 1.0], [0.1, 0.2, 0.3, 0.9], "rise strictly from 0 to 1"),
    ([0.1, 1.0], [0.1, 0.9], "from 0 to 1"),
    ([0.0, 1.0], [0.1, float("nan")], "finite"),
    ([0.0, 1.0], [0.1, 1.2], "within"),
    ([0.0], [0.1], "at least two knots"),
])
def test_a_bad_map_is_refused(knots, values, message):
    with pytest.raises(ValueError, match=message):
        UnseenMindMap(np.array(knots), np.array(values))


@pytest.mark.parametrize("predicted, observed, message", [
    ([0.2], [0.1], "at least two turns"),
    ([0.2, 1.5], [0.1, 0.2], "within \\[0, 1\\]"),
    ([0.2, 0.3], [0.1, float("nan")], "finite"),
    ([0.2, 0.3], [0.1], "one length"),
])
def test_a_bad_fit_is_refused(predicted, observed, message):
    with pytest.raises(ValueError, match=message):
        UnseenMindMap.fit(predicted, observed)


def test_save_and_load_keep_the_map_and_refuse_files_that_are_not_maps(tmp_path: Path):
    fitted = UnseenMindMap(np.array([0.0, 0.5, 1.0]), np.array([0.05, 0.3, 0.7]),
                           {"aim": "rms"}, {"voter_models": [{"fingerprint": "f", "name": "n"}]})
    path = tmp_path / "map.json"
    fitted.save(path)
    again = UnseenMindMap.load(path)
    assert again.values.tolist() == [0.05, 0.3, 0.7] and again.settings == {"aim": "rms"}
    with pytest.raises(ValueError, match="voters"):
        UnseenMindMap(fitted.knots, fitted.values).save(tmp_path / "other.json")
    assert not (tmp_path / "other.json").exists()
    data = json.loads(path.read_text())
    for change, message in (({"format": "x"}, "not an unseen-minds map"),
                            ({"voter_models": None}, "voter"),
                            ({"values": [0.3, 0.2, 0.7]}, "rise strictly"),
                            ({"settings": []}, "settings")):
        broken = tmp_path / "broken.json"
        broken.write_text(json.dumps({**data, **change}))
        with pytest.raises(ValueError, match=message):
            UnseenMindMap.load(broken)
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        UnseenMindMap.load(tmp_path / "text.json")


@pytest.fixture(scope="module")
def minds(tmp_path_factory):
    """Six related minds: a storyteller's own and two more simulated, three others; the
    simulated minds' population fit."""
    spaces = related_spaces(6, seed=0)
    path = tmp_path_factory.mktemp("fit") / "population.json"
    crossplay_fit(spaces[:3], path)
    return spaces, path


def _agent(spaces, fit: Path, unseen: Path | None = None, **kwargs) -> ClipAgent:
    """A population storyteller (its members sharpened: their rates then span 0.1 to 0.5)."""
    options = {"population_temperature_scale": 0.1, "aim": "rms", "tolerance": 0.0,
               "mode": "target", **SMALL, **kwargs}
    return ClipAgent(deck=spaces[0], population=spaces[:3], population_calibration=str(fit),
                     unseen_minds=None if unseen is None else str(unseen), **options)


def _map_file(tmp_path: Path, agent: ClipAgent, values: list[float], voters=None) -> Path:
    path = tmp_path / "map.json"
    UnseenMindMap(np.array([0.0, 1.0]), np.array(values), agent.unseen_minds_settings(),
                  {"voter_models": voters or []}).save(path)
    return path


def test_a_storyteller_aims_its_minds_where_the_map_takes_them_to_the_target(minds, tmp_path):
    spaces, fit = minds
    plain = _agent(spaces, fit)
    path = _map_file(tmp_path, plain, [0.0, 0.6])  # unseen minds find 0.6 x the prediction
    mapped = _agent(spaces, fit, path, target_guess_rate=0.3)
    assert mapped.storyteller.aimed_rate == pytest.approx(0.5)
    rules = RuleSet.edition("refresh-2021")
    ids = list(spaces[0].card_ids)
    simulated, plain_rates = [], []
    plain.storyteller.target_guess_rate = 0.3
    for i in range(12):
        state = new_game(rules, 5, ids, np.random.default_rng([3, i]))
        view = observe(state, state.storyteller)
        for agent, out in ((mapped, simulated), (plain, plain_rates)):
            agent.reset(seat=view.seat, rng=np.random.default_rng(i))
            agent.tell(view)
            story = agent.last_story
            assert story is not None
            out.append(story)
    for story in simulated:
        notes = story.info["unseen_minds"]
        assert notes["aimed_at"] == pytest.approx(0.5) and notes["reachable"]
        assert story.guess_rate == pytest.approx(0.6 * notes["simulated_guess_rate"], abs=1e-3)
    # Aimed at 0.5 in its minds, it tells clues they find more often than at 0.3.
    assert (np.mean([s.info["unseen_minds"]["simulated_guess_rate"] for s in simulated])
            > np.mean([s.guess_rate for s in plain_rates]) + 0.1)


def test_a_map_fitted_for_another_storyteller_is_refused(minds, tmp_path):
    spaces, fit = minds
    path = _map_file(tmp_path, _agent(spaces, fit), [0.0, 0.6])
    with pytest.raises(ValueError, match=r"population_temperature_scale = 0\.1.*has 0\.5"):
        _agent(spaces, fit, path, population_temperature_scale=0.5)
    with pytest.raises(ValueError, match="tolerance"):
        _agent(spaces, fit, path, tolerance=0.02)
    with pytest.raises(ValueError, match="target mode"):
        ClipAgent(deck=spaces[0], unseen_minds=str(path), **SMALL)
    with pytest.raises(ValueError, match="target mode"):
        _agent(spaces, fit, path, mode="expected_points")


def test_the_panel_refuses_a_map_fitted_on_a_members_votes(minds, tmp_path):
    spaces, fit = minds
    plain = _agent(spaces, fit)
    table = PanelTable([(f"m{k}", r) for k, r in enumerate(spaces[3:])], None, seed=0)
    held = _agent(spaces, fit, _map_file(tmp_path, plain, [0.0, 0.6], voters=[
        {"fingerprint": spaces[1].fingerprint, "name": "p1"}]))
    kinds = [f["kind"] for f in held.describe()["simulation_fits"]]
    assert "unseen-minds" in kinds
    assert table.check_held_out("held", held.describe()) == ["m0", "m1", "m2"]
    leaked = _agent(spaces, fit, _map_file(tmp_path, plain, [0.0, 0.6], voters=[
        {"fingerprint": spaces[4].fingerprint, "name": "m1"}]))
    with pytest.raises(ValueError, match="fitted on votes of panel member"):
        table.check_held_out("leaked", leaked.describe())



def test_the_fit_files_are_named_by_their_bytes(minds, tmp_path):
    """A population fit rewritten under its name changes play: the records must say so."""
    spaces, fit = minds
    fits = {f["kind"]: f for f in _agent(spaces, fit).describe()["simulation_fits"]}
    assert fits["population"]["sha256"] == file_sha256(fit)
    assert all(len(f["sha256"]) == 64 for f in fits.values())
    copy = tmp_path / "population.json"
    copy.write_text(json.dumps(json.loads(fit.read_text()), indent=1))
    (again,) = [f for f in _agent(spaces, copy).describe()["simulation_fits"]
                if f["kind"] == "population"]
    assert again["sha256"] == file_sha256(copy) != fits["population"]["sha256"]
