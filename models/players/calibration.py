"""Fitting the guess model to recorded games, and measuring calibration.

Each recorded vote is one observation: the similarities of the board cards the voter could vote
for (its own cards excluded) to the clue, which of them was the storyteller's, and which one it
voted for (its first vote). :func:`fit_guess_model` maximises the likelihood of the votes under
:class:`~models.players.simulation.GuessModel` (temperature and bias), by a grid search refined
twice. :func:`reliability` bins predicted against observed guess rates and gives the expected
calibration error (ECE).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dixit_ai.reporting import Interval, bootstrap, cluster_numbers, save_figure
from models.players.simulation import MIN_TEMPERATURE, VOTERS_KEY, GuessModel


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


@dataclass(frozen=True)
class Reliability:
    """A reliability diagram's data.

    Attributes:
        edges: Bin edges over ``[0, 1]``.
        predicted: Mean predicted rate per bin (NaN where empty).
        observed: Mean observed rate per bin (NaN where empty).
        counts: Rounds per bin.
        ece: Expected calibration error: ``sum(counts * |observed - predicted|) / sum(counts)``.
    """

    edges: np.ndarray
    predicted: np.ndarray
    observed: np.ndarray
    counts: np.ndarray
    ece: float


def reliability(predicted: Sequence[float] | np.ndarray, observed: Sequence[float] | np.ndarray,
                bins: int = 10) -> Reliability:
    """Bin predicted guess rates and compare with the observed ones.

    >>> r = reliability([0.1, 0.1, 0.9, 0.9], [0.0, 0.25, 1.0, 0.75])
    >>> round(r.ece, 3)
    0.025
    """
    p = np.asarray(predicted, dtype=np.float64)
    o = np.asarray(observed, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    index = np.clip(np.digitize(p, edges[1:-1]), 0, bins - 1)
    counts = np.bincount(index, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.bincount(index, p, bins) / counts
        mean_o = np.bincount(index, o, bins) / counts
    filled = counts > 0
    ece = float(np.sum(counts[filled] * np.abs(mean_o[filled] - mean_p[filled])) / max(1, len(p)))
    return Reliability(edges, mean_p, mean_o, counts, ece)


def ece_interval(predicted: Sequence[float] | np.ndarray,
                 observed: Sequence[float] | np.ndarray, *,
                 clusters: Sequence[Any] | None = None, bins: int = 10,
                 n_resamples: int = 2000, level: float = 0.95, seed: int = 0) -> Interval:
    """The ECE of ``predicted`` against ``observed`` with a percentile-bootstrap interval over
    turns, or over ``clusters`` of turns (the card told, say: a story repeated in many hands is
    one piece of evidence). The binned ECE is biased upwards on few turns, and so is its
    interval; :func:`calibrated_ece` gives the size of that bias.

    Raises:
        ValueError: no turns, predictions and observations of different lengths, or clusters
            that are not one label per turn.
    """
    p = np.asarray(predicted, dtype=np.float64)
    o = np.asarray(observed, dtype=np.float64)
    if p.size == 0 or p.shape != o.shape:
        raise ValueError(f"ece_interval needs one observation per prediction and at least one "
                         f"turn, not {p.size} predictions and {o.size} observations")
    estimate, low, high = bootstrap(lambda idx: reliability(p[idx], o[idx], bins).ece, p.size,
                                    n_resamples=n_resamples, level=level, seed=seed,
                                    clusters=clusters)
    return Interval(float(estimate), float(low), float(high))


def _story_numbers(clusters: Sequence[Any] | np.ndarray | None, turns: int) -> np.ndarray:
    """Each turn's story, numbered (every turn its own without ``clusters``)."""
    if clusters is None:
        return np.arange(turns)
    return cluster_numbers(clusters, turns, unit="turn")


def _checked_turns(predicted: Sequence[float] | np.ndarray, votes: Sequence[int] | np.ndarray,
                   what: str) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(predicted, dtype=np.float64)
    n = np.asarray(votes, dtype=np.int64)
    if p.size == 0 or p.shape != n.shape:
        raise ValueError(f"{what} needs one vote count per prediction and at least one turn, not "
                         f"{p.size} predictions and {n.size} counts")
    if (n < 1).any() or not ((p >= 0.0) & (p <= 1.0)).all():
        raise ValueError(f"{what} needs at least 1 vote per turn and predictions in [0, 1]")
    return p, n


