"""The benchmark: outputs, determinism, recomputation from records, errors, invalid answers."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from dixit_ai.agents.registry import _REGISTRY, register_agent
from dixit_ai.cli import main
from models.bench import BenchConfig, InferenceTimer, analyse, run_bench
from tests.bench.conftest import SMALL_CLIP, bench_config
from tests.bench.helpers import BENCH_DECK

pytest.importorskip("torch")

OUTPUTS = ("bench.json", "records.jsonl", "results.csv", "results.json", "report.md",
           "timing.json", "guess_accuracy.png", "decoy_share.png", "tell_success.png",
           "calibration.png")


def records_of(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


def test_a_run_writes_every_output(tiny_run: Any) -> None:
    folder = tiny_run.folder
    assert folder.name.startswith("bench__test__0__")
    for name in OUTPUTS:
        assert (folder / name).is_file(), name
    report = (folder / "report.md").read_text()
    for plot in ("guess_accuracy.png", "decoy_share.png", "calibration.png"):
        assert f"]({plot})" in report
    results = tiny_run.results
    # Each model is named by the embedder it plays on: its own, or its agent's.
    embedders = {m["label"]: m["embedder"] for m in results["models"]}
    assert embedders["default"].startswith("default-") and embedders["random"] is None
    assert embedders["clip-small"] == embedders["default"]
    assert f"`default` (embedder `{embedders['default']}`)" in report
    assert f"`clip-small` (agent on embedder `{embedders['default']}`)" in report
    kinds = results["guess"]["kinds"]
    assert kinds[:3] == ["caption", "object", "association"]
    assert {"story:random", "story:clip-small"} <= set(kinds)
    labels = [m["label"] for m in results["models"]]
    assert len(labels) == 5 and "clip-small" in labels
    records = records_of(folder)
    guess = [r for r in records if r["task"] == "guess"]
    assert {r["model"] for r in guess} == set(labels)
    # Every model sees the same items: same targets and clues per kind and index.
    boards = {(r["kind"], r["item"]): (r["target"], r["clue"]) for r in guess
              if r["model"] == "default"}
    assert all(boards[(r["kind"], r["item"])] == (r["target"], r["clue"]) for r in guess)
    # The default embedder finds captions; agents have no MRR; the tell task has only agents.
    assert results["guess"]["models"]["default"]["kinds"]["caption"]["top1"].estimate == 1.0
    assert results["guess"]["models"]["oracle:default"]["kinds"]["caption"]["top1"].estimate == 1
    assert results["guess"]["models"]["oracle:default"]["kinds"]["caption"]["mrr"].estimate == 1
    assert results["guess"]["models"]["random"]["kinds"]["object"]["mrr"] is None
    assert set(results["tell"]["models"]) == {"random", "clip-small"}
    assert results["tell"]["models"]["clip-small"]["ece"] is not None
    assert results["tell"]["models"]["random"]["ece"] is None
    csv_text = (folder / "results.csv").read_text()
    assert csv_text.startswith("model,model_kind,task,metric,condition,estimate,low,high,n")
    assert "clip-small,agent,tell,success" in csv_text


def test_same_seed_same_numbers_and_a_warm_cache(tiny_run: Any, tmp_path: Path,
                                                 tiny_clip: str) -> None:
    config = bench_config(tmp_path, ["default", tiny_clip, "oracle:default", "random",
                                     SMALL_CLIP])
    again = run_bench(config, progress=False, show=False, log=None)
    first = json.loads((tiny_run.folder / "results.json").read_text())
    second = json.loads((again.folder / "results.json").read_text())
    assert first == second
    assert records_of(tiny_run.folder) == records_of(again.folder)
    # Everything the models needed is in the embedding cache now.
    assert again.timing["items_encoded"] == 0
    assert again.timing["inference_s"] <= 0.1 * max(tiny_run.timing["inference_s"], 1e-9)
    other = run_bench(bench_config(tmp_path, ["default"], seed=1, tasks=["guess"]),
                      progress=False, show=False, log=None)
    assert records_of(other.folder) != [r for r in records_of(tiny_run.folder)
                                        if r["model"] == "default" and r["task"] == "guess"]


def test_analysis_recomputes_from_the_records(tiny_run: Any, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_run.folder, copy)
    for name in ("results.json", "results.csv", "report.md", "guess_accuracy.png"):
        (copy / name).unlink()
    analyse(copy, show=False)
    assert (json.loads((copy / "results.json").read_text())
            == json.loads((tiny_run.folder / "results.json").read_text()))
    assert (copy / "results.csv").read_text() == (tiny_run.folder / "results.csv").read_text()
    assert (copy / "guess_accuracy.png").is_file()
    # Change one record: the figures follow the records.
    records = records_of(copy)
    for record in records:
        if record["task"] == "guess" and record["model"] == "random":
            record["correct"] = 1.0
    (copy / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    results = analyse(copy, show=False)
    assert all(cell["top1"].estimate == 1.0
               for cell in results["guess"]["models"]["random"]["kinds"].values())


def test_invalid_answers_are_failures_and_reported(tmp_path: Path) -> None:
    register_agent("test-own-card-voter", "tests.bench.helpers:OwnCardVoter", overwrite=True)
    register_agent("test-crashing-teller", "tests.bench.helpers:CrashingTeller", overwrite=True)
    try:
        run = run_bench(bench_config(tmp_path, ["test-own-card-voter", "test-crashing-teller"],
                                     tasks=["guess", "tell"], items=3),
                        progress=False, show=False, log=None)
    finally:
        _REGISTRY.pop("test-own-card-voter", None)
        _REGISTRY.pop("test-crashing-teller", None)
    guess = run.results["guess"]["models"]
    assert guess["test-own-card-voter"]["invalid_rate"] == 1.0
    assert guess["test-own-card-voter"]["top1_fixed_kinds"].estimate == 0.0
    assert guess["test-crashing-teller"]["invalid_rate"] == 0.0
    tell = run.results["tell"]["models"]
    assert tell["test-crashing-teller"]["invalid_rate"] == 1.0
    assert tell["test-crashing-teller"]["success"].estimate == 0.0
    records = [r for r in records_of(run.folder) if r["model"] == "test-own-card-voter"
               and r["task"] == "guess"]
    assert all("IllegalAction" in r["error"] for r in records)
    # The crashing storyteller told nothing, so it has no story boards.
    assert "story:test-crashing-teller" not in run.results["guess"]["kinds"]
    assert "invalid" in (run.folder / "report.md").read_text()


@pytest.mark.parametrize(("settings", "message"), [
    ({"models": ["nobody"]}, "unknown model 'nobody'.*registered agent"),
    ({"tasks": ["guess", "juggle"]}, "unknown task.*'juggle'.*guess, decoy, tell"),
    ({"items": 0}, "items must be an integer of at least 1"),
    ({"board_size": 9}, "board_size must be between 3 and 7"),
    ({"models": ["default", "default"]}, "given twice"),
    # Tasks the models would leave with nothing to play: no record, or a panel hearing nothing.
    ({"tasks": ["tell"]}, "the tell task plays agents' stories and the models given "
                          r"\(default\) hold no agent: add an agent such as clip-greedy"),
    ({"tasks": ["guess", "tell"], "panel": "panel"},
     r"a panel \('panel'\) plays agents' stories in the tell task"),
    ({"models": ["random"], "tasks": ["guess"], "panel": "panel"},
     "plays only in the tell task; the tasks are guess: add tell"),
])
def test_bad_settings_are_refused_before_anything_runs(tmp_path: Path, settings: dict[str, Any],
                                                       message: str) -> None:
    config = BenchConfig(**{"models": ["default"], "out": str(tmp_path), **settings})
    with pytest.raises(ValueError, match=message):
        run_bench(config, progress=False, show=False, log=None)
    assert not any(tmp_path.iterdir())


def test_cli_runs_reanalyses_and_reads_a_config(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    assert main(["bench", "--models", "default,random", "--tasks", "guess,decoy",
                 "--items", "3", "--deck", BENCH_DECK, "--bootstrap", "100", "--out", str(out),
                 "--name", "cli", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "guess: top-1 accuracy" in text and "decoy: votes drawn" in text
    assert "inference" in text
    (folder,) = out.iterdir()
    assert folder.name.startswith("bench__cli__0__")
    for name in ("results.csv", "results.json", "report.md", "guess_accuracy.png",
                 "decoy_share.png", "records.jsonl"):
        assert (folder / name).is_file()
    assert main(["bench", "--analyse", str(folder), "--out", str(tmp_path / "again")]) == 0
    assert "recomputed" in capsys.readouterr().out
    config = tmp_path / "bench.yaml"
    config.write_text(f"name: yaml\nmodels: [default]\ntasks: [guess]\nitems: 2\n"
                      f"deck: '{BENCH_DECK}'\nbootstrap: 50\n")
    assert main(["bench", "--config", str(config), "--out", str(out), "--seed", "2",
                 "--no-progress"]) == 0
    assert any(p.name.startswith("bench__yaml__2__") for p in out.iterdir())
    capsys.readouterr()
    assert main(["bench", "--models", "nobody", "--out", str(out)]) == 2
    assert "unknown model 'nobody'" in capsys.readouterr().err
    assert main(["bench", "--items", "0", "--out", str(out)]) == 2
    assert main(["bench", "--tasks", "juggle", "--out", str(out)]) == 2
    assert main(["bench", "--analyse", str(tmp_path)]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text("modles: [default]\n")
    assert main(["bench", "--config", str(bad)]) == 2
    assert "unknown key(s) modles" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "message"), [
    ("models: [random\n", "bad.yaml: not valid YAML"),
    ("name: 7\nmodels: [random]\n", "name must be text, not 7"),
    ("models: [random]\nbootstrap: many\n", "bootstrap must be an integer of at least 1"),
    ("models: 7\n", "models must be a list"),
])
def test_a_bad_config_file_is_named_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert main(["bench", "--config", str(bad), "--out", str(tmp_path / "runs"),
                 "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_an_interrupted_bench_names_its_folder_which_stays_analysable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C left records.jsonl without bench.json: '--analyse' refused the folder as not a
    run folder, and the message did not say where the records were."""
    register_agent("test-interrupting-voter", "tests.bench.helpers:InterruptingVoter",
                   overwrite=True)
    try:
        status = main(["bench", "--models", "random,test-interrupting-voter", "--tasks", "guess",
                       "--items", "3", "--deck", BENCH_DECK, "--bootstrap", "20", "--out",
                       str(tmp_path / "runs"), "--name", "stopped", "--no-progress"])
    finally:
        _REGISTRY.pop("test-interrupting-voter", None)
    assert status == 130
    (folder,) = (tmp_path / "runs").iterdir()
    records = records_of(folder)  # random's answers: the interrupted voter's came after
    assert records and {r["model"] for r in records} == {"random"}
    err = capsys.readouterr().err
    assert f"interrupted; the {len(records)} record(s) so far are in {folder}" in err
    assert f"dixit-ai bench --analyse {folder}" in err
    assert json.loads((folder / "bench.json").read_text())["finished"] is False
    report = tmp_path / "report"
    assert main(["bench", "--analyse", str(folder), "--out", str(report)]) == 0
    assert "interrupted benchmark" in capsys.readouterr().err
    results = json.loads((report / "results.json").read_text())
    assert results["guess"]["models"]["random"]["kinds"]["caption"]["n"] == 3


