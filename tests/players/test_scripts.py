"""Smoke runs of the players' scripts (tiny deck, vocabulary and budgets) and the CLI glue."""

from __future__ import annotations

import argparse
import json
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

from models.players.guess_files import DEFAULT_CALIBRATION
from tests.cli.helpers import refused

REPO = Path(__file__).resolve().parents[2]
pytest.importorskip("torch")


def run_script(name: str, args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", [name, *args])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / name), run_name="__main__")
    assert done.value.code == 0


def test_fit_calibration_smoke(tmp_path, monkeypatch, capsys):
    before = DEFAULT_CALIBRATION.read_bytes() if DEFAULT_CALIBRATION.exists() else None
    run_script("fit_calibration.py", ["--smoke", "--runs-dir", str(tmp_path),
                                      "--validate-games", "1"], monkeypatch)
    (run,) = tmp_path.glob("fit_calibration__0__*")
    fitted = json.loads((run / "guess_model.json").read_text())
    assert fitted["temperature"] > 0 and fitted["votes"] > 0
    assert (run / "reliability_records.png").is_file() and (run / "reliability.png").is_file()
    assert "ece_after" in json.loads((run / "summary.json").read_text())
    after = DEFAULT_CALIBRATION.read_bytes() if DEFAULT_CALIBRATION.exists() else None
    assert after == before  # the shipped calibration is only written on request


def test_train_storyteller_smoke(tmp_path, monkeypatch):
    run_script("train_storyteller.py", ["--smoke", "--runs-dir", str(tmp_path)], monkeypatch)
    (run,) = tmp_path.glob("train_storyteller__0__*")
    assert (run / "curve.csv").read_text().count("\n") == 4  # header + 3 games
    assert (run / "curve.png").is_file()
    summary = json.loads((run / "summary.json").read_text())
    assert "verdict" in summary and summary["eval_games"] >= 1
    from models.players import LinearCluePolicy

    assert LinearCluePolicy.load(run / "policy.json").shortlist == 32


def test_train_storyteller_on_another_embedder_and_a_baseline_on_another(tmp_path, monkeypatch,
                                                                      capsys):
    """--embedder seats every player on that model (the policy records it as its voters'); a
    --baseline whose entry names another model is said to compare two models."""
    from models import load_embedder

    run_script("train_storyteller.py", ["--smoke", "--runs-dir", str(tmp_path / "a"),
                                        "--embedder", "lite1-minilm"], monkeypatch)
    (run,) = (tmp_path / "a").glob("train_storyteller__0__*")
    summary = json.loads((run / "summary.json").read_text())
    member = load_embedder("lite1-minilm", device="cpu").fingerprint
    assert summary["embedder"] == member and "warning" not in summary
    policy = json.loads((run / "policy.json").read_text())
    assert policy["voter_models"][0]["fingerprint"] == member
    capsys.readouterr()
    run_script("train_storyteller.py", ["--smoke", "--runs-dir", str(tmp_path / "b"),
                                        "--baseline", "panel-lite1-minilm"], monkeypatch)
    (run,) = (tmp_path / "b").glob("train_storyteller__0__*")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["warning"].startswith(f"--baseline panel-lite1-minilm plays on embedder "
                                         f"{member}, the learned policy on default-")
    assert summary["verdict"].endswith("(on another embedder)")
    assert "WARNING: --baseline panel-lite1-minilm plays on embedder" in capsys.readouterr().err


def test_a_policy_trained_on_another_embedder_is_warned_of(tmp_path):
    from models.players import LinearCluePolicy
    from models.players.guess_files import PolicyMismatchWarning, check_policy_embedder
    from models.players.policy import FEATURES

    path = tmp_path / "policy.json"
    LinearCluePolicy(np.zeros(len(FEATURES)), 8, True).save(
        path, voter_models=[{"fingerprint": "default-0123", "name": "learner"}])
    assert check_policy_embedder(str(path), "default-0123")
    with pytest.warns(PolicyMismatchWarning, match="trained in games of embedder default-0123, "
                                                   "but this agent uses hf-4567"):
        assert not check_policy_embedder(str(path), "hf-4567")
    assert not check_policy_embedder(str(path), "hf-4567")  # said once; still no match
    assert check_policy_embedder(None, "hf-4567")


def untouchable(*args, **kwargs):
    raise AssertionError("the long work started")


@pytest.mark.parametrize("bad, message", [
    (["--games", "0"], "--games must be at least 1, not 0"),
    (["--games", "-3"], "--games must be at least 1, not -3"),
    (["--eval-games", "0"], "--eval-games must be at least 1, not 0"),
    (["--baseline", "nosuch"], "--baseline nosuch: no agent named 'nosuch'"),
    (["--deck", "nosuch"], "--deck nosuch: unknown deck spec 'nosuch'")])
def test_train_storyteller_refuses_bad_options_before_training(bad, message, tmp_path,
                                                               monkeypatch, capsys):
    from dixit_ai.cli import main
    from envs import dixit_v0

    monkeypatch.setattr(dixit_v0, "env", untouchable)
    assert main(["train", "storyteller", "--runs-dir", str(tmp_path / "runs"), *bad]) == 2
    err = capsys.readouterr().err
    assert f"error: {message}" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())  # no run folder, no policy.json


