"""Embeddings that ship with the package: the default model's clue vocabulary and dream deck.

A fresh install would otherwise load torch and the default model and spend about 12 s embedding
the 84 cards and 3,527 clues before a CLIP bot's first move. These vectors are computed once,
by ``scripts/build_shipped_embeddings.py``, and stored under
``models/data/embeddings/<embedder fingerprint>/``::

    manifest.json   format, the embedder's fingerprint and description, one entry per file
                    (SHA-256, row count), and the decks whose card hashes are known
    texts.npz       keys: (n, 32) uint8 SHA-256 digests of the texts; vectors: (n, dim) float32
    images.npz      keys: (n, 32) uint8 content hashes of the card images; vectors: as above

A file identical to a sibling folder's own (two family members with the same text tower embed
every text alike) is written once: the manifest's entry names ``../<fingerprint>/texts.npz``,
with the same SHA-256 check.

The manifest and each file are verified when first read: the folder, the manifest and the
embedder asking must have the same fingerprint, and each file must hash to its recorded SHA-256;
a file that fails is not used (a :class:`ShippedEmbeddingsWarning` says so) and the vectors are
computed as if nothing shipped. A deck's card hashes are used in place of drawing its images only
when the deck is the same spec drawn by the same renderer and library versions (the
``environment`` of :mod:`dixit_ai.decks.dream`, which includes the renderer version) and the
hashes combine into the recorded deck fingerprint.

Vectors are stored as float32, exactly as the model gave them, so a player decides the same with
shipped vectors as with vectors it computed: float16 (half the size) was tried and changes
decisions (the storytellers' choices hinge on guess-rate differences smaller than float16's
rounding): ``scripts/build_shipped_embeddings.py --dtype float16`` shows it, and refuses to
write. The check's figures are recorded in the manifest; ``tests/models/test_shipped.py`` checks
that shipped vectors equal the model's.
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.base import l2_normalise

FORMAT = "dixit-ai shipped embeddings v1"
SHIPPED_DIR = Path(__file__).resolve().parent / "data" / "embeddings"
"""Where the shipped embeddings live (one folder per embedder fingerprint)."""

_lock = threading.Lock()
_tables: dict[tuple[str, str], _ShippedTable | None] = {}
_manifests: dict[str, dict[str, Any] | None] = {}
_files: dict[tuple[str, str], _ShippedTable] = {}


class ShippedEmbeddingsWarning(UserWarning):
    """A shipped embedding file failed its check and is not used."""


@dataclass
class _ShippedTable:
    index: dict[str, int]
    vectors: np.ndarray  # float32 (or float16)


def _warn(message: str) -> None:
    warnings.warn(message, ShippedEmbeddingsWarning, stacklevel=4)


def manifest(fingerprint: str, root: Path | None = None) -> dict[str, Any] | None:
    """The verified manifest of one fingerprint's shipped embeddings, or ``None`` if none ship."""
    folder = (root or SHIPPED_DIR) / fingerprint
    cache_key = str(folder)
    with _lock:
        if cache_key in _manifests:
            return _manifests[cache_key]
        result: dict[str, Any] | None = None
        path = folder / "manifest.json"
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                _warn(f"{path}: unreadable ({error}); shipped embeddings not used")
                data = None
            if isinstance(data, dict):
                if data.get("format") != FORMAT or data.get("fingerprint") != fingerprint:
                    _warn(f"{path}: not a {FORMAT!r} manifest for {fingerprint}; not used")
                else:
                    result = data
        _manifests[cache_key] = result
        return result


def _table(fingerprint: str, kind: str, root: Path | None = None) -> _ShippedTable | None:
    folder = (root or SHIPPED_DIR) / fingerprint
    key = (str(folder), kind)
    with _lock:
        if key in _tables:
            return _tables[key]
    about = manifest(fingerprint, root)
    table = None
    shared: tuple[str, str] | None = None
    entry = (about or {}).get("files", {}).get(kind)
    if entry is not None:
        path = _entry_path(folder, str(entry.get("file", "")))
        shared = (str(path.resolve()), str(entry.get("sha256")))
        with _lock:
            if shared in _files:  # a file two folders share (one text tower) is read once
                _tables[key] = _files[shared]
                return _files[shared]
        try:
            payload = path.read_bytes()
        except OSError as error:
            _warn(f"{path}: unreadable ({error}); shipped {kind} embeddings not used")
            payload = None
        if payload is not None and hashlib.sha256(payload).hexdigest() != entry.get("sha256"):
            _warn(f"{path}: SHA-256 differs from the manifest's; shipped {kind} embeddings "
                  "not used (reinstall dixit-ai)")
            payload = None
        if payload is not None:
            import io

            with np.load(io.BytesIO(payload), allow_pickle=False) as data:
                raw, vectors = data["keys"], data["vectors"]
            if raw.shape != (len(vectors), 32) or len(vectors) != entry.get("count"):
                _warn(f"{path}: unexpected shapes; shipped {kind} embeddings not used")
            else:
                index = {bytes(row).hex(): i for i, row in enumerate(raw)}
                table = _ShippedTable(index, vectors)
    with _lock:
        _tables[key] = table
        if table is not None and shared is not None:
            _files[shared] = table
    return table


