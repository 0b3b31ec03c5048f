"""The default towers exported as an open_clip ``local-dir`` model load in open_clip and agree
with the default embedder; heads that open_clip cannot represent are refused, naming why."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")
open_clip = pytest.importorskip("open_clip")

from models import load_embedder  # noqa: E402
from models.default_head import AlignmentHead  # noqa: E402
from models.default_model import default_head_path  # noqa: E402
from models.openclip_export import ExportError, export_default_openclip  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _linear_head(tmp_path):
    """The committed head's linear trained path, with no zero-shot path, gate or name pull."""
    head = AlignmentHead.load(default_head_path())
    linear = dataclasses.replace(head, blend=0.0, gate_low=float("inf"),
                                 gate_high=float("inf"), snap_weight=0.0, name_embeddings=None)
    path = tmp_path / "linear_head.npz"
    linear.save(path)
    return path


def test_exported_model_matches_the_default_embedder(tmp_path):
    from dixit_ai.decks import load_deck

    head = _linear_head(tmp_path)
    record = export_default_openclip(tmp_path / "export", head)
    assert record["exact"] and not record["dropped"]
    name = f"local-dir:{tmp_path / 'export'}"
    model, _, preprocess = open_clip.create_model_and_transforms(name)
    tokenizer = open_clip.get_tokenizer(name)
    model.eval()
    deck = load_deck("dream:size=3,seed=4242")
    images = [deck.image(card) for card in deck.card_ids]
    texts = ["a whale under the moon", "an owl", "ocean"]
    with torch.inference_mode():
        image_vectors = model.encode_image(torch.stack([preprocess(i) for i in images]),
                                           normalize=True).numpy()
        text_vectors = model.encode_text(tokenizer(texts), normalize=True).numpy()
    reference = load_embedder(f"default:{head}", device="cpu")
    image_cos = (image_vectors * reference.embed_images(images)).sum(axis=1)
    text_cos = (text_vectors * reference.embed_texts(texts)).sum(axis=1)
    assert image_cos.min() > 0.99 and text_cos.min() > 0.99, (image_cos, text_cos)
    # dixit-ai's own open_clip backend loads the folder too.
    embedder = load_embedder(f"openclip:{name}", device="cpu")
    np.testing.assert_allclose(embedder.embed_texts(texts), text_vectors, atol=1e-4)
    assert (tmp_path / "export" / "EXPORT.md").read_text().startswith("# dixit-ai default")


def test_the_committed_head_is_refused_with_reasons(tmp_path):
    from models.openclip_export import head_obstacles

    head = AlignmentHead.load(default_head_path())
    if not head_obstacles(head):
        pytest.skip("the committed head is exactly representable; nothing to refuse")
    with pytest.raises(ExportError) as refused:
        export_default_openclip(tmp_path / "export")
    message = str(refused.value)
    if head.blend > 0:
        assert "zero-shot" in message
    if np.isfinite(head.gate_low):
        assert "gate" in message
    assert "--trained-path-only" in message
    assert not (tmp_path / "export").exists()
