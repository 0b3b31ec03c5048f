"""An optional local text generator proposing clues: any ``transformers`` causal language model.

For each hand card the generator is prompted with the card's best-matching vocabulary items and
proposes a few short clues (beam search: deterministic). Its proposals join the candidates; the
storyteller's calibrated selection picks among all of them, whatever their source. Enable it with
``text_generator: PATH`` in an agent's configuration (a folder written by ``save_pretrained``,
read with ``local_files_only``). Needs ``transformers`` and torch (the ``models`` extra).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

PROMPT = "A short, evocative Dixit clue for a picture of {words}:"


def clean_clue(text: str, max_words: int = 5, max_chars: int = 40) -> str | None:
    """A generated text turned into a clue: first line, letters and spaces, a few words."""
    line = text.strip().split("\n")[0].lower()
    words = re.sub(r"[^a-z' -]+", " ", line).split()[:max_words]
    clue = " ".join(words).strip(" -'")
    return clue if clue and len(clue) <= max_chars else None


class LocalClueGenerator:
    """Proposes clues with a local causal language model.

    Args:
        path: A folder holding the model and its tokenizer.
        n_candidates: Clues proposed per hand card.
        top_words: Vocabulary items in the prompt.
        max_new_tokens: Tokens generated per clue.
    """

    def __init__(self, path: str, *, n_candidates: int = 4, top_words: int = 5,
                 max_new_tokens: int = 8) -> None:
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            from models._torch_utils import quiet_weight_loading
        except ImportError as error:  # pragma: no cover
            raise ImportError(
                "the clue generator needs transformers: pip install 'dixit-ai[models]'"
            ) from error
        self.path = str(path)
        self.tokenizer = AutoTokenizer.from_pretrained(self.path, local_files_only=True)
        with quiet_weight_loading():
            self.model = AutoModelForCausalLM.from_pretrained(self.path, local_files_only=True)
        self.model.eval()
        self.n_candidates = n_candidates
        self.top_words = top_words
        self.max_new_tokens = max_new_tokens
        self._cache: dict[bytes, list[str]] = {}

    def propose_for_words(self, words: list[str]) -> list[str]:
        """Clues proposed for a prompt made of ``words``."""
        import torch

        prompt = PROMPT.format(words=", ".join(words))
        inputs = self.tokenizer(prompt, return_tensors="pt")
        pad = self.tokenizer.pad_token_id
        if pad is None:
            pad = self.tokenizer.eos_token_id or 0
        with torch.no_grad():
            output = self.model.generate(
                input_ids=inputs["input_ids"], attention_mask=inputs["attention_mask"],
                max_new_tokens=self.max_new_tokens, num_beams=self.n_candidates,
                num_return_sequences=self.n_candidates, do_sample=False, pad_token_id=pad)
        start = inputs["input_ids"].shape[1]
        clues = []
        for row in output:
            clue = clean_clue(str(self.tokenizer.decode(row[start:], skip_special_tokens=True)))
            if clue is not None and clue not in clues:
                clues.append(clue)
        return clues

    def propose(self, resources: Any, hand_vectors: np.ndarray) -> list[str]:
        """Clues for every hand card (remembered per card)."""
        proposals: list[str] = []
        for vector in hand_vectors:
            key = np.asarray(vector, dtype=np.float32).tobytes()
            if key not in self._cache:
                sims = resources.vocabulary_vectors @ vector
                best = np.argsort(-sims, kind="stable")[: self.top_words]
                self._cache[key] = self.propose_for_words(
                    [resources.vocabulary.texts[i] for i in best])
            proposals.extend(self._cache[key])
        return proposals
