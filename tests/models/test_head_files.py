"""Head files: a damaged or foreign one is one EmbedderLoadError naming it (never numpy's advice
to unpickle); writing one is atomic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models import EmbedderLoadError, family
from models.default_head import AlignmentHead
from models.default_model import default_head_path


def _bad_heads(tmp_path: Path) -> dict[str, Path]:
    good = default_head_path().read_bytes()
    files = {
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "text": b"not a head at all, just words\n" * 4,
    }
    paths = {}
    for name, data in files.items():
        paths[name] = tmp_path / f"{name}.npz"
        paths[name].write_bytes(data)
    paths["no-metadata"] = tmp_path / "nometa.npz"
    np.savez(paths["no-metadata"], weight=np.zeros(3))
    paths["object-array"] = tmp_path / "objects.npz"
    np.savez(paths["object-array"], metadata=np.array([{"a": 1}], dtype=object))
    paths["bad-json"] = tmp_path / "badjson.npz"
    np.savez(paths["bad-json"], metadata=np.frombuffer(b"{not json", dtype=np.uint8))
    return paths


@pytest.mark.parametrize("loader", ["default", "family"])
def test_a_damaged_or_foreign_head_is_one_load_error_naming_it(tmp_path, loader):
    for what, path in _bad_heads(tmp_path).items():
        with pytest.raises(EmbedderLoadError) as caught:
            if loader == "default":
                AlignmentHead.load(path)
            else:
                family.load_head(path, image_tower="lite1", text_tower="mpnet")
        message = str(caught.value)
        assert str(path) in message and "head file" in message, (what, message)
        assert "allow_pickle" not in message and "unsafely" not in message, (what, message)
        assert "\n" not in message


def test_the_cli_prints_one_line_for_a_damaged_head(tmp_path, capsys):
    from dixit_ai.cli import main

    path = _bad_heads(tmp_path)["truncated"]
    out = tmp_path / "runs"
    status = main(["bench", "--models", f"default:{path}", "--items", "1", "--tasks", "guess",
                   "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert status == 2 and len(err.splitlines()) == 1 and str(path) in err, err
    assert not out.exists()


def _interrupted_save(monkeypatch: pytest.MonkeyPatch) -> None:
    real = np.savez_compressed

    def interrupted(handle, **arrays):
        real(handle, weight=arrays["weight"])
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez_compressed", interrupted)


def test_an_interrupted_head_write_leaves_the_old_head_whole(tmp_path, monkeypatch):
    head = AlignmentHead.load(default_head_path())
    target = tmp_path / "default_head.npz"
    head.save(target)
    family_target = tmp_path / "family_head.npz"
    family.save_head(head, family_target, member_name="x", image_tower="lite0",
                     text_tower="minilm")
    before = target.read_bytes(), family_target.read_bytes()
    _interrupted_save(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        head.save(target)
    with pytest.raises(KeyboardInterrupt):
        family.save_head(head, family_target, member_name="x", image_tower="lite0",
                         text_tower="minilm")
    assert (target.read_bytes(), family_target.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["default_head.npz", "family_head.npz"]
    AlignmentHead.load(target)


@pytest.mark.parametrize("name", ["default", "lite2-mpnet", "lite1-minilm"])
def test_a_missing_head_named_by_the_user_is_a_load_error_naming_it(tmp_path, name):
    # 'default:PATH' with no file at PATH raised a plain EmbedderError, which a caller catching
    # models.EmbedderLoadError (a name that cannot be loaded) missed.
    import models

    path = tmp_path / "missing.npz"
    with pytest.raises(EmbedderLoadError, match=r"missing\.npz"):
        models.load_embedder(f"{name}:{path}", device="cpu")
