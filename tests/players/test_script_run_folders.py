"""Every run of a players' script writes into a folder of its own.

The scripts named their run folder ``{out}/{name}__{seed}__{int(time.time())}`` and made it with
``exist_ok=True``: two runs started in the same second (a sweep, a job array) wrote into one
folder, the second's files over the first's. They now make it with
:func:`dixit_ai.reporting.new_run_dir` (one exclusive ``mkdir``, ``-2``, ``-3``, ... on a
collision), the name's format unchanged.

Each test stands the clock still, runs a script's ``main`` twice and stops it at the first piece
of work after its run folder is made (the work itself is the script's smoke tests' business).
"""

from __future__ import annotations

import runpy

import pytest

pytest.importorskip("torch")

from tests import run_folders
from tests.run_folders import REPO, SECOND, Stop, folders, stop

same_second = run_folders.same_second


def run_twice(script: str, argv: list[str]) -> None:
    """Run ``scripts/<script>``'s main twice, each stopped after its run folder is made."""
    for _ in range(2):
        main = runpy.run_path(str(REPO / "scripts" / script), run_name="dixit_ai_script")["main"]
        with pytest.raises(Stop):
            main(argv)


def test_study_guesser_reading(tmp_path, same_second, monkeypatch):
    import dixit_ai.match

    monkeypatch.setattr(dixit_ai.match, "game_seeds", stop)
    run_twice("study_guesser_reading.py", [
        "--out", str(tmp_path), "--seed", "7", "--guessers", "random",
        "--tellers", "random,random,random,random"])
    assert folders(tmp_path) == [f"study_guesser_reading__7__{SECOND}",
                                 f"study_guesser_reading__7__{SECOND}-2"]


def test_study_table_reading(tmp_path, same_second, monkeypatch):
    import dixit_ai.match

    monkeypatch.setattr(dixit_ai.match, "game_seeds", stop)
    run_twice("study_table_reading.py", ["--out", str(tmp_path), "--seed", "7",
                                         "--tables", "mirror", "--storytellers", "random"])
    assert folders(tmp_path) == [f"study_table_reading__7__{SECOND}",
                                 f"study_table_reading__7__{SECOND}-2"]


def test_study_who_reads_whom(tmp_path, same_second, monkeypatch):
    import models.bench.reading

    monkeypatch.setattr(models.bench.reading, "tell_stories", stop)
    run_twice("study_who_reads_whom.py", ["--out", str(tmp_path), "--seed", "7", "--smoke",
                                          "--tellers", "random", "--guessers", "random"])
    assert folders(tmp_path) == [f"study_who_reads_whom__7__{SECOND}",
                                 f"study_who_reads_whom__7__{SECOND}-2"]


def test_bench_storyteller_panel(tmp_path, same_second, monkeypatch):
    import models.bench

    monkeypatch.setattr(models.bench, "run_bench", stop)
    run_twice("bench_storyteller_panel.py", [
        "--out", str(tmp_path / "runs"), "--seed", "7", "--smoke",
        "--population-file", str(tmp_path / "population.json")])
    assert folders(tmp_path / "runs") == [f"bench_storyteller_panel__7__{SECOND}",
                                          f"bench_storyteller_panel__7__{SECOND}-2"]


def test_eval_players(tmp_path, same_second, monkeypatch):
    import models.players.experiments

    monkeypatch.setattr(models.players.experiments, "play_table", stop)
    run_twice("eval_players.py", ["--runs-dir", str(tmp_path), "--seed", "7", "--smoke"])
    assert folders(tmp_path) == [f"eval_players__7__{SECOND}", f"eval_players__7__{SECOND}-2"]


def test_fit_calibration_after_playing_its_games(tmp_path, same_second, monkeypatch):
    import models.players.calibration
    import models.players.experiments

    monkeypatch.setattr(models.players.experiments, "play_table", lambda *a, **k: [])
    # the first piece of work after the played games are written (the model is loaded before)
    monkeypatch.setattr(models.players.calibration, "observations_and_voters", stop)
    run_twice("fit_calibration.py", ["--runs-dir", str(tmp_path), "--seed", "7", "--smoke",
                                     "--play-games", "1"])
    first, second = f"fit_calibration__7__{SECOND}", f"fit_calibration__7__{SECOND}-2"
    assert folders(tmp_path) == [first, second]
    for name in (first, second):  # each run's games in its own folder
        assert folders(tmp_path / name) == ["fit_games.jsonl"]


def test_fit_calibration_cross_play(tmp_path, same_second, monkeypatch):
    import models.players.crossplay

    monkeypatch.setattr(models.players.crossplay, "fit_population_crossplay", stop)
    run_twice("fit_calibration.py", ["--runs-dir", str(tmp_path), "--seed", "7", "--smoke",
                                     "--crossplay", "--population", "default", "lite1-minilm"])
    assert folders(tmp_path) == [f"fit_calibration__7__{SECOND}",
                                 f"fit_calibration__7__{SECOND}-2"]


def test_train_storyteller(tmp_path, same_second, monkeypatch):
    from envs import dixit_v0

    monkeypatch.setattr(dixit_v0, "env", stop)
    run_twice("train_storyteller.py", ["--runs-dir", str(tmp_path), "--seed", "7", "--smoke"])
    assert folders(tmp_path) == [f"train_storyteller__7__{SECOND}",
                                 f"train_storyteller__7__{SECOND}-2"]


@pytest.mark.parametrize("script, argv", [
    ("study_guesser_reading.py", ["--guessers", "random", "--tellers",
                                  "random,random,random,random", "--out"]),
    ("study_table_reading.py", ["--tables", "mirror", "--storytellers", "random", "--out"]),
    ("study_who_reads_whom.py", ["--smoke", "--tellers", "random", "--guessers", "random",
                                 "--out"]),
    ("bench_storyteller_panel.py", ["--smoke", "--population-file", "p.json", "--out"]),
    ("eval_players.py", ["--smoke", "--runs-dir"]),
    ("fit_calibration.py", ["--smoke", "--play-games", "1", "--runs-dir"]),
    ("fit_calibration.py", ["--smoke", "--crossplay", "--population", "default",
                            "lite1-minilm", "--runs-dir"]),
    ("train_storyteller.py", ["--smoke", "--runs-dir"])])
def test_a_run_folder_under_a_file_is_refused(script, argv, tmp_path, monkeypatch, capsys):
    """A file where the run folders go: an error naming it (no traceback), nothing written."""
    import dixit_ai.match
    import models.bench
    import models.bench.reading
    import models.players.crossplay
    import models.players.experiments
    import models.players.panel_models
    from envs import dixit_v0

    for module, name in ((dixit_ai.match, "game_seeds"), (models.bench, "run_bench"),
                         (models.bench.reading, "tell_stories"),
                         (models.players.crossplay, "fit_population_crossplay"),
                         (models.players.experiments, "play_table"),
                         (models.players.panel_models, "load_member_resources"),
                         (dixit_v0, "env")):
        monkeypatch.setattr(module, name, stop)
    out = tmp_path / "runs"
    out.write_text("a file")
    main = runpy.run_path(str(REPO / "scripts" / script), run_name="dixit_ai_script")["main"]
    try:
        code = main([*argv, str(out)])
    except SystemExit as done:
        code = done.code
    err = capsys.readouterr().err
    message = code if isinstance(code, str) else err
    assert code == 2 or isinstance(code, str), code
    assert str(out) in message and "not a folder" in message and "Traceback" not in err
    assert out.read_text() == "a file" and folders(tmp_path) == ["runs"]
