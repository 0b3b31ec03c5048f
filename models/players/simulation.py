"""The guess model and the storyteller's simulation of a round, vectorised over candidates.

**Guess model.** A simulated guesser who sees a board votes for board card ``j`` with
probability ``softmax_j(sim(clue, j) / temperature + bias * [j is the storyteller's card])``
over the cards it may vote for. ``temperature`` says how sharply guessers follow similarity;
``bias`` (a logit) says how much more (``> 0``) or less (``< 0``) often real guessers find the
storyteller's card than similarity alone predicts. Both are fitted to recorded games by
:func:`models.players.calibration.fit_guess_model`.

**Simulation.** For every hand card ``c`` and candidate clue ``k`` the storyteller predicts the
guess rate (the probability that a guesser finds ``c``) and its expected points, averaging over
``n_simulations`` deals: each deal gives every opponent a hand drawn without replacement from the
cards the storyteller has not seen; each opponent plays its best decoy(s) for clue ``k`` (the
hand card(s) most similar to it, as the decoy picker would with ``bluff=0``); each voter then
votes by the guess model, never for its own card(s). Votes are not sampled: the probability that
voter ``g`` finds the card is used directly (the expectation of a sampled vote, with less noise).
The same deals serve every candidate (common random numbers), so candidates are compared on
equal footing. Everything is one array expression over ``(simulations, voters, hand cards,
candidates)``: no Python loop over candidates.

**Correlated votes.** The voters of one round read the same clue on the same board, so their
errors are not independent: when the storyteller's card and a decoy are nearly tied, they all
lean the same way. The guess model's ``correlation`` (``rho``) mixes two joint models with the
same per-voter probabilities:

* *shared* (``rho = 1``): one noisy reading of the board serves every voter. It is the
  softmax's own random-utility form (a Gumbel perturbation of each board card's logit, the
  Plackett-Luce ranking), drawn once per round; each voter then votes for the top card it may
  vote for. Voter ``g`` finds the card iff every card ranked above it is ``g``'s, so the
  finders are nobody, one voter (``g``, whose decoy(s) alone beat the card) or everyone.
  Closed form, from ``P(card above every card of a set A) = w_card / (w_card + w(A))``:
  ``P(all find) = p_all``, the card beats every decoy, and ``P(only g finds) = p_g - p_all``,
  ``p_g`` the probability that voter ``g`` finds it (it beats every decoy but ``g``'s).
* *independent* (``rho = 0``): every voter draws its own Gumbel noise; the number of finders
  is a sum of independent Bernoulli variables given the deal.

Deterministic guessers reading the same similarities (the bots) are the shared case; human
tables lie in between. Either way the guess rate is the mean of the ``p_g``.

**Second vote (Odyssey).** Where the edition and the player count allow one
(``rules.votes_per_guesser``), a guesser found the card if either vote is on it, and the
storyteller's points follow the number of such finders (the single-vote bonus is the guessers').
A simulated voter reads the board as above (utilities ``u = logit + Gumbel``), votes for its top
card and casts a second vote on its second card as the clip guesser does
(:class:`models.players.guesser.ClipGuesser`, beliefs ``softmax`` of its reading at the guess
model's temperature): when ``P(second) * finder_points > P(first) * single_vote_bonus``, that is
when the top leads the second by less than ``d = log(finder_points / single_vote_bonus)``. So
voter ``g`` finds the card iff no card it may vote for beats it, or exactly one does, by less
than ``d``. Given the card's utility ``x`` (``t = e^-x``, density ``w t e^{-w t}``), a decoy of
weight ``v`` is below it with probability ``e^{-v t}``, within ``d`` above it with ``e^{-beta v t}
- e^{-v t}`` (``beta = e^-d = bonus / finder_points``), and each ``int w e^{-(w + r) t} dt =
w / (w + r)``. With ``R`` the weight of the decoys ``g`` may vote for and ``c = 1 - beta`` (the
*reach*, :func:`second_vote_reach`)::

    P_g = w / (w + R) + sum_j [w / (w + R - c v_j) - w / (w + R)]

* *independent* voters: each ``P_g`` with ``x_j = c v_j / (w + R)``:
  ``P_g = p_g (1 + sum_j x_j / (1 - x_j))``. The strongest decoy's term is exact; the others are
  taken as ``n_e`` equal decoys of weight ``v_e`` with their total and sum of squares
  (``n_e v_e = sum v``, ``n_e v_e^2 = sum v^2``), which gives ``p_g b o / (1 - b2 o)`` with
  ``o = 1 - p_g`` (exact for one or two decoys, or equal ones; otherwise the sum's third-order
  terms differ: at most 0.0008 of ``P_g`` for a reach of 2/3, 0.0035 for a reach of 1, over
  random boards).
* *shared* reading (``G >= 3`` voters, one decoy each, ``V`` the board's decoy weight): with
  ``k`` decoys above the card, ``k = 0`` or (``k = 1`` and it within ``d``): everyone finds it;
  ``k = 1`` beyond ``d``: its owner alone; ``k = 2``: the owner of the higher finds it iff the
  lower is within ``d``, the owner of the lower iff the higher is (so 0, 1 or 2 finders);
  ``k >= 3``: nobody. The integrals give ``N1 = P(k = 1, within d) = sum_j [phi(V - c v_j) -
  phi(V)]``, ``N2 = P(k = 2, both within d)`` and ``LN = P(k = 2, lower within d) + N2`` as sums
  over pairs of ``phi(r) = w / (w + r)`` (``phi(V - v_i - c v_j)``, ``phi(V - c v_i - c v_j)``);
  then ``P(all) = phi(V) + N1``, ``P(two) = N2``, ``P(none) = 1 - phi(V) - K1 - (LN - N2)``
  (``K1 = P(k = 1)`` from the first votes), ``P(one)`` the rest, and the second votes add
  ``(G - 1) N1 + LN`` finders. The pairs would cost ``G^2`` passes over the
  (deal, card, clue) array; the strongest decoy of each deal is kept exact (every decoy with
  three voters) and the others taken as the equal decoys above (pair counts ``n_e``,
  ``n_e (n_e - 1) / 2``), a constant number of passes at any ``G``. Against the exact pair sums
  over 20,000 random boards of 3 to 11 decoys, the guess rate, ``P(all)`` and ``P(none)`` are
  off by at most 0.003, 0.0007 and 0.011 (on average 0.0001, 0.00004 and 0.0006; keeping the
  two strongest exact: at most 0.0002, 0.0002 and 0.0008, for 18 ms more per search at 12
  players, :data:`_EXACT_DECOYS`); ``tests/players/test_simulation.py`` checks six voters
  against brute force. Two voters (three players, two decoys each) are summed exactly: voter
  ``g`` finds the card when at most one of the other's decoys beats it, within ``d``.

The guess rate is then the mean over voters of ``P_g`` (two voters: exact; more: from the shared
terms, which have the same marginals). ``second_vote=0`` (every edition without a second vote,
and Odyssey below its player count) runs the one-vote code unchanged.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.rules import RuleSet

_FLOOR = np.float32(1e-15)
"""Products of probabilities are kept above this (normal float32 numbers, error 1e-15)."""

MIN_TEMPERATURE = 0.001
"""Temperatures below this are simulated at it: a guesser this sharp is all but deterministic
(it follows similarity gaps of a thousandth), and the float64 decoy weights stay in range for
decoys up to 0.7 apart in similarity (far more than the spread of one board)."""


@dataclass(frozen=True)
class GuessModel:
    """A calibrated softmax over similarities (see the module docstring).

    Attributes:
        temperature: Softmax temperature over cosine similarities (``> 0``).
        bias: Logit added to the storyteller's card.
        correlation: How much of the voters' noise is shared within a round, in ``[0, 1]``
            (``1``: one reading of the board for every voter; ``0``: independent voters).
    """

    temperature: float = 0.03
    bias: float = 0.0
    correlation: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.temperature < math.inf:
            raise ValueError(f"temperature must be a positive finite number, not "
                             f"{self.temperature}")
        if not math.isfinite(self.bias):
            raise ValueError(f"bias must be a finite number, not {self.bias}")
        if not 0.0 <= self.correlation <= 1.0:
            raise ValueError(f"correlation must be in [0, 1], not {self.correlation}")

    def scaled(self, factor: float) -> GuessModel:
        """This model with its temperature times ``factor`` (below 1: sharper votes).

        Raises:
            ValueError: ``factor`` is not a positive finite number (:func:`temperature_scale`).
        """
        return replace(self, temperature=self.temperature * temperature_scale(factor))

    def save(self, path: str | Path, **extra: object) -> None:
        """Write the parameters (and ``extra`` notes) as JSON, atomically (a temporary file in
        the same folder, then a rename: a failed write leaves the old file, never half of one).
        """
        from dixit_ai.reporting import write_json

        write_json(path, {**asdict(self), **extra})

    @classmethod
    def load(cls, path: str | Path) -> GuessModel:
        """Read parameters written by :meth:`save` (other keys are ignored; a file without a
        ``correlation`` gets the default, shared votes).

        Raises:
            OSError: the file cannot be read.
            ValueError: it is not a guess-model file (not JSON, no ``temperature``, another
                kind of file such as a population fit) or a parameter is out of range (a
                temperature not positive and finite, a bias not finite, a correlation outside
                [0, 1]); the message names the file.
        """
        data = _read_guess_file(path)
        if "temperature" not in data:
            kind = (f"a {data['format']!r} file, " if isinstance(data.get("format"), str)
                    else "")
            raise ValueError(f"{path} is not a guess-model file: {kind}it has no 'temperature' "
                             "key (a guess-model file holds temperature, bias and correlation)")
        values = []
        for key, default in (("temperature", None), ("bias", 0.0), ("correlation", 1.0)):
            value = data.get(key, default)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{path}: {key} must be a number, not {value!r}")
            values.append(float(value))
        try:
            return cls(*values)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None

    @staticmethod
    def fitted_for(path: str | Path) -> str | None:
        """The embedder fingerprint a calibration file was fitted for (``None``: not said).

        Raises:
            ValueError: the file does not hold a JSON object; the message names it.
        """
        value = _read_guess_file(path).get("embedder")
        return None if value is None else str(value)

    def vote_probabilities(self, sims: np.ndarray, storyteller_index: int | None = None
                           ) -> np.ndarray:
        """Probabilities over the cards a guesser may vote for, given their similarities."""
        logits = np.asarray(sims, dtype=np.float64) / self.temperature
        if storyteller_index is not None:
            logits[storyteller_index] += self.bias
        logits -= logits.max()
        weights = np.exp(logits)
        return weights / weights.sum()


VOTERS_KEY = "voter_models"
"""The key of a fitted file (a guess model, a population fit, a policy checkpoint) that names the
voters whose votes it was fitted on: a list of ``{"fingerprint": embedder fingerprint or null (a
person, an agent on no embedder), "name": the voter's agent name}``. A storyteller whose
simulation uses a file fitted on a panel member's votes is not held out from that member
(:func:`models.bench.panel.check_held_out`)."""


def voter_models(data: dict[str, Any], path: str | Path) -> list[dict[str, Any]] | None:
    """The voters a fitted file's JSON object (``data``, read from ``path``) records under
    :data:`VOTERS_KEY` (``None``: the file does not say).

    Raises:
        ValueError: the record is not a list of objects with a ``fingerprint`` (text or null)
            and a ``name`` (text); the message names the file and the entry.
    """
    if VOTERS_KEY not in data:
        return None
    entries = data[VOTERS_KEY]
    if not isinstance(entries, list):
        raise ValueError(f"{path}: {VOTERS_KEY} must be a list of voters "
                         f'({{"fingerprint", "name"}}), not {entries!r}')
    for entry in entries:
        fingerprint = entry.get("fingerprint", 0) if isinstance(entry, dict) else 0
        if (not isinstance(entry, dict) or not isinstance(entry.get("name"), str)
                or not (fingerprint is None or isinstance(fingerprint, str))):
            raise ValueError(f"{path}: {VOTERS_KEY} entry {entry!r} is not a voter: it needs a "
                             '"fingerprint" (the embedder fingerprint, or null) and a "name"')
    return [{"fingerprint": e["fingerprint"], "name": e["name"]} for e in entries]


def fitted_file_voters(path: str | Path) -> list[dict[str, Any]] | None:
    """The voters any fitted JSON file (a guess model, a population fit, a policy checkpoint)
    records it was fitted on (:func:`voter_models`; ``None``: it does not say).

    Raises:
        OSError: the file cannot be read.
        ValueError: not a JSON object, or a malformed record; the message names the file.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"{path} is not a fitted file: not valid JSON ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a fitted file: it holds a JSON "
                         f"{type(data).__name__}, not an object")
    return voter_models(data, path)


