"""Fine-tuning open_clip and transformers CLIP/SigLIP models on a captioned folder deck.

Tiny random models (a 2-layer open_clip CLIP of width 32-64 in a ``local-dir`` folder, and the
tiny transformers CLIP and SigLIP of conftest) keep every run to a few seconds.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest

from models import EmbedderLoadError, load_embedder
from models.finetune import FinetuneArgs, FinetuneError, run
from models.finetune_model import Finetuner, TrainableModel

torch = pytest.importorskip("torch")

TINY_OPENCLIP = {
    "embed_dim": 32,
    "vision_cfg": {"image_size": 32, "layers": 2, "width": 64, "head_width": 32,
                   "patch_size": 8},
    "text_cfg": {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2,
                 "layers": 2},
}

WORDS = ["owl", "moon", "whale", "key", "ship", "tree", "clock", "fox", "cloud", "door",
         "lamp", "bird"]
COLOURS = [(200, 30, 30), (30, 200, 30), (30, 30, 200), (200, 200, 30), (200, 30, 200),
           (30, 200, 200), (120, 60, 10), (10, 60, 120), (240, 240, 240), (20, 20, 20),
           (150, 150, 60), (60, 150, 150)]


@pytest.fixture(autouse=True)
def _one_thread():
    """Tiny models run fastest on one thread (two threads spin against each other on a busy
    machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def tiny_openclip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A random tiny open_clip CLIP as a ``local-dir`` folder."""
    import open_clip

    folder = tmp_path_factory.mktemp("tiny_openclip")
    torch.manual_seed(0)
    model = open_clip.CLIP(**TINY_OPENCLIP)
    config = {"model_cfg": TINY_OPENCLIP,
              "preprocess_cfg": open_clip.get_model_preprocess_cfg(model)}
    (folder / "open_clip_config.json").write_text(json.dumps(config))
    torch.save(model.state_dict(), folder / "open_clip_pytorch_model.bin")
    return folder


def _write_cards(folder: Path, captions: bool) -> Path:
    from PIL import Image, ImageDraw

    folder.mkdir(parents=True, exist_ok=True)
    mapping = {}
    for i, (word, colour) in enumerate(zip(WORDS, COLOURS, strict=True)):
        image = Image.new("RGB", (48, 72), colour)
        ImageDraw.Draw(image).ellipse((4 + i, 8, 30 + i, 40 + 2 * i), fill=COLOURS[-1 - i])
        image.save(folder / f"card{i}.png")
        mapping[f"card{i}.png"] = [f"a {word}", f"the {word} in a dream"]
    if captions:
        mapping.pop("card11.png")  # one card without captions: skipped
        (folder / "captions.json").write_text(json.dumps(mapping))
    return folder


@pytest.fixture(scope="module")
def card_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_cards(tmp_path_factory.mktemp("cards"), captions=True)


def _args(model: str, deck: Path, out: Path, **overrides) -> FinetuneArgs:
    settings = {"model": model, "deck": f"folder:{deck}", "out": str(out), "device": "cpu",
                "steps": 3, "batch_size": 6, "learning_rate": 1e-3, "boards_per_card": 2,
                "mode": "full", "warmup": 0.0}
    settings.update(overrides)
    return FinetuneArgs(**settings)


def _fixed_batch_losses(model: TrainableModel, deck_folder: Path, mode: str,
                        steps: int = 6) -> list:
    from dixit_ai.decks import load_deck

    deck = load_deck(f"folder:{deck_folder}")
    tuner = Finetuner(model, lambda i: deck.image(i), mode=mode, layers=1, steps=100,
                      learning_rate=2e-3, warmup=0.0)
    cards = list(range(6))
    texts = [deck.captions(c)[0] for c in cards]
    return [tuner.step(cards, texts) for _ in range(steps)]


@pytest.mark.parametrize("mode", ["full", "lock-image", "lock-text", "last-layers"])
def test_loss_decreases_on_a_fixed_batch(tiny_openclip, card_folder, mode):
    model = TrainableModel(f"openclip:local-dir:{tiny_openclip}", "cpu")
    before = {n: p.detach().clone() for n, p in model.module.named_parameters()}
    losses = _fixed_batch_losses(model, card_folder, mode)
    assert losses[-1] < losses[0] - 1e-3, losses
    changed = {n for n, p in model.module.named_parameters() if not torch.equal(p, before[n])}
    assert "logit_scale" in changed
    image_changed = any(n.startswith("visual.") for n in changed)
    text_changed = any(not n.startswith("visual.") and n != "logit_scale" for n in changed)
    assert image_changed == (mode != "lock-image")
    assert text_changed == (mode != "lock-text")
    if mode == "last-layers":  # stems and the first block stay as they were
        assert not {"visual.conv1.weight", "token_embedding.weight",
                    "visual.transformer.resblocks.0.attn.in_proj_weight"} & changed
        assert {"visual.proj", "text_projection",
                "transformer.resblocks.1.mlp.c_fc.weight"} <= changed


def test_siglip_uses_the_sigmoid_loss(tiny_hf_siglip, card_folder):
    model = TrainableModel(f"hf:{tiny_hf_siglip}", "cpu")
    assert model.sigmoid
    losses = _fixed_batch_losses(model, card_folder, "full", steps=5)
    assert losses[-1] < losses[0]


def test_openclip_run_saves_a_checkpoint_the_backend_loads(tiny_openclip, card_folder,
                                                           tmp_path):
    name = f"openclip:local-dir:{tiny_openclip}"
    out = tmp_path / "tuned"
    assert run(_args(name, card_folder, out)) == 0
    card = json.loads((out / "finetune_card.json").read_text())
    assert card["load_with"] == [f"openclip:local-dir:{out}"]
    assert card["deck"]["captioned"] == 11 and card["deck"]["without_captions"] == 1
    assert card["deck"]["train"] + card["deck"]["held_out"] == 11
    assert card["reload_check"]["max_abs_difference"] < 1e-4
    for when in ("before", "after"):
        assert 0 <= card["figures"][when]["held_out"]["boards"]["accuracy"] <= 1
    assert (out / "MODEL_CARD.md").read_text().startswith("# Model card")
    assert len((out / "history.csv").read_text().splitlines()) == 4
    tuned = load_embedder(f"openclip:local-dir:{out}", device="cpu")
    original = load_embedder(name, device="cpu")
    assert tuned.fingerprint != original.fingerprint
    # The card names both models by fingerprint, the boards as they were (2 held-out cards:
    # boards of 2, not --board-size's 6), and a command that runs these settings again.
    assert card["base_fingerprint"] == original.fingerprint
    assert card["model_fingerprint"] == tuned.fingerprint
    assert card["deck"]["held_out"] == 2 and card["evaluation_board_size"] == 2
    markdown = (out / "MODEL_CARD.md").read_text()
    assert original.fingerprint in markdown and "boards of 2 held-out cards" in markdown
    command = card["command"].split()
    assert command[:3] == ["dixit-ai", "train", "finetune"] and "--out" not in command
    for flag, value in (("--steps", "3"), ("--batch-size", "6"), ("--boards-per-card", "2"),
                        ("--device", "cpu")):
        assert command[command.index(flag) + 1] == value, flag
    texts = ["a whale", "the moon in a dream"]
    assert not np.allclose(tuned.embed_texts(texts), original.embed_texts(texts), atol=1e-4)
    # Reproducible: the same seed gives the same loss history.
    again = tmp_path / "again"
    run(_args(name, card_folder, again))
    assert (again / "history.csv").read_text() == (out / "history.csv").read_text()



def test_two_runs_in_the_same_second_save_into_two_folders(tiny_openclip, card_folder, tmp_path,
                                                           monkeypatch):
    """Without --out a run saves into ``RUNS_DIR/EXP_NAME__SEED__TIME``; that folder was made
    with ``exist_ok=True``, so a second run started in the same second saved its model over the
    first's. Each run now has its own (``-2``, ``-3``, ... on a collision), made before training
    and named in the run's first line."""
    import time

    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.25)
    name = f"openclip:local-dir:{tiny_openclip}"
    for steps in (1, 2):
        settings = _args(name, card_folder, tmp_path, runs_dir=str(tmp_path), exp_name="tune",
                         steps=steps)
        assert run(dataclasses.replace(settings, out="")) == 0
    first, second = tmp_path / "tune__0__1700000000", tmp_path / "tune__0__1700000000-2"
    assert sorted(tmp_path.iterdir()) == [first, second]
    for folder, steps in ((first, 1), (second, 2)):  # each run's model and card its own
        card = json.loads((folder / "finetune_card.json").read_text())
        assert card["load_with"] == [f"openclip:local-dir:{folder}"]
        assert len((folder / "history.csv").read_text().splitlines()) == steps + 1