def _entry_path(folder: Path, name: str) -> Path:
    """A manifest's file: ``texts.npz`` in its folder, or ``../<fingerprint>/texts.npz``, the
    identical file of a sibling folder (members with the same text tower embed texts alike);
    anything else resolves to a path that does not exist (and is reported unreadable)."""
    parts = Path(name).parts
    if len(parts) == 1 or (len(parts) == 3 and parts[0] == ".." and "/" not in parts[1]
                           and parts[1] not in ("", ".", "..")):
        return folder / name
    return folder / "(not a shipped file)" / name


def shipped_vectors(fingerprint: str, kind: str, keys: Sequence[str],
                    root: Path | None = None) -> dict[str, np.ndarray]:
    """The shipped vectors among ``keys`` (cache keys, as in :mod:`models.cache`), float32."""
    table = _table(fingerprint, kind, root)
    if table is None:
        return {}
    hits = [(key, table.index[key]) for key in keys if key in table.index]
    if not hits:
        return {}
    vectors = table.vectors[[row for _, row in hits]]
    if vectors.dtype != np.float32:
        vectors = l2_normalise(vectors.astype(np.float32))
    return {key: vector for (key, _), vector in zip(hits, vectors, strict=True)}


def shipped_card_hashes(fingerprint: str, deck: Any,
                        root: Path | None = None) -> dict[int, str] | None:
    """Card id -> content hash of ``deck``'s cards when its vectors ship (see the module
    docstring); ``None`` otherwise (the deck's own hashes must then be read or computed)."""
    entry = _deck_entry(fingerprint, deck, root)
    if entry is None:
        return None
    return {int(card): str(h) for card, h in zip(deck.card_ids, entry["card_hashes"],
                                                 strict=True)}


def shipped_deck_fingerprint(fingerprint: str, deck: Any, root: Path | None = None) -> str | None:
    """``deck``'s fingerprint when its vectors ship (known without drawing it), else ``None``."""
    entry = _deck_entry(fingerprint, deck, root)
    return None if entry is None else str(entry["fingerprint"])


def _deck_entry(fingerprint: str, deck: Any, root: Path | None) -> dict[str, Any] | None:
    about = manifest(fingerprint, root)
    if about is None or not about.get("decks"):
        return None
    environment = deck_environment(deck)
    if environment is None:
        return None
    from dixit_ai.decks.base import combine_card_hashes

    for entry in about["decks"]:
        if entry.get("source") != deck.source or entry.get("environment") != environment:
            continue
        hashes = entry.get("card_hashes")
        if (not isinstance(hashes, list) or len(hashes) != len(deck.card_ids)
                or combine_card_hashes(hashes) != entry.get("fingerprint")):
            _warn(f"shipped card hashes of {deck.source} do not match their deck fingerprint; "
                  "not used")
            return None
        return dict(entry)
    return None


def deck_environment(deck: Any) -> dict[str, Any] | None:
    """What a dream deck's images depend on (renderer version, libraries), or ``None``."""
    source = getattr(deck, "source", None)
    if not isinstance(source, str) or not source.startswith("dream:"):
        return None
    from dixit_ai.decks.dream import _environment

    return dict(_environment())


