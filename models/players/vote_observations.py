"""Recorded votes as observations of the guess model, and the voters they are kept from.

Each recorded vote is one observation (:class:`VoteObservation`): the similarities of the board
cards the voter could vote for (its own cards excluded) to the clue, which of them was the
storyteller's, and which one it voted for (its first vote). :func:`vote_observations` reads them
from recorded games, keeping the voters a :data:`VoterFilter` names (people, other models) and
the rounds a :data:`RoundFilter` keeps; :func:`vote_predictions` gives each vote's predicted
chance under a guess model, and :func:`predicted_rounds` the rounds a storyteller predicted.
:mod:`models.players.calibration` fits the guess model to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.players.simulation import GuessModel

__all__ = [
    "RoundFilter",
    "VoteObservation",
    "VoterFilter",
    "human_tellers",
    "human_voters",
    "is_human",
    "observations_and_voters",
    "observed_guess_rate",
    "other_model_voters",
    "predicted_rounds",
    "predictions_of",
    "seat_embedders",
    "unsimulated_voters",
    "vote_observations",
    "vote_predictions",
]


@dataclass(frozen=True)
class VoteObservation:
    """One vote: similarities of the votable cards, the storyteller's among them, the choice."""

    sims: np.ndarray
    storyteller_index: int
    chosen: int


def observed_guess_rate(round_record: Any) -> float | None:
    """The fraction of voters who found the storyteller's card in a recorded round."""
    votes = round_record.votes
    if not votes or round_record.storyteller_card not in round_record.board:
        return None
    position = round_record.board.index(round_record.storyteller_card)
    return sum(position in v for v in votes.values()) / len(votes)


def is_human(entry: Any) -> bool:
    """Whether a record header's agent entry is a person (web tables write ``{"name":
    "human", ...}``; ``dixit-ai play`` writes ``{"class": "HumanAgent", ...}``)."""
    return isinstance(entry, dict) and (entry.get("name") == "human"
                                        or entry.get("class") == "HumanAgent"
                                        or entry.get("human") is True)


def seat_embedders(record: Any) -> list[str | None]:
    """The embedder fingerprint of every seat's agent (``None``: none said, e.g. a person)."""
    return [entry.get("embedder") if isinstance(entry, dict) else None
            for entry in record.header.get("agents", [])]


VoterFilter = Callable[[Any, int], bool]
"""``voters(record, seat) -> bool``: whose votes an observation set keeps."""


def human_voters(record: Any, seat: int) -> bool:
    """Keep the votes of people only (:func:`is_human`)."""
    agents = record.header.get("agents", [])
    return seat < len(agents) and is_human(agents[seat])


def other_model_voters(fingerprint: str) -> VoterFilter:
    """Keep the votes of seats whose agent's embedder is not ``fingerprint`` (people too)."""
    def keep(record: Any, seat: int) -> bool:
        models = seat_embedders(record)
        return seat >= len(models) or models[seat] != fingerprint

    return keep


RoundFilter = Callable[[Any, Any, int], bool]
"""``keep(record, round_record, voter_seat) -> bool``: which (round, voter) votes to keep."""


def human_tellers(record: Any, round_record: Any, seat: int) -> bool:
    """Keep the votes of rounds a person told (:func:`is_human`): where a person's card lies
    among the board, which a guesser's beliefs about people's stories are fitted to
    (:func:`~models.players.calibration.fit_belief_temperature`): the storyteller's seat as
    :func:`human_voters` reads a voter's."""
    return human_voters(record, round_record.storyteller)


def unsimulated_voters(record: Any, round_record: Any, seat: int) -> bool:
    """Keep a vote only when the round's storyteller did not simulate the voter's model.

    A storyteller's header entry names the embedders its simulation uses
    (``simulation_embedders``); a vote by a seat on one of them is home ground for that
    storyteller and is left out. Rounds told by a storyteller that names none (a person, a
    baseline) are kept: nobody simulated their voters.
    """
    agents = record.header.get("agents", [])
    teller = round_record.storyteller
    entry = agents[teller] if teller < len(agents) else None
    simulated = entry.get("simulation_embedders") if isinstance(entry, dict) else None
    if not simulated:
        return True
    models = seat_embedders(record)
    voter = models[seat] if seat < len(models) else None
    return voter is None or voter not in simulated


def vote_observations(records: Iterable[Any], card_vectors: Any, text_vectors: Any,
                      voters: VoterFilter | None = None,
                      rounds: RoundFilter | None = None) -> list[VoteObservation]:
    """The vote observations of recorded games.

    Args:
        records: :class:`dixit_ai.GameRecord` objects.
        card_vectors: ``card_vectors(card_ids) -> (n, dim)`` array.
        text_vectors: ``text_vectors(texts) -> (n, dim)`` array.
        voters: Which seats' votes to keep (``None``: every voter's).
        rounds: Which (round, voter) votes to keep besides (``None``: all), e.g.
            :func:`unsimulated_voters`.
    """
    return [obs for record in records
            for obs, _ in _observations_with_seats(record, card_vectors, text_vectors, voters,
                                                   rounds)]