def test_a_runs_dir_that_is_a_file_is_refused(tiny_openclip, card_folder, tmp_path):
    runs = tmp_path / "runs"
    runs.write_text("a file")
    settings = _args(f"openclip:local-dir:{tiny_openclip}", card_folder, tmp_path,
                     runs_dir=str(runs), steps=1)
    with pytest.raises(FinetuneError,
                       match=f"^--runs-dir {re.escape(str(runs))} is a file, not a folder: "):
        run(dataclasses.replace(settings, out=""))
    assert runs.read_text() == "a file" and [p.name for p in tmp_path.iterdir()] == ["runs"]

@pytest.mark.parametrize("fixture", ["tiny_hf_clip", "tiny_hf_siglip"])
def test_hf_run_saves_a_folder_the_backend_loads(fixture, request, card_folder, tmp_path):
    folder = request.getfixturevalue(fixture)
    out = tmp_path / "tuned"
    assert run(_args(f"hf:{folder}", card_folder, out, mode="lock-image", steps=2)) == 0
    card = json.loads((out / "finetune_card.json").read_text())
    assert card["load_with"] == [f"hf:{out}"]
    assert card["loss"].startswith("sigmoid" if "siglip" in fixture else "symmetric")
    tuned = load_embedder(f"hf:{out}", device="cpu")
    original = load_embedder(f"hf:{folder}", device="cpu")
    texts = ["a whale", "the moon in a dream"]
    assert not np.allclose(tuned.embed_texts(texts), original.embed_texts(texts), atol=1e-4)
    images = [tuned_image for tuned_image in _some_cards(card_folder)]
    np.testing.assert_allclose(  # lock-image: the image tower is unchanged
        tuned.embed_images(images), original.embed_images(images), atol=1e-5
    )


