"""Reading the table: which minds sit at it, learned from their revealed votes.

A population storyteller (:mod:`models.players.population`) does not know which minds it faces,
so it simulates a mixture of them. But every revealed round tells it more: for each opponent
that voted, the clue, the board and the card it chose are public. Under each member ``p`` of the
population the storyteller can say how likely that vote was (the member's guess model over the
board: :meth:`~models.players.simulation.GuessModel.vote_probabilities`); under a *random
player* every card it may vote for is as likely. People learn their table the same way: after a
few rounds one knows who reads clues literally and who is guessing.

**The model.** Each opponent is one kind of mind for the whole game: member ``p`` who *lapses*
(votes at random) with probability ``lapse`` on each vote, ``lapse`` from a small grid
(:data:`LAPSES`, with its prior :data:`LAPSE_PRIOR`); ``lapse = 1`` is a random player. And
it finds the storyteller's card more or less often than member ``p`` would: a *bias*, a logit
added to the storyteller's card in ``p``'s guess model, from the grid :data:`BIASES` (prior
:data:`BIAS_PRIOR`, centred on 0): a guesser who reads the cards better than any member (the
sibling of the storyteller's own model, a person) gets a positive one. A table
is either *of one kind* (every opponent member ``p``, no lapse: copies of one model, as at a
tournament of one bot), with prior ``table_mix`` split over the members, or *mixed*, each
opponent's kind drawn independently. The posterior over these, given the votes read so far, is
exact (sums over a few dozen hypotheses per opponent).

**In the simulation** (:meth:`TableBelief.assignment`), the storyteller's deals follow the
posterior: a share of one-kind tables per member, and in the other deals each opponent is
member ``p`` (or a random player) in proportion to its own posterior, with its posterior mean
bias (:attr:`TableBelief.bias`). Before any vote is read
this is the prior: the same balanced mixture of minds as without reading, plus the prior's
small share of lapses.

Rounds are read only where every member knows the clue's vectors without running a model
(its vocabulary, the pair clues, the shipped or cached vectors): reading never loads a tower in
the middle of a game. Rounds not read are counted (``unread``). Team games and Dixit Party
(whose votes follow other rules) are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.players.simulation import MIN_TEMPERATURE, GuessModel

LAPSES = (0.0, 0.25, 0.5, 1.0)
"""The share of an opponent's votes cast at random, as a grid (1: a random player)."""

LAPSE_PRIOR = (0.85, 0.07, 0.04, 0.04)
"""Prior odds of :data:`LAPSES`: most players follow their reading of the clue."""

BIASES = (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0)
"""An opponent's logit on the storyteller's card beyond its member's guess model, as a grid."""

BIAS_PRIOR = tuple(float(np.exp(-0.5 * b * b)) for b in BIASES)
"""Prior odds of :data:`BIASES`: a standard normal, most opponents near their member."""

_GRID = (len(LAPSES), len(BIASES))


