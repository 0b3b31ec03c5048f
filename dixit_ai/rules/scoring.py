"""Scoring one round, for every edition, the team variant and Dixit Party.

Points come in named parts (:data:`POINT_PARTS`) whose sum is the points: the rules compute the
parts, and everything that explains a score (the web table, the terminal player) renders them.

The worked example of the Persian rulebook (5 players; Dan, seat 0, tells; board positions are
0-based here, so the rulebook's card #1 is position 0):

>>> from dixit_ai.rules import RuleSet
>>> dan, chris, ruby, eva, kevin = range(5)
>>> rules = RuleSet.edition("original-2008")
>>> round_ = dict(n_players=5, storyteller=dan, board_owner=[chris, ruby, dan, eva, kevin],
...               votes={eva: [0], chris: [2], ruby: [2], kevin: [3]})
>>> score_round(rules, **round_)
[3, 4, 3, 1, 0]
>>> score_parts(rules, **round_)[chris]
{'found': 3, 'bonus_votes': 1}
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

from dixit_ai.rules._fast import is_int
from dixit_ai.rules.errors import IllegalAction
from dixit_ai.rules.ruleset import RuleSet
from dixit_ai.rules.teams import partner_seat, seat_units, team_pairs

POINT_PARTS: tuple[str, ...] = (
    "storyteller",
    "found",
    "all_or_none",
    "solo_3p",
    "single_vote",
    "bonus_votes",
    "cap",
    "same_image",
    "red_token",
    "lone_vote",
    "forfeit",
)
"""The named parts of a seat's points in one round, in this order everywhere.

- ``storyteller``: the storyteller's points when some but not all found the card (3).
- ``found``: a guesser's points for finding the storyteller's card (3).
- ``all_or_none``: each guesser's points when all or none found it (2).
- ``solo_3p``: the 2008 3-player rule: storyteller and the one finder get 4 instead of 3 (+1).
- ``single_vote``: Odyssey, found the card with a single vote where a second was allowed (+1).
- ``bonus_votes``: +1 per vote on one's own (or one's team's) cards, before any cap.
- ``cap``: what a bonus cap (Odyssey, teams: 3) or Dixit Party's 5-point cap takes back (<= 0).
- ``same_image``: Dixit Party: the number of players (oneself included) on one's image.
- ``red_token``: Dixit Party: voters of the storyteller's red-token image score 0 (<= 0).
- ``lone_vote``: Dixit Party: a lone voter scores 0 (<= 0).
- ``forfeit``: a forfeited round (a failed agent): the seat or team scores 0 (<= 0).
"""

_P = {name: index for index, name in enumerate(POINT_PARTS)}
_STORYTELLER, _FOUND, _ALL_OR_NONE, _SOLO, _SINGLE, _BONUS, _CAP = range(7)
_SAME, _RED, _LONE, _FORFEIT = _P["same_image"], _P["red_token"], _P["lone_vote"], _P["forfeit"]
_N_PARTS = len(POINT_PARTS)

Parts = tuple[tuple[str, int], ...]
"""One seat's points in one round: its nonzero ``(name, points)`` parts in :data:`POINT_PARTS`
order (names as there); their values sum to the seat's points."""


def parts_dict(parts: Parts) -> dict[str, int]:
    """One seat's parts as a dict, name to points (a new dict each call)."""
    return dict(parts)


@functools.lru_cache(maxsize=4096)
def _named(row: tuple[int, ...]) -> tuple[Parts, int]:
    """A row of part values (one per :data:`POINT_PARTS` name) as named parts, and its sum.

    Rows repeat a great deal from round to round, so they are named once.
    """
    return tuple((name, value) for name, value in zip(POINT_PARTS, row, strict=True)
                 if value), sum(row)


def designated_seats(rules: RuleSet, n_players: int, storyteller: int) -> tuple[int, ...]:
    """Team variant: the seat of each guessing team that decides who gives its card.

    It is the partner first clockwise after the storyteller; it either gives a card itself (its
    partner then votes) or passes the giving to its partner (and votes itself). Empty outside
    the team variant.
    """
    if not rules.teams:
        return ()
    own = rules.team_of(storyteller, n_players)
    seen = {own}
    chosen = []
    for k in range(1, n_players):
        seat = (storyteller + k) % n_players
        team = rules.team_of(seat, n_players)
        if team not in seen:
            seen.add(team)
            chosen.append(seat)
    return tuple(chosen)