def _read_guess_file(path: str | Path) -> dict[str, Any]:
    """The JSON object in a guess-model file.

    Raises:
        ValueError: the file is not JSON or not an object; the message names it.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not a guess-model file: not valid JSON ({error})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a guess-model file: not UTF-8 text") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a guess-model file: it holds a JSON "
                         f"{type(data).__name__}, not an object")
    return data


def temperature_scale(value: object, what: str = "a temperature scale") -> float:
    """``value`` as a factor on guess-model temperatures.

    Raises:
        ValueError: ``value`` is not a positive finite number; the message names ``what``.
    """
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            0 < value < math.inf):
        raise ValueError(f"{what} must be a positive finite number, not {value!r}")
    return float(value)


_buffers: dict[tuple[str, tuple[int, ...]], np.ndarray] = {}
_buffers_lock = threading.Lock()


def _buffer(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """A float32 work array reused across calls of this thread (fresh large arrays cost page
    faults on every decision)."""
    key = (f"{name}-{threading.get_ident()}", shape)
    with _buffers_lock:
        if key not in _buffers:
            if len(_buffers) > 64:
                _buffers.clear()
            _buffers[key] = np.empty(shape, dtype=np.float32)
        return _buffers[key]


def storyteller_points_by_finders(rules: RuleSet, n_players: int, n_voters: int) -> np.ndarray:
    """The storyteller's points when ``k`` voters find its card, for ``k = 0..n_voters``."""
    points = np.zeros(n_voters + 1)
    solo = rules.three_player_solo_points
    for k in range(1, n_voters):
        points[k] = (solo if solo is not None and n_players == 3 and k == 1
                     else rules.storyteller_points)
    return points


