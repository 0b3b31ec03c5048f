"""What the server tells one seat: built from that seat's view and nothing else.

:func:`game_payload` turns a :class:`~dixit_ai.rules.View` (the rules' one door for hidden
information) into JSON; :func:`round_payload` explains a revealed round (whose card was whose, who
voted for what, and each seat's points with the reason). The table's public facts (names, who is a
bot, the timer) are added by the manager; no function here ever sees a :class:`GameState`.
"""

from __future__ import annotations

from typing import Any

from dixit_ai.rules import Phase, RoundResult, RuleSet, View, leaders
from dixit_ai.rules.explain import explain_round

COLOURS: tuple[str, ...] = (
    "#e4572e", "#29a3d6", "#f2c14e", "#6bbf59", "#9b5de5", "#f78fb3",
    "#2ec4b6", "#8d6e63", "#ff9f1c", "#5c6bc0", "#c0ca33", "#ef476f",
)
"""The rabbits' colours, one per seat."""


def game_payload(view: View) -> dict[str, Any]:
    """The JSON of what ``view``'s seat may know of the game right now."""
    over = view.phase is Phase.OVER
    return {
        "phase": view.phase.value,
        "round": view.round,
        "storyteller": view.storyteller,
        "is_storyteller": view.is_storyteller,
        "pending": list(view.pending),
        "hand": list(view.hand),
        "clue": view.clue,
        "clue_kind": view.clue_kind,
        "board": list(view.board),
        "my_cards": list(view.my_cards),
        "my_positions": list(view.my_positions),
        "team_positions": list(view.team_positions),
        "my_votes": list(view.my_votes),
        "legal_vote_positions": list(view.legal_vote_positions()),
        "cards_to_play": view.cards_to_play,
        "max_votes": view.max_votes,
        "mode": view.rules.mode,
        "teams": view.rules.teams,
        "partner": view.partner,
        "can_pass": view.can_pass,
        "legal_red_positions": list(view.legal_red_positions()),
        "red_token": view.red_token,
        "scores": list(view.scores),
        "draw_pile_size": view.draw_pile_size,
        "score_limit": view.rules.score_limit,
        "n_rounds": view.rules.n_rounds_for(view.n_players),
        "winners": list(leaders(view.scores)) if over else [],
        "last_round": (None if view.last_round is None
                       else round_payload(view.rules, view.n_players, view.last_round)),
    }


PUBLIC_KEYS: tuple[str, ...] = (
    "phase", "round", "storyteller", "pending", "clue", "clue_kind", "board", "mode", "teams",
    "scores", "draw_pile_size", "score_limit", "n_rounds", "winners", "last_round",
)
"""The parts of a seat's game payload every seat is told alike: what a spectator sees."""


def public_payload(view: View) -> dict[str, Any]:
    """What anyone may know of the game right now (a spectator's view): any seat's
    :func:`game_payload` less what is that seat's own (hand, own cards and votes)."""
    payload = game_payload(view)
    return {key: payload[key] for key in PUBLIC_KEYS}


def rules_help(rules: RuleSet, n_players: int) -> list[str]:
    """The table's rules in a few lines, with this edition's numbers (the help panel)."""
    if rules.teams:
        return _team_help(rules, n_players)
    if rules.is_party:
        return _party_help(rules, n_players)
    votes = rules.votes_per_guesser(n_players)
    cards = rules.cards_per_guesser if n_players != 3 else getattr(
        rules, "cards_per_guesser_3p", rules.cards_per_guesser)
    lines = [
        f"{rules.name}, {n_players} players: {rules.hand_size_for(n_players)} cards in hand.",
        "The storyteller picks a card from their hand and says a clue.",
        f"Everyone else plays {cards} card{'s' if cards > 1 else ''} from their hand that "
        "fits the clue; the cards are shuffled and laid out face up.",
        ("Everyone but the storyteller votes for the card they think is the storyteller's"
         + (f" (up to {votes} votes, never on one's own card)." if votes > 1
            else " (one vote, never on one's own card).")),
        f"If everyone or nobody finds it: the storyteller scores 0, everyone else "
        f"{rules.all_or_none_points}.",
        f"Otherwise the storyteller and each player who found it score "
        f"{rules.storyteller_points}"
        + (f" ({rules.finder_points} for a finder)"
           if rules.finder_points != rules.storyteller_points else "") + ".",
    ]
    solo = rules.three_player_solo_points
    if solo is not None and n_players == 3:
        lines.append(f"With 3 players, when exactly one guesser finds the card, the storyteller "
                     f"and that guesser score {solo}.")
    if votes > 1 and rules.single_vote_bonus:
        lines.append(f"A guesser who found the card with a single vote scores "
                     f"{rules.single_vote_bonus} more.")
    bonus = "Each other player scores 1 for every vote on their own card"
    lines.append(bonus + (f" (at most {rules.bonus_cap} a round)." if rules.bonus_cap
                          is not None else "."))
    if rules.score_limit is not None:
        lines.append(f"The game ends when someone reaches {rules.score_limit} points; "
                     "the highest score wins, ties share the victory.")
    else:
        lines.append("The game ends when the draw pile runs out; the highest score wins, "
                     "ties share the victory.")
    return lines