@dataclass(frozen=True)
class TableBelief:
    """The storyteller's posterior over the minds at its table.

    Attributes:
        one_kind: ``(P,)``: the probability that the whole table is member ``p`` (no lapses).
        seats: ``(G, P + 1)``: given a mixed table, the probability that opponent ``g`` (seat
            order after the storyteller) votes as member ``p``; the last column is the share
            of its votes cast at random.
        votes: Votes read, per opponent ``(G,)``.
        bias: ``(G,)``: each opponent's posterior mean bias (given a mixed table).
        unread: Revealed rounds that could not be read (a clue some member has no vectors of).
    """

    one_kind: np.ndarray
    seats: np.ndarray
    votes: np.ndarray
    bias: np.ndarray | None = None
    unread: int = 0

    def seat_bias(self) -> np.ndarray:
        """``(G,)``: the mixed table's opponents' biases, shrunk towards 0 by the odds of a
        one-kind table (whose opponents have none)."""
        if self.bias is None:
            return np.zeros(len(self.seats))
        return self.mixed * np.asarray(self.bias, dtype=np.float64)

    @property
    def mixed(self) -> float:
        """The probability that the table is mixed."""
        return float(max(0.0, 1.0 - self.one_kind.sum()))

    def assignment(self, n_simulations: int) -> np.ndarray:
        """``(S, G)``: the kind of each opponent in each simulated deal (``P``: random).

        The first deals are one-kind tables, member by member, in proportion to
        :attr:`one_kind`; in the others opponent ``g`` is each kind in proportion to its row of
        :attr:`seats`, laid out in blocks that start at a different deal for each opponent, so
        that opponents are spread over different kinds in each deal (as the balanced
        :func:`~models.players.population.assignment` does).
        """
        n_opponents, kinds = self.seats.shape
        members = kinds - 1
        same = round(n_simulations * float(self.one_kind.sum()))
        one_kind = _apportion(self.one_kind, same)
        out = np.empty((n_simulations, n_opponents), dtype=np.intp)
        out[:same] = np.repeat(np.arange(members), one_kind)[:, None]
        rest = n_simulations - same
        if rest:
            for g in range(n_opponents):
                layout = np.repeat(np.arange(kinds), _apportion(self.seats[g], rest))
                out[same:, g] = np.roll(layout, (g * rest) // max(n_opponents, 1))
        return out

    def summary(self, names: Sequence[str]) -> dict[str, Any]:
        """For a decision's ``info``: the most likely kind of each opponent, and the table's."""
        labels = [*names, "random"]
        return {
            "votes_read": [int(v) for v in self.votes],
            "unread_rounds": self.unread,
            "one_kind": {n: round(float(p), 3) for n, p in zip(names, self.one_kind,
                                                             strict=True) if p >= 0.01},
            "opponents": [labels[int(np.argmax(row))] for row in self.seats],
            "random_share": [round(float(row[-1]), 3) for row in self.seats],
            "bias": [round(float(b), 2) for b in self.seat_bias()],
        }


def _apportion(weights: np.ndarray, n: int) -> np.ndarray:
    """Integer counts summing to ``n`` in proportion to ``weights`` (largest remainders)."""
    weights = np.asarray(weights, dtype=np.float64)
    share = weights.sum()
    if n <= 0 or share <= 0:
        return np.zeros(len(weights), dtype=np.intp)
    exact = weights / share * n
    counts = np.floor(exact).astype(np.intp)
    left = n - int(counts.sum())
    if left > 0:
        counts[np.argsort(-(exact - counts), kind="stable")[:left]] += 1
    return counts


def prior_belief(n_opponents: int, n_members: int, table_mix: float) -> TableBelief:
    """The belief before any vote: :func:`read_votes` of nothing."""
    return read_votes(np.zeros((n_opponents, n_members, *_GRID)), table_mix=table_mix,
                      votes=np.zeros(n_opponents, dtype=np.intp))


def vote_log_likelihoods(sims: Sequence[np.ndarray], models: Sequence[GuessModel],
                         legal: Sequence[int], storyteller_position: int,
                         chosen: Sequence[int]) -> np.ndarray:
    """``(P, len(LAPSES), len(BIASES))``: the log-probability of one voter's choice under each
    member, lapse and bias.

    Args:
        sims: Per member, the similarities of the clue to every board card.
        models: Per member, its guess model.
        legal: The board positions the voter could vote for.
        storyteller_position: Where the storyteller's card lies on the board.
        chosen: The positions it voted for (a second vote is drawn from the cards left).
    """
    legal = list(legal)
    lapses = np.asarray(LAPSES)[:, None]
    out = np.zeros((len(models), *_GRID))
    for p, (row, model) in enumerate(zip(sims, models, strict=True)):
        # The member's guess model with each bias of the grid added to its own.
        grid = [GuessModel(max(model.temperature, MIN_TEMPERATURE), model.bias + b,
                           model.correlation) for b in BIASES]
        left = list(legal)
        for position in chosen:
            if position not in left:
                raise ValueError(f"vote for position {position}, which the voter could not "
                                 f"vote for (legal: {left})")
            index = left.index(position)
            teller = left.index(storyteller_position) if storyteller_position in left else None
            board = np.asarray(row)[left]
            probs = np.array([m.vote_probabilities(board, teller)[index] for m in grid])  # (B,)
            out[p] += np.log((1.0 - lapses) * probs[None, :] + lapses / len(left))
            left.pop(index)
    return out


def read_votes(log_likelihood: np.ndarray, *, table_mix: float, votes: np.ndarray,
               unread: int = 0) -> TableBelief:
    """The posterior (see the module docstring) from summed log-likelihoods.

    Args:
        log_likelihood: ``(G, P, len(LAPSES), len(BIASES))``: per opponent, the
            log-probability of all its votes read under each member, lapse and bias.
        table_mix: The prior probability of a one-kind table.
        votes: Votes read per opponent.
        unread: Rounds not read.

    Raises:
        ValueError: ``table_mix`` is outside [0, 1], or the array has the wrong shape.
    """
    if not 0.0 <= table_mix <= 1.0:
        raise ValueError(f"table_mix must be in [0, 1], not {table_mix}")
    log_likelihood = np.asarray(log_likelihood, dtype=np.float64)
    if log_likelihood.ndim != 4 or log_likelihood.shape[2:] != _GRID:
        raise ValueError(f"log-likelihoods must be (opponents, members, {_GRID[0]}, "
                         f"{_GRID[1]}), not {log_likelihood.shape}")
    n_opponents, n_members = log_likelihood.shape[:2]
    lapse_prior = np.asarray(LAPSE_PRIOR) / np.sum(LAPSE_PRIOR)
    bias_prior = np.asarray(BIAS_PRIOR) / np.sum(BIAS_PRIOR)
    log_prior = (np.log(lapse_prior)[:, None] + np.log(bias_prior)[None, :]
                 - np.log(n_members))[None, None]
    joint = log_likelihood + log_prior                                   # (G, P, L, B)
    evidence = logsumexp(joint.reshape(n_opponents, -1), axis=1)        # (G,)
    posterior = np.exp(joint - evidence[:, None, None, None])
    lapses = np.asarray(LAPSES)[None, None, :, None]
    seats = np.concatenate([(posterior * (1.0 - lapses)).sum(axis=(2, 3)),
                            (posterior * lapses).sum(axis=(1, 2, 3))[:, None]], axis=1)
    bias = (posterior * np.asarray(BIASES)).sum(axis=(1, 2, 3))
    zero = BIASES.index(0.0)
    with np.errstate(divide="ignore"):
        one_kind_log = (np.log(table_mix / n_members)
                        + log_likelihood[:, :, 0, zero].sum(axis=0))
        mixed_log = np.log(1.0 - table_mix) + evidence.sum()
    table = np.append(one_kind_log, mixed_log)
    table = np.exp(table - logsumexp(table, axis=0))
    return TableBelief(one_kind=table[:-1], seats=seats, votes=np.asarray(votes), bias=bias,
                       unread=unread)


def logsumexp(values: np.ndarray, axis: int) -> np.ndarray:
    """``log(sum(exp(values)))`` along ``axis``, stable (an all ``-inf`` slice gives ``-inf``)."""
    top = np.max(values, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(np.log(np.exp(values - top).sum(axis=axis, keepdims=True)) + top,
                          axis=axis)


def round_evidence(past: Any, *, seat: int, n_players: int,
                   members: Sequence[tuple[Any, GuessModel]]
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """What one revealed round says of the reader's opponents.

    Args:
        past: A revealed round (:class:`dixit_ai.rules.RoundResult`).
        seat: The reader's seat (its own votes are not read).
        n_players: Players in the game; opponents are the seats after ``seat``, in order.
        members: The population: ``(resources, guess model)`` per member; a member's
            resources give ``knows(text)`` and ``clue_similarities(text, cards)``.

    Returns:
        ``(log_likelihood (G, P, len(LAPSES), len(BIASES)), votes (G,))``, or ``None`` when
        some member has no vectors of the clue at hand (the round is not read).
    """
    opponents = [(seat + i) % n_players for i in range(1, n_players)]
    index = {s: g for g, s in enumerate(opponents)}
    models = [model for _, model in members]
    total = np.zeros((len(opponents), len(members), *_GRID))
    votes = np.zeros(len(opponents), dtype=np.intp)
    if not all(resources.knows(past.clue) for resources, _ in members):
        return None
    board = list(past.board)
    sims = [resources.clue_similarities(past.clue, board) for resources, _ in members]
    teller = past.board_owner.index(past.storyteller)
    for voter, chosen in enumerate(past.votes):
        if not chosen or voter == seat or voter not in index:
            continue
        legal = [i for i, owner in enumerate(past.board_owner) if owner != voter]
        total[index[voter]] += vote_log_likelihoods(sims, models, legal, teller, chosen)
        votes[index[voter]] += 1
    return total, votes


def read_table(rounds: Sequence[Any], *, seat: int, n_players: int,
               members: Sequence[tuple[Any, GuessModel]], table_mix: float,
               memo: dict[int, tuple[np.ndarray, np.ndarray] | None] | None = None
               ) -> TableBelief:
    """The storyteller's belief about its opponents from revealed rounds
    (:func:`round_evidence` of each, summed, then :func:`read_votes`).

    Args:
        rounds: Revealed rounds (:class:`dixit_ai.rules.RoundResult`), any order.
        seat, n_players, members: As :func:`round_evidence`.
        table_mix: The prior probability of a one-kind table.
        memo: Keeps each round's evidence by round number between calls of one game.
    """
    n_opponents = n_players - 1
    total = np.zeros((n_opponents, len(members), *_GRID))
    votes = np.zeros(n_opponents, dtype=np.intp)
    unread = 0
    memo = {} if memo is None else memo
    for past in rounds:
        if past.round not in memo:
            memo[past.round] = round_evidence(past, seat=seat, n_players=n_players,
                                              members=members)
        evidence = memo[past.round]
        if evidence is None:
            unread += 1
            continue
        total += evidence[0]
        votes += evidence[1]
    return read_votes(total, table_mix=table_mix, votes=votes, unread=unread)