def voting_seats(rules: RuleSet, n_players: int, storyteller: int,
                 board_owner: Sequence[int] | None = None) -> tuple[int, ...]:
    """The seats that vote this round, in turn order (clockwise from the storyteller's left).

    Base game: every guesser. Dixit Party: every player, the storyteller included (storyteller
    last). Team variant: in each team but the storyteller's, the partner who did not give the
    team's card; ``board_owner`` says who gave. Without it (before the cards are given) the
    result assumes each team's designated seat (:func:`designated_seats`) gives, so its length,
    one voter per guessing team, is always right.
    """
    order = [(storyteller + k) % n_players for k in range(1, n_players)]
    if rules.mode == "party":
        return (*order, storyteller)
    if not rules.teams:
        return tuple(order)
    if board_owner is None:
        givers = set(designated_seats(rules, n_players, storyteller))
    else:
        givers = set(board_owner)
    storyteller_team = rules.team_of(storyteller, n_players)
    return tuple(seat for seat in order
                 if rules.team_of(seat, n_players) != storyteller_team
                 and seat not in givers and partner_seat(seat, n_players) in givers)


def non_voter_problem(rules: RuleSet, n_players: int, storyteller: int, seat: int,
                      board_owner: Sequence[int] | None = None) -> str:
    """Why ``seat``, which is not among the round's :func:`voting_seats`, may not vote.

    The reason as an :class:`IllegalAction` message: not a seat at all, the storyteller, or
    (team variant) the storyteller's teammate or a seat that gave its team's card.
    """
    if not is_int(seat) or not 0 <= seat < n_players:
        return f"{seat!r} is not a seat of this {n_players}-player game"
    if seat == storyteller:
        return f"seat {seat} is the storyteller, who does not vote"
    if rules.teams:
        partner = partner_seat(seat, n_players)
        if partner == storyteller:
            return (f"seat {seat} does not vote this round: it is the storyteller's teammate, "
                    "who gives the storyteller a card and does not vote")
        if board_owner is not None and seat in board_owner:
            return (f"seat {seat} does not vote this round: it gave its team's card; its "
                    f"partner, seat {partner}, votes for the team")
    return f"seat {seat} does not vote this round"


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

    ``positions`` must be a list or tuple of board positions (ints, never bools); anything else
    (a bare int, a list as a position, ...) is an :class:`IllegalAction` naming the seat.
    ``voters`` (the round's :func:`voting_seats`) may be passed to save recomputing it.
    """
    if not isinstance(positions, tuple | list):
        raise IllegalAction(f"seat {seat}'s vote {positions!r} is not a list of positions")
    party = rules.is_party
    if voters is None:
        voters = voting_seats(rules, n_players, storyteller, board_owner)
    if seat not in voters:
        raise IllegalAction(non_voter_problem(rules, n_players, storyteller, seat, board_owner))
    allowed = rules.votes_per_guesser(n_players)
    if not 1 <= len(positions) <= allowed:
        raise IllegalAction(
            f"seat {seat} cast {len(positions)} votes; {rules.name} with {n_players} "
            f"players allows {'1' if allowed == 1 else f'1 or {allowed}'}"
        )
    for position in positions:  # before the set below: a list as a position is unhashable
        if not is_int(position):
            raise IllegalAction(f"seat {seat} voted for {position!r}, not a board position")
    if len(set(positions)) != len(positions):
        raise IllegalAction(f"seat {seat} voted twice for the same card")
    size = len(board_owner)
    for position in positions:
        if not 0 <= position < size:
            raise IllegalAction(
                f"seat {seat} voted for position {position}; the board has positions "
                f"0-{size - 1}"
            )
        if party:
            continue  # Dixit Party: players may vote for their own image
        owner = board_owner[position]
        if owner == seat:
            raise IllegalAction(f"seat {seat} voted for its own card at position {position}")
        if rules.teams and rules.team_of(owner, n_players) == rules.team_of(seat, n_players):
            raise IllegalAction(
                f"seat {seat} voted for its partner's card at position {position}")


def check_board(rules: RuleSet, n_players: int, storyteller: int,
                board_owner: Sequence[int]) -> None:
    """Raise :class:`IllegalAction` unless ``board_owner`` matches the cards the rules lay.

    Base game: the storyteller 1 card, every guesser ``cards_per_guesser_for`` cards. Dixit
    Party: 1 card each. Team variant: the storyteller and its teammate 1 each, and in every
    other team exactly one partner 1.
    """
    if not is_int(storyteller) or not 0 <= storyteller < n_players:
        raise IllegalAction(f"storyteller {storyteller} is not a seat of a {n_players}-player game")
    expected_board = rules.board_size(n_players)
    if len(board_owner) != expected_board:
        raise IllegalAction(
            f"the board has {len(board_owner)} cards; {n_players} players in {rules.name} "
            f"put {expected_board} on it"
        )
    counts = [0] * n_players
    for owner in board_owner:
        if not is_int(owner) or not 0 <= owner < n_players:
            raise IllegalAction(f"board owner {owner!r} is not a seat")
        counts[owner] += 1
    if rules.teams:
        teammate = partner_seat(storyteller, n_players)
        for pair in team_pairs(n_players):
            cards = counts[pair[0]] + counts[pair[1]]
            if storyteller in pair:
                if counts[storyteller] != 1 or counts[teammate] != 1:
                    raise IllegalAction(
                        f"the storyteller (seat {storyteller}) and its teammate (seat "
                        f"{teammate}) each give 1 card; they own {counts[storyteller]} and "
                        f"{counts[teammate]}")
            elif cards != 1:
                raise IllegalAction(
                    f"team of seats {pair[0]} and {pair[1]} owns {cards} board cards; "
                    "one partner gives exactly 1")
        return
    per_seat = rules.cards_per_guesser_for(n_players)
    for seat in range(n_players):
        want = 1 if seat == storyteller else per_seat
        if counts[seat] != want:
            raise IllegalAction(f"seat {seat} owns {counts[seat]} board cards; it should own "
                                f"{want}")


def _checked_round(rules: RuleSet, n_players: int, storyteller: int,
                   board_owner: Sequence[int], votes: Mapping[int, Sequence[int]],
                   red_token: int | None) -> tuple[int, ...]:
    """Check a whole round as :func:`score_round` takes it; return its voters."""
    try:
        rules.check_players(n_players)
    except ValueError as error:  # the message new_game gives for the same count
        raise IllegalAction(str(error)) from None
    check_board(rules, n_players, storyteller, board_owner)
    if not isinstance(votes, Mapping):
        raise IllegalAction(f"votes must map each voting seat to its positions, not {votes!r}")
    voters = voting_seats(rules, n_players, storyteller, board_owner)
    for seat in votes:
        if seat not in voters:
            raise IllegalAction(non_voter_problem(rules, n_players, storyteller, seat,
                                                  board_owner))
    missing = [seat for seat in voters if seat not in votes]
    if missing:
        raise IllegalAction(f"no vote from seat(s) {', '.join(map(str, missing))}")
    for seat in voters:
        check_vote(rules, n_players=n_players, storyteller=storyteller,
                   board_owner=board_owner, seat=seat, positions=votes[seat], voters=voters)
    if rules.mode == "party":
        check_red_token(board_owner, storyteller, red_token)
    elif red_token is not None:
        raise IllegalAction("only Dixit Party has a red token")
    return voters


def check_red_token(board_owner: Sequence[int], seat: int, position: object) -> None:
    """Raise :class:`IllegalAction` unless ``position`` is a board position for the red token."""
    if position is None:
        raise IllegalAction(f"seat {seat} (the storyteller) has not placed the red token")
    if not is_int(position):
        raise IllegalAction(f"seat {seat}'s red token {position!r} is not a board position")
    assert isinstance(position, int)
    if not 0 <= position < len(board_owner):
        raise IllegalAction(f"seat {seat}'s red token is on position {position}; the board has "
                            f"positions 0-{len(board_owner) - 1}")


def score_round(
    rules: RuleSet,
    *,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    votes: Mapping[int, Sequence[int]],
    red_token: int | None = None,
) -> list[int]:
    """The points each seat gains this round.

    Args:
        rules: The edition's rules.
        n_players: Players in the game.
        storyteller: The storyteller's seat.
        board_owner: ``board_owner[i]`` is the seat that owns board position ``i`` (0-based).
        votes: Each voting seat's board positions (1, or 2 where a second vote is allowed).
        red_token: Dixit Party only: the board position of the storyteller's red token.

    Returns:
        Points per seat. In the team variant both partners get their team's points.

    Raises:
        IllegalAction: a player count the rules do not allow (the message of
            ``rules.check_players``, as :func:`~dixit_ai.rules.new_game` gives it), a vote by
            the storyteller or by a non-voting seat, a missing vote, too many votes, the same
            card twice, a vote for one's own (or partner's) card, ``votes`` that is not a
            mapping or a vote that is not a list or tuple of int positions, a board whose
            owners do not match the players and cards played, a missing red token.
    """
    voters = _checked_round(rules, n_players, storyteller, board_owner, votes, red_token)
    return score_checked_round(rules, n_players, storyteller, board_owner, votes, voters,
                               red_token)[1]


def score_parts(
    rules: RuleSet,
    *,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    votes: Mapping[int, Sequence[int]],
    red_token: int | None = None,
) -> list[dict[str, int]]:
    """Each seat's points as named parts (nonzero ones; see :data:`POINT_PARTS`).

    Takes what :func:`score_round` takes and raises what it raises; each seat's parts sum to
    its :func:`score_round` points.
    """
    voters = _checked_round(rules, n_players, storyteller, board_owner, votes, red_token)
    return [dict(parts) for parts in score_checked_round(
        rules, n_players, storyteller, board_owner, votes, voters, red_token)[0]]


def score_checked_round(
    rules: RuleSet,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    votes: Mapping[int, Sequence[int]],
    voters: Sequence[int],
    red_token: int | None = None,
) -> tuple[list[Parts], list[int]]:
    """Each seat's named parts and points, for a round whose votes were already checked.

    The state machine checks each vote as it is cast, so it scores the round through this.
    """
    rows = _rows(rules, n_players, storyteller, board_owner, votes, voters, red_token)
    named = [_named(row) for row in rows]
    return [parts for parts, _ in named], [total for _, total in named]


def _rows(
    rules: RuleSet,
    n_players: int,
    storyteller: int,
    board_owner: Sequence[int],
    votes: Mapping[int, Sequence[int]],
    voters: Sequence[int],
    red_token: int | None,
) -> list[tuple[int, ...]]:
    """Each seat's part values, one per :data:`POINT_PARTS` name."""
    if rules.mode == "party":
        return _party_parts(rules, n_players, votes, voters, red_token)
    unit = seat_units(n_players, rules.teams)
    n_units = rules.n_teams(n_players)
    storyteller_unit = unit[storyteller]
    target = {i for i, owner in enumerate(board_owner) if owner == storyteller}
    finders = [seat for seat in voters if target.intersection(votes[seat])]
    parts = [[0] * _N_PARTS for _ in range(n_units)]

    if not finders or len(finders) == len(voters):
        for seat in voters:
            parts[unit[seat]][_ALL_OR_NONE] += rules.all_or_none_points
        some = False
    else:
        some = True
        solo = rules.three_player_solo_points
        extra = (solo - rules.storyteller_points, solo - rules.finder_points) if (
            solo is not None and n_players == 3 and len(finders) == 1) else None
        mine = parts[storyteller_unit]
        mine[_STORYTELLER] += rules.storyteller_points
        if extra is not None:
            mine[_SOLO] += extra[0]
        for seat in finders:
            theirs = parts[unit[seat]]
            theirs[_FOUND] += rules.finder_points
            if extra is not None:
                theirs[_SOLO] += extra[1]
    if finders and rules.single_vote_bonus and rules.votes_per_guesser(n_players) > 1 and (
            some or rules.single_vote_bonus_when == "found"):
        for seat in finders:
            if len(votes[seat]) == 1:
                parts[unit[seat]][_SINGLE] += rules.single_vote_bonus

    bonus = [0] * n_units
    for seat in voters:
        for position in votes[seat]:
            owner = board_owner[position]
            if owner != storyteller:
                bonus[unit[owner]] += 1
    cap = rules.team_bonus_cap if rules.teams else rules.bonus_cap
    for u in range(n_units):
        if bonus[u]:
            parts[u][_BONUS] = bonus[u]
            if cap is not None and bonus[u] > cap:
                parts[u][_CAP] = cap - bonus[u]
    return [tuple(parts[unit[seat]]) for seat in range(n_players)]


def _party_parts(rules: RuleSet, n_players: int, votes: Mapping[int, Sequence[int]],
                 voters: Sequence[int], red_token: int | None) -> list[tuple[int, ...]]:
    """Dixit Party: the number of players on one's image (at most the cap); red-token image and
    lone voters score 0."""
    on: dict[int, int] = {}
    for seat in voters:
        position = votes[seat][0]
        on[position] = on.get(position, 0) + 1
    cap = rules.party_points_cap
    result: list[tuple[int, ...]] = []
    for seat in range(n_players):
        row = [0] * _N_PARTS
        if seat in votes:
            position = votes[seat][0]
            count = on[position]
            row[_SAME] = count
            kept = count
            if count > cap:
                row[_CAP] = cap - count
                kept = cap
            if position == red_token:
                row[_RED] = -kept
            elif count == 1:
                row[_LONE] = -kept
        result.append(tuple(row))
    return result


def forfeited(parts: Parts) -> Parts:
    """``parts`` with a ``forfeit`` part that brings their sum to 0."""
    total = sum(value for _, value in parts)
    return (*parts, ("forfeit", -total)) if total else parts
