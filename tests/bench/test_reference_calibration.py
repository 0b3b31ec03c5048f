"""The reference population on another embedder (``reference: hf:...``) uses a guess model
fitted for the default model's similarity scale: the run says so, in its log and in bench.json,
instead of calling it calibrated."""

from __future__ import annotations

import json
from pathlib import Path

from tests.bench.conftest import bench_config


def test_a_reference_on_another_embedder_is_said_to_be_uncalibrated(
        tiny_clip: str, tmp_path: Path) -> None:
    from models.bench import run_bench

    said: list[str] = []
    run = run_bench(bench_config(tmp_path, ["random"], tasks=["decoy"], items=2,
                                 reference=tiny_clip),
                    progress=False, show=False, log=said.append)
    reference = json.loads((run.folder / "bench.json").read_text())["reference"]
    assert reference["embedder"] == tiny_clip
    assert reference["guess_model"]["fitted_for"].startswith("default-")
    assert reference["guess_model"]["calibrated"] is False
    assert any("not calibrated" in line and tiny_clip in line for line in said)
    assert "not calibrated" in (run.folder / "report.md").read_text()


def test_the_default_reference_is_calibrated(tiny_run) -> None:  # type: ignore[no-untyped-def]
    reference = json.loads((tiny_run.folder / "bench.json").read_text())["reference"]
    assert reference["guess_model"]["calibrated"] is True
    assert "not calibrated" not in (tiny_run.folder / "report.md").read_text()


def _tell_title(reference: dict[str, object] | None) -> str:
    from dixit_ai.reporting import Interval
    from models.bench.analysis import leaderboards

    entry = {"success": Interval(0.5, 0.4, 0.6), "guess_rate": Interval(0.5, 0.4, 0.6),
             "target": 0.5, "target_gap": 0.0, "ece": 0.05, "invalid_rate": 0.0}
    results = {"run": {"reference": reference}, "tell": {"models": {"clip-greedy": entry}}}
    titles = [title for title, _, _ in leaderboards(results) if title.startswith("tell:")]
    assert len(titles) == 1
    return titles[0]


def test_the_tell_table_names_the_reference_it_was_played_against() -> None:
    """The tell table called its guessers 'the default model' whatever --reference said."""
    assert "the default model: home ground" in _tell_title({"embedder": "default"})
    assert "the default model: home ground" in _tell_title(None)  # records before the field
    other = _tell_title({"embedder": "hf:/models/tiny"})
    assert "on hf:/models/tiny" in other and "the default model" not in other
