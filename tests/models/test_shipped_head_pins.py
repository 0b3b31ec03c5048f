"""The trained heads committed under models/weights/ are pinned: each is checked against its
SHA-256 when it is loaded as the shipped head, a changed one is refused naming the file and both
digests; a head the user passes by path is not pinned."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest

from dixit_ai.decks.cache import file_sha256
from models import family, weight_files
from models.base import WeightsChecksumError
from models.default_head import AlignmentHead
from models.default_model import DEFAULT_HEAD_FILE, DefaultEmbedder, default_head_path
from scripts import train_default_model

REAL_WEIGHTS = weight_files.shipped_weights_dir()


def _changed(data: bytes) -> bytes:
    """One byte changed where nothing reads it back (the modification time in the first zip
    entry's local header): the file still loads as a head, only its hash tells it apart."""
    assert data[:4] == b"PK\x03\x04"
    return data[:10] + bytes([data[10] ^ 0x01]) + data[11:]


@pytest.fixture
def fake_weights(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A shipped-weights folder in tmp (every loader finds the shipped heads through it)."""
    folder = tmp_path / "weights"
    folder.mkdir()
    monkeypatch.setattr(weight_files, "shipped_weights_dir", lambda: folder)
    return folder


def test_every_shipped_head_is_pinned_and_matches_its_pin():
    named = {DEFAULT_HEAD_FILE} | {spec.head_file for spec in family.MEMBERS.values()
                                   if spec.head_file is not None}
    assert set(weight_files.SHIPPED_HEAD_SHA256) == named
    for name, pin in weight_files.SHIPPED_HEAD_SHA256.items():
        assert file_sha256(REAL_WEIGHTS / name) == pin, name
    assert weight_files.shipped_head_pin(default_head_path()) is not None
    AlignmentHead.load(default_head_path())
    for spec in family.MEMBERS.values():
        if spec.head_file is not None and spec.image_tower is not None:
            family.load_head(family.weights_dir() / spec.head_file,
                             image_tower=spec.image_tower, text_tower=spec.text_tower)


def _assert_refused(error: pytest.ExceptionInfo[WeightsChecksumError], path: Path) -> None:
    message = str(error.value)
    assert str(path) in message
    assert weight_files.SHIPPED_HEAD_SHA256[path.name] in message  # expected
    assert file_sha256(path) in message  # actual
    assert "git checkout -- models/weights/" + path.name in message
    assert "by path" in message


def test_a_changed_shipped_default_head_is_refused(fake_weights: Path, tmp_path: Path):
    changed = _changed((REAL_WEIGHTS / DEFAULT_HEAD_FILE).read_bytes())
    mine = tmp_path / "mine" / DEFAULT_HEAD_FILE  # the same name in a folder of the user's
    mine.parent.mkdir()
    mine.write_bytes(changed)
    AlignmentHead.load(mine)  # a loadable head: only the pin tells it from the shipped one
    assert DefaultEmbedder(head=mine).name == f"default:{mine}"

    shipped = fake_weights / DEFAULT_HEAD_FILE
    shipped.write_bytes(changed)
    assert default_head_path() == shipped
    with pytest.raises(WeightsChecksumError) as error:
        DefaultEmbedder()
    _assert_refused(error, shipped)
    with pytest.raises(WeightsChecksumError):  # however the path is spelt
        AlignmentHead.load(fake_weights / ".." / "weights" / DEFAULT_HEAD_FILE)
    shipped.unlink()
    shipped.symlink_to(mine)  # a link put in place of the shipped head is checked too
    with pytest.raises(WeightsChecksumError):
        DefaultEmbedder()

    shipped.unlink()
    shutil.copyfile(REAL_WEIGHTS / DEFAULT_HEAD_FILE, shipped)  # the real one loads
    assert DefaultEmbedder().name == "default"


@pytest.mark.parametrize("name", ["lite1-minilm", "imagenet-zeroshot"])
def test_a_changed_shipped_family_head_is_refused(name: str, fake_weights: Path,
                                                  tmp_path: Path):
    spec = family.MEMBERS[name]
    assert spec.head_file is not None and spec.image_tower is not None
    changed = _changed((REAL_WEIGHTS / spec.head_file).read_bytes())
    shipped = fake_weights / spec.head_file
    shipped.write_bytes(changed)
    with pytest.raises(WeightsChecksumError) as error:
        family.FamilyEmbedder(name)
    _assert_refused(error, shipped)

    mine = tmp_path / "mine.npz"
    mine.write_bytes(changed)
    if spec.kind == "trained":  # a head of the user's own, by path: not pinned
        assert family.FamilyEmbedder(name, mine).name == f"{name}:{mine}"
    family.load_head(mine, image_tower=spec.image_tower, text_tower=spec.text_tower)


def _align_args(**given: object) -> argparse.Namespace:
    values: dict[str, object] = {"model": None, "member": "", "write_head": False,
                                 "head_path": ""}
    return argparse.Namespace(**(values | given))


def test_the_training_script_says_when_a_shipped_head_needs_a_new_pin(
        fake_weights: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    shipped = fake_weights / "lite1_mpnet_head.npz"
    shipped.write_bytes(_changed((REAL_WEIGHTS / shipped.name).read_bytes()))
    train_default_model.report_shipped_head(_align_args(member="lite1-mpnet", write_head=True))
    out = capsys.readouterr().out
    assert f"new SHA-256 {file_sha256(shipped)}" in out
    assert weight_files.SHIPPED_HEAD_SHA256[shipped.name] in out
    assert "Update the pin" in out

    default = fake_weights / DEFAULT_HEAD_FILE
    shutil.copyfile(REAL_WEIGHTS / DEFAULT_HEAD_FILE, default)
    train_default_model.report_shipped_head(_align_args(write_head=True))
    assert "as pinned" in capsys.readouterr().out

    mine = tmp_path / "head.npz"  # a head written elsewhere: nothing to pin, nothing said
    mine.write_bytes(default.read_bytes())
    train_default_model.report_shipped_head(_align_args(head_path=str(mine)))
    train_default_model.report_shipped_head(_align_args(model="hf:/x", write_head=True))
    assert capsys.readouterr().out == ""