@pytest.mark.parametrize("bad, message", [
    (["--records", "missing.jsonl"], "--records missing.jsonl: No such file or directory"),
    (["--records", "bad.jsonl"], "bad.jsonl, line 1: not valid JSON"),
    (["--records", "empty.jsonl"], "--records empty.jsonl holds no game records"),
    ([], "no records: give --records FILE or --play-games N"),
    (["--play-games", "1", "--agents", "nosuch", "random", "random"],
     "--agents nosuch: no agent named 'nosuch'"),
    (["--play-games", "1", "--agents", "random", "random"],
     "--agents: refresh-2021 is for 3-8 players, not 2"),
    (["--smoke", "--bins", "0"], "--bins must be at least 1, not 0"),
    (["--smoke", "--validate-games", "-1"], "--validate-games must be at least 0, not -1"),
    (["--smoke", "--crossplay", "--population", "default"],
     "--crossplay needs --population with two members or more")])
def test_fit_calibration_refuses_bad_input_before_writing_anything(bad, message, tmp_path,
                                                                   monkeypatch, capsys):
    from dixit_ai.cli import main
    from models.players import experiments, panel_models

    monkeypatch.setattr(experiments, "play_table", untouchable)
    monkeypatch.setattr(panel_models, "load_member_resources", untouchable)
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    (inputs / "bad.jsonl").write_text('{"bad\n')
    (inputs / "empty.jsonl").write_text("")
    monkeypatch.chdir(inputs)
    assert main(["train", "calibration", "--runs-dir", str(tmp_path / "runs"), *bad]) == 2
    err = capsys.readouterr().err
    assert f"error: {message}" in err and "Traceback" not in err
    assert [p.name for p in tmp_path.iterdir()] == ["inputs"]  # no run folder


@pytest.mark.parametrize("bad, message", [
    (["--smoke", "--rounds", "0"], "--rounds must be at least 1, not 0"),
    (["--smoke", "--rounds", "-1"], "--rounds must be at least 1, not -1"),
    (["--agents", "nosuch", "random", "random"], "--agents nosuch: no agent named 'nosuch'"),
    (["--edition", "nope"], "unknown edition 'nope'")])
def test_eval_players_refuses_bad_options_before_writing_anything(bad, message, tmp_path,
                                                                  monkeypatch, capsys):
    from models.players import experiments

    monkeypatch.setattr(experiments, "play_table", untouchable)
    monkeypatch.setattr(sys, "argv", ["eval_players.py", "--runs-dir", str(tmp_path), *bad])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / "eval_players.py"), run_name="__main__")
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert f"error: {message}" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_bench_players_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "bench.json"
    run_script("bench_players.py", ["--smoke", "--json", str(out)], monkeypatch)  # exit 0
    figures = json.loads(out.read_text())
    assert figures["decision_ms_median"] > 0 and figures["candidates_per_decision"] >= 300 * 6
    printed = capsys.readouterr().out  # a smoke run's timings are neither met nor missed
    assert printed.count("target not judged: ") == 2
    assert "MISSED" not in printed and "target met" not in printed


