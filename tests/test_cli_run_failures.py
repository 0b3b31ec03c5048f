"""Exit statuses of failures part-way through a command's work: an error once the input is
checked and the work has begun (a full disk, a folder that turned unwritable) is a failure of
the run (exit 1, a message naming what failed), never bad input (exit 2, which says that
nothing was done); bad input found before the work still exits 2."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest

from dixit_ai.cli import main
from dixit_ai.cli.common import EXIT_FAILED, EXIT_USAGE

TOURNAMENT = ["tournament", "--agents", "random,b=random", "--players", "3", "--games", "3",
              "--workers", "1", "--no-progress", "--resamples", "20", "--rating-resamples", "0"]


A_FILE = "is a file, not a folder: give the path of a folder (an existing one, or one to make)"
"""What a folder path that names a file is told (:func:`dixit_ai.reporting.check_folder_path`)."""


def no_space(*args: object, **kwargs: object) -> None:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def files_in(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def test_simulate_out_of_disk_space_while_writing_records_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    out.write_text("old\n")
    monkeypatch.setattr(os, "fsync", no_space)  # the records' file is synced before it replaces
    status = main(["simulate", "--games", "2", "--max-rounds", "2", "--no-progress",
                   "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(out) in err
    assert "bad input" not in err and "Traceback" not in err
    assert out.read_text() == "old\n"  # left as it was
    assert files_in(tmp_path) == ["games.jsonl"]


def test_simulate_out_that_is_a_folder_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["simulate", "--games", "1", "--no-progress", "--out", str(tmp_path)])
    assert status == EXIT_USAGE
    assert "is a folder" in capsys.readouterr().err


def test_tournament_out_of_disk_space_while_recording_games_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from dixit_ai.tournament import store

    monkeypatch.setattr(store.GamesWriter, "append", no_space)
    status = main([*TOURNAMENT, "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and str(folder) in err
    assert f"--resume {folder}" in err  # what to do next
    assert "Traceback" not in err


def test_a_tournament_whose_config_cannot_be_written_leaves_no_run_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The run folder is made just before its config.json: a config that cannot be written
    left an empty run folder, which --resume then refused as not a run."""
    from dixit_ai.tournament import run as tournament_run

    monkeypatch.setattr(tournament_run, "write_config", no_space)
    runs = tmp_path / "runs"
    status = main([*TOURNAMENT, "--out", str(runs)])
    err = capsys.readouterr().err
    assert status == EXIT_USAGE, err  # no game began: nothing is left
    assert "No space left on device" in err and "Traceback" not in err
    assert files_in(runs) == []


