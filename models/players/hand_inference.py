"""What a seat knows of its opponents' hands, from its views alone (:class:`ClipAgent`'s memory).

Cards it has not seen, from which a storyteller deals the opponents' simulated hands, are the
deck minus its hand, the discard pile, the board and its own played cards (:func:`unseen_cards`).
It also remembers the revealed rounds (``view.last_round``, :func:`remember`): an opponent who
played card ``d`` as a decoy for clue ``X`` held no card more similar to ``X`` than ``d`` at that
time, so such a card is in its hand now only if it drew it since (:func:`hand_weights`), which
the storyteller's simulated deals take into account.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dixit_ai.rules import View
from models.players.resources import PlayerResources

HAND_ODDS_FLOOR = 0.05
"""The least odds that an opponent holds a card that earlier rounds ruled out."""


def unseen_cards(view: View, card_ids: Sequence[int]) -> list[int]:
    """Cards this seat has not seen: the deck minus hand, discard, board and own cards."""
    seen = set(view.hand) | set(view.discard) | set(view.board) | set(view.my_cards)
    return [card for card in card_ids if card not in seen]


def remember(view: View, *, history: dict[int, Any], piles: dict[int, int],
             revealed: dict[int, Any]) -> None:
    """Keep the revealed rounds (forgetting them when the discard pile was reshuffled)."""
    last = view.last_round
    piles.setdefault(view.round, view.draw_pile_size)
    if last is not None:
        revealed.setdefault(last.round, last)
    if last is None or last.round in history:
        return
    if last.reshuffled:
        history.clear()
    history[last.round] = last


def hand_weights(view: View, unseen: list[int], *, seat: int, history: dict[int, Any],
                 piles: dict[int, int], resources: Callable[[], PlayerResources]
                 ) -> np.ndarray | None:
    """Relative odds that each opponent (seat order after ``seat``) holds each unseen card.

    An opponent who played ``d`` (the most similar card of its hand, as decoy pickers do)
    for clue ``X`` in round ``t`` then held no card more similar to ``X``; such a card can
    be in its hand now only if it drew it since, which it did ``r - t`` times (``r`` the
    current round), against ``hand_size`` chances for a card never ruled out: odds
    ``(r - t) / hand_size`` (at most 1). ``None`` when nothing is known, in team games
    (partners do not vote) and once the discard pile was reshuffled. ``history`` and ``piles``
    are what :func:`remember` kept; ``resources`` gives the card and clue vectors, asked for
    only when there is something to weigh.
    """
    rules = view.rules
    if not history or not unseen or rules.teams:
        return None
    opponents = [(seat + i) % view.n_players for i in range(1, view.n_players)]
    hand_size = rules.hand_size_for(view.n_players)
    weights = np.ones((len(opponents), len(unseen)))
    vectors = resources()
    for t, past in history.items():
        draws = sum(1 for r in range(t, view.round) if piles.get(r, 1) > 0)
        # Never quite 0: a player who does not play its most similar card (a human, a
        # bluffing bot) may still hold a card ruled out this way.
        odds = max(HAND_ODDS_FLOOR, min(1.0, draws / hand_size))
        if odds >= 1.0:
            continue
        sims = vectors.clue_similarities(past.clue, unseen)
        for g, opponent in enumerate(opponents):
            if (opponent == past.storyteller or opponent >= len(past.played)
                    or not past.played[opponent]):
                continue
            played = vectors.clue_similarities(past.clue, list(past.played[opponent]))
            ruled_out = sims > float(played.min()) + 1e-6
            weights[g, ruled_out] = np.minimum(weights[g, ruled_out], odds)
    return weights
