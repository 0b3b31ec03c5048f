"""scripts/fit_unseen_minds.py: smoke run and bad input."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path

import pytest

from models.players.population_fit import population_fit_path
from models.players.unseen_minds import UnseenMindMap

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _main():
    return runpy.run_path(str(Path(__file__).parents[2] / "scripts" / "fit_unseen_minds.py"),
                          run_name="test")["main"]


MINILM = "family-99ea5b91872678efe80bd5098f0d74c4d1c33220"


def _fit_without(tmp_path: Path, fingerprint: str) -> Path:
    """The shipped wide fit, recorded as made without one member's votes (a stand-in for a
    leave-out fit in a smoke run: the numbers are not the point)."""
    data = json.loads(Path(str(population_fit_path("wide"))).read_text(encoding="utf-8"))
    data["voter_models"] = [v for v in data["voter_models"] if v["fingerprint"] != fingerprint]
    path = tmp_path / "without.json"
    path.write_text(json.dumps(data))
    return path


def test_smoke_writes_a_map_that_records_its_voters_and_serves_its_storyteller(tmp_path):
    fit = _fit_without(tmp_path, MINILM)
    out = tmp_path / "map.json"
    assert _main()(["--smoke", "--leave-out", "lite1-minilm", "--leave-out-fits", str(fit),
                    "--targets", "0.25,0.75", "--out", str(out),
                    "--runs-dir", str(tmp_path / "runs")]) == 0
    fitted = UnseenMindMap.load(out)
    assert fitted.meta["left_out"] == ["lite1-minilm"] and fitted.meta["turns"] == 6
    assert {"fingerprint": MINILM, "name": "panel-lite1-minilm"} in fitted.meta["voter_models"]
    assert Path(fitted.meta["runs"][0]).is_dir() and out.with_suffix(".png").is_file()
    from dixit_ai.agents import make_agent

    agent = make_agent("clip-calibrated", unseen_minds=str(out), n_simulations=16,
                       pair_clues=0, vocabulary_size=300)
    assert agent.storyteller.unseen_minds is not None  # type: ignore[attr-defined]


def test_a_mind_outside_the_population_votes_on_the_storyteller_itself(tmp_path):
    out = tmp_path / "map.json"
    assert _main()(["--smoke", "--outside", "default-zeroshot", "--temperature-scale", "0.25",
                    "--targets", "0.25,0.75", "--out", str(out),
                    "--runs-dir", str(tmp_path / "runs")]) == 0
    fitted = UnseenMindMap.load(out)
    assert fitted.meta["outside"] == ["default-zeroshot"] and fitted.meta["left_out"] == []
    assert fitted.meta["storytellers"]["default-zeroshot"]["population"] == (
        "self,lite1-minilm,lite1-mpnet,lite1-zeroshot")
    assert fitted.settings["population_temperature_scale"] == 0.25
    assert {v["name"] for v in fitted.meta["voter_models"]} >= {"panel-default-zeroshot"}


@pytest.mark.parametrize("argv, message", [
    (["--out", "X"], "name the unseen minds"),
    (["--outside", "lite1-minilm", "--out", "X"], "is a member of --population"),
    (["--outside", "default-zeroshot", "--leave-out", "default-zeroshot", "--leave-out-fits",
      "wide", "--out", "X"], "named twice"),
    (["--leave-out", "lite1-minilm"], "--out FILE is required"),
    (["--leave-out", "lite1-minilm", "--out", "X"], "one population fit per member"),
    (["--leave-out", "lite2-mpnet", "--leave-out-fits", "F", "--out", "X"],
     "not a member of --population"),
    (["--leave-out", "lite1-minilm", "--leave-out-fits", "no/such.json", "--out", "X"],
     "is not a file"),
    (["--leave-out", "lite1-minilm", "--leave-out-fits", "wide", "--out", "X"],
     "fitted on lite1-minilm's votes"),
    (["--targets", "0.5", "--out", "X"], "two or more numbers"),
    (["--targets", "0.5,x", "--out", "X"], "must be numbers"),
    (["--tell-cards", "some", "--out", "X"], "--tell-cards must be one of"),
    (["--aim", "every", "--out", "X"], "--aim must be one of mean, each, rms, not 'every'"),
])
def test_bad_input_is_refused_before_any_run(tmp_path, argv, message, capsys):
    """Exit 2, the status of bad input (it was 1, a failed run's), the message on stderr."""
    with pytest.raises(SystemExit) as done:
        _main()([*argv, "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert done.value.code == 2, (done.value.code, err)
    assert err.startswith("error: ") and re.search(message, err), err
    assert not (tmp_path / "runs").exists() and not Path("X").exists()
