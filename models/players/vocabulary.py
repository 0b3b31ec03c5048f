"""The clue vocabulary shipped as data, and compositional pair clues built from it.

The vocabulary (``models/data/clue_vocabulary.txt``) holds evocative English words and short
phrases in sections (``## noun``, ``## adjective``, ``## mood``, ``## place``, ``## myth``,
``## action``, ``## title``). Pair clues combine two items: an adjective with a noun
(``"lonely lighthouse"``) or two nouns as ``"the N of N"`` (``"the sound of snow"``).

>>> vocabulary = load_vocabulary()
>>> len(vocabulary) >= 3000, "lighthouse" in vocabulary.texts
(True, True)
>>> compose_pair("lonely", "adjective", "lighthouse", "noun")
'lonely lighthouse'
>>> compose_pair("echo", "noun", "snow", "noun")
'the echo of snow'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
DEFAULT_VOCABULARY = DATA_DIR / "clue_vocabulary.txt"

#: Categories whose items may open a pair as a modifier, and those that may close it.
MODIFIER_CATEGORIES = ("adjective",)
HEAD_CATEGORIES = ("noun", "mood")


@dataclass(frozen=True)
class Vocabulary:
    """A list of clue texts with their categories.

    Attributes:
        texts: The clues, unique, in file order.
        categories: The category of each clue (``"noun"``, ``"adjective"``, ...).
        name: Where it came from (a path, or ``"inline"``).
        fingerprint: SHA-256 of the texts and categories (part of the players' cache keys).
    """

    texts: tuple[str, ...]
    categories: tuple[str, ...]
    name: str
    fingerprint: str

    def __len__(self) -> int:
        return len(self.texts)

    @classmethod
    def from_texts(cls, texts: list[str] | tuple[str, ...], categories: list[str] | None = None,
                   name: str = "inline") -> Vocabulary:
        """A vocabulary from a list (duplicates dropped; categories default to ``"noun"``).

        Raises:
            ValueError: no texts, or categories of another length.
        """
        cats = list(categories) if categories is not None else ["noun"] * len(texts)
        if len(cats) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(cats)} categories")
        seen: dict[str, str] = {}
        for text, cat in zip(texts, cats, strict=True):
            text = " ".join(str(text).split())
            if text and text not in seen:
                seen[text] = cat
        if not seen:
            raise ValueError("a vocabulary needs at least one clue")
        digest = hashlib.sha256(
            "\n".join(f"{c}\t{t}" for t, c in seen.items()).encode()).hexdigest()
        return cls(tuple(seen), tuple(seen.values()), name, digest)

    def limit(self, size: int | None) -> Vocabulary:
        """The first ``size`` clues, every category represented in proportion (``None``: all)."""
        if size is None or size >= len(self.texts):
            return self
        if size < 1:
            raise ValueError(f"a vocabulary size must be at least 1, not {size}")
        # Round-robin over categories so a small vocabulary still has adjectives to pair.
        by_cat: dict[str, list[str]] = {}
        for text, cat in zip(self.texts, self.categories, strict=True):
            by_cat.setdefault(cat, []).append(text)
        chosen: list[tuple[str, str]] = []
        index = 0
        while len(chosen) < size:
            for cat, items in by_cat.items():
                if index < len(items) and len(chosen) < size:
                    chosen.append((items[index], cat))
            index += 1
        return Vocabulary.from_texts([t for t, _ in chosen], [c for _, c in chosen],
                                     f"{self.name}[:{size}]")


def load_vocabulary(source: str | Path | list[str] | None = None,
                    size: int | None = None) -> Vocabulary:
    """Load a vocabulary.

    Args:
        source: ``None``/``"default"`` (the shipped file), a path to a file in the format of the
            shipped one, or a list of clue texts.
        size: Keep only this many clues (see :meth:`Vocabulary.limit`); ``None``: all.

    Raises:
        FileNotFoundError: the path does not exist.
        ValueError: the file holds no clues.
    """
    if isinstance(source, list | tuple):
        return Vocabulary.from_texts(list(source)).limit(size)
    path = DEFAULT_VOCABULARY if source in (None, "default") else Path(str(source))
    texts: list[str] = []
    categories: list[str] = []
    category = "noun"
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("## "):
            category = line[3:].strip()
        elif line and not line.startswith("#"):
            texts.append(line)
            categories.append(category)
    name = "default" if path == DEFAULT_VOCABULARY else str(path)
    return Vocabulary.from_texts(texts, categories, name).limit(size)


def compose_pair(first: str, first_category: str, second: str, second_category: str) -> str | None:
    """A pair clue from two vocabulary items, or ``None`` if they do not compose.

    An adjective before a noun or mood gives ``"ADJ NOUN"``; two single-word nouns (or a noun
    and a mood) give ``"the NOUN of NOUN"``. Multi-word phrases do not compose.
    """
    if first == second or " " in first or " " in second:
        return None
    if first_category in MODIFIER_CATEGORIES and second_category in HEAD_CATEGORIES:
        return f"{first} {second}"
    if first_category in HEAD_CATEGORIES and second_category in HEAD_CATEGORIES:
        return f"the {first} of {second}"
    return None
