"""Study: who reads whom? Top-1 of each guesser model on the clues each teller tells.

Every teller (a registry agent telling on its own model, as at a table: the default model's
``clip-greedy``, each panel member, the baselines) tells on the same held-out hands (the panel
bench's tell items, seed 1000 by default); each told card is put on a board with the five
distractors of its caption board (chance 1/6), and every guesser model ranks the board against
the clue (:mod:`models.bench.reading`). ``caption-reader`` reads the cards' captions (ground
truth): its column says what a clue tells about the picture itself, so a guesser far above it
on a teller's clues shares that teller's quirks rather than reading the card. The issue's
target for the default guesser (>= 2x chance on panel members' clues) is the ``default``
column.

    python scripts/study_who_reads_whom.py
    python scripts/study_who_reads_whom.py --tellers panel-imagenet-zeroshot --items 400
    python scripts/study_who_reads_whom.py --smoke

The stories land in ``runs/study_who_reads_whom__SEED__TIME/stories.jsonl`` (the figures can be
recomputed from them), with the matrix as ``reading_matrix.png``; ``--json`` writes the figures.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from dixit_ai.cli.common import MAX_ITEMS, refuse_input
from dixit_ai.reporting import new_run_dir, print_table, progress_interval, write_json
from models.players.cli import SMOKE_AGENT_OPTIONS, apply_smoke, parse_args, refuse_bad_counts

TELLERS = ("clip-greedy", "panel-sibling", "panel-default-zeroshot", "panel-lite2-mpnet",
           "panel-lite1-minilm", "panel-lite1-mpnet", "panel-imagenet-zeroshot",
           "panel-caption-reader", "caption-teller", "object-teller")
GUESSERS = ("default", "panel:sibling", "panel:default-zeroshot", "lite2-mpnet", "lite1-minilm",
            "lite1-mpnet", "imagenet-zeroshot", "lite1-zeroshot", "caption-reader")

SMOKE = {"items": 4, "bootstrap": 200, "sequence": 2}
"""``--smoke``'s settings, each where the command line gave none (:func:`apply_smoke`)."""


@dataclass
class Args:
    tellers: str = field(default=",".join(TELLERS), metadata={
        "help": "registry agents that tell (comma-separated)"})
    guessers: str = field(default=",".join(GUESSERS), metadata={
        "help": "guesser embedders (comma-separated; caption-reader reads ground truth)"})
    items: int = field(default=200, metadata={"help": "tell items (hands)"})
    seed: int = field(default=1000, metadata={
        "help": "seed of the items (1000: the panel bench's held-out items)"})
    bootstrap: int = field(default=2000, metadata={"help": "bootstrap resamples"})
    out: str = field(default="runs", metadata={"help": "where the run folder goes"})
    reading_minds: str = field(default="lite1-minilm,lite1-mpnet,lite1-zeroshot", metadata={
        "help": "minds of the storyteller-reading guesser besides the default model (a "
                "teller's own model is left out of its reading); empty: no reading column"})
    sequence: int = field(default=8, metadata={
        "help": "stories of one teller the reading guesser sees in a row (a game's worth)"})
    json: str = field(default="", metadata={"help": "also write the figures to this file"})
    smoke: bool = field(default=False, metadata={"help": "tiny budget (seconds), for CI"})


