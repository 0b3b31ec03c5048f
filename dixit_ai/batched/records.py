"""Finished batched games as standard game records.

:func:`to_records` turns the round arrays a :class:`~dixit_ai.rules.batched.BatchedGames` kept
for its finished games into :class:`~dixit_ai.records.GameRecord` objects, the same records
``dixit_ai.play_game`` writes: ``dixit-ai replay`` re-runs them through the scalar engine (the
batched engine draws exactly the scalar engine's deal, boards and reshuffles for a seed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dixit_ai.match import record_header, resolve_deck
from dixit_ai.records import GameRecord, RoundRecord
from dixit_ai.rules import leaders, parts_dict
from dixit_ai.rules.batched import BatchedGames, FinishedGame
from dixit_ai.rules.scoring import score_checked_round

__all__ = ["to_records"]


def to_records(
    games: BatchedGames,
    finished: Sequence[FinishedGame],
    *,
    clues: Sequence[str],
    agents: Sequence[dict[str, Any]] | None = None,
    deck_entry: dict[str, Any] | None = None,
    clue_kind: str | None = "word",
    parts: bool = True,
) -> list[GameRecord]:
    """The records of ``finished`` games (from :meth:`BatchedGames.take_finished`).

    Args:
        games: The engine that played them (its round log must still hold their rows).
        finished: The games to convert.
        clues: The clue vocabulary: clue id ``i`` is ``clues[i]``.
        agents: One description per seat for the header (default: ``{"name": "batched"}``).
        deck_entry: The header's deck entry (default: the engine's card ids).
        clue_kind: The kind recorded with every clue.
        parts: Itemise each round's points into named parts, as ``play_game`` records do
            (computed here by the scalar scorer from the round's board and votes).

    Raises:
        ValueError: a clue id outside ``clues``, released rows, or a wrong number of agents.
    """
    n = games.n_players
    if agents is None:
        agents = [{"name": "batched"}] * n
    if len(agents) != n:
        raise ValueError(f"{len(agents)} agent descriptions for {n} seats")
    if deck_entry is None:
        deck_entry = resolve_deck(games.card_ids.tolist())[1]
    card_ids = games.card_ids
    records = []
    for game in finished:
        rows = games.rows(game)
        slot = game.slot
        header = record_header(games.rules, n, game.seed, deck_entry, list(agents),
                               on_failure="abort", max_rounds=None)
        header["engine"] = "batched"
        if not rows:
            records.append(GameRecord(header=header, rounds=[], final_scores=[0] * n,
                                      winners=[], status="truncated"))
            continue
        teller = np.array([row.storyteller[slot] for row in rows])
        clue_ids = np.array([row.clue[slot] for row in rows])
        if clue_ids.max() >= len(clues):
            raise ValueError(f"game {game.number} told clue id {int(clue_ids.max())}; the "
                             f"vocabulary has {len(clues)} clues")
        played = card_ids[np.stack([row.played[slot] for row in rows])].tolist()
        raw_played = np.stack([row.played[slot] for row in rows])
        board = card_ids[np.stack([row.board[slot] for row in rows])].tolist()
        owner = np.stack([row.board_owner[slot] for row in rows]).tolist()
        votes = np.stack([row.votes[slot] for row in rows]).tolist()
        points = np.stack([row.points[slot] for row in rows]).tolist()
        scores = np.stack([row.scores[slot] for row in rows]).tolist()
        reshuffled = [bool(row.reshuffled[slot]) for row in rows]
        rounds = []
        for r, st in enumerate(teller.tolist()):
            seats = [[c for c, raw in zip(played[r][s], raw_played[r, s].tolist(), strict=True)
                      if raw >= 0] for s in range(n)]
            cast = {s: [p for p in votes[r][s] if p >= 0] for s in range(n) if s != st}
            named: list[dict[str, int]] = []
            if parts:
                itemised = score_checked_round(games.rules, n, st, owner[r], cast, sorted(cast))
                named = [parts_dict(p) for p in itemised[0]]
            rounds.append(RoundRecord(
                round=r, storyteller=st, clue=clues[int(clue_ids[r])], clue_kind=clue_kind,
                predicted_guess_rate=None, storyteller_card=seats[st][0], played=seats,
                board=board[r], board_owner=owner[r],
                votes=cast, points=points[r], scores=scores[r], reshuffled=reshuffled[r],
                parts=named))
        final = scores[-1]
        records.append(GameRecord(
            header=header, rounds=rounds, final_scores=list(final),
            winners=list(leaders(final)) if game.complete else [],
            status="complete" if game.complete else "truncated"))
    return records