def test_the_example_config_loads() -> None:
    from models.bench import load_bench_config

    root = Path(__file__).resolve().parents[2]
    config = load_bench_config(root / "configs" / "bench" / "default.yaml", items=3)
    specs = config.validate()
    assert config.items == 3 and {s.kind for s in specs} == {"embedder", "agent"}
    assert "oracle:default" in [s.name for s in specs]


def test_inference_timer_counts_only_encoding(tmp_path: Path) -> None:
    from models.cache import EmbeddingCache, embed_texts_cached
    from tests.models.fakes import CountingEmbedder

    embedder = CountingEmbedder(fingerprint="bench-timer-test")
    cache = EmbeddingCache(tmp_path)
    with InferenceTimer() as cold:
        embed_texts_cached(embedder, ["a", "b", "c"], cache=cache)
    with InferenceTimer() as warm:
        embed_texts_cached(embedder, ["a", "b", "c"], cache=cache)
    assert cold.items == 3 and cold.calls == 1 and cold.seconds > 0
    assert warm.items == 0 and warm.seconds == 0.0


def test_the_cold_and_warm_script_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("bench_bench", root / "scripts" /
                                                  "bench_bench.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    status = script.main(["--models", "random", "--tasks", "guess", "--items", "2",
                          "--deck", BENCH_DECK, "--cache-dir", os.environ["DIXIT_AI_CACHE_DIR"],
                          "--out", str(tmp_path / "runs")])
    text = capsys.readouterr().out
    # The random model embeds nothing: the cold run did no inference, so there is no share to
    # report (it was reported as 0, and the run passed).
    assert status == 1, text
    assert "cold: inference" in text and "warm: inference" in text
    assert "same results from both runs: True" in text
    assert "FAILED: the cold run did no inference (0 images/texts encoded" in text
    assert "warm inference / cold inference" not in text


