"""Every file a text tower's ``from_pretrained`` reads is pinned and checked on every load; a
reassembled folder that fails its check is extracted again; pin checks hash the bytes loaded."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from models import EmbedderLoadError, WeightsChecksumError, default_model, towers
from models._torch_utils import check_sha256

#: What transformers 5 opens in a sentence-transformers folder (traced with an audit hook):
#: config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json and the weights.
READ_BY_FROM_PRETRAINED = ("config.json", "tokenizer.json", "tokenizer_config.json",
                           "special_tokens_map.json", "model.safetensors")


def _minilm_copy(tmp_path: Path) -> Path:
    """A copy of MiniLM's folder: the big weights linked, the small files copied."""
    source = default_model.minilm_folder()
    copy = tmp_path / "minilm"
    copy.mkdir()
    for item in source.iterdir():
        if item.is_file():
            if item.stat().st_size > 1 << 20:
                os.symlink(item, copy / item.name)
            else:
                shutil.copyfile(item, copy / item.name)
    return copy


def test_every_file_from_pretrained_reads_is_pinned():
    for spec in towers.TEXT_TOWERS.values():
        assert set(READ_BY_FROM_PRETRAINED) <= set(spec.files), spec.name
    assert towers.TEXT_TOWERS["minilm"].files == default_model.MINILM_FILES
    folder = default_model.minilm_folder()
    for name, digest in default_model.MINILM_FILES.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name


@pytest.mark.parametrize("name", ["config.json", "tokenizer_config.json",
                                  "special_tokens_map.json"])
def test_a_changed_minilm_config_is_refused(tmp_path, monkeypatch, name):
    copy = _minilm_copy(tmp_path)
    data = json.loads((copy / name).read_text())
    data["num_hidden_layers" if name == "config.json" else "model_max_length"] = 3
    (copy / name).write_text(json.dumps(data))
    monkeypatch.setattr(default_model, "minilm_folder", lambda: copy)
    with pytest.raises(WeightsChecksumError, match=name.replace(".", r"\.")):
        default_model.TextTower("cpu")
    with pytest.raises(WeightsChecksumError, match=name.replace(".", r"\.")):
        towers.SentenceTower(towers.TEXT_TOWERS["minilm"], folder=copy)


def test_the_pinned_view_holds_the_pinned_files_only(tmp_path):
    copy = _minilm_copy(tmp_path)
    (copy / "added_tokens.json").write_text('{"x": 5}')  # transformers would read this one
    with towers.pinned_view(copy, default_model.MINILM_FILES) as view:
        assert sorted(p.name for p in view.iterdir()) == sorted(default_model.MINILM_FILES)
        assert (view / "config.json").read_bytes() == (copy / "config.json").read_bytes()
    assert not view.exists()


def test_pin_checks_do_not_trust_a_same_size_same_mtime_rewrite(tmp_path):
    path = tmp_path / "w.pth"
    path.write_bytes(b"original bytes")
    digest = hashlib.sha256(b"original bytes").hexdigest()
    check_sha256(path, digest, "w", "fix")
    stat = path.stat()
    path.write_bytes(b"tampered bytes")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with pytest.raises(WeightsChecksumError):
        check_sha256(path, digest, "w", "fix")


def test_an_image_tower_loads_the_bytes_it_checked(tmp_path, monkeypatch):
    import models._torch_utils as torch_utils

    data = b"pretend weights"
    path = tmp_path / "lite1.pth"
    path.write_bytes(data)
    spec = towers.ImageTowerSpec("lite1", "efficientnet_lite1", "pkg==1", "mod", "x.pth",
                                 hashlib.sha256(data).hexdigest(), towers._sizes(224))
    seen = []

    def fake_load(torch, arch, source):
        seen.append(source)
        raise EmbedderLoadError("stop here")

    monkeypatch.setattr(torch_utils, "load_timm_model", fake_load)
    with pytest.raises(EmbedderLoadError, match="stop here"):
        towers.LiteImageTower(spec, weights=path)
    assert seen == [data]