def observations_and_voters(records: Iterable[Any], card_vectors: Any, text_vectors: Any,
                            voters: VoterFilter | None = None,
                            rounds: RoundFilter | None = None
                            ) -> tuple[list[VoteObservation], list[dict[str, Any]]]:
    """:func:`vote_observations`, and the voters whose votes they are: ``{"fingerprint"`` (the
    seat's embedder, ``None`` for a person or an agent on none), ``"name"}`` each once, sorted;
    what a fitted file records as :data:`~models.players.simulation.VOTERS_KEY`."""
    observations: list[VoteObservation] = []
    seen: set[tuple[str, str]] = set()
    by: list[dict[str, Any]] = []
    for record in records:
        agents = record.header.get("agents", [])
        models = seat_embedders(record)
        for obs, seat in _observations_with_seats(record, card_vectors, text_vectors, voters,
                                                  rounds):
            observations.append(obs)
            fingerprint = models[seat] if seat < len(models) else None
            entry = agents[seat] if seat < len(agents) else None
            name = str(entry.get("name", "?")) if isinstance(entry, dict) else "?"
            key = (str(fingerprint) if fingerprint is not None else "", name)
            if key not in seen:
                seen.add(key)
                by.append({"fingerprint": None if fingerprint is None else str(fingerprint),
                           "name": name})
    by.sort(key=lambda v: (v["fingerprint"] or "", v["name"]))
    return observations, by


def predicted_rounds(records: Iterable[Any]) -> Iterator[tuple[Any, Any, float, float]]:
    """``(record, round, predicted, observed)`` for every round with both a prediction and an
    observed guess rate (some vote was cast and the storyteller's card is on the board)."""
    for record in records:
        for rnd in record.rounds:
            rate = observed_guess_rate(rnd)
            if rnd.predicted_guess_rate is not None and rate is not None:
                yield record, rnd, float(rnd.predicted_guess_rate), rate


def predictions_of(records: Iterable[Any]) -> tuple[list[float], list[float], list[str]]:
    """(predicted, observed, storyteller agent name) for every round with a prediction."""
    predicted, observed, names = [], [], []
    for record, rnd, p, o in predicted_rounds(records):
        agents = record.header.get("agents", [])
        predicted.append(p)
        observed.append(o)
        names.append(str(agents[rnd.storyteller].get("name", "?"))
                     if rnd.storyteller < len(agents) else "?")
    return predicted, observed, names


def vote_predictions(records: Iterable[Any], card_vectors: Any, text_vectors: Any,
                     model: GuessModel, voters: VoterFilter | None = None,
                     rounds: RoundFilter | None = None) -> list[tuple[float, float, str]]:
    """``(P(the vote finds the card), whether it did, the voter's agent name)`` per vote (of
    the ``voters`` and ``rounds`` kept, as :func:`vote_observations` keeps them).

    The probability is the guess model's on the recorded board (the voter's own cards
    excluded): what a storyteller with these similarities and this model predicts.
    """
    out = []
    for record in records:
        agents = record.header.get("agents", [])
        for obs, seat in _observations_with_seats(record, card_vectors, text_vectors, voters,
                                                  rounds):
            p = model.vote_probabilities(obs.sims, obs.storyteller_index)[obs.storyteller_index]
            name = str(agents[seat].get("name", "?")) if seat < len(agents) else "?"
            out.append((float(p), float(obs.chosen == obs.storyteller_index), name))
    return out


def _observations_with_seats(record: Any, card_vectors: Any, text_vectors: Any,
                             voters: VoterFilter | None, rounds: RoundFilter | None = None
                             ) -> list[tuple[VoteObservation, int]]:
    """One record's vote observations, each with its voter's seat (:func:`vote_observations`)."""
    out = []
    for rnd in record.rounds:
        if not rnd.votes or rnd.storyteller_card not in rnd.board:
            continue
        sims = card_vectors(rnd.board) @ text_vectors([rnd.clue])[0]
        target = rnd.board.index(rnd.storyteller_card)
        for seat, votes in rnd.votes.items():
            seat = int(seat)
            if voters is not None and not voters(record, seat):
                continue
            if rounds is not None and not rounds(record, rnd, seat):
                continue
            legal = [i for i, owner in enumerate(rnd.board_owner) if owner != seat]
            if not votes or votes[0] not in legal or target not in legal:
                continue
            out.append((VoteObservation(np.asarray(sims[legal], dtype=np.float64),
                                        legal.index(target), legal.index(votes[0])), seat))
    return out
