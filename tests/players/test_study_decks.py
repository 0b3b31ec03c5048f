"""scripts/study_decks.py: a storyteller against the panel on decks no model saw, per deck and
across decks."""

from __future__ import annotations

import json
import re
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
    (["--deck-size", "30"], "--deck-size must be at least 40, not 30"),
    # a traceback (DeckError) once the run began
    (["--deck-size", "100001", "--deck-seeds", "7002"],
     r"--deck-size must be at most 100000 \(a dream deck's largest\), not 100001"),
    (["--targets", "0.5,2"], r"numbers in \[0, 1\]"),
    (["--also", "no-such-teller"], "--also: .*no-such-teller"),
    (["--also", "object-teller,object-teller"], "names a storyteller twice"),
    (["--targets", "x"], r"--targets must be numbers in \[0, 1\], not 'x'"),
    (["--aim", "every"], "--aim must be one of mean, each, rms, not 'every'"),
    (["--tolerance", "-1"], "--tolerance must be at least 0, not -1"),
])
def test_bad_input_is_refused_before_any_run(study, tmp_path, argv, message, capsys):
    """Bad input is exit 2 (it was 1, the status of a failed run), the message on stderr."""
    refused(lambda: study["main"]([*argv, "--runs-dir", str(tmp_path / "runs")]), message,
            capsys)
    assert not (tmp_path / "runs").exists()


def refused(call, message, capsys):
    """``call`` ends with exit 2 (bad input), ``error: ...`` matching ``message`` on stderr."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        call()
    err = capsys.readouterr().err
    assert done.value.code == 2, (done.value.code, err)
    assert re.search(message, err) and err.startswith("error: "), err

def _rows(deck_offset: float, cards: list[int]) -> list[dict]:
    """Tell records of one deck: a storyteller predicting 0.5 whom member a finds at
    ``0.5 + deck_offset``."""
    rows = []
    for i, card in enumerate(cards):
        found = 1 if (i % 4) < round(4 * (0.5 + deck_offset)) else 0
        rows.append({"task": "tell", "model": "population@0.5", "card": card, "clue": f"c{i}",
                     "predicted": 0.5,
                     "panel": {"found": {"a": found}, "seen": {"a": 1}}})
    return rows


def test_ece_over_every_deck_counts_each_decks_cards_apart(study):
    rows = {"deck-1": _rows(0.0, [1, 2, 3, 4] * 5), "deck-2": _rows(0.25, [1, 2, 3, 4] * 5)}
    ece = study["ece_figures"](rows, ["a"], [0.5], seed=0, resamples=200)
    assert ece["per_deck"]["deck-1"]["a"]["cards"] == 4
    # card 1 of one deck is not card 1 of the other: eight cards in all
    assert ece["all_decks"]["a"]["cards"] == 8 and ece["all_decks"]["a"]["turns"] == 40
    assert ece["per_deck"]["deck-1"]["a"]["ece"] == pytest.approx(0.0)
    assert ece["per_deck"]["deck-2"]["a"]["ece"] == pytest.approx(0.25)
    assert ece["all_decks"]["a"]["ece"] == pytest.approx(0.125)


def test_smoke_reads_every_deck_and_analyse_recomputes_it(study, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "decks.json"
    assert study["main"](["--smoke", "--deck-seeds", "7002,7003", "--deck-size", "40",
                          "--panel", "panel-sibling", "--population", "self,lite1-minilm",
                          "--population-file", "default", "--targets", "0.25,0.75",
                          "--also", "object-teller",
                          "--runs-dir", str(tmp_path / "runs"), "--json", str(out)]) == 0
    first = json.loads(out.read_text())
    assert first["decks"] == ["dream:size=40,seed=7002", "dream:size=40,seed=7003"]
    assert set(first["per_deck"]["dream:size=40,seed=7003"]) == {"0.25", "0.75"}
    assert set(first["across"]["0.25"]) == {"panel-sibling", "pooled"}
    assert 0 <= first["met"]["0.75"] <= 2
    for deck, folder in first["runs"].items():  # the records name the deck they were dealt
        header = json.loads((Path(folder) / "bench.json").read_text())
        assert header["config"]["deck"] == deck
    # caption-teller joins as the baseline; the difference is over the same items
    assert set(first["points"]["random"]) == {"object-teller", "caption-teller"}
    teller = first["points"]["panel"]["object-teller"]
    base = first["points"]["panel"]["caption-teller"]
    assert teller["items"] == base["items"] == 6
    assert teller["minus_baseline"]["estimate"] == pytest.approx(
        teller["points"] - base["points"])
    assert "minus_baseline" not in base
    assert set(first["ece"]["per_deck"]) == set(first["decks"])
    assert set(first["ece"]["all_decks"]) == {"panel-sibling", "pooled"}
    capsys.readouterr()
    again = tmp_path / "again.json"
    assert study["main"](["--analyse", str(out), "--json", str(again)]) == 0
    assert "ECE over all turns" in capsys.readouterr().out
    second = json.loads(again.read_text())
    assert "guesses" not in second
    for key in ("decks", "runs", "per_deck", "across", "met", "ece"):
        assert second[key] == first[key], key
    # the default guesser on the told cards, added to the same runs: every teller of the runs
    # and every panel member telling on its own model, per deck and over the decks (the
    # reading itself, models.bench.reading.panel_reading_hits, is run by the panel bench's
    # smoke test; here it is replaced by hits that say which deck and teller they were for)
    import models.bench.reading as reading

    asked = []

    def fake_hits(records, deck, *, items, seed, panel, tell_cards="all", **kwargs):
        asked.append((deck.source, items, panel))
        tellers = [*sorted({r["model"] for r in records}), f"{panel} (telling)"]
        hit = 1.0 if deck.source.endswith("7002") else 0.0
        return {t: {"default": [hit, 1.0], "caption-reader": [1.0, 1.0]} for t in tellers}

    monkeypatch.setattr(reading, "panel_reading_hits", fake_hits)
    guessed = tmp_path / "guessed.json"
    assert study["main"](["--analyse", str(out), "--guesses", "--json", str(guessed)]) == 0
    assert asked == [(deck, 3, "panel-sibling") for deck in first["decks"]]
    guesses = json.loads(guessed.read_text())["guesses"]
    assert set(guesses) == {"population@0.25", "population@0.75", "object-teller",
                            "caption-teller", "panel-sibling (telling)"}
    cell = guesses["panel-sibling (telling)"]
    assert cell["per_deck"] == {first["decks"][0]: 1.0, first["decks"][1]: 0.5}
    assert cell["default"]["estimate"] == 0.75  # over every deck's stories
    assert cell["caption-reader"]["estimate"] == 1.0
    refused(lambda: study["main"](["--analyse", str(out), "--items", "5"]),
            "takes only --json and --guesses", capsys)
    (tmp_path / "bad.json").write_text("{}")
    refused(lambda: study["main"](["--analyse", str(tmp_path / "bad.json")]),
            "not the figures of a study_decks run", capsys)
    torn = dict(first, runs={first["decks"][0]: str(tmp_path / "nowhere"),
                             first["decks"][1]: first["runs"][first["decks"][1]]})
    (tmp_path / "torn.json").write_text(json.dumps(torn))
    refused(lambda: study["main"](["--analyse", str(tmp_path / "torn.json")]),
            "not a benchmark run folder", capsys)
