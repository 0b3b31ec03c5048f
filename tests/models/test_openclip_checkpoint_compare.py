"""A local open_clip checkpoint of another architecture is described by comparing its state dict
(read with ``weights_only=True``) with the architecture's own, key by key and shape by shape,
not by reading torch's error text: a torch whose ``load_state_dict`` words its error otherwise
(or whose open_clip fails elsewhere) still gets the short summary, not a wall of key names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("open_clip")

from models import load_embedder  # noqa: E402
from models.base import EmbedderLoadError  # noqa: E402


def _error(spec: str) -> str:
    with pytest.raises(EmbedderLoadError) as caught:
        load_embedder(spec, device="cpu")
    return str(caught.value)


@pytest.fixture
def other_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    """torch's ``load_state_dict`` refuses a state dict in words of another version."""
    original = torch.nn.Module.load_state_dict

    def refuse(self: Any, state_dict: Any, *args: Any, **kwargs: Any) -> Any:
        if "foo" in state_dict:
            raise RuntimeError("state_dict mismatch (reworded by a newer torch)")
        return original(self, state_dict, *args, **kwargs)

    monkeypatch.setattr(torch.nn.Module, "load_state_dict", refuse)


def test_another_architecture_is_summarised_whatever_torch_says(tmp_path: Path,
                                                                 other_wording: None) -> None:
    path = tmp_path / "other.pt"
    torch.save({"foo": torch.zeros(3), "visual.proj": torch.zeros(2, 2)}, path)
    message = _error(f"openclip:ViT-B-32@{path}")
    assert len(message) < 1500, message
    assert "does not fit the architecture ViT-B-32" in message and str(path) in message
    assert "1 tensor of the checkpoint that ViT-B-32 lacks ('foo')" in message
    assert "1 tensor of another shape ('visual.proj' [2, 2] where ViT-B-32 has [768, 512])" \
        in message
    assert "missing from the checkpoint" in message


def test_a_safetensors_checkpoint_of_another_architecture_is_summarised(tmp_path: Path) -> None:
    pytest.importorskip("safetensors")
    from safetensors.torch import save_file

    path = tmp_path / "other.safetensors"
    save_file({"foo": torch.zeros(3), "visual.proj": torch.zeros(2, 2)}, str(path))
    message = _error(f"openclip:ViT-B-32@{path}")
    assert "1 tensor of the checkpoint that ViT-B-32 lacks ('foo')" in message, message
    assert "1 tensor of another shape ('visual.proj' [2, 2]" in message


def test_a_checkpoint_of_no_tensors_is_named_so(tmp_path: Path) -> None:
    path = tmp_path / "numbers.pt"
    torch.save({"step": 3}, path)
    message = _error(f"openclip:ViT-B-32@{path}")
    assert "not a readable checkpoint: it holds a dict, not a state dict of tensors" in message