@pytest.mark.parametrize("tasks", [["tell"], ["guess"], ["tell", "guess", "decoy"]])
def test_the_progress_bar_counts_to_its_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              tasks: list[str]) -> None:
    """The bar's total is the work the run does: a tell-only run once counted the guess task's
    story questions too, and its bar promised hours that never came."""
    from models.bench import run as bench_run

    bars: list[Any] = []

    class Counting:
        def __init__(self, total: int, enabled: bool) -> None:
            self.total, self.n, self.closed = total, 0, False
            bars.append(self)

        def update(self, k: int) -> None:
            self.n += k

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(bench_run, "_progress", Counting)
    bench_run.run_bench(bench_config(tmp_path, ["default", SMALL_CLIP], tasks=tasks),
                        progress=False, show=False, log=None)
    (bar,) = bars
    assert bar.closed and bar.total > 0 and bar.n == bar.total


def test_a_tell_task_without_storytellers_says_so_in_the_tables(tiny_run: Any) -> None:
    """The default run (the default model alone, every task) tells no story: its tables say why
    rather than leave the tell table out."""
    from models.bench.analysis import leaderboards

    titles = [title for title, _, _ in leaderboards(tiny_run.results)]
    assert not any(t.startswith("tell: no story") for t in titles)  # it has storytellers
    results = {**tiny_run.results, "tell": {**tiny_run.results["tell"], "models": {}}}
    (title, _, rows), = [t for t in leaderboards(results) if t[0].startswith("tell")]
    assert "no story was told" in title and "--models default,clip-greedy" in title
    assert rows == [["none", "n/a"]]
