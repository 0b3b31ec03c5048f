"""A reassembled tower folder (mpnet) with a damaged file is extracted again from its parts, a
killed extraction's staging folder is removed, and an unwritable cache extracts into a private
temporary folder with a warning (a bare PermissionError before)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from models import towers, weight_files
from tests.models.test_family_loading import FILES, _sha, _split_zip


def _pins() -> dict[str, str]:
    return {name: _sha(data) for name, data in FILES.items()}


def test_a_damaged_reassembled_file_is_extracted_again(tmp_path):
    paths, parts = _split_zip(tmp_path, FILES)
    target = tmp_path / "towers" / "fake"
    weight_files.reassemble_split_zip(paths, parts, _pins(), "m", target, what="fake", fix="fix")
    (target / "sub" / "config.json").write_bytes(b'{"a": 2}')  # same size, other bytes
    with pytest.warns(RuntimeWarning, match=r"config\.json"):
        out = weight_files.reassemble_split_zip(paths, parts, _pins(), "m", target,
                                                what="fake", fix="fix")
    assert (out / "sub" / "config.json").read_bytes() == FILES["sub/config.json"]
    (target / "model.bin").unlink()
    with pytest.warns(RuntimeWarning, match=r"model\.bin"):
        weight_files.reassemble_split_zip(paths, parts, _pins(), "m", target, what="fake",
                                          fix="fix")
    assert (target / "model.bin").read_bytes() == FILES["model.bin"]


def test_stale_staging_folders_are_removed_under_the_lock(tmp_path):
    paths, parts = _split_zip(tmp_path, FILES)
    target = tmp_path / "towers" / "fake"
    stale = target.parent / ".fake.0badc0de.tmp"
    (stale / "sub").mkdir(parents=True)
    (stale / "model.bin").write_bytes(b"half")
    weight_files.reassemble_split_zip(paths, parts, _pins(), "m", target, what="fake", fix="fix")
    assert not stale.exists()
    assert sorted(p.name for p in target.parent.iterdir()) == [".fake.lock", "fake"]


def _fake_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> towers.TextTowerSpec:
    paths, parts = _split_zip(tmp_path, FILES)
    by_part = dict(zip(parts, paths, strict=True))
    monkeypatch.setattr(towers, "locate_part", lambda part, install: by_part[part])
    monkeypatch.setattr(towers, "_private_roots", {})  # no private folder of another test
    return towers.TextTowerSpec("fake", "fake-model", 4, "MIT", _pins(), parts=tuple(parts),
                                zip_folder="m", install="pip install fake")


def test_an_unwritable_cache_extracts_into_a_private_temporary_folder(tmp_path, monkeypatch):
    spec = _fake_spec(tmp_path, monkeypatch)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache root should be")
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(blocker))
    with pytest.warns(RuntimeWarning, match="DIXIT_AI_CACHE_DIR"):
        folder = towers.text_tower_folder(spec)
    assert (folder / "model.bin").read_bytes() == FILES["model.bin"]
    assert not str(folder).startswith(str(blocker))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert towers.text_tower_folder(spec) == folder  # once per process


def test_an_unreadable_part_is_a_load_error_not_a_private_extraction(tmp_path, monkeypatch):
    spec = _fake_spec(tmp_path, monkeypatch)
    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))
    part = towers.locate_part(spec.parts[0], spec.install)

    check_file = weight_files.check_file

    def unreadable(path, *args, **kwargs):
        if path == part:
            raise PermissionError(13, "Permission denied", str(path))
        return check_file(path, *args, **kwargs)

    monkeypatch.setattr(weight_files, "check_file", unreadable)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(towers.EmbedderLoadError, match=str(part)):
            towers.text_tower_folder(spec)
