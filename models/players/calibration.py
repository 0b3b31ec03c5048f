"""Fitting the guess model to recorded games, and measuring calibration.

Each recorded vote is one observation: the similarities of the board cards the voter could vote
for (its own cards excluded) to the clue, which of them was the storyteller's, and which one it
voted for (its first vote). :func:`fit_guess_model` maximises the likelihood of the votes under
:class:`~models.players.simulation.GuessModel` (temperature and bias), by a grid search refined
twice. :func:`reliability` bins predicted against observed guess rates and gives the expected
calibration error (ECE).

The observations and the voter filters are :mod:`models.players.vote_observations`'s, the
measures of calibration (reliability, ECE and its intervals) :mod:`models.players.reliability`'s;
this module fits and re-exports them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from dixit_ai.records import GameRecord
from models.players.guess_model import VOTERS_KEY, GuessModel
from models.players.reliability import (
    Reliability,
    calibrated_ece,
    ece_by_voter,
    ece_interval,
    plot_reliability,
    reliability,
    story_correlation,
)
from models.players.simulation import MIN_TEMPERATURE
from models.players.vote_observations import (
    RoundFilter,
    VoteObservation,
    VoterFilter,
    human_tellers,
    human_voters,
    is_human,
    observations_and_voters,
    observed_guess_rate,
    other_model_voters,
    predicted_rounds,
    predictions_of,
    seat_embedders,
    unsimulated_voters,
    vote_observations,
    vote_predictions,
)

__all__ = [
    "BIAS_GRID",
    "Reliability",
    "RoundFilter",
    "VoteObservation",
    "VoterFilter",
    "calibrated_ece",
    "ece_by_voter",
    "ece_interval",
    "fit_correlation",
    "fit_guess_model",
    "fit_population",
    "human_tellers",
    "human_voters",
    "is_human",
    "log_likelihood",
    "observations_and_voters",
    "observed_guess_rate",
    "other_model_voters",
    "plot_reliability",
    "predicted_rounds",
    "predictions_of",
    "reliability",
    "seat_embedders",
    "split_fit_held",
    "story_correlation",
    "unsimulated_voters",
    "vote_observations",
    "vote_predictions",
]


def split_fit_held(records: Iterable[GameRecord]) -> tuple[list[GameRecord], list[GameRecord]]:
    """The games to fit and the games held out, which depend only on the games themselves.

    The games are grouped by seed (the games of one tournament deal share its seed, so a deal,
    and its luck, falls on one side only; so do any two games dealt from one seed), the groups
    are sorted by seed, and every other group is held out: groups 0, 2, 4, ... are fitted, 1, 3,
    5, ... held out. Within each side the games are sorted by seed, then by their JSON text, so
    the order in which files (or games) are given changes nothing. With fewer than two seeds
    nothing is held out.

    >>> from dixit_ai.records import GameRecord
    >>> games = [GameRecord({"seed": s}, [], [], []) for s in (5, 3, 5, 9)]
    >>> fit, held = split_fit_held(games)
    >>> [g.seed for g in fit], [g.seed for g in held]
    ([3, 9], [5, 5])
    """
    ordered = sorted(records, key=lambda record: (record.seed, record.to_json()))
    seeds = sorted({record.seed for record in ordered})
    if len(seeds) < 2:
        return ordered, []
    held_seeds = set(seeds[1::2])
    return ([record for record in ordered if record.seed not in held_seeds],
            [record for record in ordered if record.seed in held_seeds])


def _pack(observations: Sequence[VoteObservation]) -> tuple[np.ndarray, ...]:
    width = max(len(o.sims) for o in observations)
    sims = np.full((len(observations), width), -np.inf)
    story = np.zeros_like(sims)
    for i, o in enumerate(observations):
        sims[i, : len(o.sims)] = o.sims
        story[i, o.storyteller_index] = 1.0
    chosen = np.asarray([o.chosen for o in observations])
    return sims, story, chosen


def log_likelihood(observations: Sequence[VoteObservation] | tuple[np.ndarray, ...],
                   temperature: float, bias: float) -> float:
    """Mean log-likelihood of the votes under a guess model."""
    sims, story, chosen = (observations if isinstance(observations, tuple)
                           else _pack(observations))
    logits = sims / temperature + bias * story
    logits = logits - logits.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(logits).sum(axis=1))
    return float(np.mean(logits[np.arange(len(chosen)), chosen] - log_norm))


BIAS_GRID = (-4.0, 4.0)
"""The bounds of :func:`fit_guess_model`'s first bias grid (finer grids search around the best
point; a fit at a bound is warned about by ``scripts/fit_calibration.py``)."""


def fit_guess_model(observations: Sequence[VoteObservation], *, fit_bias: bool = True,
                    temperature_range: tuple[float, float] = (MIN_TEMPERATURE, 1.0)) -> GuessModel:
    """The maximum-likelihood guess model for the observed votes.

    Args:
        observations: From :func:`vote_observations` (at least one).
        fit_bias: Fit the bias too (else it stays 0).
        temperature_range: Where to search the temperature (log scale).

    Raises:
        ValueError: no observations.
    """
    if not observations:
        raise ValueError("no votes to fit the guess model to")
    packed = _pack(observations)
    low, high = np.log(temperature_range[0]), np.log(temperature_range[1])
    log_t = np.linspace(low, high, 41)
    biases = np.linspace(*BIAS_GRID, 33) if fit_bias else np.zeros(1)
    best = (-np.inf, 0.0, 0.0)
    for _ in range(3):  # a grid, then two finer grids around the best point
        for lt in log_t:
            for b in biases:
                value = log_likelihood(packed, float(np.exp(lt)), float(b))
                if value > best[0]:
                    best = (value, float(lt), float(b))
        step_t = log_t[1] - log_t[0]
        log_t = np.clip(np.linspace(best[1] - step_t, best[1] + step_t, 21), low, high)
        if fit_bias:
            step_b = biases[1] - biases[0]
            biases = np.linspace(best[2] - step_b, best[2] + step_b, 21)
    return GuessModel(float(np.exp(best[1])), best[2])


def fit_belief_temperature(observations: Sequence[VoteObservation], *,
                           temperature_range: tuple[float, float] = (MIN_TEMPERATURE, 1.0)
                           ) -> float:
    """The temperature at which a softmax over each voter's similarities best predicts which
    card is the storyteller's (maximum likelihood): calibrated *beliefs* for a guesser's second
    vote (:class:`~models.players.guesser.ClipGuesser`'s ``belief_temperature``), as against
    :func:`fit_guess_model`'s temperature, which describes the votes themselves (for a clip
    guesser that votes for its most similar card, the fit's floor).

    Raises:
        ValueError: no observations.
    """
    if not observations:
        raise ValueError("no votes to fit the beliefs to")
    return fit_guess_model(as_found(observations), fit_bias=False,
                           temperature_range=temperature_range).temperature


def as_found(observations: Sequence[VoteObservation]) -> list[VoteObservation]:
    """``observations`` with the storyteller's card as the choice: what a belief over the
    votable cards must predict (:func:`fit_belief_temperature`, and its likelihood by
    :func:`log_likelihood`)."""
    return [replace(o, chosen=o.storyteller_index) for o in observations]


def fit_correlation(records: Iterable[Any], card_vectors: Any, text_vectors: Any,
                    model: GuessModel) -> tuple[float, dict[str, float]]:
    """Estimate how much of the voters' noise is shared within a round (``correlation``).

    With shared noise (correlation 1) the finders of a round are nobody, one voter or everyone
    (:mod:`models.players.simulation`); independent voters also produce "between" counts (2 to
    ``n - 1`` finders). Given each voter's probability of finding the card on the recorded
    board (the guess model, the voter's own cards excluded), independent voters would give an
    expected number ``E`` of such rounds; the mixture gives ``(1 - correlation) * E``. The
    estimate is ``1 - observed / E``, clipped to ``[0, 1]`` (``1`` when ``E`` is too small to
    tell, under one round).

    Returns:
        ``(correlation, {"between_observed", "between_independent", "rounds"})``.
    """
    observed, expected, rounds = 0, 0.0, 0
    for record in records:
        for rnd in record.rounds:
            voters = [int(s) for s, v in rnd.votes.items() if v]
            if len(voters) < 3 or rnd.storyteller_card not in rnd.board:
                continue
            sims = card_vectors(rnd.board) @ text_vectors([rnd.clue])[0]
            target = rnd.board.index(rnd.storyteller_card)
            dist = np.zeros(len(voters) + 1)
            dist[0] = 1.0
            for seat in voters:
                legal = [i for i, owner in enumerate(rnd.board_owner) if owner != seat]
                p = model.vote_probabilities(sims[legal], legal.index(target))[
                    legal.index(target)]
                dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
                dist[0] *= 1 - p
            finders = sum(target in v for v in rnd.votes.values() if v)
            rounds += 1
            expected += float(dist[2:-1].sum())
            observed += int(1 < finders < len(voters))
    notes = {"between_observed": float(observed), "between_independent": expected,
             "rounds": float(rounds)}
    if expected < 1.0:
        return 1.0, notes
    return float(np.clip(1.0 - observed / expected, 0.0, 1.0)), notes


def fit_population(records: Sequence[Any], members: Sequence[tuple[str, Any]], *,
                   fit_bias: bool = True, held_out: bool = False,
                   temperature_range: tuple[float, float] = (MIN_TEMPERATURE, 10.0)
                   ) -> tuple[Any, dict[str, Any]]:
    """Fit every population member's guess model to the votes of guessers on *other* models.

    Args:
        records: Cross-play records (the header's agents name their embedders).
        members: ``(name, resources)`` of each member (:class:`PlayerResources`).
        fit_bias: Fit the bias too.
        held_out: Keep only votes whose voter's model the round's storyteller did not simulate
            (:func:`unsimulated_voters`): the records of
            :func:`models.players.crossplay.fit_population_crossplay`.
        temperature_range: Where the temperature is searched.

    Returns:
        ``(PopulationFit, notes)``; members without a vote by another model are left out and
        named in ``notes["unfitted"]``; ``notes["voter_models"]`` names every voter whose votes
        were fitted (:func:`observations_and_voters`).

    Raises:
        ValueError: no member could be fitted.
    """
    from models.players.population_fit import PopulationFit

    fitted: dict[str, dict[str, Any]] = {}
    unfitted = []
    everyone: dict[tuple[str, str], dict[str, Any]] = {}
    for name, resources in members:
        keep = other_model_voters(resources.fingerprint)
        observations, by = observations_and_voters(records, resources.cards, resources.texts,
                                                   keep, unsimulated_voters if held_out else None)
        everyone.update({(v["fingerprint"] or "", v["name"]): v for v in by})
        if not observations:
            unfitted.append(name)
            continue
        model = fit_guess_model(observations, fit_bias=fit_bias,
                                temperature_range=temperature_range)
        fitted[resources.fingerprint] = {"name": name, "temperature": model.temperature,
                                         "bias": model.bias, "votes": len(observations)}
    if not fitted:
        raise ValueError("no member of the population has votes by guessers on other models "
                         "in these records: play cross-play games (members at one table)")
    notes = {"games": len(records), "unfitted": unfitted, "fit_bias": fit_bias,
             "fitted_on": "votes of guessers whose embedder differs from the member's"
             + (" and that the round's storyteller did not simulate" if held_out else ""),
             VOTERS_KEY: [everyone[k] for k in sorted(everyone)]}
    return PopulationFit(fitted, notes), notes