@dataclass(frozen=True)
class SimulationResult:
    """Predictions for every (hand card, candidate clue).

    Attributes:
        guess_rate: ``(h, K)``: expected fraction of voters who find the card.
        expected_points: ``(h, K)``: the storyteller's expected points.
        success_rate: ``(h, K)``: probability that some but not all voters find the card.
        decoy_gap: ``(h, K)``: similarity of the card minus the mean best decoy similarity.
    """

    guess_rate: np.ndarray
    expected_points: np.ndarray
    success_rate: np.ndarray
    decoy_gap: np.ndarray


def draw_deals(rng: np.random.Generator, pool_size: int, n_simulations: int, n_opponents: int,
               hand_size: int, weights: np.ndarray | None = None) -> np.ndarray:
    """``(n_simulations, n_opponents, hand)`` indices into the pool, distinct within a deal.

    The hand is ``min(hand_size, pool_size // n_opponents)`` cards (at least one; when the pool is
    smaller than one card per opponent, cards are drawn with replacement).

    Args:
        weights: ``(n_opponents, pool_size)`` relative odds that each opponent holds each pool
            card (what the storyteller inferred from earlier rounds), or ``None``: uniform.
            Hands are then drawn opponent after opponent, each without replacement with these
            odds (Gumbel top-k) from the cards not yet dealt.
    """
    if pool_size < 1:
        raise ValueError("no unseen cards to deal to the opponents")
    hand = max(1, min(hand_size, pool_size // max(n_opponents, 1)))
    if pool_size < n_opponents * hand:
        return rng.integers(0, pool_size, size=(n_simulations, n_opponents, hand))
    if weights is None:
        order = rng.random((n_simulations, pool_size)).argsort(axis=1)[:, : n_opponents * hand]
        return np.ascontiguousarray(order.reshape(n_simulations, n_opponents, hand))
    log_weights = np.log(np.maximum(np.asarray(weights, dtype=np.float64), 1e-12))
    keys = log_weights[None, :, :] + rng.gumbel(size=(n_simulations, n_opponents, pool_size))
    deals = np.empty((n_simulations, n_opponents, hand), dtype=np.int64)
    rows = np.arange(n_simulations)[:, None]
    for g in range(n_opponents):
        if g:
            keys[rows, g, deals[:, :g].reshape(n_simulations, -1)] = -np.inf
        deals[:, g] = np.argpartition(-keys[:, g], hand - 1, axis=1)[:, :hand]
    return deals


def simulate(
    hand_sims: np.ndarray,
    pool_sims: np.ndarray,
    deals: np.ndarray,
    *,
    n_voters: int,
    cards_per_guesser: int,
    model: GuessModel,
    points_by_finders: np.ndarray,
    second_vote: float = 0.0,
) -> SimulationResult:
    """Predict guess rates and storyteller points for every (hand card, clue).

    Args:
        hand_sims: ``(h, K)`` similarity of each hand card to each candidate clue.
        pool_sims: ``(u, K)`` similarity of each unseen card to each candidate clue.
        deals: ``(S, G, hand)`` opponents' hands as indices into the pool (:func:`draw_deals`).
        n_voters: How many of the ``G`` opponents vote (the first ``n_voters``; all but partners
            in the team variant).
        cards_per_guesser: Decoys each opponent plays (2 in 3-player games of some editions).
        model: The guess model.
        points_by_finders: The storyteller's points for ``0..n_voters`` finders (finders by
            either vote where there is a second vote).
        second_vote: The second vote's reach ``1 - single_vote_bonus / finder_points``
            (:func:`second_vote_reach`; see "Second vote" in the module docstring); ``0``: one
            vote each, the simulation of an edition without a second vote, unchanged.

    Returns:
        A :class:`SimulationResult`.

    Raises:
        ValueError: ``second_vote`` outside ``[0, 1]``; or a second vote where not every
            opponent votes (the team variant has none), or with several decoys per opponent at
            more than two opponents (not simulated: no edition deals so).
    """
    hand_sims = np.asarray(hand_sims, dtype=np.float64)
    n_sims, n_opponents, hand = deals.shape
    m = min(cards_per_guesser, hand)
    reach = _check_second_vote(second_vote, n_voters, n_opponents, m)
    if m == 1:  # each opponent's best decoy, one hand slot at a time: no (S, G, hand, K) array
        decoys = pool_sims[deals[:, :, 0]]
        for slot in range(1, hand):
            np.maximum(decoys, pool_sims[deals[:, :, slot]], out=decoys)
        decoys = decoys[:, :, None, :]                                      # (S, G, 1, K)
    else:
        decoys = -np.partition(-pool_sims[deals], m - 1, axis=2)[:, :, :m]  # (S, G, m, K)
    # In log space: voter g finds card c with probability 1 / (1 + exp(L_g - l_c)), where
    # l_c = sim_c / T + bias and L_g = log(sum of exp(decoy / T) over every decoy but g's own).
    # L_g is a log-sum-exp shifted by the deal's best decoy, and "every decoy but g's own" is a
    # sum of the others (prefix + suffix), never a difference: nothing overflows, underflows or
    # cancels, whatever the temperature.
    inverse = 1.0 / max(model.temperature, MIN_TEMPERATURE)
    shift = decoys.max(axis=(1, 2)).astype(np.float64)                            # (S, K)
    card_weight = np.exp((decoys - shift[:, None, None, :]) * inverse)           # (S, G, m, K)
    decoy_weight = np.ascontiguousarray(
        card_weight[:, :, 0] if m == 1 else card_weight.sum(axis=2))             # (S, G, K)
    others = np.zeros_like(decoy_weight)
    for g in range(1, n_opponents):  # prefix sums, then suffix sums, over the few opponents
        np.add(others[:, g - 1], decoy_weight[:, g - 1], out=others[:, g])
    suffix = np.zeros_like(shift)
    for g in range(n_opponents - 1, -1, -1):
        others[:, g] += suffix
        suffix += decoy_weight[:, g]
    with np.errstate(divide="ignore"):
        log_others = (np.log(others) + shift[:, None, :] * inverse).astype(np.float32)
    log_card = (hand_sims * inverse + model.bias).astype(np.float32)              # (h, K)

    # Voter by voter (a handful), each over (S, h, K): P(voter finds the card | deal).
    rho = float(getattr(model, "correlation", 1.0))
    independent = rho < 1.0
    rate_sum = np.zeros(hand_sims.shape, dtype=np.float64)
    shape = (n_sims, *hand_sims.shape)
    odds, found = _buffer("odds", shape), _buffer("found", shape)    # exp(L_g - l_c), P(find)
    middle = points_by_finders[1:-1]
    simple = n_voters < 2 or bool(np.all(middle == middle[0]))
    p_all = p_none = dist = None

    def finds(log_rest: np.ndarray) -> None:
        """``found = 1 / (1 + exp(log_rest - l_c))`` and ``odds = 1 - found``, in place."""
        np.subtract(log_rest[:, None, :], log_card[None, :, :], out=odds)
        # Log-odds beyond +-60 change probabilities by less than 1e-26; clipping them keeps
        # every number a normal float32 (denormals are many times slower).
        np.clip(odds, -60.0, 60.0, out=odds)
        with np.errstate(over="ignore", invalid="ignore"):
            np.exp(odds, out=odds)
            np.add(odds, 1.0, out=found)
            np.reciprocal(found, out=found)
        np.subtract(1.0, found, out=odds)
        np.maximum(odds, _FLOOR, out=odds)  # 1 - found: 0 when found rounds to 1

    # With a second vote, each voter's chance by either vote (only the independent model needs
    # it voter by voter; see "Second vote" in the module docstring).
    reaches = (_VoterReach(card_weight, others, reach)
               if reach > 0 and (independent or n_opponents == 2) else None)
    either_sum = np.zeros(hand_sims.shape, dtype=np.float64)
    for g in range(n_voters):
        finds(log_others[:, g])                              # P(voter g finds), (S, h, K)
        rate_sum += found.sum(axis=0)
        if reaches is not None:
            either_vote(found, odds, *reaches(g))
            if n_opponents == 2:
                either_sum += found.sum(axis=0)
        if not independent:
            continue
        np.maximum(found, _FLOOR, out=found)
        if simple:
            if p_all is None:
                p_all, p_none = _buffer("all", shape), _buffer("none", shape)
                np.copyto(p_all, found)
                np.copyto(p_none, odds)
            else:
                assert p_none is not None
                p_all *= found
                p_none *= odds
                np.maximum(p_all, _FLOOR, out=p_all)
                np.maximum(p_none, _FLOOR, out=p_none)
        else:  # the number of finders (only the 3-player solo rule needs it)
            if dist is None:
                dist = np.zeros((n_voters + 1, *found.shape))
                dist[0] = 1.0
            dist[1:] = dist[1:] * odds + dist[:-1] * found
            dist[0] *= odds
    guess_rate = rate_sum / (n_sims * n_voters)

    # Shared reading of the board: nobody, exactly one voter, or everyone finds the card.
    with np.errstate(divide="ignore"):
        log_total = (np.log(suffix) + shift * inverse).astype(np.float32)         # (S, K)
    finds(log_total)                                         # P(the card beats every decoy)
    mean_found = rate_sum / n_sims                           # E[sum over voters of p_g]
    if reach > 0:  # either vote: the finders' distribution of the module docstring
        if n_opponents == 2:
            shared = _two_voters_shared(card_weight, suffix, shift, inverse, log_card, found,
                                        reach, either_sum / n_sims)
            guess_rate = either_sum / (n_sims * n_voters)
        else:
            shared = _many_voters_shared(decoy_weight, suffix, shift, inverse, log_card, found,
                                         odds, reach, mean_found)
            guess_rate = (mean_found + shared.pop()) / n_voters
        finders = [0, 1, n_voters] if n_opponents == 2 else [0, 1, 2, n_voters]
        distribution = dict(zip(finders, shared, strict=True))    # finders -> probability
        success_rate = np.zeros_like(mean_found)
        expected_points = np.zeros_like(mean_found)
        for k, p in distribution.items():
            expected_points += float(points_by_finders[k]) * p
            if 0 < k < n_voters:
                success_rate += p
    else:
        if n_voters > 1:
            all_shared = found.sum(axis=0, dtype=np.float64) / n_sims
            one_shared = np.maximum(mean_found - n_voters * all_shared, 0.0)
        else:
            all_shared, one_shared = mean_found, np.zeros_like(mean_found)
        none_shared = np.maximum(1.0 - all_shared - one_shared, 0.0)
        success_rate = one_shared
        expected_points = (float(points_by_finders[1]) * one_shared
                           + float(points_by_finders[-1]) * all_shared
                           + float(points_by_finders[0]) * none_shared)

    if independent:
        if simple:
            assert p_all is not None and p_none is not None
            mid_points = float(middle[0]) if len(middle) else 0.0
            # Everything below is linear in p_all and p_none: average over deals first.
            mean_all = p_all.sum(axis=0, dtype=np.float64) / n_sims
            mean_none = p_none.sum(axis=0, dtype=np.float64) / n_sims
            success_independent = 1.0 - mean_all - mean_none
            points_independent = (mid_points * success_independent
                                  + points_by_finders[0] * mean_none
                                  + points_by_finders[-1] * mean_all)
        else:
            assert dist is not None
            success_independent = (1.0 - dist[0] - dist[-1]).mean(axis=0)
            points_independent = np.tensordot(points_by_finders, dist, axes=1).mean(axis=0)
        success_rate = rho * success_rate + (1.0 - rho) * success_independent
        expected_points = rho * expected_points + (1.0 - rho) * points_independent
    best_decoy = decoys.max(axis=2).max(axis=1).mean(axis=0)                # (K,)
    return SimulationResult(
        guess_rate=guess_rate,
        expected_points=expected_points,
        success_rate=success_rate,
        decoy_gap=hand_sims - best_decoy[None, :],
    )


def second_vote_reach(rules: RuleSet, n_players: int) -> float:
    """The second vote's reach in a game of ``n_players``: ``1 - single_vote_bonus /
    finder_points`` where a guesser may cast a second vote, ``0`` where it may not (one vote, the
    team variant) or never would (a bonus at least the finder's points).

    A guesser casts it when the second card's belief times the finder's points beats the first
    card's belief times the single-vote bonus (:class:`models.players.guesser.ClipGuesser`): for
    a simulated guesser that reads the board as the guess model says, when its first card leads
    the second by less than ``log(finder_points / single_vote_bonus)`` in logits, so the second
    card's weight counts ``1 - bonus / finder_points`` of itself (the module docstring).
    """
    if rules.votes_per_guesser(n_players) < 2 or rules.finder_points <= 0:
        return 0.0
    return max(0.0, 1.0 - rules.single_vote_bonus / rules.finder_points)


def _check_second_vote(reach: float, n_voters: int, n_opponents: int, cards: int) -> float:
    """``reach`` as a float, checked against the table it is simulated for.

    Raises:
        ValueError: outside ``[0, 1]``; a second vote where not every opponent votes, or with
            several decoys per opponent at more than two opponents.
    """
    if isinstance(reach, bool) or not isinstance(reach, int | float) or not 0.0 <= reach <= 1.0:
        raise ValueError(f"second_vote must be a reach in [0, 1], not {reach!r}")
    if reach > 0 and n_voters != n_opponents:
        raise ValueError(f"a second vote is simulated when every opponent votes; here "
                         f"{n_voters} of {n_opponents} do (the team variant has no second vote)")
    if reach > 0 and n_opponents > 2 and cards > 1:
        raise ValueError(f"a second vote is simulated with one decoy per opponent from 3 "
                         f"opponents on (every edition deals so); here {cards} decoys each for "
                         f"{n_opponents} opponents")
    if reach > 0 and n_opponents < 2:
        raise ValueError(f"a second vote needs at least 2 voters, not {n_opponents}")
    return float(reach)


class _VoterReach:
    """Per voter ``g``, the coefficients ``(a, b, b2)``, each ``(S, K)`` float32, of ``P_g = p_g
    * (1 / (1 - a * o) + b * o / (1 - b2 * o))`` (``o = 1 - p_g``): ``a`` for the strongest decoy
    ``g`` may vote for, ``b`` and ``b2`` for the others as equal decoys of the same total and sum
    of squares (the module docstring).

    Args:
        card_weight: ``(S, G, m, K)`` every decoy card's weight (shifted per deal).
        others: ``(S, G, K)`` the total weight of the decoys voter ``g`` may vote for.
        reach: :func:`second_vote_reach`.
    """

    def __init__(self, card_weight: np.ndarray, others: np.ndarray, reach: float) -> None:
        n_opponents, m = card_weight.shape[1:3]
        strongest = card_weight[:, :, 0] if m == 1 else card_weight.max(axis=2)  # (S, G, K)
        self.squares = (strongest * strongest if m == 1
                        else (card_weight * card_weight).sum(axis=2))
        self.square_total = self.squares.sum(axis=1)
        # The strongest decoy card of each deal, its owner, and the strongest of the others.
        self.first = strongest[:, 0].copy()
        self.second = np.zeros_like(self.first)
        self.owner = np.zeros(self.first.shape, dtype=np.int64)
        for g in range(1, n_opponents):
            weight = strongest[:, g]
            np.maximum(self.second, np.minimum(self.first, weight), out=self.second)
            above = weight > self.first
            self.owner[above] = g
            np.maximum(self.first, weight, out=self.first)
        self.others, self.reach = others, reach

    def __call__(self, g: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        top = np.where(self.owner == g, self.second, self.first)
        return reach_coefficients(self.others[:, g], top,
                                  self.square_total - self.squares[:, g], self.reach)


def reach_coefficients(others: np.ndarray, top: np.ndarray, squares: np.ndarray, reach: float
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One voter's second-vote coefficients ``(a, b, b2)`` for :func:`either_vote`, each
    float32 of ``others``' shape (the module docstring, "Second vote": independent voters).

    Args:
        others: The total weight ``R`` of the decoys the voter may vote for.
        top: The weight of the strongest of them.
        squares: The sum of their squared weights.
        reach: :func:`second_vote_reach`.
    """
    scale = np.divide(reach, others, out=np.zeros_like(others), where=others > 0)
    rest = np.maximum(others - top, 0.0)
    rest_squares = np.maximum(squares - top * top, 0.0)
    equal = np.divide(rest_squares, rest, out=np.zeros_like(rest), where=rest > 0)  # v_e
    a = (top * scale).astype(np.float32)
    b = (rest * scale).astype(np.float32)
    b2 = np.minimum((equal * scale).astype(np.float32), a)  # no stronger than the top
    return a, b, b2


_CHUNK_ELEMENTS = 1 << 16
"""The second vote's terms are computed on this many (deal, hand card, clue) elements at a
time: a dozen passes over arrays that stay in the cache instead of over the whole search."""


def either_vote(found: np.ndarray, odds: np.ndarray, a: np.ndarray, b: np.ndarray,
                 b2: np.ndarray) -> None:
    """``found`` (a voter's chance by its first vote, ``(S, h, K)``) becomes its chance by either
    vote and ``odds`` its complement, in place; ``a``, ``b``, ``b2``: ``(S, K)``
    (:func:`reach_coefficients`). A few deals at a time (:data:`_CHUNK_ELEMENTS`)."""
    step = max(1, _CHUNK_ELEMENTS // max(1, found[0].size))
    for start in range(0, len(found), step):
        part = slice(start, start + step)
        p, o = found[part], odds[part]
        first, second = _buffer("either-1", p.shape), _buffer("either-2", p.shape)
        np.multiply(a[part, None, :], o, out=first)
        np.subtract(1.0, first, out=first)
        np.divide(p, first, out=first)                   # p / (1 - a o): the strongest decoy
        np.multiply(b2[part, None, :], o, out=second)
        np.subtract(1.0, second, out=second)
        np.multiply(b[part, None, :], o, out=o)
        np.multiply(o, p, out=o)
        np.divide(o, second, out=second)                 # p b o / (1 - b2 o): the others
        np.add(first, second, out=p)
        np.subtract(1.0, p, out=o)
        np.maximum(o, _FLOOR, out=o)


class _Board:
    """The rates ``r`` (decoy weights, one per deal) of the probabilities ``w / (w + r)`` that
    the card (weight ``w``) beats them, prepared for :func:`_add_beats` as ``(s, K)`` float32:
    :meth:`log_rate` (log space: any ``r``, one exponential per element), or :meth:`share` of
    the whole board's weight ``V`` (no exponential: ``w / (w + r) = 1 / (1 + share * V / w)``,
    as exact as long as the share is not vanishing: it keeps the strongest decoy, or ``beta`` of
    it). ``r`` comes in the deals' shifted weights (float64)."""

    def __init__(self, shift: np.ndarray, inverse: float, total: np.ndarray) -> None:
        self.shift, self.inverse, self.total = shift, inverse, total

    def log_rate(self, rest: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return (np.log(rest) + self.shift * self.inverse).astype(np.float32)

    def share(self, rest: np.ndarray) -> np.ndarray:
        return (rest / self.total).astype(np.float32)


def _add_beats(target: np.ndarray, rate: np.ndarray, weight: np.ndarray | float,
               ratio: np.ndarray | None, log_card: np.ndarray, out: np.ndarray) -> None:
    """``target += weight * w / (w + r)``, ``(s, h, K)``: ``rate`` a :meth:`_Board.share` (then
    ``ratio`` is ``V / w``, ``(s, h, K)``) or a :meth:`_Board.log_rate` (``ratio`` ``None``;
    ``log_card``, ``(h, K)``: ``log w``), for the same deals as ``target``; ``weight`` a number
    or ``(s, 1, K)``; ``out`` a work array of ``target``'s shape."""
    if ratio is not None:
        np.multiply(rate[:, None, :], ratio, out=out)
    else:
        np.subtract(rate[:, None, :], log_card[None, :, :], out=out)
        np.clip(out, -60.0, 60.0, out=out)  # normal float32 numbers, as in simulate
        with np.errstate(over="ignore"):
            np.exp(out, out=out)
    np.add(out, 1.0, out=out)
    np.divide(np.float32(weight) if isinstance(weight, float) else weight, out, out=out)
    target += out


def _two_voters_shared(card_weight: np.ndarray, total: np.ndarray, shift: np.ndarray,
                       inverse: float, log_card: np.ndarray, beats_all: np.ndarray,
                       reach: float, mean_either: np.ndarray) -> list[np.ndarray]:
    """Two voters reading one board, either vote: ``[P(none), P(one), P(both)]``, ``(h, K)``,
    averaged over the deals (exact; the module docstring).

    Voter ``g`` finds the card when at most one card of the other opponent's ``m`` beats it,
    that one by less than the margin: given the card's utility, with probability ``B_g =
    (1 - m) e_all + sum_j e_(all but j, j shrunk by beta)`` over those cards, so that both find
    it with ``int B_0 B_1``: ``(m + 1) ** 2`` terms ``w / (w + r)``.
    """
    n_sims, _, m, _ = card_weight.shape
    beta = 1.0 - reach
    cards = [card_weight[:, g, i] for g in range(2) for i in range(m)]
    board = _Board(shift, inverse, total)
    terms = _buffer("both", beats_all.shape)
    out = _buffer("board", beats_all.shape)
    np.multiply(beats_all, np.float32((1.0 - m) ** 2), out=terms)
    for j, card in enumerate(cards):
        rest = sum(c for i, c in enumerate(cards) if i != j) + beta * card
        _add_beats(terms, board.log_rate(rest), 1.0 - m, None, log_card, out)
    for j in range(m):
        for k in range(m, 2 * m):
            rest = (sum(c for i, c in enumerate(cards) if i not in (j, k))
                    + beta * (cards[j] + cards[k]))
            _add_beats(terms, board.log_rate(rest), 1.0, None, log_card, out)
    both = terms.sum(axis=0, dtype=np.float64)
    both = np.clip(both / n_sims, 0.0, 1.0)
    none = np.clip(1.0 - mean_either + both, 0.0, 1.0)
    one = np.maximum(1.0 - both - none, 0.0)
    return [none, one, both]


_EXACT_DECOYS = 1
"""In the shared reading of four voters or more, the strongest decoys of each deal kept exact;
the others are taken as equal decoys of the same total weight and sum of squares (module
docstring). With three voters every decoy is exact. Two cost 18 ms more than one per search at
12 players (6 cards x 3,600 clues x 64 deals) for a tenth of the error."""


def _many_voters_shared(decoy_weight: np.ndarray, total: np.ndarray, shift: np.ndarray,
                        inverse: float, log_card: np.ndarray, beats_all: np.ndarray,
                        odds_all: np.ndarray, reach: float, mean_found: np.ndarray
                        ) -> list[np.ndarray]:
    """``G >= 3`` voters, one decoy each, reading one board, either vote: ``[P(none), P(one),
    P(two), P(all), E(finders by a second vote)]``, each ``(h, K)``, averaged over the deals
    (the module docstring: the :data:`_EXACT_DECOYS` strongest decoys of each deal exactly, the
    others as equal decoys of the same total weight and sum of squares; three voters: exact).

    Args:
        decoy_weight: ``(S, G, K)`` each opponent's decoy weight, shifted per deal.
        total: ``(S, K)`` their sum ``V``.
        beats_all: ``(S, h, K)`` ``P(the card beats every decoy)`` (``w / (w + V)``).
        odds_all: ``(S, h, K)`` its complement.
        mean_found: ``(h, K)`` the mean over deals of the first votes' finders.
    """
    n_sims, n_voters, _ = decoy_weight.shape
    exact = n_voters - 1 if n_voters <= 3 else min(_EXACT_DECOYS, n_voters - 1)
    # The strongest decoys of each deal, strongest first, and the others' sum and sum of
    # squares, without a subtraction (each decoy passes down the sorted few; what falls off the
    # end goes to the rest).
    tops = [np.zeros_like(total) for _ in range(exact)]
    rest = np.zeros_like(total)
    rest_squares = np.zeros_like(total)
    for g in range(n_voters):
        carry = decoy_weight[:, g]
        for top in tops:
            low = np.minimum(top, carry)
            np.maximum(top, carry, out=top)
            carry = low
        rest += carry
        rest_squares += carry * carry
    with np.errstate(divide="ignore", invalid="ignore"):
        count = np.where(rest_squares > 0, rest * rest / rest_squares, (rest > 0) * 1.0)
    count = np.where(rest > 0, np.clip(count, 1.0, n_voters - exact), 0.0)   # n_e
    with np.errstate(divide="ignore", invalid="ignore"):
        equal = np.where(count > 0, rest / count, 0.0)                        # v_e
    sums = [np.zeros(beats_all.shape[1:]) for _ in range(3)]
    step = max(1, _CHUNK_ELEMENTS // max(1, beats_all[0].size))
    for a in range(0, n_sims, step):   # a few deals at a time: small arrays stay in the cache
        part = slice(a, a + step)
        terms = _shared_terms([top[part] for top in tops], count[part], equal[part],
                              _Board(shift[part], inverse, total[part]), reach)
        for total_sum, chunk_sum in zip(sums, _sum_terms(
                terms, log_card, count[part], len(tops), beats_all[part], odds_all[part]),
                strict=True):
            total_sum += chunk_sum
    n1, n2, ln = (x / n_sims for x in sums)
    all_first = beats_all.sum(axis=0, dtype=np.float64) / n_sims
    one_first = mean_found - n_voters * all_first           # P(exactly one decoy above)
    lower_near = ln - n2                                    # two above, the lower within reach
    every = np.clip(all_first + n1, 0.0, 1.0)
    two = np.clip(n2, 0.0, 1.0)
    one = np.maximum(one_first - n1 + lower_near - n2, 0.0)
    none = np.maximum(1.0 - all_first - one_first - lower_near, 0.0)
    second_votes = (n_voters - 1) * n1 + ln
    return [none, one, two, every, second_votes]


_Term = tuple[int, np.ndarray, "np.ndarray | float", bool]
"""A term of the shared second vote's sums: (0: N1, 1: N2, 2: LN; its rate, as a share of
``V`` or a log rate (:class:`_Board`), ``(S, K)``; its weight, a number or ``(S, 1, K)``;
whether the rate is a share)."""


def _shared_terms(tops: list[np.ndarray], count: np.ndarray, equal: np.ndarray, board: _Board,
                  reach: float) -> list[_Term]:
    """The terms ``weight * w / (w + r)`` of ``N1``, ``N2`` and ``LN`` (module docstring) for
    the items: the strongest decoys (``tops``, strongest first, each ``(S, K)``), then ``count``
    equal decoys of weight ``equal``, for some deals.

    Every weight ``V - ...`` is a sum of what stays, never a difference. A rate that keeps the
    strongest decoy, or ``beta`` of it, keeps a fair share of ``V`` and is taken as a share (no
    exponential); the others in log space.
    """
    beta = 1.0 - reach
    safe = beta >= 1e-9
    exact = len(tops)
    equal_item = exact                                      # the index of the equal decoys
    values = [*tops, equal]
    weights: list[np.ndarray | float] = [*([1.0] * exact),
                                         count[:, None, :].astype(np.float32)]
    terms: list[_Term] = []

    def term(target: int, shrunk: tuple[int, ...], removed: tuple[int, ...],
             weight: np.ndarray | float) -> None:
        """Every decoy but ``removed`` below the card, ``shrunk`` of them within the margin
        above it (their weight times ``beta`` stays)."""
        kept = sum((top for i, top in enumerate(tops) if i not in removed),
                   np.zeros_like(count))
        rate = np.maximum(kept + (count - removed.count(equal_item)) * equal, 0.0)
        rate = rate + beta * sum((values[i] for i in shrunk), np.zeros_like(count))
        share = 0 not in removed or (0 in shrunk and safe)
        terms.append((target, board.share(rate) if share else board.log_rate(rate), weight,
                      share))

    # Every decoy but item i below the card (item i's multiplicity m_i): -(M - 1) m_i in LN
    # (applied in _sum_terms); item i within the margin above it instead: m_i in N1, and
    # -(M - 1) m_i in LN and N2 (likewise).
    for i in range(exact + 1):
        term(2, (), (i,), weights[i])
        term(0, (i,), (i,), weights[i])
    # Pairs of items (counted m_i m_j, or m (m - 1) / 2 for the equal decoys): every other decoy
    # below the card, one of the two within the margin above it (LN), or both (N2).
    for i in range(exact + 1):
        for j in range(i, exact + 1):
            if i == j != equal_item:
                continue
            if i == j:
                weight: np.ndarray | float = (count * (count - 1.0) / 2)[:, None, :].astype(
                    np.float32)
                term(3, (i,), (i, j), 2.0 * weight)
            else:
                weight = weights[j] if j == equal_item else weights[i]
                term(3, (i,), (i, j), weight)
                term(3, (j,), (i, j), weight)
            term(1, (i, j), (i, j), weight)
    return terms


def _sum_terms(terms: list[_Term], log_card: np.ndarray, count: np.ndarray, exact: int,
               beats_all: np.ndarray, odds_all: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sums over the deals of ``N1``, ``N2`` and ``LN``, ``(h, K)`` each, from the terms of
    :func:`_shared_terms` for the same deals (target 3: added to LN after its ``-(M - 1)``
    terms)."""
    shape = beats_all.shape
    n1, n2, ln, late, out, ratio = (_buffer(name, shape)
                                    for name in ("n1", "n2", "ln", "late", "board", "ratio"))
    np.divide(odds_all, beats_all, out=ratio)               # V / w (w / (w + V) >= e^-60)
    for buffer in (n1, n2, ln, late):
        buffer.fill(0.0)
    targets = [n1, n2, ln, late]
    for target, rate, weight, share in terms:
        _add_beats(targets[target], rate, weight, ratio if share else None, log_card, out)
    less = (exact - 1.0 + count)[:, None, :].astype(np.float32)   # M - 1, M = exact + count
    # The singles' -(M - 1) m_i in LN and N2, then the pairs of LN and N2's own pairs.
    np.add(ln, n1, out=ln)
    np.multiply(ln, less, out=ln)
    np.subtract(late, ln, out=ln)
    np.multiply(n1, less, out=out)
    n2 -= out
    # The card above every decoy: -M in N1, M (M - 1) in LN, M (M - 1) / 2 in N2.
    np.multiply(beats_all, less + 1.0, out=out)
    n1 -= out
    out *= less
    ln += out
    out *= 0.5
    n2 += out
    return (n1.sum(axis=0, dtype=np.float64), n2.sum(axis=0, dtype=np.float64),
            ln.sum(axis=0, dtype=np.float64))


def sharp_outcomes(hand_sims: np.ndarray, pool_sims: np.ndarray, *, n_opponents: int,
                   hand_size: int, bias_similarity: float = 0.0
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """Exact outcome probabilities for sharp guessers who share one reading of the board.

    The limit of :func:`simulate` as the temperature goes to 0 with shared votes, averaged over
    *every* deal instead of sampled ones (so with no sampling noise): voter ``g`` finds the card
    iff no card of another opponent beats it, so what counts is the number ``b`` of unseen cards
    more similar to the clue than the storyteller's card (its *beaters*). With ``U`` unseen
    cards dealt ``H`` to each of ``G`` opponents (hypergeometric), everyone finds the card when
    no beater was dealt, and exactly one voter finds it when the beaters dealt all went to one
    opponent. Only for one decoy per opponent and every opponent voting.

    Args:
        hand_sims: ``(h, K)`` similarities of the hand cards to the candidate clues.
        pool_sims: ``(U, K)`` similarities of the unseen cards.
        n_opponents: ``G``.
        hand_size: Cards per opponent's hand (capped as :func:`draw_deals` caps it).
        bias_similarity: The guess model's bias times its temperature (added to the card).

    Returns:
        ``(p_one, p_all)``, each ``(h, K)``: the probabilities that exactly one voter, and that
        every voter, finds the card; ``None`` when the pool is too small to deal the hands.
    """
    from math import comb

    u = len(pool_sims)
    g = max(n_opponents, 1)
    hand = max(1, min(hand_size, u // g))
    if u < g * hand:
        return None
    one = np.zeros(u + 1)
    every = np.zeros(u + 1)
    for b in range(u + 1):
        every[b] = comb(u - b, g * hand) / comb(u, g * hand)
        rest = u - hand
        total = 0.0
        for j in range(1, min(b, hand) + 1):
            if rest < b - j:  # more beaters left than cards outside this hand
                continue
            first = comb(b, j) * comb(u - b, hand - j) / comb(u, hand)
            others = comb(rest - (b - j), (g - 1) * hand) / comb(rest, (g - 1) * hand)
            total += first * others
        one[b] = g * total
    sorted_pool = np.sort(np.asarray(pool_sims, dtype=np.float32), axis=0)          # (U, K)
    card = np.asarray(hand_sims, dtype=np.float32) + np.float32(bias_similarity)
    beaters = (sorted_pool[None, :, :] > card[:, None, :]).sum(axis=1)              # (h, K)
    return one[beaters], every[beaters]
