"""A local open_clip checkpoint that cannot be used gets a short error saying what is wrong with
it: another architecture's (counted, not 14,000 characters of key names), corrupt, cut short,
empty. Never torch's advice to load it again with ``weights_only=False``."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("open_clip")

from models import load_embedder  # noqa: E402
from models.base import EmbedderLoadError  # noqa: E402


def _error(path: Path) -> str:
    with pytest.raises(EmbedderLoadError) as caught:
        load_embedder(f"openclip:ViT-B-32@{path}", device="cpu")
    return str(caught.value)


def test_a_checkpoint_of_another_architecture_is_summarised(tmp_path: Path) -> None:
    path = tmp_path / "other.pt"
    torch.save({"foo": torch.zeros(3), "visual.proj": torch.zeros(2, 2)}, path)
    message = _error(path)
    assert len(message) < 1500
    assert "does not fit" in message and "ViT-B-32" in message and str(path) in message
    assert "1 tensor of the checkpoint that ViT-B-32 lacks ('foo')" in message
    assert "1 tensor of another shape ('visual.proj'" in message
    assert "missing from the checkpoint" in message


@pytest.mark.parametrize("how", ["garbage", "truncated", "empty"])
def test_a_corrupt_checkpoint_is_named_corrupt_without_advising_weights_only_false(
    tmp_path: Path, how: str
) -> None:
    path = tmp_path / "model.pt"
    torch.save({"foo": torch.zeros(3)}, path)
    data = path.read_bytes()
    path.write_bytes({"garbage": bytes(range(256)) * 20, "truncated": data[: len(data) // 2],
                      "empty": b""}[how])
    message = _error(path)
    assert str(path) in message
    assert "weights_only` set to `False`" not in message and "file an issue" not in message
    assert "not a readable checkpoint" in message
