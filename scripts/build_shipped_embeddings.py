"""Build the embeddings that ship with the package (``models/data/embeddings/<fingerprint>/``).

For each ``--embedder`` (default: the default model, the members the shipped population
storytellers simulate, lite1-minilm, lite1-mpnet and lite1-zeroshot, and the members of the
``panel-heldout`` guesser panel): the clue vocabulary, the
default dream deck's 84 cards, and the pair clues the clip storytellers compose for each of its
cards (up to ``--pair-clues`` per card, as the shipped agents use; composed with the default
model, as the population storytellers ask their members to embed them). Vectors come from the
model in float32 (through the disk cache) and are stored in ``--dtype`` (float32: exact).
Before writing the default model's, it checks that the stored vectors change no decision: it
plays ``--games`` seeded games of the four clip agents with the model's vectors and with the
stored ones and compares every clue, card, vote and score; it refuses to write if any differs
(float16 does: 90 of 163 rounds differed in 12 games). The check's figures go into the
manifest. A member's vectors are stored only as float32 (exact: nothing to check). Members with
the same text tower and text preprocessing (lite1-mpnet, lite1-zeroshot and the mpnet panel
members; the default model and its head variants, the panel's sibling and default-zeroshot)
ship one texts file: a member whose texts another shipped folder already holds takes those
vectors (its own differ by batching noise, about 4e-7), and the file is written once and
referenced (:func:`models.shipped.write_shipped`). A member that reads the cards' captions
(caption-reader) ships no card vectors: its cards are its captions' embeddings, computed on
first use.

    python scripts/build_shipped_embeddings.py            # about 30 s with a warm cache
    python scripts/build_shipped_embeddings.py --embedder default   # the default model's only
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

AGENTS = ("clip-greedy", "clip-expected-self", "clip-obvious", "clip-cryptic")
"""The decision check's players: the default model's own (no other embedder's vectors)."""


POPULATION_AGENTS = ("clip-expected", "clip-expected-wide")
"""The registry's population storytellers whose simulated minds' vectors ship."""


def population_members(agents: tuple[str, ...] = POPULATION_AGENTS) -> tuple[str, ...]:
    """The embedders the registry storytellers' populations simulate besides their own."""
    from dixit_ai.agents import agent_spec

    members: dict[str, None] = {}
    for agent in agents:
        population = agent_spec(agent).kwargs.get("population") or ""
        members.update((m.strip(), None) for m in population.split(",")
                       if m.strip() not in ("", "self", "copy"))
    return tuple(members)


MEMBERS = population_members()
"""The model-family members the shipped population storytellers simulate."""

PANEL = "panel-heldout"
"""The named panel whose members' vectors ship (every member no shipped storyteller simulates)."""


def panel_embedders(panel: str = PANEL) -> tuple[str, ...]:
    """The embedders of a named panel's members (``panel:sibling``, ``lite2-mpnet``, ...)."""
    from models.players.panel import PANELS, member

    return tuple(dict.fromkeys(member(name).embedder for name in PANELS[panel]))


PANEL_EMBEDDERS = panel_embedders()
"""The embedders of the panel members: they guess at the bench (which needs only their card
vectors) and tell and guess in whole games (the vocabulary and the pair clues too)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", action="append", default=None,
                        help="an embedder whose vectors ship (repeat; default: default, "
                             f"{', '.join(MEMBERS)} and {', '.join(PANEL_EMBEDDERS)})")
    parser.add_argument("--deck", default="dream", help="the deck whose cards ship")
    parser.add_argument("--pair-clues", type=int, default=12, help="pair clues per card")
    parser.add_argument("--games", type=int, default=12, help="games of the decision check")
    parser.add_argument("--seed", type=int, default=20261201, help="seed of the check's games")
    parser.add_argument("--dtype", choices=("float32", "float16"), default="float32",
                        help="how the default model's vectors are stored (members: float32)")
    parser.add_argument("--out", type=Path, default=None, help="default: models/data/embeddings")
    args = parser.parse_args()
    names = list(dict.fromkeys(args.embedder or ["default", *MEMBERS, *PANEL_EMBEDDERS]))

    from dixit_ai.decks import load_deck
    from models.base import progress_to
    from models.cache import default_cache, embed_deck, embed_texts_cached, text_key
    from models.players.panel_models import reads_ground_truth, resolve_embedder
    from models.players.resources import PlayerResources
    from models.players.storyteller import ClipStoryteller
    from models.players.vocabulary import load_vocabulary
    from models.shipped import SHIPPED_DIR, compare_decisions, deck_environment, write_shipped

    deck = load_deck(args.deck)
    vocabulary = load_vocabulary("default")
    cache = default_cache()  # an explicit cache: the shipped vectors are not read back

    def embed(name: str) -> tuple[Any, PlayerResources]:
        """An embedder's vectors of the deck and the vocabulary (through the disk cache)."""
        embedder = resolve_embedder(name, device="cpu")
        cards = (np.zeros((0, embedder.dim), dtype=np.float32) if reads_ground_truth(embedder)
                 else embed_deck(embedder, deck, cache=cache))
        vectors = embed_texts_cached(embedder, list(vocabulary.texts), cache=cache, what="clues")
        return embedder, PlayerResources(tuple(int(c) for c in deck.card_ids), cards, vocabulary,
                                         vectors, None, embedder.fingerprint, deck.source)

    with progress_to(print):
        # The pair clues are the default model's storytellers' (members embed the same texts).
        default = embed("default")
        _, own = default
        storyteller = ClipStoryteller(pair_clues=args.pair_clues)
        pairs = sorted({text for card, vector in zip(own.card_ids, own.card_vectors, strict=True)
                        for text in storyteller.pair_candidates(own, card, vector)})
    card_keys = [deck.card_hash(card) for card in deck.card_ids]
    decks = []
    environment = deck_environment(deck)
    if environment is not None:
        decks.append({"source": deck.source, "environment": environment,
                      "fingerprint": deck.fingerprint, "card_hashes": card_keys})
    for name in names:
        start = time.perf_counter()
        with progress_to(print):
            embedder, resources = default if name == "default" else embed(name)
            cards, vocabulary_vectors = resources.card_vectors, resources.vocabulary_vectors
            pair_vectors = embed_texts_cached(embedder, pairs, cache=cache, what="pair clues")

        texts = dict(zip(vocabulary.texts, vocabulary_vectors, strict=True))
        texts.update(zip(pairs, pair_vectors, strict=True))
        same = same_tower_texts(embedder, list(texts), args.out or SHIPPED_DIR)
        if same is not None:
            first, earlier = same
            drift = max(float(np.max(np.abs(earlier[t] - v))) for t, v in texts.items())
            print(f"texts: {name} embeds texts as {first} does (largest difference "
                  f"{drift:.1e}, batching noise): the vectors {first}'s folder ships, one file "
                  "for both")
            texts = earlier
        if name == "default":
            dtype = args.dtype
            print(f"checking decisions with {dtype} vectors ({args.games} games of "
                  f"{', '.join(AGENTS)})")
            check: dict[str, object] = compare_decisions(
                resources, texts, agents=AGENTS, games=args.games, seed=args.seed, dtype=dtype)
            print(f"  {check['decisions']} decisions, {check['different']} different; largest "
                  f"change of a predicted guess rate {check['max_rate_change']:.5f}")
            if check["different"]:
                raise SystemExit(f"{dtype} changes decisions: not written")
            check = {**check, "agents": list(AGENTS), "seed": args.seed}
        else:
            dtype = "float32"
            check = {"skipped": "stored as float32, the model's own vectors: nothing changes"}
        folder = (args.out or SHIPPED_DIR) / embedder.fingerprint
        path = write_shipped(
            folder, fingerprint=embedder.fingerprint,
            embedder={"name": embedder.name, "dim": embedder.dim, **embedder.info},
            texts={text_key(t): v for t, v in texts.items()},
            images=dict(zip(card_keys, cards, strict=True)) if len(cards) else {},
            decks=decks if len(cards) else [],
            extra={"built_by": "scripts/build_shipped_embeddings.py",
                   "contents": {"vocabulary": len(vocabulary), "pair_clues": len(pairs),
                                "pair_clues_per_card": args.pair_clues, "cards": len(cards),
                                "deck": deck.source},
                   "decision_check": check},
            dtype=dtype)
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"wrote {path.parent} ({len(texts)} texts, {len(cards)} cards, "
              f"{size / 1e6:.1f} MB) in {time.perf_counter() - start:.1f} s")


