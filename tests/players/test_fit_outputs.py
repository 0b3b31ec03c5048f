"""What the calibration fit and the storyteller training read, refuse and write: one deck per
fit, outputs checked up front, every setting and input hash recorded, atomic files; the guess
model and population files refused on load when a parameter is not finite."""

from __future__ import annotations

import hashlib
import json
import math
import resource
import runpy
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dixit_ai import play_game, write_records
from models.players.guess_files import DEFAULT_CALIBRATION
from models.players.policy import FEATURES, LinearCluePolicy
from models.players.population_fit import POPULATION_FORMAT, PopulationFit
from models.players.simulation import GuessModel

REPO = Path(__file__).resolve().parents[2]
pytest.importorskip("torch")


def untouchable(*args, **kwargs):
    raise AssertionError("the long work started")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """Two games of random players on ``dream:size=40`` (what the smoke runs play on)."""
    path = tmp_path_factory.mktemp("records") / "played.jsonl"
    write_records(path, [play_game(["random"] * 4, edition="refresh-2021",
                                   deck="dream:size=40", seed=s) for s in range(2)])
    return path


def records_file(path: Path, played: Path, spec: str | None = None,
                 fingerprint: str | None = None) -> Path:
    """A copy of ``played`` whose records' deck is said to be ``spec`` / ``fingerprint``."""
    lines = []
    for line in played.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        deck = record["header"]["deck"]
        deck["spec"] = spec or deck["spec"]
        deck["fingerprint"] = fingerprint or deck["fingerprint"]
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def train(argv: list[str]) -> int:
    from dixit_ai.cli import main

    return main(["train", *argv])


@pytest.fixture
def no_long_work(monkeypatch):
    from models.players import experiments, panel_models

    monkeypatch.setattr(experiments, "play_table", untouchable)
    monkeypatch.setattr(panel_models, "load_member_resources", untouchable)


# ------------------------------------------------------------------ one deck per fit (2)


def test_fit_calibration_refuses_records_of_two_decks(tmp_path, played, no_long_work, capsys):
    a = records_file(tmp_path / "a.jsonl", played)
    b = records_file(tmp_path / "b.jsonl", played, "dream:size=40,seed=7", "7" * 64)
    for order in ((a, b), (b, a)):
        assert train(["calibration", "--records", *map(str, order), "--runs-dir",
                      str(tmp_path / "runs"), "--out", str(tmp_path / "fit.json")]) == 2
        err = capsys.readouterr().err
        assert "error: the records are of 2 decks" in err and "Traceback" not in err
        assert "dream:size=40,seed=0 (fingerprint " in err and f"in {a}" in err
        assert "dream:size=40,seed=7 (fingerprint 777777777777) in " + str(b) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "b.jsonl"]