def test_eval_players_smoke(tmp_path, monkeypatch):
    run_script("eval_players.py", ["--smoke", "--runs-dir", str(tmp_path)], monkeypatch)
    (run,) = tmp_path.glob("eval_players__1__*")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["rounds"] >= 10 and 0 <= summary["ece"] <= 1
    assert (run / "game_example.md").read_text().startswith("# A game of")


def test_train_commands_register(tmp_path):
    from models.players.cli import register_train_commands

    parser = argparse.ArgumentParser()
    jobs = parser.add_subparsers(dest="job")
    register_train_commands(jobs)
    args = parser.parse_args(["calibration", "--smoke", "--runs-dir", str(tmp_path)])
    assert args.script_args == ["--smoke", "--runs-dir", str(tmp_path)]
    assert callable(args.players_job)


def test_fit_calibration_cross_play_smoke(tmp_path, monkeypatch, capsys):
    run_script("fit_calibration.py", [
        "--smoke", "--runs-dir", str(tmp_path), "--play-games", "2", "--voters", "other-models",
        "--agents", "clip-greedy", "panel-sibling", "clip-greedy", "panel-sibling",
        "clip-greedy", "--population", "default", "panel:sibling"], monkeypatch)
    (run,) = tmp_path.glob("fit_calibration__0__*")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["voters"] == "other-models" and summary["held_out_games"] == 1
    assert "pooled" in summary["held_out_ece_by_voter"]
    population = json.loads((run / "population.json").read_text())
    assert {m["name"] for m in population["members"].values()} == {"default", "panel:sibling"}
    assert "held-out ECE" in capsys.readouterr().out


def test_fit_calibration_leave_one_out_cross_play_smoke(tmp_path, monkeypatch, capsys):
    run_script("fit_calibration.py", [
        "--smoke", "--runs-dir", str(tmp_path), "--crossplay", "--population", "default",
        "panel:sibling", "--play-games", "1", "--iterations", "2", "--no-fit-bias",
        "--validate-games", "1"], monkeypatch)
    (run,) = tmp_path.glob("fit_calibration__0__*")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["crossplay"] and len(summary["iterations"]) == 2
    assert "pooled" in summary["iterations"][1]["held_out_calibration"]
    # The last fit's own held-out calibration: one validation game per member, per target too.
    assert summary["validation"]["games"] == 2
    assert "pooled" in summary["validation"]["held_out_calibration"]
    assert summary["validation"]["by_target"]
    population = json.loads((run / "population.json").read_text())
    assert {m["name"] for m in population["members"].values()} == {"default", "panel:sibling"}
    assert all(m["bias"] == 0.0 for m in population["members"].values())
    assert len((run / "crossplay_games.jsonl").read_text().splitlines()) == 2 * 2 + 2
    printed = capsys.readouterr().out
    assert "held-out ECE of the fit these tables played with" in printed
    assert "validation (2 games" in printed and "by target (validation)" in printed


