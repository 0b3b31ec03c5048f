"""Reward options of the environments: points, difference to the best opponent, win, rank.

Every option is computed from what the rules report when a round is scored (the round's points and
the scores after it) and, at the end, from the final scores:

- ``"points"``: the points each seat gains in the round (the default; a game's return is the
  seat's final score);
- ``"difference"``: the change, over the round, of the seat's score minus the best other seat's
  score (a game's return is the final margin over the best opponent, negative when behind);
- ``"win"``: 0 until the game ends, then 1 for each winner (ties share the win) and 0 for others;
- ``"rank"``: 0 until the game ends, then ``1 - 2 * rank / (n - 1)`` from 1 (first) to -1 (last),
  tied seats sharing the mean of their ranks.

A game the round limit truncates is scored as over for ``"win"`` and ``"rank"``.

>>> round_rewards("difference", points=(3, 0, 1), scores=(3, 0, 1), over=False)
[2.0, -3.0, -2.0]
>>> round_rewards("rank", points=(0, 2, 2), scores=(10, 12, 12), over=True)
[-1.0, 0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

RewardMode = Literal["points", "difference", "win", "rank"]
REWARD_MODES: tuple[str, ...] = ("points", "difference", "win", "rank")


def check_reward_mode(reward: str) -> RewardMode:
    """``reward`` as a :data:`RewardMode`.

    Raises:
        ValueError: not one of :data:`REWARD_MODES`.
    """
    for mode in ("points", "difference", "win", "rank"):
        if reward == mode:
            return mode
    raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")


def _margins(scores: Sequence[int]) -> list[int]:
    margins = []
    for seat, score in enumerate(scores):
        best = max(s for other, s in enumerate(scores) if other != seat)
        margins.append(score - best)
    return margins


def round_rewards(reward: str, *, points: Sequence[int], scores: Sequence[int],
                  over: bool) -> list[float]:
    """Every seat's reward for a scored round.

    Args:
        reward: The reward option.
        points: Each seat's points this round.
        scores: Each seat's score after the round.
        over: Whether the game ended (or was truncated) with this round.
    """
    if reward == "points":
        return [float(p) for p in points]
    if reward == "difference":
        before = [s - p for s, p in zip(scores, points, strict=True)]
        return [float(a - b) for a, b in zip(_margins(scores), _margins(before), strict=True)]
    if not over:
        return [0.0] * len(scores)
    n = len(scores)
    if reward == "win":
        top = max(scores)
        return [1.0 if s == top else 0.0 for s in scores]
    if reward == "rank":
        rewards = []
        for score in scores:
            above = sum(1 for s in scores if s > score)
            tied = sum(1 for s in scores if s == score)
            rank = above + (tied - 1) / 2
            rewards.append(1.0 - 2.0 * rank / (n - 1))
        return rewards
    raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")