def write_shipped(folder: Path, *, fingerprint: str, embedder: dict[str, Any],
                  texts: dict[str, np.ndarray], images: dict[str, np.ndarray],
                  decks: list[dict[str, Any]], extra: dict[str, Any] | None = None,
                  dtype: str = "float32") -> Path:
    """Write a shipped-embeddings folder (``scripts/build_shipped_embeddings.py`` calls it);
    each file atomically (temporary file, fsync, :func:`os.replace`), the manifest last.

    Args:
        folder: ``SHIPPED_DIR / fingerprint`` (or a test folder).
        fingerprint: The embedder's fingerprint.
        embedder: Its description (name, dim, info).
        texts: Cache key (hex SHA-256 of the text) -> vector.
        images: Content hash -> vector (empty: no images file ships).
        decks: ``{"source", "environment", "fingerprint", "card_hashes"}`` per deck.
        extra: More to record in the manifest (how it was built, the decision check).
        dtype: ``"float32"`` (exact) or ``"float16"`` (half the size; see the module docstring).

    Returns:
        The manifest's path.
    """
    import io

    from dixit_ai.decks.cache import write_atomically

    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, Any] = {}
    for kind, rows in (("texts", texts), ("images", images)):
        if not rows:  # nothing of this kind ships (a caption reader's cards are texts)
            (folder / f"{kind}.npz").unlink(missing_ok=True)
            continue
        keys = sorted(rows)
        raw = np.frombuffer(b"".join(bytes.fromhex(k) for k in keys), dtype=np.uint8)
        vectors = np.stack([rows[k] for k in keys]).astype(np.dtype(dtype))
        buffer = io.BytesIO()
        # Uncompressed: float32 noise compresses by 7%, and reading is then a copy (git packs
        # the file compressed anyway).
        np.savez(buffer, keys=raw.reshape(len(keys), 32), vectors=vectors)
        payload = buffer.getvalue()
        digest = hashlib.sha256(payload).hexdigest()
        shared = _identical_sibling(folder, kind, digest)
        if shared is None:
            write_atomically(folder / f"{kind}.npz", payload)
        else:
            (folder / f"{kind}.npz").unlink(missing_ok=True)
        files[kind] = {"file": shared or f"{kind}.npz", "sha256": digest,
                       "count": len(keys), "dtype": str(dtype)}
    about = {"format": FORMAT, "fingerprint": fingerprint, "embedder": embedder,
             "files": files, "decks": decks, **(extra or {})}
    path = folder / "manifest.json"
    write_atomically(path, (json.dumps(about, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    forget()
    return path


def _identical_sibling(folder: Path, kind: str, digest: str) -> str | None:
    """``../<fingerprint>/<kind>.npz`` when a sibling folder holds, as its own file, one with
    this SHA-256 (written once, referenced by the others), else ``None``."""
    parent = folder.parent
    for other in sorted(parent.iterdir()) if parent.is_dir() else []:
        if other == folder or not (other / "manifest.json").is_file():
            continue
        try:
            entry = json.loads((other / "manifest.json").read_text())["files"][kind]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        own = other / f"{kind}.npz"
        if entry.get("file") == f"{kind}.npz" and entry.get("sha256") == digest \
                and own.is_file() and hashlib.sha256(own.read_bytes()).hexdigest() == digest:
            return f"../{other.name}/{kind}.npz"
    return None


def stored_as(vectors: np.ndarray, dtype: str) -> np.ndarray:
    """What shipping in ``dtype`` does to vectors: read back as float32, renormalised."""
    if np.dtype(dtype) == np.float32:
        return np.asarray(vectors, dtype=np.float32)
    return l2_normalise(np.asarray(vectors, dtype=np.dtype(dtype)).astype(np.float32))


def compare_decisions(resources: Any, texts: dict[str, np.ndarray], *, agents: Sequence[str],
                      games: int, seed: int, dtype: str) -> dict[str, Any]:
    """Play seeded games with float32 vectors and with their copies stored in ``dtype``;
    compare the decisions.

    Args:
        resources: Float32 :class:`~models.players.PlayerResources` (cards and vocabulary).
        texts: Every other text the players may need (pair clues) -> float32 vector; a text
            outside it and the vocabulary raises (the players have no embedder).
        agents: Registry names of the players (one seat each, rotated from game to game).
        games: How many games.
        seed: Seeds the games (:func:`dixit_ai.match.game_seeds`).

    Returns:
        ``decisions`` (made with float32 vectors), ``different`` (rounds whose storyteller card,
        clue, board, votes or points differ), ``games``, and ``max_rate_change`` (largest change
        of a predicted guess rate in rounds that agree otherwise).
    """
    from dixit_ai.agents import make_agent
    from dixit_ai.match import game_seeds, play_game
    from models.players.resources import PlayerResources

    def build(convert: Any) -> PlayerResources:
        made = PlayerResources(resources.card_ids, convert(resources.card_vectors),
                               resources.vocabulary, convert(resources.vocabulary_vectors), None,
                               resources.fingerprint, resources.deck_name)
        keys = list(texts)
        made._texts.update(zip(keys, convert(np.stack([texts[k] for k in keys])), strict=True))
        return made

    exact = build(lambda v: np.asarray(v, dtype=np.float32))
    rounded = build(lambda v: stored_as(v, dtype))
    editions = ("refresh-2021", "original-2008")
    decisions = different = 0
    max_rate_change = 0.0
    for index, game_seed in enumerate(game_seeds(seed, games)):
        seats = [agents[(index + i) % len(agents)] for i in range(len(agents))]
        records = []
        for shared in (exact, rounded):
            players = [make_agent(name, deck=shared) for name in seats]
            records.append(play_game(players, edition=editions[index % 2],
                                     deck=list(shared.card_ids), seed=game_seed))
        first, second = records
        n = len(seats)
        decisions += len(first.rounds) * (2 * n - 1)
        rounds = max(len(first.rounds), len(second.rounds))
        for r in range(rounds):
            if r >= len(first.rounds) or r >= len(second.rounds):
                different += 1
                continue
            a, b = first.rounds[r], second.rounds[r]
            same = (a.storyteller, a.clue, list(a.board), list(a.board_owner), a.votes,
                    list(a.points)) == (b.storyteller, b.clue, list(b.board),
                                        list(b.board_owner), b.votes, list(b.points))
            if not same:
                different += 1
            elif a.predicted_guess_rate is not None and b.predicted_guess_rate is not None:
                max_rate_change = max(max_rate_change,
                                      abs(a.predicted_guess_rate - b.predicted_guess_rate))
    return {"games": games, "decisions": decisions, "different": different,
            "max_rate_change": round(max_rate_change, 6)}


def forget() -> None:
    """Drop what this process has read (tests, and after :func:`write_shipped`)."""
    with _lock:
        _tables.clear()
        _manifests.clear()
        _files.clear()