def _names(text: str, what: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        refuse_input(f"--{what}: name at least one")
    if len(set(names)) != len(names):
        refuse_input(f"--{what} names one twice: {names}")
    return names


def _own(teller: str) -> str | None:
    """The guesser name of a teller's own model (``panel-lite2-mpnet`` tells on
    ``lite2-mpnet``; ``clip-greedy`` on ``default``), or ``None``."""
    from dixit_ai.agents import agent_spec

    embedder = agent_spec(teller).kwargs.get("embedder", "default")
    return embedder if isinstance(embedder, str) else None


def reading_column(sets: Any, stories: dict[str, Any], minds: list[str], deck: Any, *,
                   sequence: int, seed: int, resamples: int) -> dict[str, dict[str, Any]]:
    """Per teller: the default guesser's and the storyteller-reading guesser's top-1 over the
    same runs of ``sequence`` stories, and their paired difference (95% intervals over runs).
    The reading guesser's minds leave out the teller's own model."""
    from dixit_ai.reporting import mean_interval
    from models.bench.reading import reading_hits
    from models.players.panel_models import load_member_resources
    from models.players.teller_reading import load_reader

    own = load_member_resources("default", deck)
    out = {}
    for teller, told in stories.items():
        held_out = [m for m in minds if m != _own(teller)]
        reader = load_reader(held_out, own, calibration="wide", deck=deck)
        reading = reading_hits(sets, teller, told, reader.members, sequence=sequence, seed=seed)
        alone = reading_hits(sets, teller, told, reader.members[:1], sequence=sequence,
                             seed=seed, own_prior=1.0)
        out[teller] = {"default": mean_interval(alone, seed=seed, n_resamples=resamples),
                       "reading": mean_interval(reading, seed=seed, n_resamples=resamples),
                       "difference": mean_interval([a - b for a, b in zip(reading, alone,
                                                                          strict=True)],
                                                   seed=seed, n_resamples=resamples),
                       "minds": reader.names[1:]}
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(Args, argv, __doc__.split("\n\n")[0])
    if args.smoke:  # the budget where the command line gave none (flags given stay)
        apply_smoke(args, SMOKE)
    from tqdm import tqdm

    from dixit_ai.decks import load_deck
    from models.bench.items import DeckFacts, ItemSets
    from models.bench.reading import CHANCE, plot_reading_matrix, reading_matrix, tell_stories
    from models.players.panel_models import load_member_resources

    tellers, guesser_names = _names(args.tellers, "tellers"), _names(args.guessers, "guessers")
    refuse_bad_counts(args, (("items", 1),), (("items", MAX_ITEMS),))
    if not 1 <= args.sequence <= args.items:
        refuse_input(f"--sequence must be between 1 and --items ({args.items}), got "
                         f"{args.sequence}")
    extra: dict[str, object] = {}
    if args.smoke:
        extra = dict(SMOKE_AGENT_OPTIONS)
    deck = load_deck("dream")
    sets = ItemSets(DeckFacts.of(deck), seed=args.seed, items=args.items, board_size=6,
                    reference_deals=1)
    try:  # a folder of its own, even beside a run started in the same second
        folder = new_run_dir(args.out, "study_who_reads_whom", args.seed)
    except ValueError as error:
        refuse_input(f"--out {error}")
    start = time.perf_counter()
    stories = {}
    for teller in tqdm(tellers, desc="tellers telling", unit="teller", disable=args.smoke,
                       mininterval=progress_interval(sys.stderr)):
        kwargs = extra if teller.startswith(("clip-", "panel-")) else {}
        stories[teller] = tell_stories(teller, sets, args.seed, deck=deck, **kwargs)
    with (folder / "stories.jsonl").open("w", encoding="utf-8") as out:
        for teller, told in stories.items():
            for story in told:
                item, card, clue = story or (None, None, None)
                out.write(json.dumps({"teller": teller, "item": item, "card": card,
                                      "clue": clue}) + "\n")
    guessers = {}
    for name in tqdm(guesser_names, desc="loading guessers", unit="model", disable=args.smoke,
                     mininterval=progress_interval(sys.stderr)):
        guessers[name] = load_member_resources(name, deck)
    matrix = reading_matrix(sets, stories, guessers, seed=args.seed, resamples=args.bootstrap)
    print_table(f"top-1 on boards of the told card and 5 distractors ({args.items} items, seed "
                f"{args.seed}); chance {CHANCE:.3f}; caption-reader reads ground truth",
                ["teller", *(g.removeprefix("panel:") for g in guesser_names)],
                [[t, *(f"{matrix[t][g].estimate:.2f}" for g in guesser_names)] for t in tellers],
                min_width=190)
    rows = []
    for teller in tellers:
        row = matrix[teller]
        others = [g for g in guesser_names if g not in ("default", "caption-reader")
                  and g != _own(teller)]
        best = max(others, key=lambda g: row[g].estimate) if others else None
        rows.append([teller, row.get("default", "-"), row.get("caption-reader", "-"),
                     "-" if best is None else f"{best} {row[best].estimate:.2f}",
                     "-" if "default" not in row else
                     ("yes" if row["default"].estimate >= 2 * CHANCE else "NO")])
    print_table(f"95% intervals over items; the default guesser's target: >= {2 * CHANCE:.3f} "
                "(2x chance)", ["teller", "default", "caption-reader (ground truth)",
                                "best other guesser (not the teller's own model)",
                                "default >= 2x"], rows, digits=2, min_width=140)
    plot_reading_matrix(folder / "reading_matrix.png", matrix,
                        f"who reads whom: top-1 on told cards ({args.items} items, seed "
                        f"{args.seed}); caption-reader: ground truth")
    reading = {}
    minds = _names(args.reading_minds, "reading-minds") if args.reading_minds else []
    if minds:
        reading = reading_column(sets, stories, minds, deck, sequence=args.sequence,
                                 seed=args.seed, resamples=args.bootstrap)
        print_table(f"the default guesser alone, and reading each teller over runs of "
                    f"{args.sequence} of its stories (models/players/teller_reading.py; minds: "
                    f"default + {', '.join(minds)}, less the teller's own model; 95% CI over "
                    f"runs); chance {CHANCE:.3f}",
                    ["teller", "default", "reading guesser", "reading - default", "minds read with",
                     "reading >= 2x"],
                    [[t, r["default"], r["reading"], r["difference"], ", ".join(r["minds"]),
                      "yes" if r["reading"].estimate >= 2 * CHANCE else "NO"]
                     for t, r in reading.items()], digits=2, min_width=150)
    print(f"{len(tellers)} tellers x {len(guesser_names)} guessers in "
          f"{time.perf_counter() - start:.0f} s; run folder: {folder}")
    if args.json:
        write_json(args.json, {"items": args.items, "seed": args.seed, "chance": CHANCE,
                               "matrix": matrix, "sequence": args.sequence,
                               "reading": reading})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
