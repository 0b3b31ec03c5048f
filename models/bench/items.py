"""The benchmark's fixed item sets, drawn from the seed alone: every model sees the same items.

* **guess** boards come from :func:`models.evaluation.make_boards` (a target and ``board_size - 1``
  decoys that share no object with it; clue kinds ``caption``, ``object``, ``association``), on
  the benchmark's deck. For agents, each board is laid on a table of ``board_size + 1`` seats
  whose extra seat is the agent's: its own card lies on the board too, as in a real game, and
  the agent votes among the other ``board_size`` cards, so chance is ``1 / board_size`` for
  embedders and agents alike.
* **story** boards: the same boards with the clue and card a storyteller under test told (the
  told card's distractors are those of its caption board).
* **decoy** items: a storyteller's card, a clue about it (one of its object names), the model's
  hand of 6 other cards, and the reference players' hands in ``reference_deals`` deals.
* **tell** items: the storyteller's hand of 6 cards and the reference players' hands in
  ``reference_deals`` deals. With ``tell_cards`` ``"half-a"`` or ``"half-b"`` the storyteller's
  hands are dealt from one half of the deck only (:func:`card_half`: a fixed split of the deck,
  the same for every seed; the other players' hands still come from every other card), so that
  a storyteller developed on one half's stories is held out on stories it never told: a seed
  alone does not do that, since items of any two seeds tell mostly the same cards.

Views for agents are built through the rules (:mod:`models.bench.tables`).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.evaluation import QUERY_KINDS, Board, make_boards, object_names

HAND_SIZE = 6
DECOY_TABLE = 5
"""Seats at a decoy table: the storyteller, the model, three reference players."""
TELL_TABLE = 5
"""Seats at a tell table: the storyteller under test and four reference players."""

_CODES = {"guess": 1, "decoy": 2, "tell": 3, "story": 4}

TELL_CARDS = ("all", "half-a", "half-b")
"""Which cards tell items deal the storyteller's hands from (see the module's notes)."""


def card_half(card_ids: Sequence[int], half: str) -> list[int]:
    """One half of a deck's cards (``"half-a"``: the first ``n // 2`` of a fixed permutation of
    the deck's order, ``"half-b"``: the rest), in deck order; the split depends on the deck
    only, never on a run's seed.

    Raises:
        ValueError: ``half`` is not ``"half-a"`` or ``"half-b"``.
    """
    if half not in ("half-a", "half-b"):
        raise ValueError(f"a card half is 'half-a' or 'half-b', not {half!r}")
    order = np.random.default_rng(np.random.SeedSequence([2026, 12, 5])).permutation(
        len(card_ids))
    first = set(order[: len(card_ids) // 2].tolist())
    return [card for i, card in enumerate(card_ids) if (i in first) == (half == "half-a")]


def item_seed(seed: int, task: str, index: int, kind: str = "") -> np.random.SeedSequence:
    """The seed sequence of one item (its board shuffle, the agent's generator)."""
    return np.random.SeedSequence([seed, _CODES[task], index, zlib.crc32(kind.encode())])


@dataclass(frozen=True)
class GuessItem:
    """A board to guess on.

    Attributes:
        index: Position in its kind's item list.
        kind: ``caption``, ``object``, ``association`` or ``story:<storyteller>``.
        clue: The clue.
        target: The card the clue is about.
        distractors: The other board cards (share no object with the target).
        own_card: The agent's own card on the table (agents only; never votable).
        own_hand: The agent's other hand cards.
    """

    index: int
    kind: str
    clue: str
    target: int
    distractors: tuple[int, ...]
    own_card: int
    own_hand: tuple[int, ...]

    @property
    def cards(self) -> tuple[int, ...]:
        """Target first, then the distractors (the order embedders score them in)."""
        return (self.target, *self.distractors)


@dataclass(frozen=True)
class DecoyItem:
    """A clue, the storyteller's card, the model's hand and the reference players' hands."""

    index: int
    storyteller_card: int
    clue: str
    hand: tuple[int, ...]
    deals: tuple[tuple[tuple[int, ...], ...], ...]


@dataclass(frozen=True)
class TellItem:
    """The storyteller's hand and the reference players' hands in every deal."""

    index: int
    hand: tuple[int, ...]
    deals: tuple[tuple[tuple[int, ...], ...], ...]


@dataclass
class DeckFacts:
    """What item building needs from the deck: ids, captions, object names."""

    card_ids: tuple[int, ...]
    captions: list[list[str]]
    descriptions: list[dict[str, Any]]

    @classmethod
    def of(cls, deck: Any) -> DeckFacts:
        ids = tuple(int(c) for c in deck.card_ids)
        descriptions = [deck.description(c) for c in ids]
        if any(d is None or not d.get("objects") for d in descriptions):
            raise ValueError(
                f"the guess and decoy tasks need cards described with their objects (dream "
                f"decks); {getattr(deck, 'source', deck)} has cards without")
        return cls(ids, [deck.captions(c) for c in ids], descriptions)

    def objects(self, row: int) -> set[str]:
        return set(object_names(self.descriptions[row]))


class ItemSets:
    """Every item of one run (seeded); story boards are added once storytellers have told."""

    def __init__(self, facts: DeckFacts, *, seed: int, items: int, board_size: int,
                 reference_deals: int, tell_cards: str = "all") -> None:
        self.facts = facts
        self.seed = seed
        self.items = items
        self.board_size = board_size
        self.reference_deals = reference_deals
        if tell_cards not in TELL_CARDS:
            raise ValueError(f"tell_cards must be one of {', '.join(TELL_CARDS)}, not "
                             f"{tell_cards!r}")
        self.tell_cards = tell_cards
        n = len(facts.card_ids)
        need = max(board_size + 1 + HAND_SIZE, HAND_SIZE * TELL_TABLE)
        if tell_cards != "all":
            need = max(need, 2 * HAND_SIZE)
        if n < need:
            raise ValueError(f"the deck has {n} cards; the benchmark needs at least {need}"
                             + ("" if tell_cards == "all" else f" (tell_cards {tell_cards})"))
        self._boards = self._make_boards()
        self._row = {card: i for i, card in enumerate(facts.card_ids)}

    # ------------------------------------------------------------------ guess

    def _make_boards(self) -> dict[str, list[Board]]:
        """Boards of every kind, enough of each for ``items`` (doubling boards per target)."""
        per_target = 1
        while True:
            boards = make_boards(self.facts.descriptions, self.facts.captions, seed=self.seed,
                                 boards_per_query=per_target, board_size=self.board_size)
            by_kind: dict[str, list[Board]] = {k: [] for k in QUERY_KINDS}
            for board in boards:
                by_kind[board.kind].append(board)
            fewest = min(len(v) for v in by_kind.values())
            if fewest >= self.items or per_target >= 256:
                if fewest == 0:
                    raise ValueError("the deck gives no board of some clue kind")
                return by_kind
            per_target *= max(2, math.ceil(self.items / max(1, fewest)))

    def guess_items(self) -> dict[str, list[GuessItem]]:
        """``items`` boards per clue kind (fewer where the deck has fewer), seeded."""
        out: dict[str, list[GuessItem]] = {}
        for code, kind in enumerate(QUERY_KINDS):
            boards = self._boards[kind]
            rng = np.random.default_rng(np.random.SeedSequence([self.seed, 11, code]))
            order = rng.permutation(len(boards))[: self.items]
            out[kind] = [self._guess_item(i, kind, boards[j].clue, boards[j].target,
                                          boards[j].distractors, "guess")
                         for i, j in enumerate(order.tolist())]
        return out

    def story_items(self, kind: str, told: Sequence[tuple[int, int, str] | None]
                    ) -> list[GuessItem]:
        """Boards for clues told by a storyteller: ``(item index, card, clue)`` each."""
        captions: dict[int, list[tuple[int, ...]]] = {}
        for board in self._boards["caption"]:
            captions.setdefault(board.target, []).append(board.distractors)
        items = []
        for entry in told:
            if entry is None:
                continue
            index, card, clue = entry
            row = self._row[card]
            options = captions.get(row)
            if not options:
                continue
            distractors = options[index % len(options)]
            items.append(self._guess_item(index, kind, clue, row, distractors, "story"))
        return items

    def _guess_item(self, index: int, kind: str, clue: str, target_row: int,
                    distractor_rows: Sequence[int], task: str) -> GuessItem:
        ids = self.facts.card_ids
        rng = np.random.default_rng(item_seed(self.seed, task, index, kind))
        on_board = {target_row, *distractor_rows}
        objects = self.facts.objects(target_row)
        free = [r for r in range(len(ids)) if r not in on_board]
        unlike = [r for r in free if not (self.facts.objects(r) & objects)] or free
        own = int(unlike[int(rng.integers(len(unlike)))])
        rest = [r for r in free if r != own]
        hand = rng.choice(len(rest), size=HAND_SIZE - 1, replace=False)
        return GuessItem(index, kind, clue, ids[target_row],
                         tuple(ids[r] for r in distractor_rows), ids[own],
                         tuple(ids[rest[int(k)]] for k in hand))

    # ------------------------------------------------------------------ decoy and tell

    def _deals(self, rng: np.random.Generator, pool: list[int], players: int
               ) -> tuple[tuple[tuple[int, ...], ...], ...]:
        deals = []
        for _ in range(self.reference_deals):
            drawn = rng.choice(len(pool), size=players * HAND_SIZE, replace=False)
            cards = [pool[int(k)] for k in drawn]
            deals.append(tuple(tuple(cards[p * HAND_SIZE:(p + 1) * HAND_SIZE])
                               for p in range(players)))
        return tuple(deals)

    def decoy_items(self) -> list[DecoyItem]:
        """``items`` decoy items: the clue is one object name of the storyteller's card."""
        ids = self.facts.card_ids
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, 12]))
        out = []
        for index in range(self.items):
            row = int(rng.integers(len(ids)))
            names = object_names(self.facts.descriptions[row])
            clue = names[int(rng.integers(len(names)))]
            others = [r for r in range(len(ids)) if r != row]
            picked = rng.choice(len(others), size=HAND_SIZE, replace=False)
            hand = tuple(ids[others[int(k)]] for k in picked)
            pool = [ids[r] for r in others if ids[r] not in hand]
            out.append(DecoyItem(index, ids[row], clue, hand,
                                 self._deals(rng, pool, DECOY_TABLE - 2)))
        return out

    def tell_items(self) -> list[TellItem]:
        """``items`` storyteller hands (from ``tell_cards``), with the reference players'
        deals (from every card not in the hand)."""
        ids = list(self.facts.card_ids)
        told = ids if self.tell_cards == "all" else card_half(ids, self.tell_cards)
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, 13]))
        out = []
        for index in range(self.items):
            picked = rng.choice(len(told), size=HAND_SIZE, replace=False)
            hand = tuple(told[int(k)] for k in picked)
            pool = [c for c in ids if c not in hand]
            out.append(TellItem(index, hand, self._deals(rng, pool, TELL_TABLE - 1)))
        return out
