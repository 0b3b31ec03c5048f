"""Plain-language reasons for a revealed round's points, rendered from the rules' named parts.

The rules compute each seat's points as named parts (:data:`~dixit_ai.rules.POINT_PARTS`);
this module only words them, so the web table and the terminal player explain a score without
recomputing it.

>>> explain({"found": 3, "bonus_votes": 4, "cap": -1})
[(3, "found the storyteller's card"), (3, 'bonus: 4 votes on your card (capped at 3)')]
"""

from __future__ import annotations

from collections.abc import Mapping

from dixit_ai.rules.state import RoundResult
from dixit_ai.rules.teams import partner_seat


def explain(parts: Mapping[str, int], *, outcome: str = "some", storyteller: bool = False,
            voted: bool = False, name: str | None = None) -> list[tuple[int, str]]:
    """``(points, reason)`` lines for one seat's named parts; their points sum to the parts'.

    Args:
        parts: The seat's nonzero named parts.
        outcome: ``"none"``, ``"some"`` or ``"all"`` (:attr:`RoundResult.outcome`), to word a
            round in which the seat scored nothing.
        storyteller: Whether the seat (or its team) told this round (the 2008 3-player
            point is then worded as the storyteller's, not a finder's).
        voted: Whether the seat voted this round.
        name: Who the lines are about, where several people read them (``"Ann"``: "found
            Ann's card"); ``None`` words them for the seat's own reader ("found your card").

    >>> explain({"bonus_votes": 1}, name="Bo")
    [(1, "bonus: 1 vote on Bo's card")]
    """
    your = "your" if name is None else f"{name}'s"
    you = "you" if name is None else name
    if "forfeit" in parts:
        return [(0, "forfeited this round (no points)")]
    lines: list[tuple[int, str]] = []
    if "storyteller" in parts:
        lines.append((parts["storyteller"], f"some but not all found {your} card"))
    if "found" in parts:
        lines.append((parts["found"], "found the storyteller's card"))
    if "all_or_none" in parts:
        lines.append((parts["all_or_none"], "everyone found the storyteller's card"
                      if outcome == "all" else "nobody found the storyteller's card"))
    if "solo_3p" in parts:
        solo = parts["solo_3p"]
        if storyteller or "storyteller" in parts:
            # The storyteller scores it because exactly one player found the card.
            base = parts.get("storyteller", 0)
            reason = f"only one player found {your} card (3 players)"
        else:
            base = parts.get("found", 0)
            reason = "the only finder in a 3-player game"
        lines.append((solo, f"{reason}: {base + solo} instead of {base}"))
    if "single_vote" in parts:
        lines.append((parts["single_vote"], "found it with a single vote"))
    cap = parts.get("cap", 0)
    if "bonus_votes" in parts:
        count = parts["bonus_votes"]
        reason = f"bonus: {count} vote{'s' if count > 1 else ''} on {your} card"
        if cap:
            reason += f" (capped at {count + cap})"
        lines.append((count + cap, reason))
    if "same_image" in parts:
        count = parts["same_image"]
        reason = (f"{count} player{'s' if count > 1 else ''} ({you} included) voted for the "
                  f"image {you} voted for")
        if cap:
            reason += f" (at most {count + cap})"
        lines.append((count + cap, reason))
    if "red_token" in parts:
        lines.append((parts["red_token"], "the storyteller's red token is on that image"))
    if "lone_vote" in parts:
        lone = "you were" if name is None else f"{name} was"
        lines.append((parts["lone_vote"], f"{lone} the only one to vote for that image"))
    if lines:
        return lines
    if storyteller and outcome != "some":
        return [(0, f"everyone found {your} card" if outcome == "all"
                 else f"nobody found {your} card")]
    if voted:
        return [(0, "did not find the storyteller's card")]
    return [(0, "no points")]


def explain_round(result: RoundResult, seat: int, *, party: bool = False,
                  teams: bool = False, name: str | None = None) -> list[tuple[int, str]]:
    """``(points, reason)`` lines for ``seat``'s points in ``result``, from its named parts.

    Args:
        result: A revealed round (it carries the parts).
        seat: The seat to explain.
        party: Whether the round is Dixit Party's (no storyteller's card to find).
        teams: Whether it is the team variant (partners share their team's lines).
        name: Who the lines are about where several people read them (:func:`explain`);
            ``None`` words them for the seat's own reader. In the team variant the lines are
            the team's: "found Bo's team's card" (the card may be the partner's).
    """
    n = len(result.points)
    if teams and name is not None:
        name = f"{name}'s team"
    team = {seat, partner_seat(seat, n)} if teams else {seat}
    if party:
        return explain(result.point_parts(seat), outcome="some", name=name)
    return explain(result.point_parts(seat), outcome=result.outcome,
                   storyteller=result.storyteller in team,
                   voted=any(result.votes[s] for s in team), name=name)