def _end_line(rules: RuleSet, n_players: int) -> str:
    told = rules.rounds_per_player
    if told is not None:
        line = (f"The game ends when each player has been storyteller "
                f"{'once' if told == 1 else f'{told} times'} ({rules.n_rounds_for(n_players)} "
                "rounds)")
        if rules.score_limit is not None:
            line += f" or someone reaches {rules.score_limit} points"
        return line + "; the highest score wins, ties share the victory."
    return f"The game ends when someone reaches {rules.score_limit} points."


def _team_help(rules: RuleSet, n_players: int) -> list[str]:
    teams = rules.n_teams(n_players)
    cap = rules.bonus_cap_for()
    return [
        f"{rules.name}, Team Dixit, {n_players} players in {teams} teams of 2 (partners sit "
        f"opposite: seat i with seat i + {teams}); {rules.hand_size_for(n_players)} cards in "
        "hand; partners share one score.",
        "The storyteller picks a card from their hand and says a clue; the storyteller's "
        "partner gives one card for it.",
        "In every other team one partner gives a card, or passes the giving to the other "
        "partner (the pass is seen by all); no one sees the partner's hand.",
        f"The {rules.board_size(n_players)} cards are shuffled and laid out; in each guessing "
        "team the partner who did not give votes once, never on the team's card.",
        f"If everyone or nobody finds it: the storyteller's team scores 0, every other team "
        f"{rules.all_or_none_points}. Otherwise the storyteller's team and each team that "
        f"found it score {rules.storyteller_points}.",
        "Every vote on a card other than the storyteller's gives that card's team 1 point"
        + (f" (at most {cap} a round)." if cap is not None else "."),
        _end_line(rules, n_players),
    ]


def _party_help(rules: RuleSet, n_players: int) -> list[str]:
    return [
        f"{rules.name}, Dixit Party, {n_players} players: {rules.hand_size_for(n_players)} "
        "cards in hand, passed to the left after each round.",
        "The storyteller says a clue before looking at their hand; then everyone, storyteller "
        "included, plays one card for it; the cards are shuffled and laid out face up.",
        "Everyone votes once for the image they think most players will choose (one's own "
        "card allowed); then the storyteller secretly places the red token on one image.",
        f"Each player scores the number of players (themselves included) who voted for the "
        f"same image, at most {rules.party_points_cap}.",
        "A player who voted alone for an image scores 0; the voters of the image under the "
        "red token score 0.",
        _end_line(rules, n_players),
    ]


def round_payload(rules: RuleSet, n_players: int, result: RoundResult) -> dict[str, Any]:
    """A revealed round, everything public, with the points of each seat and their reasons."""
    return {
        "round": result.round,
        "storyteller": result.storyteller,
        "clue": result.clue,
        "clue_kind": result.clue_kind,
        "storyteller_card": result.storyteller_card,
        "board": list(result.board),
        "board_owner": list(result.board_owner),
        "votes": {str(seat): list(result.votes[seat]) for seat in result.voters},
        "finders": list(result.finders),
        "outcome": result.outcome,
        "points": list(result.points),
        "scores": list(result.scores),
        "forfeits": list(result.forfeits),
        "red_token": result.red_token,
        "reasons": explain_points(rules, n_players, result),
        "reasons_named": explain_points(rules, n_players, result, name=NAME_MARK),
    }


NAME_MARK = "\u2063NAME\u2063"
"""Where a seat's name goes in ``reasons_named`` (the page puts the name of the row's seat
there): each seat's reasons worded for the others reading the reveal ("bonus: 2 votes on Bea's
card"), where ``reasons`` words them for the seat's own reader ("... on your card")."""


def explain_points(rules: RuleSet, n_players: int, result: RoundResult,
                   name: str | None = None) -> list[list[dict[str, Any]]]:
    """Per seat, the parts of its points this round: ``{"points": int, "reason": str}``.

    Rendered from the named parts the rules computed (:meth:`RoundResult.point_parts`); they
    sum to ``result.points[seat]``. Nothing is recomputed here. ``name``: who the lines are
    about (:func:`~dixit_ai.rules.explain.explain_round`); ``None`` words them for the seat's
    own reader.
    """
    return [[{"points": points, "reason": reason}
             for points, reason in explain_round(result, seat, party=rules.mode == "party",
                                                 teams=rules.teams, name=name)]
            for seat in range(n_players)]
