"""The three backends load from local files with no network, and honour the interface."""

from __future__ import annotations

import numpy as np
import pytest

import models
from models import EmbedderError, EmbedderLoadError, load_embedder


def check_interface(embedder: models.Embedder, images: list) -> None:
    image_vectors = embedder.embed_images(images)
    text_vectors = embedder.embed_texts(["a whale", "", "the moon over the sea"])
    for vectors, n in ((image_vectors, len(images)), (text_vectors, 3)):
        assert vectors.dtype == np.float32
        assert vectors.shape == (n, embedder.dim)
        np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert embedder.embed_images([]).shape == (0, embedder.dim)
    assert embedder.embed_texts([]).shape == (0, embedder.dim)
    one_by_one = embedder.embed_images(images, batch_size=1)
    np.testing.assert_allclose(one_by_one, image_vectors, atol=1e-4)
    assert isinstance(embedder.fingerprint, str) and len(embedder.fingerprint) > 20
    with pytest.raises(TypeError):
        embedder.embed_texts("not a list")  # type: ignore[arg-type]


def test_openclip_checkpoint_file(openclip_checkpoint, some_images):
    import open_clip
    import torch

    name = f"openclip:ViT-B-32@{openclip_checkpoint['file']}"
    embedder = load_embedder(name, device="cpu")
    assert embedder.dim == 512
    check_interface(embedder, some_images)
    assert load_embedder(name, device="cpu") is embedder  # never loaded twice
    # Same vectors as open_clip itself gives.
    model, _, _ = open_clip.create_model_and_transforms(
        "ViT-B-32", pretrained=str(openclip_checkpoint["file"])
    )
    model.eval()
    with torch.inference_mode():
        expected = model.encode_text(open_clip.get_tokenizer("ViT-B-32")(["a whale"]))
    expected = torch.nn.functional.normalize(expected, dim=-1).numpy()
    np.testing.assert_allclose(embedder.embed_texts(["a whale"]), expected, atol=1e-5)
    # The local-dir form loads the same weights.
    local = load_embedder(f"openclip:local-dir:{openclip_checkpoint['local_dir']}", device="cpu")
    np.testing.assert_allclose(
        local.embed_images(some_images), embedder.embed_images(some_images), atol=1e-5
    )
    np.testing.assert_allclose(local.embed_texts(["a whale"]), expected, atol=1e-5)
    models.registry.forget_loaded()


def test_openclip_errors_say_what_was_looked_for(tmp_path):
    with pytest.raises(EmbedderLoadError, match=r"unreachable|local-dir"):
        load_embedder("openclip:ViT-B-32@laion2b_s34b_b79k", device="cpu")
    with pytest.raises(EmbedderLoadError, match="no pretrained tag"):
        load_embedder("openclip:ViT-B-32@no_such_tag", device="cpu")
    with pytest.raises(EmbedderLoadError, match="no such file"):
        load_embedder(f"openclip:ViT-B-32@{tmp_path}/missing.bin", device="cpu")
    with pytest.raises(EmbedderLoadError, match="no architecture"):
        load_embedder("openclip:ViT-Q-99@/x/y.bin", device="cpu")
    with pytest.raises(EmbedderLoadError, match="does not exist"):
        load_embedder(f"openclip:local-dir:{tmp_path}/nothing", device="cpu")
    with pytest.raises(EmbedderError, match="ARCH@TAG"):
        load_embedder("openclip:ViT-B-32", device="cpu")


@pytest.mark.parametrize("fixture", ["tiny_hf_clip", "tiny_hf_siglip"])
def test_hf_local_folder(fixture, request, some_images):
    import torch
    from transformers import AutoModel

    folder = request.getfixturevalue(fixture)
    embedder = load_embedder(f"hf:{folder}", device="cpu")
    check_interface(embedder, some_images)
    assert load_embedder(f"hf:{folder}", device="cpu") is embedder
    model = AutoModel.from_pretrained(folder, local_files_only=True).eval()
    pixels = embedder.preprocess_images(some_images[:1])
    with torch.inference_mode():
        out = model.get_image_features(pixel_values=pixels)
    out = getattr(out, "pooler_output", out)
    expected = torch.nn.functional.normalize(out, dim=-1).numpy()
    np.testing.assert_allclose(embedder.embed_images(some_images[:1]), expected, atol=1e-5)