def story_correlation(predicted: Sequence[float] | np.ndarray,
                      observed: Sequence[float] | np.ndarray,
                      votes: Sequence[int] | np.ndarray,
                      clusters: Sequence[Any] | np.ndarray) -> float:
    """How far one guesser's votes on one story (a card told with a clue, in any hand or deal)
    go together: the correlation ``rho`` of any two of them, as :func:`calibrated_ece` draws
    them, estimated by moments from the residuals of the votes against the predictions (every
    pair of votes in a story; a turn gives its found count ``observed * votes``). If the
    predictions are off story by story, the residuals share that too, so on a miscalibrated
    storyteller the estimate is high: it makes the calibrated storyteller's noise larger, never
    smaller. NaN where no story has two votes.

    Raises:
        ValueError: as :func:`calibrated_ece`, or observations of another length.
    """
    p, n = _checked_turns(predicted, votes, "story_correlation")
    o = np.asarray(observed, dtype=np.float64)
    if o.shape != p.shape:
        raise ValueError(f"story_correlation needs one observation per prediction, not {o.size} "
                         f"for {p.size}")
    story = _story_numbers(clusters, p.size)
    found = np.rint(o * n)
    residual = found - n * p                                   # sum of the turn's votes' (y - p)
    squares = found * (1.0 - p) ** 2 + (n - found) * p ** 2    # sum of their (y - p)^2
    spread = np.sqrt(p * (1.0 - p))
    k = int(story.max()) + 1
    pairs = (np.bincount(story, residual, k) ** 2 - np.bincount(story, squares, k)).sum()
    expected = (np.bincount(story, n * spread, k) ** 2
                - np.bincount(story, n * spread ** 2, k)).sum()
    return float(pairs / expected) if expected > 0 else math.nan


def calibrated_ece(predicted: Sequence[float] | np.ndarray,
                   votes: Sequence[int] | np.ndarray, *,
                   clusters: Sequence[Any] | np.ndarray | None = None, correlation: float = 0.0,
                   bins: int = 10, draws: int = 1000, level: float = 0.95,
                   seed: int = 0) -> Interval:
    """The ECE a perfectly calibrated storyteller would show on these turns from the noise of
    the votes alone (the binned ECE of a few votes per turn is not 0): every vote finds the
    card with the turn's predicted chance. Votes on one story (``clusters``: the card and clue
    told, in every hand and deal) go together with ``correlation``, the correlation of any two
    of them: each vote reads the story's one shared draw with chance ``sqrt(correlation)`` and
    a draw of its own otherwise, so ``0`` is independent votes and ``1`` a story that a guesser
    finds every time or never. Returns the mean over ``draws`` with the central ``level``
    range of the draws. An ECE above that range is miscalibration; within it, the turns cannot
    tell.

    Raises:
        ValueError: no turns, lengths that differ, a turn without votes, a prediction outside
            [0, 1], a correlation outside [0, 1], or fewer than 2 draws.
    """
    p, n = _checked_turns(predicted, votes, "calibrated_ece")
    if not 0.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be in [0, 1], not {correlation}")
    if draws < 2:
        raise ValueError(f"calibrated_ece needs at least 2 draws, not {draws}")
    story = _story_numbers(clusters, p.size)
    rng = np.random.default_rng(seed)
    eces = np.empty(draws)
    for d in range(draws):
        shared = rng.binomial(n, math.sqrt(correlation))       # votes that read the story's draw
        story_draw = rng.random(int(story.max()) + 1)[story]
        found = shared * (story_draw < p) + rng.binomial(n - shared, p)
        eces[d] = reliability(p, found / n, bins).ece
    alpha = (1.0 - level) / 2.0
    return Interval(float(eces.mean()), float(np.quantile(eces, alpha)),
                    float(np.quantile(eces, 1.0 - alpha)))


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


def plot_reliability(result: Reliability, path: Any, title: str) -> bool:
    """Draw the reliability diagram as a PNG; ``False`` if matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    centres = (result.edges[:-1] + result.edges[1:]) / 2
    filled = result.counts > 0
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], "--", color="grey", label="perfect calibration")
    ax.bar(centres[filled], result.observed[filled], width=1 / len(centres), alpha=0.35,
           edgecolor="black", label="observed (bin mean)")
    ax.plot(result.predicted[filled], result.observed[filled], "o-", label="observed vs predicted")
    for x, y, n in zip(result.predicted[filled], result.observed[filled],
                       result.counts[filled], strict=True):
        ax.annotate(str(int(n)), (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted guess rate")
    ax.set_ylabel("observed guess rate")
    ax.set_title(f"{title}\nECE = {result.ece:.3f} ({int(result.counts.sum())} rounds)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)
    return True


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


def vote_predictions(records: Iterable[Any], card_vectors: Any, text_vectors: Any,
                     model: GuessModel, voters: VoterFilter | None = None
                     ) -> list[tuple[float, float, str]]:
    """``(P(the vote finds the card), whether it did, the voter's agent name)`` per vote.

    The probability is the guess model's on the recorded board (the voter's own cards
    excluded): what a storyteller with these similarities and this model predicts.
    """
    out = []
    for record in records:
        agents = record.header.get("agents", [])
        for obs, seat in _observations_with_seats(record, card_vectors, text_vectors, voters):
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


def ece_by_voter(predictions: Sequence[tuple[float, float, str]], bins: int = 10
                 ) -> dict[str, dict[str, float]]:
    """ECE of per-vote predictions, per voter name and pooled (``{"ece", "votes"}``)."""
    groups: dict[str, list[tuple[float, float, str]]] = {}
    for row in predictions:
        groups.setdefault(row[2], []).append(row)
    groups["pooled"] = list(predictions)
    out = {}
    for name, rows in groups.items():
        if rows:
            curve = reliability([r[0] for r in rows], [r[1] for r in rows], bins)
            out[name] = {"ece": curve.ece, "votes": float(len(rows)),
                         "predicted": float(np.mean([r[0] for r in rows])),
                         "observed": float(np.mean([r[1] for r in rows]))}
    return out


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
