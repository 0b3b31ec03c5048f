"""Progress bars written to a log file (stderr not a terminal) redraw about once a minute, not
ten times a second: the embedders', the default model's training steps and the deck reader's
bars, and every tqdm bar the package and its scripts draw.

tqdm reads a fake clock that moves one second at each read, so the count of redraws does not
depend on how fast the machine is.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from tests.models.fakes import CountingEmbedder
from tests.progress_log import stderr_to_a_log

ROOT = Path(__file__).resolve().parents[2]


def redraws(path: Path, bar: str) -> int:
    """How many times the bar named ``bar`` was drawn (each draw starts with a carriage
    return; read as bytes, which read_text would turn into newlines)."""
    return path.read_bytes().decode().count(f"\r{bar}:")


def test_an_embedder_s_bar_redraws_rarely_in_a_log(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "stderr.log"
    with stderr_to_a_log(log, monkeypatch):
        CountingEmbedder().embed_texts([f"clue {i}" for i in range(200)], batch_size=1,
                                       progress=True)
    assert 1 <= redraws(log, "embedding texts") <= 8  # 200 batches, each a second or more


def test_the_default_model_s_text_bar_redraws_rarely_in_a_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from models.align import embed_unique_texts

    class TextTower:
        dim = 4

        def encode(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), self.dim), dtype=np.float32)

    log = tmp_path / "stderr.log"
    with stderr_to_a_log(log, monkeypatch):
        embed_unique_texts(TextTower(), [f"caption {i}" for i in range(200)], batch_size=1)  # type: ignore[arg-type]
    assert 1 <= redraws(log, "text embeddings") <= 8


def test_the_deck_reader_s_bar_redraws_rarely_in_a_log(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from dixit_ai.cli.deck import hash_cards
    from dixit_ai.decks import load_deck

    monkeypatch.setenv("DIXIT_AI_CACHE_DIR", str(tmp_path / "cache"))
    deck = load_deck("dream:size=120,seed=11")
    log = tmp_path / "stderr.log"
    with stderr_to_a_log(log, monkeypatch):
        hash_cards(deck)
    assert 1 <= redraws(log, f"reading the 120 cards of {deck.name}") <= 8


def tqdm_calls_without_an_interval() -> list[str]:
    """``file:line`` of each ``tqdm(...)`` call in the package and its scripts that leaves
    ``mininterval`` at tqdm's default (ten redraws a second, whatever stderr is)."""
    found = []
    for folder in ("dixit_ai", "models", "scripts", "examples", "envs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (isinstance(node, ast.Call)
                        and getattr(node.func, "id", getattr(node.func, "attr", None)) == "tqdm"
                        and not any(k.arg == "mininterval" for k in node.keywords)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_bar_sets_its_interval_from_its_stream() -> None:
    """Each bar takes ``mininterval=progress_interval(sys.stderr)`` (dixit_ai.reporting): the
    study scripts' and trainers' bars, which the tests above do not draw, included."""
    assert tqdm_calls_without_an_interval() == []
