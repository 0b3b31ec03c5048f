"""The storyteller's simulation over a *population* of minds, not copies of itself.

A storyteller that simulates only copies of its own embedder learns clues that only its own
embedding links to its card (an idiosyncrasy, not a clue). Here each simulated opponent is a
member of a population of embedders (the storyteller's own among them, by default), each with
its own guess model (temperature and bias) fitted from cross-play records
(:func:`models.players.calibration.fit_population`): how well that member's similarities predict
the votes of guessers on *other* models.

**Simulation.** As :func:`models.players.simulation.simulate`, over ``(simulations, voters, hand
cards, candidates)``, with one change: in deal ``s`` opponent ``g`` is member
``(s + g) mod P`` (a balanced assignment, the same for every candidate). That opponent plays as
decoy its hand card most similar to the clue *in its own space*, and, as a voter, weighs every
board card (the storyteller's and the other opponents' decoys) by its own similarities and
guess model. Voters of different members read the board differently, so their errors are taken
as independent given the deal: the number of finders is a sum of Bernoulli variables, and
"some but not all find" happens where members disagree, as at a table of different minds.

**Second vote (Odyssey).** Where the edition has one, a finder is anyone with either vote on
the card; how each voter casts it, and how a member's voters who read the board as one find
the card together, are in :mod:`models.players.population_voters` ("Second vote"), with the
rest of the voters' maths (each voter's chance, the finders' products). Which member each
opponent is in each deal is :mod:`models.players.population_deals`.

Each member's guess rate is kept (``member_rate``): a clue whose rate differs widely across
members holds only for some minds; the storyteller's ``robustness`` knob penalises that spread.

Here are the simulation (:func:`simulate_population`, :class:`PopulationResult`; the balanced
:func:`~models.players.population_deals.assignment` and :func:`member_reach` are re-exported
here), the aims a target-mode storyteller measures it by (:data:`AIMS`), and the
registry's prepare step of population storytellers (:func:`prepare`). The fitted members' guess
models and their file are in :mod:`models.players.population_fit` (re-exported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.players.population_deals import assignment as assignment
from models.players.population_deals import contiguous, runs
from models.players.population_deals import member_rows as member_rows
from models.players.population_deals import one_kind_deals as one_kind_deals
from models.players.population_fit import DEFAULT_POPULATION_FILE as DEFAULT_POPULATION_FILE
from models.players.population_fit import POPULATION_FORMAT as POPULATION_FORMAT
from models.players.population_fit import (
    SHIPPED_POPULATION_FILES as SHIPPED_POPULATION_FILES,
)
from models.players.population_fit import PopulationFit as PopulationFit
from models.players.population_fit import PopulationFitWarning as PopulationFitWarning
from models.players.population_fit import load_population_fit as load_population_fit
from models.players.population_fit import population_fit_path as population_fit_path
from models.players.population_voters import SharedReading, combine, either_vote_of, finds
from models.players.population_voters import member_reach as member_reach
from models.players.second_vote import check_second_vote
from models.players.simulation import MIN_TEMPERATURE, GuessModel, SimulationResult

AIMS = ("mean", "each", "rms")
"""How a target-mode storyteller with a population measures a candidate's distance to its
target: ``mean``, the rate over every simulated voter; ``each``, the worst member's gap;
``rms``, the root mean square of the members' gaps (:meth:`PopulationResult.member_gap`)."""
MEMBER_AIMS = AIMS[1:]


def check_aim(aim: object, what: str = "aim") -> str:
    """``aim`` if it is one of :data:`AIMS`.

    Raises:
        ValueError: it is not; the message names ``what`` and the aims.
    """
    if aim not in AIMS:
        raise ValueError(f"{what} must be one of {', '.join(AIMS)}, not {aim!r}")
    return str(aim)