def _some_cards(folder: Path) -> list:
    from dixit_ai.decks import load_deck

    deck = load_deck(f"folder:{folder}")
    return [deck.image(c) for c in deck.card_ids[:3]]


def test_bad_input_is_refused_clearly(tiny_openclip, tmp_path):
    name = f"openclip:local-dir:{tiny_openclip}"
    bare = _write_cards(tmp_path / "bare", captions=False)
    with pytest.raises(FinetuneError, match=r"no captions.*captions\.json"):
        run(_args(name, bare, tmp_path / "a"))
    with pytest.raises(FinetuneError, match=r"unknown mode 'wiggle'.*lock-image"):
        run(_args(name, bare, tmp_path / "b", mode="wiggle"))
    with pytest.raises(EmbedderLoadError, match="does not exist"):
        TrainableModel(f"openclip:local-dir:{tmp_path}/nothing", "cpu")
    with pytest.raises(EmbedderLoadError, match="not a folder"):
        TrainableModel(f"hf:{tmp_path}/nothing", "cpu")
    with pytest.raises(FinetuneError, match="default model"):
        TrainableModel("default", "cpu")
    with pytest.raises(FinetuneError, match="--model is required"):
        run(FinetuneArgs(deck=f"folder:{bare}"))


def test_train_commands_dispatch_to_finetune(tiny_openclip, card_folder, tmp_path, capsys):
    from dixit_ai.cli import main

    out = tmp_path / "via_align"
    common = ["--deck", f"folder:{card_folder}", "--steps", "1", "--batch-size", "4",
              "--boards-per-card", "1", "--device", "cpu", "--mode", "lock-text"]
    name = f"openclip:local-dir:{tiny_openclip}"
    assert main(["train", "align", "--model", name, "--out", str(out), *common]) == 0
    card = json.loads((out / "finetune_card.json").read_text())
    assert card["settings"]["steps"] == 1 and card["settings"]["mode"] == "lock-text"
    out = tmp_path / "via_finetune"
    assert main(["train", "finetune", "--model", name, "--out", str(out), *common]) == 0
    assert (out / "finetune_card.json").is_file()
    capsys.readouterr()
    assert main(["train", "align", "--model", name, "--write-head", *common]) == 2
    assert "error: --write-head sets the default model's head" in capsys.readouterr().err
    assert main(["train", "align", "--deck", f"folder:{card_folder}"]) == 2
    assert re.search(r"error: --deck.*needs --model", capsys.readouterr().err)


@pytest.mark.parametrize("command", ["align", "finetune"])
def test_train_out_that_is_a_file_is_refused_with_the_commands_message(
        command, tiny_openclip, card_folder, tmp_path, capsys):
    from dixit_ai.cli import main

    out = tmp_path / "model"
    out.write_text("a file")
    assert main(["train", command, "--model", f"openclip:local-dir:{tiny_openclip}", "--out",
                 str(out), "--deck", f"folder:{card_folder}", "--steps", "1"]) == 2
    assert (f"--out {out} is a file, not a folder: give the path of a folder (an existing one, "
            "or one to make)") in capsys.readouterr().err
    assert out.read_text() == "a file" and [p.name for p in tmp_path.iterdir()] == ["model"]


