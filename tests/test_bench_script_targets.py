"""The benchmark scripts' targets: the figures first, then one line per target (met, MISSED with
the measured number and the limit, or not judged on a smoke-sized run); exit status 1 when a
target was missed or the measurement failed, 0 otherwise (see ``dixit_ai.cli.targets``).

Each script runs in this process with its measuring function replaced by one that returns fixed
figures, so that every verdict here is certain: nothing is timed.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


def load(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The script as a module; it may not pin this process to one core."""
    monkeypatch.setattr(os, "sched_setaffinity", lambda *args: None, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    spec = importlib.util.spec_from_file_location(f"script_{name}", ROOT / "scripts" /
                                                  f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


def rules_cell(rounds_per_s: float, **more: float) -> dict[str, float]:
    return {"rounds_per_s": rounds_per_s, "games_per_s": rounds_per_s / 12,
            "rounds_per_game": 12.0, "seconds": 1.0, "rounds_per_cpu_s": rounds_per_s, **more}


SCALAR_5 = ["--repeats", "1", "--players", "5", "--editions", "refresh-2021", "--no-batched",
            "--no-variants"]


@pytest.mark.parametrize(("rate", "status", "line"), [
    (4_000.0, 1, "target MISSED: rounds/s, refresh-2021 5 players: 4,000 rounds/s "
                 "(limit >= 5,000 rounds/s)"),
    (6_000.0, 0, "target met: rounds/s, refresh-2021 5 players: 6,000 rounds/s "
                 "(limit >= 5,000 rounds/s)"),
])
def test_bench_rules_scalar_target(rate: float, status: int, line: str,
                                   monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_rules", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda *args, **kwargs: rules_cell(rate))
    assert script.main(SCALAR_5) == status
    out, err = capsys.readouterr()
    assert line in out
    assert out.index("refresh-2021               5") < out.index(line)  # the figures first
    assert ("target(s) missed: rounds/s, refresh-2021 5 players" in err) == bool(status)


def test_bench_rules_smoke_run_judges_nothing(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A 3-game cell is noise: neither met nor missed, whatever it measured."""
    script = load("bench_rules", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda *args, **kwargs: rules_cell(10.0))
    assert script.main([*SCALAR_5, "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert ("target not judged: rounds/s, refresh-2021 5 players: 3 games per cell; judged on "
            "200 or more") in out
    assert "MISSED" not in out and "target met" not in out


@pytest.mark.parametrize(("rounds", "steps", "status"), [
    (400_000.0, 60_000.0, 1), (600_000.0, 40_000.0, 1), (600_000.0, 60_000.0, 0)])
def test_bench_rules_batched_targets(rounds: float, steps: float, status: int,
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_rules", monkeypatch)
    monkeypatch.setattr(script, "measure_batched", lambda n, seconds, record, seed: rules_cell(
        rounds, log_rows=0, records_per_s=1.0, record_rounds_per_s=1.0,
        record_rounds_per_cpu_s=1.0))
    monkeypatch.setattr(script, "measure_vector_env", lambda n, seconds, seed: {
        "steps_per_s": steps, "env_steps_per_s": steps, "steps_per_cpu_s": steps,
        "seconds": 1.0})
    assert script.main(["--batched-only"]) == status
    out = capsys.readouterr().out
    word = "MISSED" if rounds < 500_000 else "met"
    assert (f"target {word}: batched engine rounds/s, no records: {rounds:,.0f} rounds/s "
            "(limit >= 500,000 rounds/s)") in out
    word = "MISSED" if steps < 50_000 else "met"
    assert (f"target {word}: vector env learner steps/s: {steps:,.0f} steps/s (limit >= 50,000 "
            "steps/s)") in out


def envs_row(edition: str, players: int, games: int, seed: int, repeats: int,
             overhead: float) -> dict[str, Any]:
    rates = dict.fromkeys(("raw_decisions_per_s", "aec_steps_per_s", "aec_decisions_per_s",
                           "parallel_steps_per_s", "parallel_decisions_per_s",
                           "aec_overhead_per_step", "parallel_overhead"), 1.0)
    return {"edition": edition, "players": players, "aec_overhead": overhead, **rates}


@pytest.mark.parametrize(("overhead", "status", "word"), [(2.5, 1, "MISSED"), (1.5, 0, "met")])
def test_bench_envs_overhead_target(overhead: float, status: int, word: str,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_envs", monkeypatch)
    monkeypatch.setattr(script, "measure",
                        lambda *args: envs_row(*args, overhead=overhead))
    assert script.main(["--cells", "refresh-2021:4"]) == status
    out = capsys.readouterr().out
    assert (f"target {word}: AEC overhead per decision, refresh-2021 4 players: {overhead:.2f}x "
            "(limit <= 2.00x)") in out


def test_bench_envs_smoke_run_judges_nothing(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_envs", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda *args: envs_row(*args, overhead=9.0))
    assert script.main(["--games", "2", "--cells", "refresh-2021:4"]) == 0
    assert ("target not judged: AEC overhead per decision, refresh-2021 4 players: 2 games per "
            "cell; judged on 100 or more") in capsys.readouterr().out


@pytest.mark.parametrize(("embedding_rate", "status"), [(500.0, 1), (2_000.0, 0)])
def test_bench_envs_learner_targets(embedding_rate: float, status: int,
                                    monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Embedding observations at 500 steps/s miss the 1,000 and cost 4x ids' 2,000: two
    targets missed; at 2,000 steps/s both are met."""
    script = load("bench_envs", monkeypatch)

    def learner_steps(config: dict[str, Any], steps: int, seed: int) -> tuple[float, float]:
        rate = embedding_rate if config.get("observation") == "embedding" else 2_000.0
        return rate, rate

    monkeypatch.setattr(script, "learner_steps", learner_steps)
    assert script.main(["--learner"]) == status
    out, err = capsys.readouterr()
    word = "MISSED" if status else "met"
    assert (f"target {word}: learner steps/s, embedding obs, embedding opponents: "
            f"{embedding_rate:,.0f} steps/s (limit >= 1,000 steps/s)") in out
    assert (f"target {word}: per-step CPU cost, embedding obs, embedding opponents / ids "
            f"(flat): {2_000 / embedding_rate:.2f}x (limit <= 2.00x)") in out
    assert ("3 target(s) missed" in err) == bool(status)


@pytest.fixture
def instant_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cards drawn at once (a 1x1 picture), and bench_decks' thread limits undone afterwards."""
    from dixit_ai.decks import render

    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.setenv(variable, os.environ.get(variable, "1"))
    monkeypatch.setattr(render, "render_card", lambda description, size: Image.new(
        "RGB", (1, 1)))


@pytest.mark.usefixtures("instant_cards")
@pytest.mark.parametrize(("target", "status", "word"), [(1e12, 1, "MISSED"), (20.0, 0, "met")])
def test_bench_decks_target(target: float, status: int, word: str,
                            monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_decks", monkeypatch)
    monkeypatch.setattr(script, "TARGET_CARDS_PER_SECOND", target)
    assert script.main([]) == status
    out = capsys.readouterr().out
    assert f"target {word}: rendering speed at 400x600, one core: " in out
    assert f"cards/s (limit >= {target:,.1f} cards/s)" in out
    assert out.index("rendering speed:") < out.index("target ")


@pytest.mark.usefixtures("instant_cards")
@pytest.mark.parametrize(("args", "why"), [
    (["--cards", "2"], "2 cards; judged on 84 or more"),
    (["--repeats", "1"], "1 timed passes; judged on 3 or more"),
    (["--width", "200", "--cards", "2"], "width 200; the target is for 400x600")])
def test_bench_decks_judges_only_the_targets_size(args: list[str], why: str,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_decks", monkeypatch)
    monkeypatch.setattr(script, "TARGET_CARDS_PER_SECOND", 1e12)
    assert script.main(args) == 0
    assert f"target not judged: rendering speed at 400x600, one core: {why}" in (
        capsys.readouterr().out)


def fake_bench_runs(monkeypatch: pytest.MonkeyPatch, script: ModuleType, tmp_path: Path,
                    cold: tuple[float, int], warm: tuple[float, int],
                    results: tuple[str, str] = ("{}", "{}")) -> None:
    """Replace the two ``dixit-ai bench`` processes by timings (inference seconds, items
    encoded) and result files."""
    runs = iter([("cold", cold, results[0]), ("warm", warm, results[1])])

    def run_once(args: Any, cache_dir: str, out: Path, label: str) -> dict[str, Any]:
        expected, (seconds, items), text = next(runs)
        assert label == expected
        folder = tmp_path / label
        folder.mkdir()
        (folder / "results.json").write_text(text)
        return {"inference_s": seconds, "items_encoded": items, "load_s": 1.0,
                "total_s": 2.0, "folder": str(folder)}

    monkeypatch.setattr(script, "run_once", run_once)


@pytest.mark.parametrize(("warm", "status", "line"), [
    ((2.0, 40), 1, "target MISSED: warm inference / cold inference: 0.2000 (limit < 0.1000)"),
    ((0.0, 0), 0, "target met: warm inference / cold inference: 0.0000 (limit < 0.1000)")])
def test_bench_bench_target(warm: tuple[float, int], status: int, line: str, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_bench", monkeypatch)
    fake_bench_runs(monkeypatch, script, tmp_path, (10.0, 400), warm)
    assert script.main(["--out", str(tmp_path / "runs")]) == status
    out = capsys.readouterr().out
    assert line in out and out.index("warm: inference") < out.index(line)


def test_bench_bench_refuses_a_share_when_the_cold_run_did_no_inference(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A cold run that found every embedding cached (a warm --cache-dir) has nothing to divide
    by: the share was printed as 0 and the run passed."""
    script = load("bench_bench", monkeypatch)
    fake_bench_runs(monkeypatch, script, tmp_path, (0.0, 0), (0.0, 0))
    assert script.main(["--cache-dir", str(tmp_path), "--out", str(tmp_path / "runs")]) == 1
    out, err = capsys.readouterr()
    assert "FAILED: the cold run did no inference (0 images/texts encoded" in out
    assert "a --cache-dir that was not empty" in out and "the cold run did no inference" in err
    assert "warm inference / cold inference" not in out  # no share, no verdict on it


def test_bench_bench_fails_when_the_runs_disagree(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_bench", monkeypatch)
    fake_bench_runs(monkeypatch, script, tmp_path, (10.0, 400), (0.0, 0), ('{"a": 1}', "{}"))
    assert script.main(["--out", str(tmp_path / "runs")]) == 1
    out = capsys.readouterr().out
    assert "target met: warm inference" in out
    assert "FAILED: the cold and warm runs' results.json differ" in out


def fake_tournaments(monkeypatch: pytest.MonkeyPatch, script: ModuleType,
                     seconds: dict[int, float], records: dict[int, str] | None = None) -> None:
    """Replace each ``dixit-ai tournament`` process by its wall time per worker count."""

    def tournament(args: Any, out: Path, games: int, workers: int) -> tuple[float, float, Path]:
        run = out / f"workers-{workers}-games-{games}" / "tournament__x"
        run.mkdir(parents=True, exist_ok=True)
        (run / "games.jsonl").write_text((records or {}).get(workers, "{}\n"))
        return seconds[workers], seconds[workers], run

    monkeypatch.setattr(script, "tournament", tournament)


@pytest.mark.parametrize(("two_workers", "status", "word"), [(8.0, 1, "MISSED"),
                                                             (5.0, 0, "met")])
def test_bench_tournament_speedup_target(two_workers: float, status: int, word: str,
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A missed target printed 'NOT met' and the script exited 0."""
    script = load("bench_tournament", monkeypatch)
    fake_tournaments(monkeypatch, script, {1: 10.0, 2: two_workers})
    assert script.main(["--games", "40", "--out", str(tmp_path)]) == status
    out, err = capsys.readouterr()
    assert (f"target {word}: speed-up of 2 workers over 1 (40 games): {10 / two_workers:.2f}x "
            "(limit >= 1.80x)") in out
    assert (f"target met: time of 500 games (from 40 games): {two_workers * 500 / 40 / 60:.1f} "
            "min (limit < 10.0 min)") in out
    assert ("1 target(s) missed: speed-up of 2 workers over 1 (40 games)" in err) == bool(status)


def test_bench_tournament_smoke_run_judges_nothing(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_tournament", monkeypatch)
    fake_tournaments(monkeypatch, script, {1: 600.0, 2: 600.0})
    assert script.main(["--games", "4", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert ("target not judged: speed-up of 2 workers over 1 (4 games): 4 games; judged on 40 "
            "or more") in out
    assert "target not judged: time of 500 games (from 4 games): 4 games" in out


def test_bench_tournament_fails_when_the_records_differ(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    script = load("bench_tournament", monkeypatch)
    fake_tournaments(monkeypatch, script, {1: 10.0, 2: 5.0}, {1: "{}\n", 2: "{\"x\": 1}\n"})
    assert script.main(["--games", "4", "--out", str(tmp_path)]) == 1
    assert "FAILED: 4 games: the records differ across worker counts" in (
        capsys.readouterr().out)


def test_the_verdicts_json_is_untouched_by_targets(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A missed target still writes the figures it measured (--json)."""
    script = load("bench_rules", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda *args, **kwargs: rules_cell(4_000.0))
    out = tmp_path / "rules.json"
    assert script.main([*SCALAR_5, "--json", str(out)]) == 1
    assert json.loads(out.read_text())[0]["rounds_per_s"] == 4_000.0


def players_figures(decision_ms: float, game_s: float) -> dict[str, Any]:
    return {"machine": "test", "load_average": [0.0, 0.0, 0.0], "vocabulary": 3527,
            "candidates_per_decision": 6 * 3539, "hand_cards": 6, "simulations": 64,
            "decision_ms_median": decision_ms, "decision_ms_p90": decision_ms,
            "decision_cpu_ms_median": decision_ms, "game_cpu_s_median": game_s,
            "game_s_median": game_s, "game_s_max": game_s, "rounds_per_game": [12] * 5}


@pytest.mark.parametrize(("decision_ms", "game_s", "status"), [
    (120.0, 1.5, 1), (80.0, 2.5, 1), (80.0, 1.5, 0)])
def test_bench_players_targets(decision_ms: float, game_s: float, status: int,
                               monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    """It printed '[target <= 100 ms]' beside the figure and exited 0 whatever it measured."""
    script = load("bench_players", monkeypatch)
    monkeypatch.setattr(script, "measure",
                        lambda args, overrides: players_figures(decision_ms, game_s))
    assert script.main([]) == status
    out, err = capsys.readouterr()
    word = "MISSED" if decision_ms > 100 else "met"
    line = (f"target {word}: storyteller decision, median wall time: {decision_ms:.1f} ms "
            "(limit <= 100.0 ms)")
    assert line in out and out.index("storyteller decision:") < out.index(line)
    word = "MISSED" if game_s >= 2 else "met"
    assert (f"target {word}: whole 5-player clip-greedy game, median wall time: {game_s:.3f} s "
            "(limit < 2.000 s)") in out
    assert ("1 target(s) missed" in err) == bool(status)


@pytest.mark.parametrize(("args", "decision", "game"), [
    (["--smoke"], "--smoke (deck dream:size=40, 300 clues); judged on the defaults",
     "--smoke (deck dream:size=40, 300 clues); judged on the defaults"),
    (["--decisions", "5", "--games", "2"], "5 decisions timed; judged on 30 or more",
     "2 games timed; judged on 5 or more"),
    (["--simulations", "16"], "--simulations 16; the targets are for 64",
     "--simulations 16; the targets are for 64"),
    (["--table", "refresh-2021:6"], "--table refresh-2021:6; the targets are for refresh-2021:5",
     "--table refresh-2021:6; the targets are for refresh-2021:5")])
def test_bench_players_judges_only_the_targets_size(args: list[str], decision: str, game: str,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_players", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda args, overrides: players_figures(900.0, 9.0))
    assert script.main(args) == 0
    out = capsys.readouterr().out
    assert f"target not judged: storyteller decision, median wall time: {decision}" in out
    players = 6 if "--table" in args else 5
    assert (f"target not judged: whole {players}-player clip-greedy game, median wall time: "
            f"{game}") in out


def startup_case(wall: float, rss: float = 150.0, torch: bool = False) -> dict[str, Any]:
    return {"import_and_load": wall - 0.1, "first_decision": 0.1, "round": 0.5,
            "cpu_to_first_decision": wall, "peak_rss_mb": rss, "torch": torch, "clue": "owl",
            "wall_to_first_decision": wall, "wall": wall + 0.5}


def fake_startup(monkeypatch: pytest.MonkeyPatch, script: ModuleType, warm: dict[str, Any],
                 fresh: dict[str, Any]) -> None:
    """Replace each case's process by its figures: the machine's cache (warm) or an empty
    cache folder (a fresh install)."""
    monkeypatch.setattr(script, "run_case", lambda cache_dir, no_shipped=False, agent="": dict(
        warm if cache_dir is None else fresh))


@pytest.mark.parametrize(("warm", "fresh", "line"), [
    (startup_case(1.2), startup_case(2.0),
     "target MISSED: warm, wall time to the first decision: 1.20 s (limit <= 1.00 s)"),
    (startup_case(0.8, rss=350.0), startup_case(2.0),
     "target MISSED: warm, peak RSS: 350 MB (limit <= 300 MB)"),
    (startup_case(0.8, torch=True), startup_case(2.0),
     "target MISSED: warm, torch imported: imported (limit not imported)"),
    (startup_case(0.8), startup_case(3.5),
     "target MISSED: fresh install, wall time to the first decision: 3.50 s (limit <= 3.00 s)"),
])
def test_bench_startup_misses(warm: dict[str, Any], fresh: dict[str, Any], line: str,
                              monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    """It printed the figures and exited with no status of its own (0) whatever they were."""
    script = load("bench_startup", monkeypatch)
    fake_startup(monkeypatch, script, warm, fresh)
    assert script.main([]) == 1
    out, err = capsys.readouterr()
    assert line in out and out.index("fresh install: first decision") < out.index(line)
    assert out.count("target met:") == 3 and "1 target(s) missed" in err


def test_bench_startup_targets_met(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_startup", monkeypatch)
    fake_startup(monkeypatch, script, startup_case(0.8), startup_case(2.0))
    assert script.main([]) == 0
    out = capsys.readouterr().out
    for line in ("target met: warm, wall time to the first decision: 0.80 s (limit <= 1.00 s)",
                 "target met: warm, peak RSS: 150 MB (limit <= 300 MB)",
                 "target met: warm, torch imported: not imported (limit not imported)",
                 "target met: fresh install, wall time to the first decision: 2.00 s (limit <= "
                 "3.00 s)"):
        assert line in out


@pytest.mark.parametrize(("args", "times", "memory"), [
    (["--repeat", "1"], "1 runs per case; judged on 3 or more", None),
    (["--agent", "clip-expected"], "--agent clip-expected; the targets are for clip-greedy",
     "--agent clip-expected; the targets are for clip-greedy")])
def test_bench_startup_judges_only_the_targets_size(args: list[str], times: str,
                                                    memory: str | None,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """One run per case judges no time (the best of one run is noise), but the memory and the
    imports, which one run shows; another agent judges nothing."""
    script = load("bench_startup", monkeypatch)
    fake_startup(monkeypatch, script, startup_case(5.0, rss=350.0), startup_case(9.0))
    assert script.main(args) == (0 if memory else 1)
    out = capsys.readouterr().out
    assert f"target not judged: warm, wall time to the first decision: {times}" in out
    assert f"target not judged: fresh install, wall time to the first decision: {times}" in out
    if memory:
        assert f"target not judged: warm, peak RSS: {memory}" in out
    else:
        assert "target MISSED: warm, peak RSS: 350 MB (limit <= 300 MB)" in out


def test_bench_startup_fails_when_a_case_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """A case's process that fails stops the run with exit status 1, saying FAILED."""
    import subprocess

    script = load("bench_startup", monkeypatch)
    monkeypatch.setattr(script.subprocess, "run", lambda command, **kwargs: (
        subprocess.CompletedProcess(command, 3, "", "ImportError: no clip")))
    with pytest.raises(SystemExit) as done:
        script.main([])
    assert str(done.value.code).startswith("FAILED: a case's process (the machine's cache) "
                                           "exited with 3:\nImportError: no clip")


def embed_results(batch_1: float, default_batch: float) -> dict[str, Any]:
    rows = [{"batch": batch, "harness_over_raw": ratio}
            for batch, ratio in ((1, batch_1), (8, default_batch), (32, 0.5), (64, 0.5))]
    return {"default_image_batch_size": 8, "images": rows, "texts": []}


@pytest.mark.parametrize(("batch_1", "default_batch", "status"), [
    (0.85, 0.95, 1), (0.95, 0.85, 1), (0.95, 0.97, 0)])
def test_bench_embed_target(batch_1: float, default_batch: float, status: int, tmp_path: Path,
                            monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    """Batches other than 1 and the default (8) are figures only: their 0.5 misses nothing."""
    script = load("bench_embed", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda args: embed_results(batch_1, default_batch))
    assert script.main(["--runs-dir", str(tmp_path)]) == status
    out, err = capsys.readouterr()
    for batch, ratio, default in ((1, batch_1, ""), (8, default_batch, " (the default)")):
        word = "MISSED" if ratio < 0.9 else "met"
        line = (f"target {word}: images, harness / raw (preprocessing and forward), batch "
                f"{batch}{default}: {ratio:.2f} (limit >= 0.90)")
        assert line in out and out.index("record:") < out.index(line)
    assert "batch 32" not in out and ("1 target(s) missed" in err) == bool(status)
    (run,) = tmp_path.glob("bench_embed__0__*")  # the figures are kept, whatever the verdict
    assert json.loads((run / "bench.json").read_text())["images"][0]["harness_over_raw"] == (
        batch_1)


@pytest.mark.parametrize(("args", "why"), [
    (["--smoke"], "--smoke: a few items per batch; judged on the defaults"),
    (["--repeat", "1"], "1 interleaved timings; judged on 3 or more")])
def test_bench_embed_judges_only_the_targets_size(args: list[str], why: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = load("bench_embed", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda args: embed_results(0.5, 0.5))
    assert script.main([*args, "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert ("target not judged: images, harness / raw (preprocessing and forward), batch 1: "
            f"{why}") in out
    assert ("target not judged: images, harness / raw (preprocessing and forward), batch 8 (the "
            f"default): {why}") in out


PANEL = ("panel-a", "panel-b")


def panel_figures(**change: Any) -> dict[str, Any]:
    """Figures of the panel bench at which every target is met; ``change`` replaces some:
    ``gap`` (panel-a's observed rate above each target), ``ece`` (panel-b's at each target),
    ``all_turns_ece``, ``pooled`` (the pooled rates at 0.25/0.5/0.75), ``success``,
    ``difference`` (clip-expected's points minus caption-teller beside a random player: estimate,
    low, high), ``top1`` (the default guesser's on panel-b's clues), ``decision_ms``."""
    from dixit_ai.reporting import Interval

    def interval(x: float) -> Interval:
        return Interval(x, x - 0.05, x + 0.05)

    got = {"gap": 0.05, "ece": 0.05, "all_turns_ece": 0.08, "success": 0.85,
           "difference": (0.3, 0.1, 0.5), "top1": 0.5, "decision_ms": 110.0,
           "pooled": {0.25: 0.26, 0.5: 0.52, 0.75: 0.74}, **change}
    targets = {}
    for kind in ("self", "population"):
        for t in (0.1, 0.25, 0.5, 0.75, 0.9):
            targets[f"{kind}@{t}"] = {
                "members": {"panel-a": t + got["gap"], "panel-b": t},
                "pooled": interval(got["pooled"].get(t, t)),
                "ece": {"panel-a": 0.02, "panel-b": got["ece"], "pooled": 0.03}}
    figures: dict[str, Any] = {"panel": list(PANEL), "items": 200, "targets": targets,
                               "population_monotone": True}
    for kind in ("self", "population"):
        figures[f"{kind}_ece_all_turns"] = {
            "panel-a": {"ece": 0.04}, "panel-b": {"ece": got["all_turns_ece"]},
            "pooled": {"ece": 0.03}}
    for which in ("panel", "random"):
        for label in ("clip-expected", "caption-teller", "random-teller"):
            figures[f"{which}:{label}"] = {
                "success": interval(got["success"] if label == "clip-expected" else 0.2),
                "points": interval(2.0), "points_minus_caption_teller": interval(-1.0),
                "points_minus_caption_teller_by_card": interval(-1.0)}
        figures[f"{which}:clip-expected"]["points_minus_caption_teller"] = Interval(
            *(got["difference"] if which == "random" else (0.4, 0.2, 0.6)))
    figures["default_guesser_top1"] = {"panel-a (telling)": interval(0.6),
                                       "panel-b (telling)": interval(got["top1"]),
                                       "caption-teller": interval(0.9),
                                       "random-teller": interval(0.1)}
    figures["decision_ms"] = {"population": {"wall_ms": 900.0, "cpu_ms": 900.0},
                              "clip-expected": {"wall_ms": got["decision_ms"],
                                                "cpu_ms": got["decision_ms"]}}
    return figures


def run_panel(monkeypatch: pytest.MonkeyPatch, figures: dict[str, Any],
              argv: list[str]) -> int:
    script = load("bench_storyteller_panel", monkeypatch)
    monkeypatch.setattr(script, "measure", lambda args, restored: figures)
    return script.main(argv)


def test_bench_storyteller_panel_targets_met(monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The self-tuned storyteller's rows, the baselines' points below caption-teller's and the
    random storyteller's clues are figures, not targets."""
    assert run_panel(monkeypatch, panel_figures(), []) == 0
    out = capsys.readouterr().out
    for line in (
            "target met: population@0.25: observed guess rate's largest distance from 0.25, "
            "panel members and pooled: 0.050 (panel-a) (limit <= 0.100)",
            "target met: population@0.75: largest ECE, panel members and pooled: 0.050 "
            "(panel-b) (limit <= 0.100)",
            "target met: population: pooled observed guess rate rising with the target (0.25, "
            "0.5, 0.75): 0.260, 0.520, 0.740 (limit rising)",
            "target met: population: largest ECE over all turns, panel members and pooled: "
            "0.080 (panel-b) (limit <= 0.100)",
            "target met: clip-expected success, four panel guessers: 0.850 (limit >= 0.500)",
            "target met: clip-expected points per storytelling turn minus caption-teller, four "
            "panel guessers: the 95% CI over items: +0.400 [+0.200, +0.600] (limit its low end "
            "> 0)",
            "target met: default guesser's top-1 on caption-teller's clues: 0.900 (limit >= "
            "0.333)",
            "target met: clip-expected storytelling decision, median wall time: 110 ms (limit "
            "<= 150 ms)"):
        assert line in out
    assert out.count("target met:") == 16 and "self@" not in out and "random-teller" not in out


@pytest.mark.parametrize(("change", "line"), [
    ({"gap": 0.15}, "target MISSED: population@0.5: observed guess rate's largest distance "
                    "from 0.5, panel members and pooled: 0.150 (panel-a) (limit <= 0.100)"),
    ({"ece": 0.15}, "target MISSED: population@0.25: largest ECE, panel members and pooled: "
                    "0.150 (panel-b) (limit <= 0.100)"),
    ({"pooled": {0.25: 0.3, 0.5: 0.29, 0.75: 0.74}},
     "target MISSED: population: pooled observed guess rate rising with the target (0.25, 0.5, "
     "0.75): 0.300, 0.290, 0.740 (limit rising)"),
    ({"all_turns_ece": 0.12}, "target MISSED: population: largest ECE over all turns, panel "
                              "members and pooled: 0.120 (panel-b) (limit <= 0.100)"),
    ({"success": 0.45}, "target MISSED: clip-expected success, four panel guessers: 0.450 "
                        "(limit >= 0.500)"),
    ({"difference": (-0.06, -0.17, 0.04)},
     "target MISSED: clip-expected points per storytelling turn minus caption-teller, three "
     "panel guessers and a random player: the 95% CI over items: -0.060 [-0.170, +0.040] "
     "(limit its low end > 0)"),
    ({"difference": (0.1, 0.0, 0.2)},
     "target MISSED: clip-expected points per storytelling turn minus caption-teller, three "
     "panel guessers and a random player: the 95% CI over items: +0.100 [+0.000, +0.200] "
     "(limit its low end > 0)"),
    ({"top1": 0.31}, "target MISSED: default guesser's top-1 on panel-b (telling)'s clues: "
                     "0.310 (limit >= 0.333)"),
    ({"decision_ms": 160.0}, "target MISSED: clip-expected storytelling decision, median wall "
                             "time: 160 ms (limit <= 150 ms)")])
def test_bench_storyteller_panel_misses(change: dict[str, Any], line: str,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A target its tables marked NO ('met' column, 'above (CI > 0)', '>= 2x') or its title
    stated left the exit status 0."""
    assert run_panel(monkeypatch, panel_figures(**change), []) == 1
    out, err = capsys.readouterr()
    assert line in out and "target(s) missed" in err


def test_bench_storyteller_panel_smoke_run_judges_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    figures = panel_figures(gap=0.4, ece=0.4, all_turns_ece=0.4, success=0.1,
                            difference=(-1.0, -2.0, 0.0), top1=0.0, decision_ms=900.0,
                            pooled={0.25: 0.5, 0.5: 0.4, 0.75: 0.3})
    figures["items"] = 3
    for cell in figures["targets"].values():  # a smoke run may have no ECE at all
        cell["ece"] = dict.fromkeys(cell["ece"])
    assert run_panel(monkeypatch, figures, ["--smoke"]) == 0
    out = capsys.readouterr().out
    assert ("target not judged: clip-expected success, four panel guessers: 3 items; judged on "
            "200 or more") in out
    assert ("target not judged: population@0.25: largest ECE, panel members and pooled: 3 "
            "items; judged on 200 or more") in out
    assert ("target not judged: clip-expected storytelling decision, median wall time: 2 "
            "decisions timed; judged on 15 or more") in out
    assert out.count("target not judged:") == 16
    assert "MISSED" not in out and "target met" not in out and "FAILED" not in out


def test_bench_storyteller_panel_fails_without_an_ece(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A storyteller that predicted nothing has no ECE: the run fails, it is not met."""
    figures = panel_figures()
    figures["targets"]["population@0.5"]["ece"] = dict.fromkeys((*PANEL, "pooled"))
    assert run_panel(monkeypatch, figures, []) == 1
    assert ("FAILED: population@0.5: largest ECE, panel members and pooled: no ECE (no "
            "predictions) to judge") in capsys.readouterr().out