@dataclass(frozen=True)
class PopulationResult(SimulationResult):
    """A :class:`SimulationResult` with each member's guess rate, ``(P, h, K)``."""

    member_rate: np.ndarray | None = None
    member_deals: np.ndarray | None = None
    seat_rate: np.ndarray | None = None
    """``(voters, h, K)``: each voting opponent's guess rate (with ``seats``)."""

    def minds(self, by_seat: bool = False) -> np.ndarray | None:
        """``(n, h, K)``: the guess rates the storyteller weighs against each other: each
        member simulated (a member it no longer believes in, in no deal, does not count), or
        with ``by_seat``, each voting opponent where it read its table (``seat_rate``; else
        the members). ``None`` without per-member rates."""
        if by_seat and self.seat_rate is not None:
            return self.seat_rate
        if self.member_rate is None or self.member_deals is None:
            return self.member_rate
        return self.member_rate[self.member_deals > 0]

    def member_gap(self, target: float, aim: str = "each", by_seat: bool = False
                   ) -> np.ndarray | None:
        """``(h, K)``: how far :meth:`minds`' guess rates are from ``target`` together: the
        largest gap of any of them (``aim="each"``), or the root mean square of their gaps
        (``aim="rms"``: a mind that cannot reach the target counts as one among the others
        instead of deciding the choice alone). ``None`` without per-member rates.

        Raises:
            ValueError: ``aim`` is neither ``"each"`` nor ``"rms"``.
        """
        if aim not in MEMBER_AIMS:
            raise ValueError(f"a per-member aim is one of {', '.join(MEMBER_AIMS)}, not {aim!r}")
        rates = self.minds(by_seat)
        if rates is None or not len(rates):
            return None
        gaps = np.abs(rates - target)
        if aim == "rms":
            return np.asarray(np.sqrt((gaps ** 2).mean(axis=0)))
        return np.asarray(gaps.max(axis=0))

    def spread_of(self, by_seat: bool = False) -> np.ndarray:
        """``(h, K)``: the standard deviation of the guess rate across :meth:`minds` (0 where
        there are none)."""
        rates = self.minds(by_seat)
        if rates is None or not len(rates):
            return np.zeros_like(self.guess_rate)
        return np.asarray(rates.std(axis=0))

    @property
    def spread(self) -> np.ndarray:
        """``(h, K)``: the standard deviation of the guess rate across the members simulated."""
        return self.spread_of()


