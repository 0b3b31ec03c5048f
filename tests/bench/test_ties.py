"""A model that cannot tell cards apart scores chance, in top-1 and in MRR alike.

A checkpoint whose image tower maps every card to one direction (here: a tiny random CLIP whose
visual projection reads one constant feature) ties every board. Top-1 shares the point among tied
cards; the reciprocal rank must share it the same way (the expected 1/rank when the tie is broken
at random), not count the target first among equals.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from models.bench.analysis import _harmonic
from tests.bench.conftest import bench_config


@pytest.fixture(scope="module")
def flat_clip(tiny_clip: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The tiny CLIP with a visual projection that sees every card as the same vector."""
    torch = pytest.importorskip("torch")
    from transformers import CLIPModel

    folder = tmp_path_factory.mktemp("flat_clip") / "model"
    shutil.copytree(tiny_clip.removeprefix("hf:"), folder)
    model = CLIPModel.from_pretrained(folder)
    with torch.no_grad():
        model.visual_projection.weight.zero_()
        model.vision_model.post_layernorm.weight.zero_()
        model.vision_model.post_layernorm.bias.fill_(1.0)
        model.visual_projection.weight[0, 0] = 1.0
    model.save_pretrained(folder)
    return f"hf:{folder}"


def test_a_model_that_ties_every_board_scores_chance(flat_clip: str, tmp_path: Path) -> None:
    from models.bench import run_bench

    run = run_bench(bench_config(tmp_path, [flat_clip], tasks=["guess"]),
                    progress=False, show=False, log=None)
    records = [json.loads(line) for line in (run.folder / "records.jsonl").open()]
    assert records
    board = 6
    for record in records:
        assert len(set(record["scores"])) == 1  # every card tied
        assert record["correct"] == pytest.approx(1 / board)
        assert record["reciprocal_rank"] == pytest.approx(_harmonic(board) / board)
        assert record["answer"] in record["board"]
    guess = run.results["guess"]["models"][flat_clip]["kinds"]
    for kind in ("caption", "object", "association"):
        assert guess[kind]["top1"].estimate == pytest.approx(1 / board)
        assert guess[kind]["mrr"].estimate == pytest.approx(_harmonic(board) / board)
    # The answers are not the target by construction (it is listed first on every board).
    assert any(record["answer"] != record["target"] for record in records)