def same_tower_texts(embedder: Any, texts: list[str], root: Path
                     ) -> tuple[str, dict[str, Any]] | None:
    """Another shipped folder's vectors of every one of ``texts``, when its embedder embeds
    texts as ``embedder`` does (:func:`text_identity`): ``(its name, text -> vector)``, so that
    the two ship one texts file; else ``None``."""
    from models.cache import text_key
    from models.shipped import manifest, shipped_vectors

    identity = text_identity(embedder.info)
    if identity is None or not root.is_dir():
        return None
    keys = {text: text_key(text) for text in texts}
    for folder in sorted(root.iterdir()):
        about = manifest(folder.name, root) if folder.name != embedder.fingerprint else None
        if about is None or text_identity(about.get("embedder", {})) != identity:
            continue
        found = shipped_vectors(folder.name, "texts", list(keys.values()), root)
        if len(found) == len(keys):
            return str(about["embedder"].get("name")), {t: found[k] for t, k in keys.items()}
    return None


def text_identity(info: dict[str, Any]) -> str | None:
    """What a model's text vectors depend on (the text tower's code and weights and the text
    preprocessing), from its embedder's ``info`` (or a shipped manifest's ``embedder``), so
    that models sharing it ship one texts file: the family's members, the default model and its
    head variants; ``None`` for others."""
    backend = info.get("backend")
    if backend not in ("family", "default", "panel"):
        return None
    pre = info.get("preprocess", {})
    # The default model and its head variants (backend "panel") embed texts with its own text
    # tower code; the family's members with theirs: the two never share a file.
    return "|".join(str(x) for x in ("default" if backend == "panel" else backend,
                                     info.get("weights", {}).get("text_tower_sha256"),
                                     pre.get("text_max_tokens"), pre.get("text_pooling"),
                                     info.get("dtype")))


if __name__ == "__main__":
    main()