def simulate_population(
    hand_sims: Sequence[np.ndarray],
    pool_sims: Sequence[np.ndarray],
    deals: np.ndarray,
    *,
    n_voters: int,
    cards_per_guesser: int,
    models: Sequence[GuessModel],
    points_by_finders: np.ndarray,
    table_mix: float = 0.0,
    seats: np.ndarray | None = None,
    seat_bias: np.ndarray | None = None,
    second_vote: float = 0.0,
    belief_temperature: float | None = None,
) -> PopulationResult:
    """Predict guess rates and storyteller points with opponents drawn from a population.

    Args:
        hand_sims: Per member, ``(h, K)`` similarities of the hand cards to the clues.
        pool_sims: Per member, ``(u, K)`` similarities of the unseen cards.
        deals: ``(S, G, hand)`` opponents' hands (indices into the pool).
        n_voters: How many of the ``G`` opponents vote (the first ``n_voters``).
        cards_per_guesser: Decoys per opponent; populations play one (a table that plays two
            is simulated member by member and averaged).
        models: Per member, its guess model.
        points_by_finders: The storyteller's points for ``0..n_voters`` finders.
        table_mix: The share of deals in which the whole table is one member (:func:`assignment`):
            the storyteller does not know which minds it faces, and a table of one kind finds a
            clue all together or not at all (copies of one model at a tournament, say).
        seats: ``(S, G)``: instead of :func:`assignment`, the kind of each opponent in each
            deal (:meth:`models.players.table_reading.TableBelief.assignment`); kind ``P`` (one
            past the members) is a random player, who plays a random card of its hand as decoy
            and votes for every card it may vote for alike. ``table_mix`` is then unused. With two
            decoys per opponent (3-player games of some editions) the members are simulated
            alone, as without it: ``seats`` and ``seat_bias`` are not used there.
        seat_bias: ``(G,)``: a logit each opponent adds to the storyteller's card, beyond its
            member's guess model (what the storyteller read of how often it finds the card).
            Voters of one member who read the board as one share the mean of theirs.
        second_vote: The second vote's reach (:func:`~models.players.second_vote.
            second_vote_reach`; "Second vote" in :mod:`models.players.population_voters`);
            ``0``: one vote each, the simulation of an edition without a second vote,
            unchanged.
        belief_temperature: The temperature of the table's guessers' beliefs, by which they
            cast the second vote (:class:`~models.players.guesser.ClipGuesser`; a clip agent's
            is its calibration's); ``None``: each member's own temperature, as
            :func:`~models.players.simulation.simulate` assumes ("Second vote" in
            :mod:`models.players.population_voters`: :func:`member_reach`).

    Raises:
        ValueError: the members' arrays disagree in number or shape, ``table_mix`` is
            outside [0, 1], or ``second_vote`` is not a reach that
            :func:`~models.players.simulation.simulate` takes for this table.
    """
    n_members = len(models)
    if not n_members or len(hand_sims) != n_members or len(pool_sims) != n_members:
        raise ValueError(f"{len(hand_sims)} hand tables, {len(pool_sims)} pool tables and "
                         f"{n_members} guess models: give one of each per member")
    shape = np.shape(hand_sims[0])
    if any(np.shape(h) != shape for h in hand_sims) or any(
            np.shape(p) != np.shape(pool_sims[0]) for p in pool_sims):
        raise ValueError("every member's similarity tables must have the same shape")
    if cards_per_guesser > 1 and deals.shape[2] > 1:
        return _mixture(hand_sims, pool_sims, deals, n_voters, cards_per_guesser, models,
                        points_by_finders, [member_reach(second_vote, m.temperature,
                                                         belief_temperature) for m in models])
    n_sims, n_opponents, _ = deals.shape
    reach = check_second_vote(second_vote, n_voters, n_opponents, 1)
    reaches = [member_reach(reach, m.temperature, belief_temperature) for m in models]
    n_clues = shape[1]
    same = one_kind_deals(n_sims, table_mix)
    if seats is not None and np.shape(seats) != (n_sims, n_opponents):
        raise ValueError(f"seats must be (deals, opponents) = {(n_sims, n_opponents)}, not "
                         f"{np.shape(seats)}")
    if seat_bias is not None and np.shape(seat_bias) != (n_opponents,):
        raise ValueError(f"seat_bias must be one logit per opponent ({n_opponents}), not "
                         f"{np.shape(seat_bias)}")
    extra = np.zeros(n_opponents, dtype=np.float32) if seat_bias is None else \
        np.asarray(seat_bias, dtype=np.float32)
    seat_sum = np.zeros((n_voters, *shape), dtype=np.float64) if seats is not None else None

    def rows_of(g: int, p: int) -> list[slice]:
        """The deals in which opponent ``g`` is member ``p`` (``P``: a random player)."""
        if seats is None:
            return member_rows(n_sims, n_members, same, g, p) if p < n_members else []
        return runs(np.flatnonzero(seats[:, g] == p))

    # Each opponent's decoy (pool index), chosen in its own member's space: (S, G, K).
    decoy = np.empty((n_sims, n_opponents, n_clues), dtype=np.intp)
    for g in range(n_opponents):
        for p in range(n_members):
            for rows in rows_of(g, p):
                cards = deals[rows, g]                                   # (n, hand)
                slot = pool_sims[p][cards].argmax(axis=1)               # (n, K)
                decoy[rows, g] = cards[np.arange(len(cards))[:, None], slot]
        for rows in rows_of(g, n_members):  # a random player: a random card of its hand
            decoy[rows, g] = deals[rows, g, :1]
    columns = np.arange(n_clues)
    rate_sum = np.zeros(shape, dtype=np.float64)
    member_sum = np.zeros((n_members, *shape), dtype=np.float64)
    member_count = np.zeros(n_members)
    full = (n_sims, *shape)
    middle = points_by_finders[1:-1]
    simple = n_voters < 2 or bool(np.all(middle == middle[0]))
    p_all = np.ones(full, dtype=np.float32)
    p_none = np.ones(full, dtype=np.float32)
    dist = None
    if not simple:
        dist = np.zeros((n_voters + 1, *full), dtype=np.float32)
        dist[0] = 1.0
    best_decoy = np.zeros(n_clues)
    # Voters of one member who reads the board as one (correlation > 0: copies of one bot)
    # share their reading within a deal: in the deals where it has two voters or more, their
    # finders are kept apart and combined below (a lone voter is the same either way).
    kinds = (assignment(n_sims, n_opponents, n_members, table_mix) if seats is None
             else np.asarray(seats))[:, :n_voters]
    shared = {}
    for q in range(n_members):
        together = np.flatnonzero((kinds == q).sum(axis=1) >= 2)
        if models[q].correlation > 0 and dist is None and len(together):
            shared[q] = SharedReading(together, n_sims, shape, models[q].correlation, reach > 0)
    for g in range(n_voters):
        for q in range(n_members):
            model = models[q]
            inverse = np.float32(1.0 / max(model.temperature, MIN_TEMPERATURE))
            log_card = (np.asarray(hand_sims[q], dtype=np.float32) * inverse
                        + np.float32(model.bias) + extra[g])
            for rows in rows_of(g, q):
                picked = decoy[rows]                                   # (n, G, K)
                seen = pool_sims[q][picked, columns]                   # (n, G, K)
                if q == 0:
                    best_decoy += seen.max(axis=1).sum(axis=0)
                logits = seen * inverse
                logits[:, g] = -np.inf                                 # never its own card
                found = finds(logits, log_card)                        # P(voter finds)
                first = None
                if reach > 0:  # either vote (logits now hold the decoys' weights)
                    first = found.copy() if q in shared else None
                    either_vote_of(found, logits, reaches[q])
                total = found.sum(axis=0, dtype=np.float64)
                rate_sum += total
                member_sum[q] += total
                member_count[q] += len(found)
                if seat_sum is not None:
                    seat_sum[g] += total
                group = shared.get(q)
                if group is None:
                    combine(p_all, p_none, dist, rows, found)
                    continue
                deals_here = np.arange(n_sims)[rows]
                at = group.position[deals_here]
                inside = at >= 0
                if inside.all():
                    group.add(contiguous(at), found, extra[g], first)
                elif not inside.any():
                    combine(p_all, p_none, dist, rows, found)
                else:
                    group.add(at[inside], found[inside], extra[g],
                              None if first is None else first[inside])
                    combine(p_all, p_none, dist, deals_here[~inside], found[~inside])
        for rows in rows_of(g, n_members):  # a random player finds the card 1 in G
            chance = np.float32(1.0 / n_opponents)
            count = len(range(n_sims)[rows])
            rate_sum += count * float(chance)
            if seat_sum is not None:
                seat_sum[g] += count * float(chance)
            combine(p_all, p_none, dist, rows, chance)
    # With a second vote, the tables of one member are summed apart (SharedReading.fold_either).
    whole_all, whole_none = np.zeros(shape), np.zeros(shape)
    for q, group in shared.items():
        model = models[q]
        inverse = np.float32(1.0 / max(model.temperature, MIN_TEMPERATURE))
        log_card = np.asarray(hand_sims[q], dtype=np.float32) * inverse + np.float32(model.bias)
        logits = pool_sims[q][decoy[group.rows], columns] * inverse            # (m, G, K)
        if seat_bias is not None:  # the card's logit moved by the voters' mean bias: decoys back
            logits -= group.mean_bias()[:, None, None]
        if reach > 0:
            in_group = kinds[group.deals] == q                                  # (m, G)
            shift = logits.max(axis=1).astype(np.float64)                       # (m, K)
            beats_all = finds(logits, log_card)      # logits now the decoys' weights
            every, nobody = group.fold_either(p_all, p_none, beats_all, logits, shift, log_card,
                                              in_group, reaches[q])
            whole_all += every
            whole_none += nobody
            continue
        beats_all = finds(logits, log_card)                                     # (m, h, K)
        group.fold(p_all, p_none, beats_all)
    voters = max(n_voters, 1)
    guess_rate = rate_sum / (n_sims * voters)
    member_rate = member_sum / np.maximum(member_count, 1)[:, None, None]
    if dist is None:
        mean_all = p_all.mean(axis=0, dtype=np.float64)
        mean_none = p_none.mean(axis=0, dtype=np.float64)
        if shared and reach > 0:
            mean_all = mean_all + whole_all / n_sims
            mean_none = mean_none + whole_none / n_sims
        success = np.clip(1.0 - mean_all - mean_none, 0.0, 1.0) if n_voters > 1 else \
            np.zeros(shape)
        mid = float(middle[0]) if len(middle) else 0.0
        points = (mid * success + float(points_by_finders[0]) * mean_none
                  + float(points_by_finders[-1]) * mean_all)
    else:
        success = (1.0 - dist[0] - dist[-1]).mean(axis=0)
        points = np.tensordot(points_by_finders, dist.astype(np.float64), axes=1).mean(axis=0)
    own_count = max(float(member_count[0]), 1.0)
    gap = np.asarray(hand_sims[0], dtype=np.float64) - (best_decoy / own_count)[None, :]
    return PopulationResult(guess_rate=guess_rate, expected_points=points,
                            success_rate=success, decoy_gap=gap, member_rate=member_rate,
                            member_deals=member_count,
                            seat_rate=None if seat_sum is None else seat_sum / n_sims)