def test_fit_calibration_refuses_negative_validation_games(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [
        "fit_calibration.py", "--smoke", "--runs-dir", str(tmp_path), "--crossplay",
        "--population", "default", "panel:sibling", "--validate-games", "-1"])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO / "scripts" / "fit_calibration.py"), run_name="__main__")
    assert done.value.code == 2
    assert "--validate-games must be at least 0, not -1" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_bench_storyteller_panel_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "panel.json"
    run_script("bench_storyteller_panel.py", [
        "--smoke", "--out", str(tmp_path), "--json", str(out), "--population",
        "self,panel:sibling", "--panel", "panel-default-zeroshot", "--also",
        "clip-obvious,caption-teller", "--aim", "rms", "--temperature-scale", "0.5",
        "--tolerance", "0"], monkeypatch)
    figures = json.loads(out.read_text())
    assert figures["panel"] == ["panel-default-zeroshot"]
    assert (figures["aim"], figures["temperature_scale"], figures["tolerance"]) == ("rms", 0.5,
                                                                                     0.0)
    # The population storytellers were built with them; the self-tuned ones were not.
    header = json.loads(next(tmp_path.glob("bench_storyteller_panel__*/bench__*/bench.json"))
                        .read_text())
    kwargs = {m["label"]: m["kwargs"] for m in header["config"]["models"]}
    assert {k: kwargs["population@0.5"][k] for k in ("aim", "tolerance")} == {
        "aim": "rms", "tolerance": 0.0}
    assert "tolerance" not in kwargs["self@0.5"]
    # --also: registry storytellers in the points tables, a name the bench uses relabelled.
    for which in ("panel", "random"):
        assert {f"{which}:clip-obvious", f"{which}:caption-teller (registry)"} <= set(figures)
        assert figures[f"{which}:caption-teller (registry)"]["points_minus_caption_teller"][
            "estimate"] == 0.0
    # The registry's clip-expected always has its own row, beside the storyteller of the
    # bench's --population (here another population entirely), and its own timing.
    for which in ("panel", "random"):
        assert {f"{which}:clip-expected", f"{which}:population-expected"} <= set(figures)
    assert set(figures["decision_ms"]) == {"self", "population", "expected-self",
                                           "expected-population", "expected-reading",
                                           "clip-expected"}
    assert "population@0.5" in figures["targets"]
    printed = capsys.readouterr().out
    assert "held out: panel-default-zeroshot" in printed
    # 3 items judge none of issue 12's targets (exit status 0, asserted by run_script), after
    # the tables: 3 targets x (rate, ECE), monotone, ECE over all turns, clip-expected's success
    # and points x 2 tables, top-1 on the member's and caption-teller's clues, decision time.
    assert printed.count("target not judged: ") == 15
    assert "MISSED" not in printed and "target met" not in printed and "FAILED" not in printed
    assert ("target not judged: clip-expected success, four panel guessers: 3 items; judged on "
            "200 or more") in printed
    assert printed.index("the default clip guesser on boards") < printed.index("target not")
    assert ("(aim rms, robustness 0.5, temperatures x 0.5, tolerance 0.0, unseen-minds map "
            "none)") in printed
    assert "clip-expected: as the registry configures it (population: copy,self," in printed
    # Beside each points table, what guessers alike would allow at most.
    assert figures["panel:ceiling"]["success"] == pytest.approx(0.875)
    assert figures["random:ceiling"]["points"] == pytest.approx(3 * 0.8995, abs=1e-3)
    assert "ceiling where every panel guesser finds the card with one chance p" in printed
    # The default guesser also reads the panel members' own clues.
    told = figures["default_guesser_top1"]["panel-default-zeroshot (telling)"]
    assert 0.0 <= told["estimate"] <= 1.0
    # Beside it, the ground-truth reader; it finds every caption it is told.
    assert figures["ground_truth_top1"]["caption-teller"]["estimate"] == 1.0
    # ECE over all turns, and over the low and the high targets, each with its interval over
    # the cards told and the ECE a calibrated storyteller would show from vote noise alone.
    for span in ("all_turns", "low_targets", "high_targets"):
        pooled = figures[f"population_ece_{span}"]["pooled"]
        assert 0.0 <= pooled["by_card"]["low"] <= pooled["by_card"]["high"] <= 1.0
        assert 0.0 <= pooled["calibrated_independent"]["estimate"] <= 1.0
        assert 0.0 <= pooled["calibrated"]["low"] <= pooled["calibrated"]["high"] <= 1.0
        assert 1 <= pooled["cards"] <= pooled["stories"] <= pooled["turns"]
    assert "what a perfectly calibrated storyteller would show on the same turns" in printed
    # The items that tell the same card are one story: their count and intervals over cards.
    assert "observed guess rate with 95% CI over the cards told" in printed
    target = figures["targets"]["population@0.5"]
    assert 1 <= target["stories"]["cards"] <= target["stories"]["card_clues"] <= figures["items"]
    assert set(target["by_card"]) == {"panel-default-zeroshot", "pooled"}
    assert "points_minus_caption_teller_by_card" in figures["panel:clip-expected"]
    # --analyse: every figure again from the run's records, with its own settings.
    folder = next(tmp_path.glob("bench_storyteller_panel__*/bench__*"))
    again = tmp_path / "again.json"
    run_script("bench_storyteller_panel.py", ["--analyse", str(folder), "--json", str(again),
                                              "--bootstrap", "200"], monkeypatch)
    recomputed = json.loads(again.read_text())
    assert "decision_ms" not in recomputed
    assert recomputed == {k: v for k, v in figures.items() if k != "decision_ms"}
    for argv, message in ((["--analyse", str(folder), "--items", "5"],
                           "takes only --json and --bootstrap, not --items"),
                          (["--analyse", str(tmp_path)], "no bench.json there")):
        monkeypatch.setattr(sys, "argv", ["bench_storyteller_panel.py", *argv])
        refused(lambda: runpy.run_path(str(REPO / "scripts" / "bench_storyteller_panel.py"),
                                       run_name="__main__"), message, capsys)


