"""Scoring one round, for every edition.

The worked example of the Persian rulebook (5 players; Dan, seat 0, tells; board positions are
0-based here, so the rulebook's card #1 is position 0):

>>> from dixit_ai.rules import RuleSet
>>> dan, chris, ruby, eva, kevin = range(5)
>>> score_round(RuleSet.edition("original-2008"), n_players=5, storyteller=dan,
...             board_owner=[chris, ruby, dan, eva, kevin],
...             votes={eva: [0], chris: [2], ruby: [2], kevin: [3]})
[3, 4, 3, 1, 0]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dixit_ai.rules._fast import is_int
from dixit_ai.rules.errors import IllegalAction
from dixit_ai.rules.ruleset import RuleSet


def voting_seats(rules: RuleSet, n_players: int, storyteller: int) -> tuple[int, ...]:
    """The seats that vote this round, in turn order (clockwise from the storyteller's left).

    Every guesser votes; in the team variant each team other than the storyteller's casts one
    joint vote, through the partner who comes first clockwise after the storyteller.
    """
    order = [(storyteller + k) % n_players for k in range(1, n_players)]
    if not rules.teams:
        return tuple(order)
    storyteller_team = rules.team_of(storyteller, n_players)
    seen: set[int] = {storyteller_team}
    voters = []
    for seat in order:
        team = rules.team_of(seat, n_players)
        if team not in seen:
            seen.add(team)
            voters.append(seat)
    return tuple(voters)


def check_vote(
    rules: RuleSet,
    *,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    seat: int,
    positions: Sequence[int],
    voters: Sequence[int] | None = None,
) -> None:
    """Raise :class:`IllegalAction` unless ``seat`` may cast ``positions`` as its vote.

    ``voters`` (the round's :func:`voting_seats`) may be passed to save recomputing it.
    """
    if seat == storyteller:
        raise IllegalAction(f"seat {seat} is the storyteller, who does not vote")
    if voters is None:
        voters = voting_seats(rules, n_players, storyteller)
    if seat not in voters:
        raise IllegalAction(
            f"seat {seat} does not vote this round: its partner votes for the team"
        )
    allowed = rules.votes_per_guesser(n_players)
    if not 1 <= len(positions) <= allowed:
        raise IllegalAction(
            f"seat {seat} cast {len(positions)} votes; {rules.name} with {n_players} "
            f"players allows {'1' if allowed == 1 else f'1 or {allowed}'}"
        )
    if len(set(positions)) != len(positions):
        raise IllegalAction(f"seat {seat} voted twice for the same card")
    size = len(board_owner)
    for position in positions:
        if not is_int(position):
            raise IllegalAction(f"seat {seat} voted for {position!r}, not a board position")
        if not 0 <= position < size:
            raise IllegalAction(
                f"seat {seat} voted for position {position}; the board has positions "
                f"0-{size - 1}"
            )
        owner = board_owner[position]
        if owner == seat:
            raise IllegalAction(f"seat {seat} voted for its own card at position {position}")
        if rules.teams and rules.team_of(owner, n_players) == rules.team_of(seat, n_players):
            raise IllegalAction(
                f"seat {seat} voted for its partner's card at position {position}")


def score_round(
    rules: RuleSet,
    *,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    votes: Mapping[int, Sequence[int]],
) -> list[int]:
    """The points each seat gains this round.

    Args:
        rules: The edition's rules.
        n_players: Players in the game.
        storyteller: The storyteller's seat.
        board_owner: ``board_owner[i]`` is the seat that owns board position ``i`` (0-based).
        votes: Each voting seat's board positions (1, or 2 where a second vote is allowed).

    Returns:
        Points per seat. In the team variant both partners get their team's points.

    Raises:
        IllegalAction: a vote by the storyteller or by a non-voting seat, a missing vote, too
            many votes, the same card twice, a vote for one's own (or partner's) card, a board
            whose owners do not match the players and cards played.
    """
    if not 0 <= storyteller < n_players:
        raise IllegalAction(f"storyteller {storyteller} is not a seat of a {n_players}-player game")
    expected_board = rules.board_size(n_players)
    if len(board_owner) != expected_board:
        raise IllegalAction(
            f"the board has {len(board_owner)} cards; {n_players} players in {rules.name} "
            f"put {expected_board} on it"
        )
    per_seat = rules.cards_per_guesser_for(n_players)
    for seat in range(n_players):
        count = sum(1 for owner in board_owner if owner == seat)
        want = 1 if seat == storyteller else per_seat
        if count != want:
            raise IllegalAction(f"seat {seat} owns {count} board cards; it should own {want}")
    voters = voting_seats(rules, n_players, storyteller)
    for seat in votes:
        if seat not in voters:
            if seat == storyteller:
                raise IllegalAction(f"seat {seat} is the storyteller, who does not vote")
            if rules.teams and 0 <= seat < n_players:
                raise IllegalAction(
                    f"seat {seat} does not vote this round: its partner votes for the team")
            raise IllegalAction(f"seat {seat} does not vote this round")
    missing = [seat for seat in voters if seat not in votes]
    if missing:
        raise IllegalAction(f"no vote from seat(s) {', '.join(map(str, missing))}")
    for seat in voters:
        check_vote(rules, n_players=n_players, storyteller=storyteller,
                   board_owner=board_owner, seat=seat, positions=votes[seat], voters=voters)
    return points_of_checked_round(rules, n_players, storyteller, board_owner, votes, voters)


def points_of_checked_round(
    rules: RuleSet,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    votes: Mapping[int, Sequence[int]],
    voters: Sequence[int],
) -> list[int]:
    """The scoring of :func:`score_round` for a round whose votes were already checked.

    The state machine checks each vote as it is cast, so it scores the round through this.
    """
    n_units = rules.n_teams(n_players)
    unit = [rules.team_of(seat, n_players) for seat in range(n_players)]
    storyteller_unit = unit[storyteller]
    storyteller_positions = {i for i, owner in enumerate(board_owner) if owner == storyteller}
    finders = [seat for seat in voters if storyteller_positions.intersection(votes[seat])]
    unit_points = [0] * n_units

    if not finders or len(finders) == len(voters):
        for seat in voters:
            unit_points[unit[seat]] += rules.all_or_none_points
    else:
        solo = rules.three_player_solo_points
        reward = solo if (solo is not None and n_players == 3 and len(finders) == 1) else None
        unit_points[storyteller_unit] += reward if reward is not None else rules.storyteller_points
        second_vote = rules.votes_per_guesser(n_players) > 1
        for seat in finders:
            unit_points[unit[seat]] += reward if reward is not None else rules.finder_points
            if second_vote and len(votes[seat]) == 1:
                unit_points[unit[seat]] += rules.single_vote_bonus

    bonus = [0] * n_units
    for seat in voters:
        for position in votes[seat]:
            owner = board_owner[position]
            if owner != storyteller:
                bonus[unit[owner]] += 1
    cap = rules.bonus_cap
    for u in range(n_units):
        unit_points[u] += bonus[u] if cap is None else min(bonus[u], cap)
    return [unit_points[unit[seat]] for seat in range(n_players)]
