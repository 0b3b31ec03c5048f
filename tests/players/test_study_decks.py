"""scripts/study_decks.py: a storyteller against the panel on decks no model saw, per deck and
across decks."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "scripts" / "study_decks.py"


@pytest.fixture(scope="module")
def study():
    return runpy.run_path(str(SCRIPT), run_name="test")


def test_t_quantiles_and_the_interval_over_decks(study):
    t = study["t_975"]
    assert t(1) == 12.706 and t(4) == 2.776 and t(20) == 2.086
    assert t(21) == pytest.approx(2.080, abs=0.002) and t(60) == pytest.approx(2.000, abs=0.002)
    interval = study["over_decks"]([0.4, 0.5, 0.6])
    assert interval.estimate == pytest.approx(0.5)
    assert interval.low == pytest.approx(0.5 - 4.303 * 0.1 / 3 ** 0.5)
    assert study["over_decks"]([0.9, 1.0, 1.0]).high == 1.0  # a rate's interval stays in [0, 1]


@pytest.mark.parametrize("argv, message", [
    (["--deck-seeds", "7002,3001"], r"\[3001\]: a model was trained"),
    (["--deck-seeds", "0"], r"\[0\]: a model was trained"),
    (["--deck-seeds", "7002,7002"], "each once"),
    (["--deck-seeds", "x"], "whole numbers"),
    (["--deck-size", "30"], "at least 40 cards"),
    (["--targets", "0.5,2"], r"numbers in \[0, 1\]"),
])
def test_bad_input_is_refused_before_any_run(study, tmp_path, argv, message):
    with pytest.raises(SystemExit, match=message):
        study["main"]([*argv, "--runs-dir", str(tmp_path / "runs")])
    assert not (tmp_path / "runs").exists()


def test_smoke_reads_every_deck_and_writes_its_figures(study, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "decks.json"
    assert study["main"](["--smoke", "--deck-seeds", "7002,7003", "--deck-size", "40",
                          "--panel", "panel-sibling", "--population", "self,lite1-minilm",
                          "--population-file", "default", "--targets", "0.25,0.75",
                          "--runs-dir", str(tmp_path / "runs"), "--json", str(out)]) == 0
    figures = json.loads(out.read_text())
    assert figures["decks"] == ["dream:size=40,seed=7002", "dream:size=40,seed=7003"]
    assert set(figures["per_deck"]["dream:size=40,seed=7003"]) == {"0.25", "0.75"}
    assert set(figures["across"]["0.25"]) == {"panel-sibling", "pooled"}
    assert 0 <= figures["met"]["0.75"] <= 2
    for deck, folder in figures["runs"].items():  # the records name the deck they were dealt
        header = json.loads((Path(folder) / "bench.json").read_text())
        assert header["config"]["deck"] == deck
