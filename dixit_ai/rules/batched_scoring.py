"""Scoring one lockstep round of many games at once (:mod:`dixit_ai.rules.batched`).

The rules of :func:`dixit_ai.rules.score_round` on arrays: all guessers or none found the
storyteller's card (each guesser ``all_or_none_points``), else the storyteller and each finder
score (the 3-player solo rule where it applies), the single-vote point where a second vote is
allowed (when: ``single_vote_bonus_when``), and +1 per vote on a guesser's own card (capped at
``bonus_cap``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from dixit_ai.rules.ruleset import RuleSet

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

__all__ = ["as_ints", "round_points"]


def round_points(rules: RuleSet, storyteller: Ints, storyteller_position: Ints, votes: Ints,
                 owner: Ints, cast: Bools, max_votes: int) -> Ints:
    """Every seat's points in one round of each game: ``(G, n)``.

    Args:
        rules: The rules (standard mode, no teams).
        storyteller: ``(G,)`` each game's storyteller.
        storyteller_position: ``(G,)`` the board position of the storyteller's card.
        votes: ``(G, n, M)`` board positions voted for (``-1``: none; the storyteller none).
        owner: ``(G, n, M)`` the owner of each voted card (any value where no vote is cast).
        cast: ``(G, n, M)`` where a vote is cast.
        max_votes: ``M``, 2 where a second vote is allowed.
    """
    games, n = votes.shape[0], votes.shape[1]
    rows = np.arange(games)
    teller = storyteller
    guessing = np.arange(n)[None, :] != teller[:, None]
    hits = votes == storyteller_position[:, None, None]
    found = hits[:, :, 0] if max_votes == 1 else hits.any(axis=2)
    n_found = found.sum(axis=1)
    some = (n_found > 0) & (n_found < n - 1)
    points = np.where(guessing & ~some[:, None], rules.all_or_none_points, 0)
    solo = rules.three_player_solo_points
    finder: Any
    if solo is not None and n == 3:
        reward = np.where(n_found == 1, solo, rules.storyteller_points)
        finder = np.where(n_found == 1, solo, rules.finder_points)[:, None]
    else:
        reward = np.full(games, rules.storyteller_points, dtype=np.int64)
        finder = rules.finder_points
    points[rows, teller] += np.where(some, reward, 0)
    points += np.where(found & some[:, None], finder, 0)
    if max_votes > 1 and rules.single_vote_bonus:
        single = found & (votes[:, :, 1] < 0)
        if rules.single_vote_bonus_when == "some_found":
            single &= some[:, None]
        points += np.where(single, rules.single_vote_bonus, 0)
    # Every vote on a guesser's card scores its owner; other votes go to a spare bin.
    scored = cast & (owner != teller[:, None, None])
    flat = np.where(scored, rows[:, None, None] * n + owner, games * n)
    bonus = np.bincount(flat.reshape(-1), minlength=games * n + 1)[:-1].reshape(games, n)
    cap = rules.bonus_cap
    if cap is not None:
        bonus = np.minimum(bonus, cap)
    result: Ints = points + bonus
    return result


def as_ints(values: npt.ArrayLike, shape: tuple[int, ...], what: str) -> Ints:
    """``values`` as an int64 array of ``shape`` (a missing last axis of 1 is added).

    Raises:
        ValueError: another shape, or not integers (the message names ``what``).
    """
    array = np.asarray(values)
    if array.shape != shape and array.shape == shape[:-1] and len(shape) == 3 and shape[-1] == 1:
        array = array[..., None]
    if array.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, not {array.shape}")
    if array.dtype.kind not in "iu":
        raise ValueError(f"{what} must be integers, not {array.dtype}")
    result: Ints = array.astype(np.int64, copy=False)
    return result
