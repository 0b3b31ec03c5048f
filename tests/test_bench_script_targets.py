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
