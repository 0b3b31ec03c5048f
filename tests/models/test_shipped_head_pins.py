"""The trained heads committed under models/weights/ are pinned: each is checked against its
SHA-256 when it is loaded as the shipped head, a changed one is refused naming the file and both
digests; a head the user passes by path is not pinned."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dixit_ai.decks.cache import file_sha256
from models import family, weight_files
from models.base import WeightsChecksumError
from models.default_head import AlignmentHead
from models.default_model import DEFAULT_HEAD_FILE, DefaultEmbedder, default_head_path

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


def _tiny_head(seed: int) -> AlignmentHead:
    """A small head (4-d text space, 6-d features, 3 classes): only its bytes matter here."""
    rng = np.random.default_rng(seed)
    return AlignmentHead(
        weight=rng.normal(size=(4, 6)).astype(np.float32), bias=np.zeros(4, np.float32),
        feature_mean=np.zeros(6, np.float32), feature_std=np.ones(6, np.float32),
        class_embeddings=rng.normal(size=(3, 4)).astype(np.float32), blend=1.0,
        zero_shot_temperature=1.0, metadata={"run": f"tiny-{seed}"})


def test_writing_a_shipped_head_prints_its_path_hash_and_the_pin_line_to_change(
        fake_weights: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    shipped = fake_weights / "lite1_mpnet_head.npz"
    family.save_head(_tiny_head(1), shipped, member_name="lite1-mpnet", image_tower="lite1",
                     text_tower="mpnet")
    family.report_shipped_head(shipped)
    out = capsys.readouterr().out
    new, pin = file_sha256(shipped), weight_files.SHIPPED_HEAD_SHA256[shipped.name]
    assert f"shipped head {shipped}: new SHA-256 {new}" in out
    source = Path(weight_files.__file__).read_text(encoding="utf-8").splitlines()
    number = source.index(f'    "{shipped.name}": "{pin}",') + 1
    assert f"in models/weight_files.py:{number}, change the line\n" in out
    assert (f'\n    "{shipped.name}": "{pin}",\nto\n    "{shipped.name}": "{new}",\n'
            in out)

    default = fake_weights / DEFAULT_HEAD_FILE  # the head as pinned: said so, nothing to do
    shutil.copyfile(REAL_WEIGHTS / DEFAULT_HEAD_FILE, default)
    family.report_shipped_head(default)
    assert capsys.readouterr().out == (
        f"shipped head {default}: SHA-256 {weight_files.SHIPPED_HEAD_SHA256[default.name]}, "
        "as pinned in models/weight_files.py SHIPPED_HEAD_SHA256\n")

    mine = tmp_path / DEFAULT_HEAD_FILE  # a head written elsewhere: not pinned, nothing said
    _tiny_head(2).save(mine)
    family.report_shipped_head(mine)
    family.report_shipped_head(fake_weights / "other_head.npz")
    assert capsys.readouterr().out == ""


@pytest.mark.slow
def test_train_align_write_head_prints_the_new_pin(fake_weights: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]):
    """``dixit-ai train align --write-head`` (as ``scripts/train_default_model.py``, which runs
    the same code) ends by printing the written head's SHA-256 and the pin line to change."""
    from dixit_ai.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["train", "align", "--smoke", "--threads", "1", "--runs-dir", "runs",
                 "--write-head"]) == 0
    written = fake_weights / DEFAULT_HEAD_FILE
    out = capsys.readouterr().out
    assert (fake_weights / "MODEL_CARD.md").is_file()
    assert out.count(f"shipped head {written}: new SHA-256 {file_sha256(written)}\n") == 1
    pin = weight_files.SHIPPED_HEAD_SHA256[DEFAULT_HEAD_FILE]
    assert f'    "{DEFAULT_HEAD_FILE}": "{file_sha256(written)}",' in out
    assert f'    "{DEFAULT_HEAD_FILE}": "{pin}",' in out