def test_hf_errors_say_what_was_looked_for(tmp_path):
    with pytest.raises(EmbedderLoadError, match="hf:/path/to/DIR"):
        load_embedder("hf:openai/clip-vit-base-patch32", device="cpu")
    with pytest.raises(EmbedderLoadError, match="not a folder"):
        load_embedder(f"hf:{tmp_path}/missing", device="cpu")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(EmbedderLoadError, match="save_pretrained"):
        load_embedder(f"hf:{empty}", device="cpu")


def test_names_and_options_are_checked():
    with pytest.raises(EmbedderError, match="unknown embedder"):
        load_embedder("clip-please")
    with pytest.raises(EmbedderError, match="device"):
        load_embedder("default", device="tpu")
    with pytest.raises(EmbedderError, match="dtype"):
        load_embedder("default", device="cpu", dtype="int8")
    with pytest.raises(EmbedderError, match="unknown option"):
        load_embedder("default", device="cpu", colour="blue")
    with pytest.raises(EmbedderError, match="'default:' needs the path of a head"):
        load_embedder("default: ", device="cpu")


def test_dixit_ai_imports_without_models():
    import subprocess
    import sys

    code = (
        "import sys, dixit_ai, dixit_ai.decks, dixit_ai.cli.cache, dixit_ai.cli.train;"
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_loading_prints_one_line_not_transformers_bars(tiny_hf_clip, tmp_path, capfd):
    """transformers' own "Loading weights" bar is off while a model loads (the loader says what
    it loads in one line), and its setting is as it was afterwards."""
    import shutil

    from transformers.utils import logging as hf_logging

    folder = tmp_path / "copy"  # a folder no earlier test loaded (loaded embedders are kept)
    shutil.copytree(tiny_hf_clip, folder)
    assert hf_logging.is_progress_bar_enabled()
    load_embedder(f"hf:{folder}", device="cpu")
    assert "Loading weights" not in capfd.readouterr().err
    assert hf_logging.is_progress_bar_enabled()


def test_a_folder_without_its_tokenizer_is_refused(tiny_hf_clip, tmp_path):
    """transformers builds an empty tokenizer when a folder's tokenizer files are missing: every
    clue would get one vector. The load is refused, naming the folder."""
    import shutil

    folder = tmp_path / "no-tokenizer"
    shutil.copytree(tiny_hf_clip, folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt",
                 "special_tokens_map.json"):
        (folder / name).unlink(missing_ok=True)
    with pytest.raises(EmbedderLoadError, match=r"reads 'cat' and 'dog' as the same tokens.*"
                                                 r"tokenizer files are missing or broken"):
        load_embedder(f"hf:{folder}", device="cpu")


def test_a_tokenizer_larger_than_the_text_tower_is_refused(tmp_path):
    from tests.checkpoints import write_tiny_hf_clip

    folder = write_tiny_hf_clip(tmp_path / "small-vocab", vocab_size=1000)
    with pytest.raises(EmbedderLoadError, match="has 30522 tokens and the model's text tower "
                                                "embeds 1000: the tokenizer is another model's"):
        load_embedder(f"hf:{folder}", device="cpu")


def test_a_local_dir_without_weights_is_refused_not_initialised_at_random(
        openclip_checkpoint, tmp_path):
    """open_clip builds a folder without a weights file at random (a log line, no error): each
    load would be another model under one name. The load is refused."""
    folder = tmp_path / "no-weights"
    folder.mkdir()
    config = openclip_checkpoint["local_dir"] / "open_clip_config.json"
    (folder / "open_clip_config.json").write_bytes(config.read_bytes())
    message = r"the folder .*no-weights holds no weights file .*, and open_clip would initialise"
    with pytest.raises(EmbedderLoadError, match=message):
        load_embedder(f"openclip:local-dir:{folder}", device="cpu")


def test_a_moved_export_names_the_folder_its_text_tower_was_in(tmp_path):
    """An export names its HF text tower by its own folder (open_clip's format): moved, it
    pointed at a folder that is gone, and open_clip spoke of a hub repository id."""
    import json

    folder = tmp_path / "moved"
    folder.mkdir()
    gone = tmp_path / "where-it-was"
    (folder / "open_clip_config.json").write_text(json.dumps({"model_cfg": {"text_cfg": {
        "hf_model_name": str(gone), "hf_tokenizer_name": str(gone)}}}))
    (folder / "open_clip_model.safetensors").write_bytes(b"")
    with pytest.raises(EmbedderLoadError, match=r"names its text tower by the folder .*"
                                                r"where-it-was \(hf_model_name\), which does not "
                                                r"exist: the folder was exported there and has "
                                                r"been moved"):
        load_embedder(f"openclip:local-dir:{folder}", device="cpu")
