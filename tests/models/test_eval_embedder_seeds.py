"""``eval_embedder.py`` refuses a dream seed a model was trained on: for a fine-tuned folder, the
seed its ``finetune_card.json`` records (and those of the models it was tuned from), as for the
default head's recorded seeds. A folder fine-tuned on the very cards it is scored on was reported
as held out."""

from __future__ import annotations

import json
import runpy
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.run_folders import REPO


def script(name: str) -> dict[str, Any]:
    return runpy.run_path(str(REPO / "scripts" / name), run_name="dixit_ai_script")


def _card(folder: Path, model: str, deck: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "finetune_card.json").write_text(json.dumps(
        {"model": model, "deck": {"spec": deck}}))


def test_a_fine_tunes_dream_seeds_are_read_back_through_its_bases(tmp_path: Path) -> None:
    training_seeds = script("eval_embedder.py")["training_seeds"]
    _card(tmp_path / "first", "hf:/somewhere/clip", "dream:size=30,seed=4242")
    _card(tmp_path / "second", f"hf:{tmp_path / 'first'}", " dream: seed=9001, size=40")
    _card(tmp_path / "third", f"openclip:local-dir:{tmp_path / 'second'}", "folder:/my/cards")
    hf = SimpleNamespace(info={"backend": "hf", "source": str(tmp_path / "third")})
    assert training_seeds(hf) == [4242, 9001]
    local = SimpleNamespace(info={"backend": "openclip", "source": "local-dir",
                                  "pretrained": str(tmp_path / "second")})
    assert training_seeds(local) == [4242, 9001]
    _card(tmp_path / "plain", "hf:/x", "dream")
    assert training_seeds(SimpleNamespace(info={"backend": "hf",
                                                "source": str(tmp_path / "plain")})) == [0]
    assert training_seeds(SimpleNamespace(info={"backend": "hf", "source": "org/model"})) == []


def test_scoring_a_fine_tune_on_its_own_seed_is_refused(tiny_hf_clip: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    tuned = tmp_path / "tuned"
    shutil.copytree(tiny_hf_clip, tuned)
    _card(tuned, "hf:/base", "dream:size=30,seed=9001")
    main = script("eval_embedder.py")["main"]
    with pytest.raises(SystemExit) as stopped:
        main(["--model", f"hf:{tuned}", "--deck-seed", "9001", "--cards", "24", "--boards", "1",
              "--runs-dir", str(tmp_path / "runs")])
    assert stopped.value.code == 2
    assert "--deck-seed 9001 is one of the dream seeds" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