def _mixture(hand_sims: Sequence[np.ndarray], pool_sims: Sequence[np.ndarray],
             deals: np.ndarray, n_voters: int, cards_per_guesser: int,
             models: Sequence[GuessModel], points_by_finders: np.ndarray,
             reaches: Sequence[float]) -> PopulationResult:
    """Two decoys per opponent: every member simulated alone on its share of the deals."""
    from models.players.simulation import simulate

    parts = []
    chunks = np.array_split(np.arange(len(deals)), len(models))
    for p, rows in enumerate(chunks):
        rows = rows if rows.size else np.arange(len(deals))
        parts.append(simulate(hand_sims[p], pool_sims[p], deals[rows], n_voters=n_voters,
                              cards_per_guesser=cards_per_guesser,
                              model=GuessModel(models[p].temperature, models[p].bias, 0.0),
                              points_by_finders=points_by_finders, second_vote=reaches[p]))
    rates = np.stack([r.guess_rate for r in parts])
    return PopulationResult(
        guess_rate=rates.mean(axis=0),
        expected_points=np.mean([r.expected_points for r in parts], axis=0),
        success_rate=np.mean([r.success_rate for r in parts], axis=0),
        decoy_gap=parts[0].decoy_gap, member_rate=rates)


def prepare(*, progress: Any = None, **agent_options: Any) -> Any:
    """The registry's prepare step of a population storyteller (or a storyteller-reading
    guesser): the clip player's own step (:func:`models.players.resources.prepare`), then every
    simulated (or reading) mind's card, vocabulary and pair-clue vectors, so that the first
    decision (in any worker) is lookups.

    Args:
        progress: Receives a line per one-time step.
        **agent_options: Keyword arguments of :class:`~models.players.ClipAgent`.

    Returns:
        The storyteller's own (process-wide, shared) resources.
    """
    from models.base import progress_to
    from models.players.agent import ClipAgent
    from models.players.resources import prepare as prepare_own

    own = prepare_own(progress=progress, **agent_options)
    with progress_to(progress):
        agent = ClipAgent(**agent_options)
        storyteller = agent.storyteller
        texts: list[str] = []
        if storyteller.pair_clues > 0:
            for card, vector in zip(own.card_ids, own.card_vectors, strict=True):
                texts.extend(storyteller.pair_candidates(own, card, vector))
        minds = [member for member, _ in agent.population_members or []]
        if agent.read_storytellers:
            minds += [member for member, _ in agent.storyteller_reader.members]
        done = {own.fingerprint}
        for member in minds:
            if member.fingerprint in done:
                continue
            done.add(member.fingerprint)
            _ = member.card_vocabulary_sims
            if texts:
                member.texts(texts)
    return own
