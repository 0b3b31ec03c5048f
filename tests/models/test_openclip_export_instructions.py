"""The exported folder's EXPORT.md says how to load it so that its vectors are the model's.

Found walking the README as a new user: ``open_clip.create_model_and_transforms("local-dir:...")``
returns the model in training mode, where the EfficientNet tower's batch normalisation uses the
batch's own statistics; an image embedded that way had cosine 0.29 with the same image through
``load_embedder("openclip:local-dir:...")``. EXPORT.md gave the call without ``model.eval()``.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
open_clip = pytest.importorskip("open_clip")

from models.openclip_export import export_default_openclip  # noqa: E402


def test_export_md_loads_the_model_in_eval_mode_which_the_image_tower_needs(tmp_path):
    from dixit_ai.decks import load_deck

    export_default_openclip(tmp_path / "export", trained_path_only=True)
    text = (tmp_path / "export" / "EXPORT.md").read_text(encoding="utf-8")
    assert "model.eval()" in text

    # Why it matters: in training mode one image's vector is another.
    model, _, preprocess = open_clip.create_model_and_transforms(f"local-dir:{tmp_path / 'export'}")
    image = preprocess(load_deck("dream:size=1,seed=4242").image(0)).unsqueeze(0)
    with torch.inference_mode():
        training = model.encode_image(image, normalize=True)
        model.eval()
        evaluation = model.encode_image(image, normalize=True)
    assert float((training * evaluation).sum()) < 0.9