def test_tournament_bad_paths_are_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--config", str(tmp_path / "missing.yaml")]) == EXIT_USAGE
    assert "missing.yaml" in capsys.readouterr().err
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main([*TOURNAMENT, "--out", str(a_file)]) == EXIT_USAGE
    assert f"{a_file} {A_FILE}" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tournament")
    assert main([*TOURNAMENT, "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def test_analyse_out_of_disk_space_while_writing_the_report_is_a_failed_run(
        run_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(os, "fsync", no_space)  # every report file is synced as it is written
    status = main(["tournament", "--analyse", str(run_folder), "--out", str(tmp_path / "report"),
                   "--resamples", "20", "--rating-resamples", "0"])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(tmp_path / "report") in err
    assert "Traceback" not in err


def test_analyse_out_that_is_a_file_is_bad_input(
        run_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    status = main(["tournament", "--analyse", str(run_folder), "--out", str(a_file),
                   "--resamples", "20", "--rating-resamples", "0"])
    assert status == EXIT_USAGE
    assert f"{a_file} {A_FILE}" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


def test_deck_sheet_out_of_disk_space_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    monkeypatch.setattr(Image.Image, "save", no_space)
    status = main(["deck", "sheet", "dream:size=12,seed=0", "--out", str(tmp_path / "s.png")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(tmp_path / "s.png") in err


def test_deck_sheet_out_that_is_a_folder_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.png").mkdir()
    status = main(["deck", "sheet", "dream:size=12,seed=0", "--out", str(tmp_path / "s.png")])
    assert status == EXIT_USAGE
    assert "is a folder" in capsys.readouterr().err


def test_deck_export_out_of_disk_space_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from PIL import Image

    monkeypatch.setattr(Image.Image, "save", no_space)
    status = main(["deck", "export", "dream:size=12,seed=0", str(tmp_path / "cards")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(tmp_path / "cards") in err


def test_deck_export_to_a_file_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "cards").write_text("")
    status = main(["deck", "export", "dream:size=12,seed=0", str(tmp_path / "cards")])
    assert status == EXIT_USAGE
    assert "is a file" in capsys.readouterr().err


BENCH = ["bench", "--models", "random", "--tasks", "guess", "--items", "2", "--no-progress",
         "--bootstrap", "20"]


def test_bench_out_of_disk_space_while_writing_records_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from models.bench import run as bench_run

    monkeypatch.setattr(bench_run._Recorder, "write", no_space)
    status = main([*BENCH, "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and f"{folder} is left partial" in err
    assert f"dixit-ai bench --analyse {folder}" in err  # what to do with it
    assert "bad input" not in err and "Traceback" not in err


def test_bench_bad_input_is_refused_before_anything_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BENCH, "--models", "no-such-model", "--out", str(tmp_path / "runs")]) \
        == EXIT_USAGE
    assert "no-such-model" in capsys.readouterr().err
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main([*BENCH, "--out", str(a_file)]) == EXIT_USAGE
    assert f"--out {a_file} {A_FILE}" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


def test_bench_whose_embedding_cache_cannot_be_written_warns_and_completes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """prepare_agents loads the agents' models (bad input if one cannot load: exit 2) and
    puts their card and clue embeddings in the cache. The cache is not the run's output: a
    full disk while writing it is a warning and the benchmark carries on without it (exit 0,
    its run folder whole), neither bad input (2) nor a failed run (1)."""
    pytest.importorskip("torch")
    from dixit_ai.decks import cache

    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))  # every card a miss
    monkeypatch.setattr("models.players.resources._shared", {})
    monkeypatch.setattr(cache, "_warned", False)
    monkeypatch.setattr(cache, "write_atomically", no_space)  # every cache file, shards too
    with pytest.warns(RuntimeWarning, match="cannot write its cache .+No space left on device"):
        status = main(["bench", "--models", "clip-greedy", "--tasks", "guess", "--items", "2",
                       "--no-progress", "--bootstrap", "20", "--deck", "dream:size=30,seed=5",
                       "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "embedding 30 cards" in err  # the cards were embedded: the cache was written to
    (folder,) = (tmp_path / "runs").iterdir()
    assert {"bench.json", "records.jsonl", "results.json"} <= set(files_in(folder))
    assert not list((tmp_path / "cache").rglob("*.npz"))


@pytest.fixture(scope="module")
def bench_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bench")
    assert main([*BENCH, "--out", str(root)]) == 0
    (folder,) = root.iterdir()
    return folder


def test_bench_analyse_out_of_disk_space_while_writing_the_report_is_a_failed_run(
        bench_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from models.bench import analysis

    monkeypatch.setattr(analysis, "write_csv", no_space)
    report = tmp_path / "report"
    status = main(["bench", "--analyse", str(bench_folder), "--out", str(report)])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and f"{report} is left partial" in err
    assert "Traceback" not in err


def test_bench_analyse_bad_input_is_refused_before_anything_is_written(
        bench_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main(["bench", "--analyse", str(bench_folder), "--out", str(a_file)]) == EXIT_USAGE
    assert f"--out {a_file} {A_FILE}" in capsys.readouterr().err
    report = tmp_path / "report"
    assert main(["bench", "--analyse", str(bench_folder), "--out", str(report)]) == 0
    capsys.readouterr()
    # a report already there is refused (not replaced) without --overwrite
    assert main(["bench", "--analyse", str(bench_folder), "--out", str(report)]) == EXIT_USAGE
    assert "--overwrite" in capsys.readouterr().err
    assert files_in(tmp_path)[0] == "a-file" and (report / "results.json").is_file()


def test_bench_analyse_into_a_new_run_folder_makes_it_only_after_the_records_are_read(
        bench_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Without --out the report's run folder was made before analyse read the records (a
    second time): records refused then (changed since the first read) left an empty folder."""
    from models.bench import analysis

    def torn(folder: Path, **kwargs: object) -> None:
        raise ValueError(f"{folder / 'records.jsonl'}, line 3: incomplete last line")

    monkeypatch.setattr(analysis, "read_run", torn)
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "--analyse", str(bench_folder)]) == EXIT_USAGE
    assert "line 3: incomplete last line" in capsys.readouterr().err
    assert files_in(tmp_path) == []


@pytest.fixture
def no_towers(monkeypatch: pytest.MonkeyPatch) -> None:
    """train align without its towers' weights (loading them takes seconds): the failures
    below come before the towers are used."""
    from models import default_model

    monkeypatch.setattr(default_model, "load_towers", lambda *args, **kwargs: (None, None))


def test_train_align_out_of_disk_space_in_its_run_folder_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_towers: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    write_text = Path.write_text

    def args_file_no_space(path: Path, *args: object, **kwargs: object) -> int:
        if path.name == "args.json":  # the run's first file, once its settings are checked
            no_space()
        return write_text(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", args_file_no_space)
    status = main(["train", "align", "--smoke", "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and f"{folder} is left partial" in err
    assert "Traceback" not in err


def test_train_align_bad_runs_dir_is_bad_input(
        tmp_path: Path, no_towers: None, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main(["train", "align", "--smoke", "--runs-dir", str(a_file)]) == EXIT_USAGE
    assert "not a folder" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


TINY_OPENCLIP = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 32,
                   "patch_size": 8},
    "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2,
                 "layers": 1},
}


@pytest.fixture(scope="module")
def finetune_inputs(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A random tiny open_clip CLIP (a local-dir folder) and a captioned folder deck: the
    options of a fine-tuning run of seconds."""
    torch = pytest.importorskip("torch")
    open_clip = pytest.importorskip("open_clip")
    from PIL import Image

    model = tmp_path_factory.mktemp("tiny_openclip")
    torch.manual_seed(0)
    clip = open_clip.CLIP(**TINY_OPENCLIP)
    (model / "open_clip_config.json").write_text(json.dumps(
        {"model_cfg": TINY_OPENCLIP, "preprocess_cfg": open_clip.get_model_preprocess_cfg(clip)}))
    torch.save(clip.state_dict(), model / "open_clip_pytorch_model.bin")
    cards = tmp_path_factory.mktemp("cards")
    captions = {}
    for i, word in enumerate(["owl", "moon", "whale", "key", "ship", "tree", "clock", "fox"]):
        Image.new("RGB", (32, 48), (30 * i, 200 - 20 * i, 90)).save(cards / f"card{i}.png")
        captions[f"card{i}.png"] = [f"a {word}"]
    (cards / "captions.json").write_text(json.dumps(captions))
    return ["--model", f"openclip:local-dir:{model}", "--deck", f"folder:{cards}",
            "--steps", "1", "--batch-size", "4", "--boards-per-card", "1", "--device", "cpu"]


def test_train_finetune_checkpoint_that_cannot_be_saved_is_a_failed_run(
        finetune_inputs: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from models.finetune_model import TrainableModel

    monkeypatch.setattr(TrainableModel, "save", no_space)
    out = tmp_path / "tuned"
    status = main(["train", "finetune", *finetune_inputs, "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and f"{out} is left partial" in err
    assert "Traceback" not in err


def test_train_finetune_bad_input_is_refused_before_anything_is_written(
        finetune_inputs: list[str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main(["train", "finetune", *finetune_inputs, "--out", str(a_file)]) == EXIT_USAGE
    assert "is a file" in capsys.readouterr().err
    model = finetune_inputs.index("--model") + 1
    wrong = [*finetune_inputs[:model], "openclip:local-dir:" + str(tmp_path / "missing"),
             *finetune_inputs[model + 1:]]
    assert main(["train", "finetune", *wrong, "--out", str(tmp_path / "tuned")]) == EXIT_USAGE
    assert "missing" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


def test_train_export_openclip_out_of_disk_space_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("open_clip")
    import torch

    out = tmp_path / "export"
    monkeypatch.setattr(torch, "save", no_space)  # the weights, once the towers are loaded
    status = main(["train", "export-openclip", "--trained-path-only", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    assert "No space left on device" in err and str(out) in err and "Traceback" not in err


def test_train_export_openclip_with_a_missing_head_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("open_clip")
    out = tmp_path / "export"
    status = main(["train", "export-openclip", "--out", str(out),
                   "--head", str(tmp_path / "no_head.npz")])
    assert status == EXIT_USAGE, capsys.readouterr().err
    assert not out.exists()


def test_train_export_openclip_whose_towers_cannot_load_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("open_clip")
    from models import default_model

    def unloadable(*args: object, **kwargs: object) -> None:
        raise ImportError("the image tower's wheel is not installed")

    monkeypatch.setattr(default_model, "load_towers", unloadable)
    out = tmp_path / "export"
    status = main(["train", "export-openclip", "--trained-path-only", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == EXIT_USAGE, err
    assert "wheel is not installed" in err
    assert not out.exists()  # bad input: nothing written


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two games of random players on ``dream:size=40``: records a calibration fit of a second
    reads."""
    from dixit_ai import play_game, write_records

    path = tmp_path_factory.mktemp("records") / "played.jsonl"
    write_records(path, [play_game(["random"] * 4, edition="refresh-2021",
                                   deck="dream:size=40", seed=s) for s in range(2)])
    return path


def test_train_calibration_fit_that_cannot_be_written_is_a_failed_run(
        played: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from models.players.simulation import GuessModel

    monkeypatch.setattr(GuessModel, "save", no_space)  # the fitted guess model
    status = main(["train", "calibration", "--records", str(played),
                   "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and f"{folder} is left partial" in err
    assert "Traceback" not in err


def test_train_calibration_bad_input_is_refused_before_anything_is_written(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    runs = ["--runs-dir", str(tmp_path / "runs")]
    # an unknown population member: it was loaded after the fit was written
    assert main(["train", "calibration", "--records", str(played), "--population",
                 "no-such-model", *runs]) == EXIT_USAGE
    assert "no-such-model" in capsys.readouterr().err
    assert main(["train", "calibration", "--records", str(tmp_path / "missing.jsonl"),
                 *runs]) == EXIT_USAGE
    assert "missing.jsonl" in capsys.readouterr().err
    assert files_in(tmp_path) == []


STORYTELLER = ["train", "storyteller", "--smoke"]


def test_train_storyteller_checkpoint_that_cannot_be_saved_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    from models.players.policy import LinearCluePolicy

    monkeypatch.setattr(LinearCluePolicy, "save", no_space)  # policy.json, after training
    status = main([*STORYTELLER, "--runs-dir", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and f"{folder} is left partial" in err
    assert "Traceback" not in err


def test_train_storyteller_bad_input_is_refused_before_anything_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch")
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    assert main([*STORYTELLER, "--runs-dir", str(a_file)]) == EXIT_USAGE
    assert "not a folder" in capsys.readouterr().err
    from models import registry

    def unloadable(*args: object, **kwargs: object) -> None:
        raise ImportError("the image tower's wheel is not installed")

    # the players' model that does not load: the run folder was made before it was loaded
    monkeypatch.setattr(registry, "load_embedder", unloadable)
    monkeypatch.setattr("models.players.resources._shared", {})
    assert main([*STORYTELLER, "--runs-dir", str(tmp_path / "runs")]) == EXIT_USAGE
    assert "wheel is not installed" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]


RL = ["train", "rl", "--roles", "guesser", "--total-timesteps", "64", "--n-envs", "1",
      "--n-steps", "64", "--hidden", "8", "--embedding-dim", "8", "--clues-per-card", "2",
      "--eval-games", "0", "--no-progress"]


@pytest.fixture
def random_vectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """train rl on random vectors (no model is loaded: seconds)."""
    pytest.importorskip("sb3_contrib")
    import envs.vectors
    from envs.vectors import VectorTable

    table = VectorTable.random(range(84), [f"word{i}" for i in range(64)], dim=16, seed=0)
    monkeypatch.setattr(envs.vectors, "load_vector_table", lambda *args, **kwargs: table)


def test_train_rl_checkpoint_that_cannot_be_saved_is_a_failed_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, random_vectors: None,
        capsys: pytest.CaptureFixture[str]) -> None:
    from sb3_contrib import MaskablePPO

    monkeypatch.setattr(MaskablePPO, "save", no_space)  # guesser.zip, after training
    status = main([*RL, "--out", str(tmp_path / "runs")])
    err = capsys.readouterr().err
    assert status == EXIT_FAILED, err
    (folder,) = (tmp_path / "runs").iterdir()
    assert "No space left on device" in err and f"{folder} is left partial" in err
    assert "Traceback" not in err


def test_train_rl_that_completes_exits_0(
        tmp_path: Path, random_vectors: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*RL, "--out", str(tmp_path / "runs")]) == 0  # its script returns its folder
    (folder,) = (tmp_path / "runs").iterdir()
    assert (folder / "guesser.zip").is_file() and f"wrote {folder}" in capsys.readouterr().out


def test_train_rl_bad_input_is_refused_before_anything_is_written(
        tmp_path: Path, random_vectors: None, capsys: pytest.CaptureFixture[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    with pytest.raises(SystemExit) as done:  # the script exits 2 itself
        main([*RL, "--out", str(a_file)])
    assert done.value.code == EXIT_USAGE
    assert "--out" in capsys.readouterr().err
    assert files_in(tmp_path) == ["a-file"]
