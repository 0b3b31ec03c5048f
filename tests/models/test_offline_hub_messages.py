"""A hub model that is not in the local cache, with HF_HUB_OFFLINE=1, fails in one clean sentence
that names the model and says that the hub is switched off (not "if it is unreachable").

Found walking the README as a new user: the library's own message ends in a full stop, and ours
added another ("... make sure your Internet connection is on.. If the model hub is unreachable
from this machine (no network, or HF_HUB_OFFLINE=1), ..."), which left the reader to guess which.
"""

from __future__ import annotations

import pytest

from models import EmbedderLoadError, load_embedder

pytest.importorskip("torch")


@pytest.mark.parametrize(("name", "model"), [
    ("openclip:ViT-B-32@laion2b_s34b_b79k", "laion2b_s34b_b79k"),
    ("hf:openai/clip-vit-base-patch32", "openai/clip-vit-base-patch32"),
])
def test_an_uncached_hub_model_offline_is_one_clean_message(name, model, monkeypatch):
    pytest.importorskip(name.partition(":")[0].replace("hf", "transformers")
                        .replace("openclip", "open_clip"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderLoadError) as caught:
        load_embedder(name, device="cpu")
    message = str(caught.value)
    assert model in message
    assert ".." not in message
    assert "HF_HUB_OFFLINE=1 is set" in message


def test_open_clips_own_error_line_is_kept_out_of_stderr_and_the_process_logging(monkeypatch,
                                                                                capfd):
    """open_clip logs the failed download with ``logging.error`` before raising: with no handler
    on the root logger that printed ``ERROR:root:...`` before our message and configured a
    handler for the whole process (every later warning of any library printed that way)."""
    import logging

    pytest.importorskip("open_clip")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    with pytest.raises(EmbedderLoadError) as caught:
        load_embedder("openclip:ViT-B-32@laion2b_s34b_b79k", device="cpu")
    assert "ERROR:root" not in capfd.readouterr().err
    assert root.handlers == []
    assert "Failed to download weights for tag 'laion2b_s34b_b79k'" in str(caught.value)