def test_training_script_dispatches_to_finetune(tiny_hf_clip, card_folder, tmp_path,
                                                monkeypatch):
    import runpy
    import sys

    out = tmp_path / "via_script"
    script = Path(__file__).resolve().parents[2] / "scripts" / "train_default_model.py"
    monkeypatch.setattr(sys, "argv", [
        str(script), "--model", f"hf:{tiny_hf_clip}", "--deck", f"folder:{card_folder}",
        "--steps", "1", "--batch-size", "4", "--boards-per-card", "1", "--device", "cpu",
        "--mode", "last-layers", "--layers", "1", "--out", str(out),
    ])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(script), run_name="__main__")
    assert done.value.code == 0
    card = json.loads((out / "finetune_card.json").read_text())
    assert card["load_with"] == [f"hf:{out}"] and card["settings"]["layers"] == 1
    assert card["trained_groups"]["image"] and card["trained_groups"]["text"]


def test_openclip_with_an_hf_text_tower_saves_a_self_contained_folder(card_folder, tmp_path):
    """open_clip's CustomTextCLIP with a transformers text tower (as the exported default model
    has): the fine-tuned folder loads after the original folders are gone."""
    import shutil

    import open_clip
    from transformers import AutoTokenizer, BertConfig, BertModel

    from models.default_model import minilm_folder

    bert = tmp_path / "bert"
    torch.manual_seed(0)
    BertModel(BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=32)).save_pretrained(bert)
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_folder()), local_files_only=True)
    tokenizer.save_pretrained(bert)
    source = tmp_path / "source"
    tokenizer.save_pretrained(source)
    model_cfg = {
        "embed_dim": 32,
        "vision_cfg": TINY_OPENCLIP["vision_cfg"],
        "text_cfg": {"hf_model_name": str(bert), "hf_tokenizer_name": str(bert),
                     "hf_pooler_type": "mean_pooler", "hf_proj_type": "linear",
                     "context_length": 16},
    }
    model = open_clip.CustomTextCLIP(**model_cfg)
    (source / "open_clip_config.json").write_text(json.dumps(
        {"model_cfg": {**model_cfg, "custom_text": True},
         "preprocess_cfg": open_clip.get_model_preprocess_cfg(model)}))
    torch.save(model.state_dict(), source / "open_clip_pytorch_model.bin")
    out = tmp_path / "tuned"
    args = _args(f"openclip:local-dir:{source}", card_folder, out, mode="last-layers", layers=1,
                 steps=2)
    assert run(args) == 0
    card = json.loads((out / "finetune_card.json").read_text())
    trained = _trained_names(f"openclip:local-dir:{source}", "last-layers", 1)
    assert any(n.startswith("text.transformer.encoder.layer.1.") for n in trained)
    assert not any(n.startswith(("text.transformer.encoder.layer.0.",
                                 "text.transformer.embeddings.")) for n in trained)
    assert card["trained_groups"]["text"] and card["trained_groups"]["image"]
    texts = ["a whale", "an owl"]
    before = load_embedder(f"openclip:local-dir:{out}", device="cpu").embed_texts(texts)
    shutil.rmtree(bert)
    shutil.rmtree(source)
    from models.openclip_backend import OpenClipEmbedder

    again = OpenClipEmbedder(f"local-dir:{out}", device="cpu")
    np.testing.assert_allclose(again.embed_texts(texts), before, atol=1e-5)


def _trained_names(name: str, mode: str, layers: int) -> list[str]:
    model = TrainableModel(name, "cpu")
    groups = model.select(mode, layers, fixed_scale=False)
    return [n for names in groups.values() for n in names]


def test_an_out_folder_with_anything_in_it_is_refused(tiny_hf_clip, card_folder, tmp_path):
    """A fine-tune writes its model into --out: a folder holding a model (the base model's own,
    or an earlier fine-tune) is refused before anything loads, and left as it was."""
    import shutil

    base = tmp_path / "base"
    shutil.copytree(tiny_hf_clip, base)
    before = {path.name: path.read_bytes() for path in base.iterdir()}
    with pytest.raises(FinetuneError, match=rf"--out {re.escape(str(base))} is not empty: a "
                                            r"fine-tune would write its model over"):
        run(_args(f"hf:{base}", card_folder, base, steps=1))
    assert {path.name: path.read_bytes() for path in base.iterdir()} == before
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(_args(f"hf:{base}", card_folder, empty, mode="lock-image", steps=1)) == 0