def test_bench_storyteller_panel_rows_say_which_storyteller_they_are():
    """The row labelled clip-expected is the registry's agent, never the bench's population
    under that name: a reader compares it with the issue's targets."""
    bench = runpy.run_path(str(REPO / "scripts" / "bench_storyteller_panel.py"))
    crowd = {"population": "self,lite1-minilm", "table_mix": 0.0}
    extra = {"vocabulary_size": 50}
    entries = {e["label"]: e for e in bench["storytellers"](crowd, extra)}
    assert entries["clip-expected"] == {"name": "clip-expected", "label": "clip-expected",
                                        "kwargs": extra}
    assert entries["population-expected"]["name"] == "clip-expected"
    assert entries["population-expected"]["kwargs"] == {**crowd, **extra}
    assert set(bench["POINTS_ROWS"]) <= set(entries)


def test_bench_storyteller_panel_refuses_an_unknown_storyteller(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_storyteller_panel.py", "--smoke", "--out",
                                      str(tmp_path), "--also", "clip-obvious,clip-nonesuch"])
    refused(lambda: runpy.run_path(str(REPO / "scripts" / "bench_storyteller_panel.py"),
                                   run_name="__main__"),
            "no agent named 'clip-nonesuch'; registered agents: ", capsys)
    monkeypatch.setattr(sys, "argv", ["bench_storyteller_panel.py", "--smoke", "--out",
                                      str(tmp_path), "--also", "clip-obvious,clip-obvious"])
    refused(lambda: runpy.run_path(str(REPO / "scripts" / "bench_storyteller_panel.py"),
                                   run_name="__main__"),
            "names a storyteller twice", capsys)
    assert not list(tmp_path.iterdir())


def test_study_candidate_clues_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "study.json"
    run_script("study_candidate_clues.py", ["--smoke", "--oracle", "--json", str(out), "--panel",
                                            "panel-sibling,panel-caption-reader", "--aim",
                                            "each", "--temperature-scale", "0.5"], monkeypatch)
    figures = json.loads(out.read_text())
    oracle = figures["oracle"]
    assert set(oracle) == {"all members", "panel-sibling", "panel-caption-reader"}
    assert set(oracle["all members"]["0.5"]) == {"panel-sibling", "panel-caption-reader"}
    assert figures["panel"] == ["panel-sibling", "panel-caption-reader"]
    assert (figures["aim"], figures["temperature_scale"]) == ("each", 0.5)
    assert figures["candidates"] > 0
    for kind in ("self", "population"):
        assert -1.0 <= figures[kind]["correlation"] <= 1.0
        assert set(figures[kind]["observed_at_target"]) == {"0.1", "0.25", "0.5", "0.75", "0.9"}
    assert "every candidate clue" in capsys.readouterr().out


