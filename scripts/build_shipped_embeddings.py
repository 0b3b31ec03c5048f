"""Build the embeddings that ship with the package (``models/data/embeddings/<fingerprint>/``).

For the default embedder: the clue vocabulary, the default dream deck's 84 cards, and the pair
clues the clip storytellers compose for each of its cards (up to ``--pair-clues`` per card, as
the shipped agents use). Vectors come from the model in float32 (through the disk cache) and are
stored in ``--dtype`` (float32: exact). Before writing, it checks that the stored vectors change
no decision: it plays ``--games`` seeded games of the four clip agents with the model's vectors
and with the stored ones and compares every clue, card, vote and score; it refuses to write if
any differs (float16 does: 90 of 163 rounds differed in 12 games). The check's figures go into
the manifest.

    python scripts/build_shipped_embeddings.py            # about 30 s with a warm cache
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

AGENTS = ("clip-greedy", "clip-expected", "clip-obvious", "clip-cryptic")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", default="dream", help="the deck whose cards ship")
    parser.add_argument("--pair-clues", type=int, default=12, help="pair clues per card")
    parser.add_argument("--games", type=int, default=12, help="games of the decision check")
    parser.add_argument("--seed", type=int, default=20261201, help="seed of the check's games")
    parser.add_argument("--dtype", choices=("float32", "float16"), default="float32",
                        help="how the vectors are stored")
    parser.add_argument("--out", type=Path, default=None, help="default: models/data/embeddings")
    args = parser.parse_args()

    from dixit_ai.decks import load_deck
    from models.base import progress_to
    from models.cache import default_cache, embed_deck, embed_texts_cached, text_key
    from models.registry import load_embedder
    from models.shipped import SHIPPED_DIR, compare_decisions, deck_environment, write_shipped

    start = time.perf_counter()
    with progress_to(print):
        embedder = load_embedder("default", device="cpu")
        deck = load_deck(args.deck)
        cache = default_cache()  # an explicit cache: the shipped vectors are not read back
        cards = embed_deck(embedder, deck, cache=cache)
        from models.players.resources import PlayerResources
        from models.players.storyteller import ClipStoryteller
        from models.players.vocabulary import load_vocabulary

        vocabulary = load_vocabulary("default")
        vocabulary_vectors = embed_texts_cached(embedder, list(vocabulary.texts), cache=cache,
                                                what="clues")
        resources = PlayerResources(tuple(int(c) for c in deck.card_ids), cards, vocabulary,
                                    vocabulary_vectors, None, embedder.fingerprint, deck.source)
        storyteller = ClipStoryteller(pair_clues=args.pair_clues)
        pairs = sorted({text for card, vector in zip(resources.card_ids, cards, strict=True)
                        for text in storyteller.pair_candidates(resources, card, vector)})
        pair_vectors = embed_texts_cached(embedder, pairs, cache=cache, what="pair clues")

    texts = dict(zip(vocabulary.texts, vocabulary_vectors, strict=True))
    texts.update(zip(pairs, pair_vectors, strict=True))
    print(f"checking decisions with {args.dtype} vectors ({args.games} games of "
          f"{', '.join(AGENTS)})")
    check = compare_decisions(resources, texts, agents=AGENTS, games=args.games, seed=args.seed,
                              dtype=args.dtype)
    print(f"  {check['decisions']} decisions, {check['different']} different; largest change "
          f"of a predicted guess rate {check['max_rate_change']:.5f}")
    if check["different"]:
        raise SystemExit(f"{args.dtype} changes decisions: not written")

    card_keys = [deck.card_hash(card) for card in deck.card_ids]
    decks = []
    environment = deck_environment(deck)
    if environment is not None:
        decks.append({"source": deck.source, "environment": environment,
                      "fingerprint": deck.fingerprint, "card_hashes": card_keys})
    folder = (args.out or SHIPPED_DIR) / embedder.fingerprint
    path = write_shipped(
        folder, fingerprint=embedder.fingerprint,
        embedder={"name": embedder.name, "dim": embedder.dim, **embedder.info},
        texts={text_key(t): v for t, v in texts.items()},
        images=dict(zip(card_keys, cards, strict=True)),
        decks=decks,
        extra={"built_by": "scripts/build_shipped_embeddings.py",
               "contents": {"vocabulary": len(vocabulary), "pair_clues": len(pairs),
                            "pair_clues_per_card": args.pair_clues, "cards": len(card_keys),
                            "deck": deck.source},
               "decision_check": {**check, "agents": list(AGENTS), "seed": args.seed}},
        dtype=args.dtype)
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"wrote {path.parent} ({len(texts)} texts, {len(card_keys)} cards, {size / 1e6:.1f} MB)"
          f" in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
