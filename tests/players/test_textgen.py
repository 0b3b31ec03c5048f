"""The optional clue generator, with a tiny randomly initialised causal language model."""

from __future__ import annotations

import numpy as np
import pytest

from dixit_ai import play_game
from models.players import ClipAgent
from models.players.textgen import LocalClueGenerator, clean_clue

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory):
    from transformers import AutoTokenizer, GPT2Config, GPT2LMHeadModel

    from models.default_model import minilm_folder

    folder = tmp_path_factory.mktemp("tiny_lm")
    tokenizer = AutoTokenizer.from_pretrained(str(minilm_folder()), local_files_only=True)
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=tokenizer.vocab_size, n_positions=64, n_embd=16, n_layer=1,
                        n_head=2, bos_token_id=tokenizer.cls_token_id,
                        eos_token_id=tokenizer.sep_token_id)
    GPT2LMHeadModel(config).save_pretrained(folder)
    return folder


def test_clean_clue():
    assert clean_clue("  The Lonely Lighthouse!\nmore") == "the lonely lighthouse"
    assert clean_clue("12 34") is None


def test_generator_proposes_and_the_storyteller_can_pick_them(tiny_lm, resources):
    generator = LocalClueGenerator(str(tiny_lm), n_candidates=3, max_new_tokens=4)
    clues = generator.propose(resources, resources.card_vectors[:2])
    assert clues and all(isinstance(c, str) and 0 < len(c) <= 40 for c in clues)
    assert generator.propose(resources, resources.card_vectors[:2]) == clues  # deterministic
    agents = [ClipAgent(deck=resources, calibration=None, n_simulations=4, pair_clues=0,
                        text_generator=str(tiny_lm), name=f"g{s}") for s in range(4)]
    record = play_game(agents, edition="refresh-2021", deck=list(resources.card_ids), seed=0,
                       max_rounds=2)
    assert record.failures == [] and len(record.rounds) == 2
    assert np.isfinite(record.rounds[0].predicted_guess_rate)