def test_study_table_reading_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "reading.json"
    run_script("study_table_reading.py", ["--smoke", "--out", str(tmp_path), "--json", str(out),
                                          "--tables", "random,mirror", "--storytellers",
                                          "clip-reader,caption-teller"], monkeypatch)
    figures = json.loads(out.read_text())
    assert set(figures) >= {"random:clip-reader", "mirror:caption-teller"}
    reader = figures["random:clip-reader"]
    assert 0.0 <= reader["points"]["estimate"] <= 3.0
    assert reader["read"] != "-"                  # it says how it read the random player
    assert figures["mirror:caption-teller"]["minus_caption_teller"] == "-"
    printed = capsys.readouterr().out
    assert "table 'random'" in printed and "table 'mirror'" in printed
    records = list(tmp_path.glob("study_table_reading__*/games.jsonl"))
    assert len(records) == 1 and len(records[0].read_text().splitlines()) == 4
    assert (records[0].parent / "points.png").stat().st_size > 1000


@pytest.mark.parametrize("bad, message", [
    (["--temperature-scale", "0"], "--temperature-scale must be a positive finite number"),
    (["--temperature-scale", "inf"], "--temperature-scale must be a positive finite number"),
    (["--aim", "every"], "--aim must be one of mean, each, rms, not 'every'")])
def test_the_study_refuses_a_bad_aim_or_scale_before_loading_anything(bad, message, monkeypatch,
                                                                      capsys):
    monkeypatch.setattr(sys, "argv", ["study_candidate_clues.py", "--smoke", *bad])
    refused(lambda: runpy.run_path(str(REPO / "scripts" / "study_candidate_clues.py"),
                                   run_name="__main__"), message, capsys)


@pytest.mark.parametrize("bad, message", [
    (["--aim", "every"], "--aim must be one of mean, each, rms, not 'every'"),
    (["--temperature-scale", "-1"], "--temperature-scale must be a positive finite number"),
    (["--tolerance", "-0.1"], r"--tolerance must be at least 0, not -0\.1"),
    (["--tolerance", "nan"], "--tolerance must be at least 0, not nan")])
def test_the_panel_bench_refuses_bad_population_options_before_writing_anything(
        bad, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["bench_storyteller_panel.py", "--smoke", "--out",
                                      str(tmp_path / "runs"), *bad])
    refused(lambda: runpy.run_path(str(REPO / "scripts" / "bench_storyteller_panel.py"),
                                   run_name="__main__"), message, capsys)
    assert not list(tmp_path.iterdir())


def test_the_study_aims_each_member_as_the_storyteller_does():
    from models.players.population import PopulationResult
    from models.players.storyteller import ClipStoryteller

    study = runpy.run_path(str(REPO / "scripts" / "study_candidate_clues.py"))
    members = np.array([[[0.5, 0.2, 0.4]], [[0.5, 0.8, 0.45]]])
    result = PopulationResult(guess_rate=members.mean(axis=0), expected_points=np.ones((1, 3)),
                              success_rate=np.zeros((1, 3)), decoy_gap=np.zeros((1, 3)),
                              member_rate=members, member_deals=np.array([32, 32]))
    np.testing.assert_allclose(study["candidate_gaps"](result, 0.5, "mean"),
                               [[0.0, 0.0, 0.075]])
    np.testing.assert_allclose(study["candidate_gaps"](result, 0.5, "each"), [[0.0, 0.3, 0.1]])
    assert int(np.argmin(study["candidate_gaps"](result, 0.5, "each"))) == 0
    # Every aim: the storyteller's own distance for the same rates.
    for aim in ("each", "rms"):
        story = ClipStoryteller(mode="target", target_guess_rate=0.5, aim=aim)
        np.testing.assert_allclose(study["candidate_gaps"](result, 0.5, aim),
                                   story._member_gap(result))


