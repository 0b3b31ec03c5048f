"""Hand-made game records and small tournament configs for the tournament tests."""

from __future__ import annotations

from typing import Any

from dixit_ai.records import RECORD_FORMAT, GameRecord, RoundRecord
from dixit_ai.tournament import TournamentConfig


def story_round(number: int, *, storyteller: int, n_players: int, finders: list[int],
                points: list[int], scores: list[int]) -> RoundRecord:
    """A round in which the storyteller's card is board position 0 and ``finders`` vote it."""
    voters = [seat for seat in range(n_players) if seat != storyteller]
    board = list(range(100, 100 + n_players))
    owners = [storyteller, *voters]
    votes = {seat: [0] if seat in finders else [1 + (voters.index(seat) + 1) % len(voters)]
             for seat in voters}
    return RoundRecord(
        round=number, storyteller=storyteller, clue="clue", clue_kind="word",
        predicted_guess_rate=None, storyteller_card=board[0],
        played=[[board[owners.index(seat)]] for seat in range(n_players)],
        board=board, board_owner=owners, votes=votes, points=points, scores=scores)


def game(labels: list[str], final_scores: list[int], *, seed: int = 0,
         index: int | None = None, deal: int | None = None,
         rounds: list[RoundRecord] | None = None, winners: list[int] | None = None,
         status: str = "complete") -> GameRecord:
    """A record whose seats are played by ``labels`` and that ends with ``final_scores``."""
    header: dict[str, Any] = {
        "format": RECORD_FORMAT, "edition": "refresh-2021", "rules": {},
        "n_players": len(labels), "seed": seed, "deck": {"name": "test", "size": 84},
        "agents": [{"name": label} for label in labels],
    }
    if index is not None:
        header["tournament"] = {"name": "t", "game": index,
                                "deal": index if deal is None else deal, "seats": labels}
    if winners is None:
        top = max(final_scores)
        winners = [s for s, score in enumerate(final_scores) if score == top]
    return GameRecord(header=header, rounds=rounds or [], final_scores=final_scores,
                      winners=winners if status == "complete" else [],
                      status=status)  # type: ignore[arg-type]


def random_config(**changes: Any) -> TournamentConfig:
    """Three random agents (two under other labels, one of them with other settings)."""
    values: dict[str, Any] = {
        "agents": ("random", "b=random",
                   {"label": "cautious", "agent": "random", "kwargs": {"second_vote_rate": 0.0}}),
        "players": 4, "games": 12, "seed": 3,
    }
    values.update(changes)
    return TournamentConfig(**values)