def test_fit_calibration_refuses_games_played_on_another_deck_than_the_records(
        tmp_path, played, no_long_work, capsys):
    a = records_file(tmp_path / "a.jsonl", played, "dream:size=40,seed=7", "7" * 64)
    assert train(["calibration", "--records", str(a), "--play-games", "1", "--deck",
                  "dream:size=40", "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert "the records are of 2 decks" in err and "--play-games (--deck dream:size=40)" in err
    assert not (tmp_path / "runs").exists()


def test_records_of_one_deck_under_two_specs_are_one_deck(tmp_path, played):
    namespace = runpy.run_path(str(REPO / "scripts" / "fit_calibration.py"), run_name="x")
    a = records_file(tmp_path / "a.jsonl", played)
    b = records_file(tmp_path / "b.jsonl", played, "dream:size=40")
    args = namespace["Args"](records=[str(a), str(b)])
    inputs = namespace["read_inputs"](args, {})
    assert inputs.deck == "dream:size=40,seed=0" and len(inputs.records) == 4
    assert [f["sha256"] for f in inputs.files] == [sha256(a), sha256(b)]


def test_records_whose_deck_no_longer_matches_their_spec_are_refused(tmp_path, played):
    namespace = runpy.run_path(str(REPO / "scripts" / "fit_calibration.py"), run_name="x")
    a = records_file(tmp_path / "a.jsonl", played, None, "7" * 64)
    args = namespace["Args"](records=[str(a)])
    with pytest.raises(ValueError, match="the deck spec dream:size=40,seed=0 is deck "):
        namespace["read_inputs"](args, {})


# ------------------------------------------------------------------ outputs up front (10)


@pytest.mark.parametrize("flag", ["--out", "--population-out"])
def test_fit_calibration_refuses_an_output_that_is_a_folder_before_fitting(
        flag, tmp_path, played, no_long_work, capsys):
    a = records_file(tmp_path / "a.jsonl", played)
    (tmp_path / "folder").mkdir()
    assert train(["calibration", "--records", str(a), flag, str(tmp_path / "folder"),
                  "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert f"error: {flag} {tmp_path / 'folder'} is a folder" in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists() and not list((tmp_path / "folder").iterdir())


@pytest.mark.parametrize("below", ["", "runs"])
def test_fit_calibration_refuses_a_runs_dir_that_is_or_is_under_a_file(
        below, tmp_path, played, no_long_work, capsys):
    """The one message every command gives for a folder path that names a file
    (dixit_ai.reporting.check_folder_path), also for a path under a file."""
    a = records_file(tmp_path / "a.jsonl", played)
    a_file = tmp_path / "a-file"
    a_file.write_text("kept")
    runs = a_file / below if below else a_file
    assert train(["calibration", "--records", str(a), "--runs-dir", str(runs)]) == 2
    err = capsys.readouterr().err
    where = f"--runs-dir {runs}: {a_file}" if below else f"--runs-dir {a_file}"
    assert f"{where} is a file, not a folder: give the path of a folder" in err
    assert "Traceback" not in err and a_file.read_text() == "kept"


def test_no_votes_to_fit_names_the_fitted_and_held_out_games(tmp_path, capsys):
    """The games played here are work done (its run folder holds them): no votes among them is
    a failed run (exit 1) naming the folder, not bad input (2, which says nothing was
    written)."""
    assert train(["calibration", "--smoke", "--voters", "human",
                  "--runs-dir", str(tmp_path / "runs")]) == 1
    err = capsys.readouterr().err
    assert ("no votes to fit (--voters human) in the 1 fitted game(s) of 2 (1 game(s) held "
            "out, not fitted)") in err
    (run,) = (tmp_path / "runs").iterdir()
    assert f"{run} is left partial: it holds the 2 games played (fit_games.jsonl)" in err
    assert sorted(p.name for p in run.iterdir()) == ["fit_games.jsonl"]
    assert "Traceback" not in err


def test_no_votes_to_fit_in_the_records_given_writes_nothing(tmp_path, played, capsys):
    assert train(["calibration", "--records", str(played), "--voters", "human",
                  "--runs-dir", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert "no votes to fit (--voters human) in the 1 fitted game(s) of 2" in err
    assert not (tmp_path / "runs").exists()


def test_the_order_of_the_records_files_changes_no_fit(tmp_path, capsys):
    """The fit/held-out split depends on the games alone: a file with an odd number of games
    given first or last fits the same votes and holds out the same games."""
    one = tmp_path / "one.jsonl"
    three = tmp_path / "three.jsonl"
    write_records(one, [play_game(["random"] * 4, edition="refresh-2021", deck="dream:size=40",
                                  seed=7)])
    write_records(three, [play_game(["random"] * 4, edition="refresh-2021",
                                    deck="dream:size=40", seed=s) for s in (1, 2, 3)])
    fitted = []
    for i, order in enumerate(((one, three), (three, one))):
        out = tmp_path / f"fit{i}.json"
        assert train(["calibration", "--smoke", "--records", *map(str, order), "--out", str(out),
                      "--runs-dir", str(tmp_path / f"runs{i}")]) == 0
        (run,) = (tmp_path / f"runs{i}").iterdir()
        summary = json.loads((run / "summary.json").read_text())
        fitted.append((summary["fitted"], summary["votes"], summary["fitted_games"],
                       summary["held_out_games"], summary["held_out_seeds"],
                       summary.get("held_out_ece_by_voter")))
        # (--smoke plays 2 games of its own too; they are split with the others)
    assert fitted[0] == fitted[1]


def test_search_bound_warnings():
    namespace = runpy.run_path(str(REPO / "scripts" / "fit_calibration.py"), run_name="x")
    warn = namespace["search_bound_warnings"]
    assert warn(GuessModel(0.03, -0.5), True) == []
    (line,) = warn(GuessModel(1.0, -0.3), True)
    assert "upper end of its search range [0.001, 1]" in line
    (line,) = warn(GuessModel(0.001, 0.0), False)
    assert "lower end" in line and "sharp_voters: true" in line  # what the floor may mean
    (line,) = warn(GuessModel(1.0, 0.0), False)
    assert "sharp_voters" not in line
    (line,) = warn(GuessModel(0.03, -4.1), True)
    assert "bias -4.100 is at or beyond the bias search grid [-4, 4]" in line


# ------------------------------------------------------------------ what a run records (9)


def test_fit_calibration_records_its_settings_inputs_and_a_bound_it_hit(tmp_path, played,
                                                                        monkeypatch, capsys):
    from models.players import calibration

    def at_the_bound(observations, **kwargs):
        assert kwargs["temperature_range"] == (0.001, 1.0)
        return GuessModel(1.0, -0.25)

    monkeypatch.setattr(calibration, "fit_guess_model", at_the_bound)
    records = records_file(tmp_path / "in.jsonl", played)
    out = tmp_path / "fit.json"
    assert train(["calibration", "--smoke", "--records", str(records), "--no-fit-bias",
                  "--bins", "5", "--out", str(out), "--runs-dir", str(tmp_path / "runs")]) == 0
    captured = capsys.readouterr()
    err = captured.err
    assert "warning: the fitted temperature 1 is the upper end of its search range" in err
    (run,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run / "summary.json").read_text())
    fitted = json.loads(out.read_text())
    for data in (summary, fitted):
        assert data["args"]["fit_bias"] is False and data["args"]["bins"] == 5
        assert data["args"]["smoke"] is True and data["args"]["deck"] == "dream:size=40"
        assert data["agent_options"]["vocabulary_size"] == 300
        assert data["search"] == {"temperature": [0.001, 1.0], "bias": [0.0, 0.0]}
        given, played = data["inputs"]
        assert given == {"path": str(records), "sha256": sha256(records), "games": 2}
        assert played["played_here"] and played["sha256"] == sha256(run / "fit_games.jsonl")
        assert data["deck_fingerprint"] == json.loads(
            records.read_text().splitlines()[0])["header"]["deck"]["fingerprint"]
        assert "upper end" in data["warnings"][0]
    loaded = GuessModel.load(out)
    assert (loaded.temperature, loaded.bias) == (1.0, -0.25)
    # The beliefs' fit (where the storyteller's card is) is recorded beside the votes' fit, not
    # in the guess-model file the players load.
    beliefs = summary["beliefs"]
    assert 0.001 <= beliefs["temperature"] <= 1.0 and 0.0 <= beliefs["top_card_right"] <= 1.0
    assert beliefs["log_likelihood"] >= beliefs["log_likelihood_at_floor"]
    assert "beliefs" not in fitted
    assert "beliefs: the storyteller's card is the voter's most similar in" in captured.out


def test_train_storyteller_records_every_setting_and_shows_its_held_out_games(
        tmp_path, capsys):
    assert train(["storyteller", "--smoke", "--learning-rate", "0.2", "--shortlist", "16",
                  "--runs-dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "held-out games (learned policy)" in err and "2/2" in err
    assert "held-out games (clip-expected-self)" in err
    (run,) = tmp_path.glob("train_storyteller__0__*")
    summary = json.loads((run / "summary.json").read_text())
    policy = json.loads((run / "policy.json").read_text())
    for data in (summary, policy):
        assert data["args"] | {"runs_dir": None} == {
            "exp_name": "train_storyteller", "seed": 0, "games": 3, "learning_rate": 0.2,
            "baseline_momentum": 0.95, "shortlist": 16, "simulations": 8, "eval_games": 2,
            "eval_seed": 10000, "baseline": "clip-expected-self", "deck": "dream:size=40",
            "embedder": "", "vocabulary_size": 300, "runs_dir": None, "smoke": True}
        assert data["agent_options"] == {"deck": "dream:size=40", "n_simulations": 8,
                                         "vocabulary_size": 300, "pair_clues": 0}
        assert len(data["deck_fingerprint"]) == 64
    assert summary["vocabulary_clues"] == 300
    assert LinearCluePolicy.load(run / "policy.json").shortlist == 16


def test_older_files_without_the_records_still_load(tmp_path):
    (tmp_path / "g.json").write_text('{"temperature": 0.05, "bias": -0.5}')
    assert GuessModel.load(tmp_path / "g.json") == GuessModel(0.05, -0.5, 1.0)
    (tmp_path / "p.json").write_text(json.dumps(
        {"features": list(FEATURES), "weights": [0.0] * len(FEATURES), "shortlist": 8,
         "games": 3, "seed": 0, "baseline": "clip-expected-self"}))
    assert LinearCluePolicy.load(tmp_path / "p.json").shortlist == 8


# ------------------------------------------------------------------ calibration files (4)


@pytest.mark.parametrize("text, message", [
    ('{"temperature": Infinity, "bias": 0}',
     "temperature must be a positive finite number, not inf"),
    ('{"temperature": NaN, "bias": 0}', "temperature must be a positive finite number, not nan"),
    ('{"temperature": 0, "bias": 0}', "temperature must be a positive finite number, not 0.0"),
    ('{"temperature": 0.03, "bias": NaN}', "bias must be a finite number, not nan"),
    ('{"temperature": 0.03, "bias": -Infinity}', "bias must be a finite number, not -inf"),
    ('{"temperature": 0.03, "correlation": NaN}', "correlation must be in [0, 1], not nan"),
    ('{"temperature": "hot"}', "temperature must be a number, not 'hot'"),
    ('{"format": "x", "members": {}}',
     "is not a guess-model file: a 'x' file, it has no 'temperature' key"),
    ('[1, 2]', "is not a guess-model file: it holds a JSON list, not an object"),
    ('{"temperature": ', "is not a guess-model file: not valid JSON"),
])
def test_guess_model_load_refuses_a_bad_file_naming_it(text, message, tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        GuessModel.load(path)
    assert str(path) in str(error.value) and message in str(error.value)


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": math.inf}, "temperature must be a positive finite number, not inf"),
    ({"bias": math.nan}, "bias must be a finite number, not nan"),
    ({"bias": math.inf}, "bias must be a finite number, not inf")])
def test_guess_model_refuses_non_finite_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        GuessModel(**kwargs)


def test_an_agent_with_a_non_finite_calibration_does_not_play(tmp_path):
    from dixit_ai.agents import make_agent

    path = tmp_path / "nan.json"
    path.write_text('{"temperature": 0.03, "bias": NaN}')
    with pytest.raises(ValueError, match=f"{path}: bias must be a finite number, not nan"):
        make_agent("clip-greedy", calibration=str(path), deck="dream:size=40",
                   vocabulary_size=300)


@pytest.mark.parametrize("members, message", [
    ({"fp": {"name": "m", "temperature": math.inf, "bias": 0.0}},
     "member m (fp): temperature must be a positive finite number, not inf"),
    ({"fp": {"name": "m", "temperature": 0.03, "bias": math.nan}},
     "member m (fp): bias must be a finite number, not nan"),
    ({"fp": {"name": "m", "temperature": 0.03}}, "member m (fp) has no numeric bias: None"),
    ({"fp": 3}, "member fp is not an object: 3"),
    (None, "needs a 'members' object, not None")])
def test_population_fit_load_refuses_non_finite_members(members, message, tmp_path):
    path = tmp_path / "population.json"
    data = {"format": POPULATION_FORMAT, "members": members}
    if members is None:
        del data["members"]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError) as error:
        PopulationFit.load(path)
    assert str(path) in str(error.value) and message in str(error.value)


# ------------------------------------------------------------------ atomic files (8)


def _saves():
    fit = PopulationFit({"fp": {"name": "m", "temperature": 0.05, "bias": 0.1, "votes": 9}},
                        {"note": "x" * 300})
    return {
        "guess model": lambda path: GuessModel(0.05, 0.1).save(path, note="x" * 300),
        "policy": lambda path: LinearCluePolicy(np.ones(len(FEATURES))).save(path,
                                                                              note="x" * 300),
        "population": fit.save,
    }


@pytest.mark.parametrize("kind", ["guess model", "policy", "population"])
def test_a_failed_save_leaves_the_old_file(kind, tmp_path):
    """A full disk (a file-size limit of 100 bytes) fails the save; the old file stays whole."""
    path = tmp_path / "out.json"
    old = json.dumps({"old": "y" * 400})
    path.write_text(old)
    save = _saves()[kind]
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, hard))
    try:
        with pytest.raises(OSError):
            save(path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert path.read_text() == old
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left
    save(path)
    assert json.loads(path.read_text())["note"] == "x" * 300


def test_fit_calibration_on_a_full_disk_keeps_the_old_fit(tmp_path, played):
    records = records_file(tmp_path / "in.jsonl", played)
    out = tmp_path / "fit.json"
    out.write_text(json.dumps({"temperature": 0.05, "note": "z" * 300}))
    before = out.read_bytes()
    shipped = DEFAULT_CALIBRATION.read_bytes() if DEFAULT_CALIBRATION.exists() else None
    # A file-size limit of 100 bytes stands in for a full disk, for every file but the games
    # the smoke run plays (written by dixit_ai.write_records, before the fit).
    code = ("import resource, runpy, signal, sys\n"
            "import dixit_ai\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)\n"
            "write_records = dixit_ai.write_records\n"
            "def unlimited(*args, **kwargs):\n"
            "    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))\n"
            "    try:\n"
            "        return write_records(*args, **kwargs)\n"
            "    finally:\n"
            "        resource.setrlimit(resource.RLIMIT_FSIZE, (100, hard))\n"
            "dixit_ai.write_records = unlimited\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (100, hard))\n"
            "sys.argv = sys.argv[1:]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    done = subprocess.run(
        [sys.executable, "-c", code, str(REPO / "scripts" / "fit_calibration.py"), "--smoke",
         "--records", str(records), "--out", str(out), "--runs-dir", str(tmp_path / "runs")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode != 0 and "File too large" in done.stderr
    assert out.read_bytes() == before
    (run,) = (tmp_path / "runs").iterdir()
    assert [p.name for p in run.iterdir()] == ["fit_games.jsonl"]  # no half-written file
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    after = DEFAULT_CALIBRATION.read_bytes() if DEFAULT_CALIBRATION.exists() else None
    assert after == shipped


def test_tellers_human_fits_the_rounds_people_told(tmp_path, played, capsys):
    """``--tellers human``: only the rounds a person told are fitted, and the run says so; with
    no such round it is bad input naming both filters; an unknown value is refused."""
    assert train(["calibration", "--records", str(played), "--tellers", "robots",
                  "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "--tellers must be all or human, not 'robots'" in capsys.readouterr().err
    assert train(["calibration", "--records", str(played), "--tellers", "human",
                  "--runs-dir", str(tmp_path / "runs")]) == 2
    assert ("no votes to fit (--voters all, --tellers human) in the 1 fitted game(s) of 2"
            in capsys.readouterr().err)
    assert not (tmp_path / "runs").exists()
    people = tmp_path / "people.jsonl"
    lines = []
    for line in played.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["header"]["agents"][1] = {"name": "human", "player": "Ann"}
        lines.append(json.dumps(record))
    people.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert train(["calibration", "--records", str(people), "--tellers", "human",
                  "--runs-dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    assert "beliefs (rounds people told): the storyteller's card is" in out
    (run,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    told = sum(1 for line in lines[0:1] for r in json.loads(line)["rounds"]
               if r["storyteller"] == 1 and r["votes"])
    assert summary["tellers"] == "human" and 0 < summary["votes"] <= 3 * told