def test_the_study_oracle_chooses_on_one_half_and_scores_the_other():
    study = runpy.run_path(str(REPO / "scripts" / "study_candidate_clues.py"))
    oracle = study["Oracle"](["a", "b"])
    # Two hand cards x three clues. Seen half: clue 0 of card 0 suits both members at 0.5;
    # clue 1 suits a alone; the held-out half differs, and is what is scored.
    seen = {"a": np.array([[0.5, 0.5, 1.0], [0.0, 0.0, 0.0]]),
            "b": np.array([[0.5, 1.0, 1.0], [0.0, 0.0, 0.0]])}
    held = {"a": np.array([[0.25, 0.75, 1.0], [0.0, 0.0, 0.0]]),
            "b": np.array([[0.75, 1.0, 1.0], [0.0, 0.0, 0.0]])}
    oracle.add(seen, held)
    assert oracle.chosen["all members"][0.5] == {"a": [0.25], "b": [0.75]}
    assert oracle.chosen["b"][0.5] == {"a": [0.25], "b": [0.75]}
    assert oracle.chosen["a"][0.5]["a"] == [0.25]         # the first of a's ties (clue 0)
    assert oracle.chosen["all members"][0.1] == {"a": [0.0], "b": [0.0]}


def test_study_who_reads_whom_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "reading.json"
    run_script("study_who_reads_whom.py", ["--smoke", "--out", str(tmp_path), "--json", str(out),
                                           "--tellers", "caption-teller,panel-lite1-minilm",
                                           "--guessers", "default,lite1-minilm,caption-reader"],
               monkeypatch)
    figures = json.loads(out.read_text())
    matrix = figures["matrix"]
    assert set(matrix) == {"caption-teller", "panel-lite1-minilm"}
    assert set(matrix["caption-teller"]) == {"default", "lite1-minilm", "caption-reader"}
    # the ground-truth reader on the ground truth's own words: its own caption, always found
    assert matrix["caption-teller"]["caption-reader"]["estimate"] == 1.0
    printed = capsys.readouterr().out
    assert "ground truth" in printed and "default >= 2x" in printed
    # The reading guesser leaves a teller's own model out of its minds.
    assert figures["reading"]["panel-lite1-minilm"]["minds"] == ["lite1-mpnet", "lite1-zeroshot"]
    assert figures["reading"]["caption-teller"]["reading"]["estimate"] == 1.0
    assert "reading guesser" in printed
    (run,) = tmp_path.glob("study_who_reads_whom__*")
    lines = (run / "stories.jsonl").read_text().splitlines()
    assert len(lines) == 2 * figures["items"]
    assert (run / "reading_matrix.png").is_file()


def test_study_guesser_reading_smoke(tmp_path, monkeypatch, capsys):
    out = tmp_path / "finds.json"
    run_script("study_guesser_reading.py", ["--smoke", "--out", str(tmp_path), "--json",
                                            str(out)], monkeypatch)
    figures = json.loads(out.read_text())
    assert figures["chance"] == 0.25
    finds = figures["finds"]
    assert set(finds) >= {"panel-imagenet-zeroshot:clip-listener", "all storytellers:clip-greedy"}
    assert 0.0 <= finds["all storytellers:clip-listener"]["all"]["estimate"] <= 1.0
    assert finds["all storytellers:clip-greedy"]["minus clip-greedy"] == "-"
    assert 0.0 <= figures["points"]["clip-listener"]["points"]["estimate"] <= 7.0
    printed = capsys.readouterr().out
    assert "found the storyteller's card" in printed and ">= 2x chance" in printed
    (records,) = tmp_path.glob("study_guesser_reading__*/games.jsonl")
    assert len(records.read_text().splitlines()) == 4
    assert (records.parent / "finds.png").stat().st_size > 1000
    # A guesser reading with a teller's own model is refused before any game.
    with pytest.raises(ValueError, match="leave it out of reading_minds"):
        run_script("study_guesser_reading.py", ["--smoke", "--out", str(tmp_path), "--tellers",
                                                "panel-lite1-mpnet,panel-lite2-mpnet,"
                                                "panel-sibling,caption-teller"], monkeypatch)
