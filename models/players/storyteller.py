"""The storyteller: writes candidate clues for every hand card and picks one by simulation.

Candidates are the whole clue vocabulary, pair clues composed from the vocabulary items that
match each hand card best (:func:`models.players.vocabulary.compose_pair`) and, optionally,
clues proposed by a local text generator (:mod:`models.players.textgen`). Every
(hand card, candidate) gets a predicted guess rate and expected points from
:func:`models.players.simulation.simulate` (with ``sharp_voters``, from
:func:`models.players.sharp_voters.simulate_sharp`: copies that vote with no noise); the
storyteller then picks

- ``mode="target"``: the candidate whose guess rate is closest to ``target_guess_rate`` (among
  those within ``tolerance`` of the closest, the one with the most expected points);
- ``mode="expected_points"``: the candidate with the most expected points;
- or, given a learned :class:`~models.players.policy.LinearCluePolicy`, the policy's choice.

The search estimates every candidate on ``n_simulations`` deals; its best ``refine`` candidates,
and the best ``sharp_shortlist`` ones by the exact sharp-guesser estimate (every deal, no
sampling noise: :func:`~models.players.simulation.sharp_outcomes`), are estimated again on
``refine_simulations`` fresh deals, and the choice is made on those. The opponents' simulated
hands follow what the agent inferred from earlier rounds (``hand_weights``) when it is given.

Where the edition has a second vote (Odyssey; :func:`~models.players.second_vote.
second_vote_reach`), the simulated guessers cast it as the clip guessers do, and guess rates and
points count a finder by either vote, in the simulation of copies of one guess model and in a
population's (:func:`~models.players.population.simulate_population`), in the refine stage (the
choice) and the confirmation (the recorded prediction). The broad search of every candidate and
the sharp shortlist count first votes only (they only propose the shortlist, which is then
simulated with both votes; ``search_second_vote`` makes the search count both).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from dixit_ai.rules import View, voting_seats
from models.players.policy import LinearCluePolicy, candidate_features
from models.players.population import (
    PopulationResult,
    check_aim,
    member_reach,
    simulate_population,
)
from models.players.resources import PlayerResources
from models.players.sharp_voters import simulate_sharp
from models.players.simulation import (
    GuessModel,
    SimulationResult,
    draw_deals,
    second_vote_reach,
    sharp_outcomes,
    simulate,
    storyteller_margin_by_finders,
    storyteller_points_by_finders,
    temperature_scale,
)
from models.players.table_reading import TableBelief
from models.players.unseen_minds import UnseenMindMap
from models.players.vocabulary import HEAD_CATEGORIES, MODIFIER_CATEGORIES, compose_pair

Mode = Literal["target", "expected_points"]
Objective = Literal["points", "margin"]


@dataclass
class StoryDecision:
    """What the storyteller chose, with what a trainer or a record needs.

    Attributes:
        card: The chosen hand card.
        clue: The chosen clue.
        guess_rate: Its predicted guess rate.
        expected_points: Its predicted storyteller points.
        info: JSON-ready notes (runner-up candidates, mode, counts).
        features: Policy features of the shortlist (when a policy chose), else ``None``.
        chosen: The chosen row of ``features``.
    """

    card: int
    clue: str
    guess_rate: float
    expected_points: float
    info: dict[str, Any]
    features: np.ndarray | None = None
    chosen: int = -1


@dataclass
class ClipStoryteller:
    """Chooses a (hand card, clue) by simulating the other players.

    Attributes:
        mode: ``"target"`` or ``"expected_points"``.
        target_guess_rate: The guess rate aimed at in ``"target"`` mode.
        n_simulations: Deals simulated per decision.
        pair_clues: Pair clues composed per hand card (``0``: none).
        pair_words: Best-matching modifiers and heads per hand card that pairs are made from.
        tolerance: In ``"target"`` mode, candidates this close to the closest rate compete on
            expected points.
        runner_ups: How many runner-up candidates are written to the record.
        refine: How many of the best candidates of the search are estimated again, on
            ``refine_simulations`` fresh deals, before choosing (``0``: choose on the search).
        refine_simulations: Deals of that second estimate.
        sharp_shortlist: How many candidates the exact sharp-guesser estimate
            (:func:`~models.players.simulation.sharp_outcomes`: every deal, no sampling noise)
            adds to the shortlist that is estimated again (``0``: none). The choice is still
            made on the calibrated simulation; this only keeps good candidates that 64 noisy
            deals ranked too low from being lost.
        confirm_simulations: Fresh deals on which the chosen candidate and the runner-ups are
            simulated again: the recorded prediction then carries no selection bias (choosing
            the best of thousands of noisy estimates favours those that were overestimated).
        policy: A learned policy that chooses instead of the rule above.
        generator: An optional local text generator proposing extra clues.
        robustness: With a population (:mod:`models.players.population`): how much the spread
            of the guess rate across members counts against a candidate, so that clues whose
            link to the card holds for every mind are preferred. In ``"target"`` mode its
            distance to the target is ``|rate - target| + robustness * spread``; in
            ``"expected_points"`` mode its value is ``points - robustness * best * spread``
            (``best``: the most points a storyteller can score in the round). Without it,
            expected points reward clues the members *disagree* on (one finds, another does
            not: "some but not all" for certain in a simulation whose members vote
            independently), which at a real table of other minds are found by all or none.
        aim: In ``"target"`` mode with a population: ``"mean"`` (the default) aims the guess
            rate over every simulated voter at the target; ``"each"`` aims every member's (for a
            storyteller that read its table, every opponent's) rate at it: a candidate's
            distance is its *worst* member's gap to the target (the issue's per-mind target,
            as the candidate-clue study's oracle chooses), plus ``robustness * spread``;
            ``"rms"`` aims every member's rate too, its distance the root mean square of the
            members' gaps (a member that cannot reach the target, as no clue some mind finds
            three times in four may exist, no longer decides the choice alone).
        table_mix: With a population: the share of simulated deals in which the whole table
            is one member (:func:`models.players.population.assignment`), for a storyteller
            that does not know whether it faces different minds or copies of one (a clue that
            one member always finds scores nothing at a table of that member).
        unseen_minds: With a population in ``"target"`` mode: what its predictions mean at a
            table of minds it did not simulate (:class:`~models.players.unseen_minds.
            UnseenMindMap`, fitted by leave-one-mind-out telling). The simulated minds are
            aimed at the prediction the map takes to the target, and the recorded prediction
            is the map's (the simulated one stays in the notes). ``None``: none.
        search_second_vote: Where the edition has a second vote: whether the broad search of
            every candidate simulates it too. ``False`` (the default): the search counts first
            votes only, and the refine stage (the choice) and the confirmation (the recorded
            prediction) count a finder by either vote; at 12 players that is about 30% less CPU,
            with no measurable loss (README, "The second vote"); the notes'
            ``search_guess_rate`` is then the first votes' rate. The search counts both votes
            anyway where its estimates are used as they are: with a ``policy``,
            without a refine stage or without a confirmation.
        sharp_voters: Simulate the guessers as copies of this storyteller that vote for their
            most similar card, with no noise (:mod:`models.players.sharp_voters`), instead of
            the guess model's noisy reading: the guess model then gives neither noise nor bias,
            and the second vote's margin is the guessers' belief temperature
            (``belief_temperature``, else the guess model's) times
            ``log(finder_points / single_vote_bonus)``. Meant for tables
            of deterministic clip guessers where the deal is nearly known (Odyssey at 12
            players); not with a population (its members' noise is fitted, not the floor's).
            The search then counts the second vote too (it costs little here).
        belief_temperature: The temperature of the simulated guessers' beliefs, by which they
            decide on the second vote (the agent's guesser's); ``None``: the guess model's
            temperature. Sharp voters cast it within ``belief_temperature log(F / B)`` in
            similarity; noisy copies and a population's members within that over their own
            temperature in their logits (:func:`~models.players.population.member_reach`, which
            refuses beliefs so much broader than a reading that the margin cannot be
            represented).
        objective: What a candidate's points are: ``"points"``, the storyteller's own
            (expected points, and the tie-break among candidates near the target);
            ``"margin"``, its points minus the mean of the other players' in the round
            (:func:`~models.players.simulation.storyteller_margin_by_finders`): a story found
            by few scores its finders as much as its teller, one missed by all scores the
            decoys' owners, and a game is won by a lead (standard game only).
    """

    mode: Mode = "target"
    target_guess_rate: float = 0.5
    n_simulations: int = 64
    pair_clues: int = 12
    pair_words: int = 5
    tolerance: float = 0.02
    runner_ups: int = 3
    refine: int = 48
    refine_simulations: int = 512
    sharp_shortlist: int = 48
    confirm_simulations: int = 256
    policy: LinearCluePolicy | None = None
    generator: Any = None
    robustness: float = 0.0
    table_mix: float = 0.0
    aim: str = "mean"
    unseen_minds: UnseenMindMap | None = None
    search_second_vote: bool = False
    sharp_voters: bool = False
    belief_temperature: float | None = None
    objective: Objective = "points"
    _pair_cache: dict[int, list[str]] = field(default_factory=dict, repr=False)
    _masks: tuple[Any, np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in ("target", "expected_points"):
            raise ValueError(f"mode must be 'target' or 'expected_points', not {self.mode!r}")
        if self.objective not in ("points", "margin"):
            raise ValueError(f"objective must be 'points' or 'margin', not {self.objective!r}")
        if not 0.0 <= self.target_guess_rate <= 1.0:
            raise ValueError(f"target_guess_rate must be in [0, 1], not {self.target_guess_rate}")
        if self.n_simulations < 1:
            raise ValueError(f"n_simulations must be at least 1, not {self.n_simulations}")
        if not self.robustness >= 0:
            raise ValueError(f"robustness must be at least 0, not {self.robustness}")
        if not 0.0 <= self.table_mix <= 1.0:
            raise ValueError(f"table_mix must be in [0, 1], not {self.table_mix}")
        check_aim(self.aim)
        if not self.tolerance >= 0:
            raise ValueError(f"tolerance must be at least 0, not {self.tolerance}")
        if self.belief_temperature is not None:
            self.belief_temperature = temperature_scale(self.belief_temperature,
                                                        "belief_temperature")
        if not isinstance(self.sharp_voters, bool):
            raise ValueError(f"sharp_voters must be True or False, not {self.sharp_voters!r}")
        if self.unseen_minds is not None and self.mode != "target":
            raise ValueError("an unseen-minds map corrects the guess rate aimed at in 'target' "
                             f"mode; this storyteller's mode is {self.mode!r}")

    @property
    def aimed_rate(self) -> float:
        """The guess rate the simulated minds are aimed at: the target, or with an unseen-minds
        map the prediction it takes to the target."""
        if self.unseen_minds is None:
            return self.target_guess_rate
        return self.unseen_minds.aim(self.target_guess_rate)[0]

    def pair_candidates(self, resources: PlayerResources, card: int,
                        card_vector: np.ndarray) -> list[str]:
        """Pair clues for one card (remembered per card: the card's vector never changes)."""
        if card not in self._pair_cache:
            vocabulary = resources.vocabulary
            sims = resources.card_vocabulary_sims[resources.rows([card])[0]]
            if self._masks is None or self._masks[0] is not vocabulary:
                cats = np.asarray(vocabulary.categories)
                single = np.asarray([" " not in t for t in vocabulary.texts])
                self._masks = (vocabulary, single & np.isin(cats, MODIFIER_CATEGORIES),
                               single & np.isin(cats, HEAD_CATEGORIES))
            mods = _top(sims, self._masks[1], self.pair_words)
            heads = _top(sims, self._masks[2], self.pair_words)
            scored: list[tuple[float, str]] = []
            for first in [*mods, *heads]:
                for second in heads:
                    text = compose_pair(vocabulary.texts[first], vocabulary.categories[first],
                                        vocabulary.texts[second], vocabulary.categories[second])
                    if text is not None:
                        scored.append((float(sims[first] + sims[second]), text))
            scored.sort(key=lambda item: -item[0])
            self._pair_cache[card] = [text for _, text in scored[: self.pair_clues]]
        return self._pair_cache[card]

    def decide(
        self,
        view: View,
        resources: PlayerResources,
        model: GuessModel,
        rng: np.random.Generator,
        *,
        told: set[str] | frozenset[str] = frozenset(),
        unseen: list[int],
        hand_weights: np.ndarray | None = None,
        population: Sequence[tuple[PlayerResources, GuessModel]] | None = None,
        belief: TableBelief | None = None,
    ) -> StoryDecision:
        """Choose the card and clue for ``view`` (the storyteller's view).

        Args:
            view: The storyteller's view.
            resources: Card and clue vectors.
            model: The guess model the simulated guessers follow.
            rng: The agent's generator (deals, policy sampling).
            told: Clues not to tell again.
            unseen: Cards the storyteller has not seen (the opponents' hands come from these).
            hand_weights: ``(opponents, len(unseen))`` relative odds that each opponent holds
                each unseen card (:meth:`models.players.ClipAgent.hand_weights`); ``None``:
                uniform.
            population: The simulated minds: ``(resources, guess model)`` per member, over the
                same deck and vocabulary (:mod:`models.players.population`); ``None``: every
                opponent is a copy of this storyteller (``resources`` and ``model``).
            belief: With a population: what the storyteller has read of its opponents from
                their revealed votes (:func:`models.players.table_reading.read_table`); the
                simulated deals follow it instead of the fixed mixture (``table_mix``).
        """
        if self.sharp_voters and population:
            raise ValueError("sharp_voters simulates copies of this storyteller; it cannot "
                             "simulate a population of minds")
        hand = list(view.hand)
        hand_vectors = resources.cards(hand)
        texts = list(resources.vocabulary.texts)
        extra: list[str] = []
        if self.pair_clues > 0:
            for card, vector in zip(hand, hand_vectors, strict=True):
                extra.extend(self.pair_candidates(resources, card, vector))
        pairs = set(extra)
        if self.generator is not None:
            extra.extend(self.generator.propose(resources, hand_vectors))
        known = set(texts)
        extra = [t for t in dict.fromkeys(extra) if t not in known]
        texts += extra
        is_pair = np.zeros(len(texts), dtype=bool)
        is_pair[len(resources.vocabulary):] = True

        n_players = view.n_players
        rules = view.rules
        n_voters = len(voting_seats(rules, n_players, view.storyteller))
        # The opponents who put cards on the board: every guesser, or in the team variant one
        # per guessing team and the storyteller's teammate (who votes last: never).
        n_givers = (rules.board_size(n_players) - 1) // view.cards_to_play
        # Card-vocabulary similarities are computed once per deck; only extra clues are new.
        table = resources.card_vocabulary_sims
        pool_rows = resources.rows(unseen) if unseen else resources.rows(hand)
        hand_sims = table[resources.rows(hand)]
        pool_sims = table[pool_rows]
        if extra:
            columns = resources.clue_columns(extra)
            hand_sims = np.concatenate([hand_sims, columns[resources.rows(hand)]], axis=1)
            pool_sims = np.concatenate([pool_sims, columns[pool_rows]], axis=1)
        if hand_weights is not None and (not unseen or hand_weights.shape != (n_givers,
                                                                             len(unseen))):
            hand_weights = None
        deals = draw_deals(rng, len(pool_rows), self.n_simulations, n_givers,
                           rules.hand_size_for(n_players), hand_weights)
        points_by_finders = (storyteller_margin_by_finders(rules, n_players)
                             if self.objective == "margin" else
                             storyteller_points_by_finders(rules, n_players, n_voters))
        # Odyssey's second vote, where the edition and the player count allow it: the simulated
        # guessers cast it as the clip guessers do (models.players.second_vote).
        reach = second_vote_reach(rules, n_players)
        # Sharp voters cast the second vote when their first card leads the second by less
        # than T_b log(finder points / bonus) in similarity (T_b: their belief temperature).
        believed = model.temperature if self.belief_temperature is None else self.belief_temperature
        sharp_margin = (math.inf if reach >= 1.0
                        else -believed * math.log1p(-reach)) if reach > 0 else 0.0
        member_hands: list[np.ndarray] = []
        member_pools: list[np.ndarray] = []
        models: list[GuessModel] = []
        for member, member_model in population or ():
            if member.vocabulary.texts != resources.vocabulary.texts:
                raise ValueError("every member of the population must use the storyteller's "
                                 f"vocabulary ({resources.vocabulary.name})")
            member_table = member.card_vocabulary_sims
            rows_hand = member.rows(hand)
            rows_pool = member.rows(unseen) if unseen else rows_hand
            h, u = member_table[rows_hand], member_table[rows_pool]
            if extra:
                member_columns = member.clue_columns(extra)
                h = np.concatenate([h, member_columns[rows_hand]], axis=1)
                u = np.concatenate([u, member_columns[rows_pool]], axis=1)
            member_hands.append(h)
            member_pools.append(u)
            models.append(member_model)

        if belief is not None and (not models or belief.seats.shape != (n_players - 1,
                                                                         len(models) + 1)):
            raise ValueError(f"a table belief over {belief.seats.shape[1] - 1} members and "
                             f"{belief.seats.shape[0]} opponents does not fit this storyteller's "
                             f"{len(models)} members and {n_players - 1} opponents")

        def run(hands: list[np.ndarray] | np.ndarray, pools: list[np.ndarray] | np.ndarray,
                deals: np.ndarray, second_vote: float) -> SimulationResult:
            if models:  # one table of similarities per member
                assert isinstance(hands, list) and isinstance(pools, list)
                seats = None if belief is None else belief.assignment(len(deals))
                bias = None if belief is None else belief.seat_bias()
                return simulate_population(hands, pools, deals, n_voters=n_voters,
                                           cards_per_guesser=view.cards_to_play,
                                           models=models, points_by_finders=points_by_finders,
                                           table_mix=self.table_mix, seats=seats,
                                           seat_bias=bias, second_vote=second_vote,
                                           belief_temperature=believed)
            assert isinstance(hands, np.ndarray) and isinstance(pools, np.ndarray)
            if self.sharp_voters:
                return simulate_sharp(hands, pools, deals, n_voters=n_voters,
                                      cards_per_guesser=view.cards_to_play,
                                      points_by_finders=points_by_finders,
                                      margin=sharp_margin if second_vote > 0 else 0.0)
            # Copies read the board at the guess model's temperature and cast the second vote
            # by their beliefs: a margin of (T_b / T) log(F / B) in their logits.
            return simulate(hands, pools, deals, n_voters=n_voters,
                            cards_per_guesser=view.cards_to_play, model=model,
                            points_by_finders=points_by_finders,
                            second_vote=member_reach(second_vote, model.temperature,
                                                     self.belief_temperature))

        result = run(member_hands or hand_sims, member_pools or pool_sims, deals,
                     reach if self._search_counts_second_vote() else 0.0)
        fits = np.asarray([len(t) <= rules.max_clue_length for t in texts])
        if not fits.any():
            raise ValueError(f"no candidate clue fits the rules' max_clue_length "
                             f"({rules.max_clue_length} characters)")
        allowed = fits & np.asarray([t not in told for t in texts])
        repeated = not allowed.any()
        if repeated:  # every candidate was told already: a repeat, said in the notes
            allowed = fits
        sources = ["vocabulary"] * len(resources.vocabulary) + [
            "pair" if t in pairs else "generator" for t in extra]
        hand_size = rules.hand_size_for(n_players)

        def resimulate(cards: np.ndarray, clues: np.ndarray, n: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
            """Guess rates, points, spread across members and the members' gap to the
            target (``aim="each"`` or ``"rms"``) of the pairs (cards[i], clues[i]) on n fresh
            deals."""
            deals = draw_deals(rng, len(pool_sims), n, n_givers, hand_size, hand_weights)
            if models:
                fresh = run([h[cards, clues][None, :] for h in member_hands],
                            [u[:, clues] for u in member_pools], deals, reach)
            else:
                fresh = run(hand_sims[cards, clues][None, :], pool_sims[:, clues], deals, reach)
            spread = _spread(fresh, self.mode)
            gap = self._member_gap(fresh)
            return (fresh.guess_rate[0], fresh.expected_points[0],
                    None if spread is None else spread[0], None if gap is None else gap[0])

        sharp = None
        if self.sharp_shortlist > 0 and view.cards_to_play == 1 and n_voters == n_players - 1:
            outcomes = sharp_outcomes(hand_sims, pool_sims, n_opponents=n_players - 1,
                                      hand_size=hand_size,
                                      bias_similarity=model.bias * model.temperature)
            if outcomes is not None:
                one, every = outcomes
                points = (points_by_finders[1] * one + points_by_finders[-1] * every
                          + points_by_finders[0] * (1.0 - one - every))
                sharp = ((one + n_voters * every) / n_voters, points)
        decision = self._select(hand, texts, is_pair, hand_sims, result, allowed, rng,
                                sources, resimulate, sharp, float(points_by_finders.max()))
        if repeated:
            decision.info["repeated"] = "every candidate clue was already told"
        return decision

    def _search_counts_second_vote(self) -> bool:
        """Whether the broad search of every candidate simulates the second vote: only where
        asked, with sharp voters (where it costs little), or where its estimates are used as
        they are (a policy's features, no refine stage to choose on, no confirmation to predict
        by)."""
        return (self.search_second_vote or self.sharp_voters or self.policy is not None
                or self.refine <= 0 or self.refine_simulations <= 0
                or self.confirm_simulations <= 0)

    def _member_gap(self, result: SimulationResult) -> np.ndarray | None:
        """``(h, K)``: the gap of the members' (or, having read its table, the opponents')
        guess rates to the target, the worst one's (``aim="each"``) or their root mean square
        (``aim="rms"``), in target mode; else ``None``."""
        if self.mode != "target" or self.aim == "mean" or not isinstance(result,
                                                                         PopulationResult):
            return None
        return result.member_gap(self.aimed_rate, self.aim, by_seat=True)

    def _order(self, rate: np.ndarray, points: np.ndarray, allowed: np.ndarray,
               spread: np.ndarray | None = None, best: float = 1.0,
               member_gap: np.ndarray | None = None) -> np.ndarray:
        """Flat candidate indices, best first, by the storyteller's rule (``best``: the most
        points a storyteller can score, the scale of the robustness penalty on points;
        ``member_gap``: the members' gap to the target, the distance with ``aim="each"`` or
        ``"rms"``)."""
        points = np.where(allowed, points, -np.inf)
        if self.mode == "expected_points":
            if spread is not None and self.robustness > 0:
                points = points - self.robustness * best * spread
            return np.argsort(-points, axis=None, kind="stable")
        distance = np.abs(rate - self.aimed_rate) if member_gap is None else member_gap
        if spread is not None and self.robustness > 0:
            distance = distance + self.robustness * spread
        gap = np.where(allowed, distance, np.inf)
        near = gap <= gap.min() + self.tolerance
        # Near the target: most expected points first; then the rest by closeness.
        key = np.where(near, -points - 1e6, gap)
        return np.argsort(key, axis=None, kind="stable")

    def _select(self, hand: list[int], texts: list[str], is_pair: np.ndarray,
                hand_sims: np.ndarray, result: SimulationResult, allowed: np.ndarray,
                rng: np.random.Generator, sources: list[str], resimulate: Any,
                sharp: tuple[np.ndarray, np.ndarray] | None = None,
                best: float = 1.0) -> StoryDecision:
        shape = result.guess_rate.shape
        allowed2 = np.broadcast_to(allowed[None, :], shape)
        features = None
        chosen = -1
        if self.policy is not None:
            points = np.where(allowed2, result.expected_points, -np.inf)
            flat = np.argsort(-points, axis=None, kind="stable")
            flat = flat[allowed2.reshape(-1)[flat]][: self.policy.shortlist]
            cards, clues = np.unravel_index(flat, shape)
            clue_words = np.asarray([len(t.split()) for t in texts], dtype=np.float64)
            features = candidate_features(result, hand_sims, cards, clues, clue_words, is_pair)
            chosen = self.policy.choose(features, rng)
            order = np.concatenate([[flat[chosen]], np.delete(flat, chosen)])
            cards, clues = np.unravel_index(order[: self.runner_ups + 1], shape)
        else:
            order = self._order(result.guess_rate, result.expected_points, allowed2,
                                _spread(result, self.mode), best, self._member_gap(result))
            shortlist = order[: max(self.refine, self.runner_ups + 1)]
            if sharp is not None and self.refine > 0 and self.refine_simulations > 0:
                extra = self._order(sharp[0], sharp[1], allowed2)[: self.sharp_shortlist]
                shortlist = np.concatenate([shortlist, extra[~np.isin(extra, shortlist)]])
            cards, clues = np.unravel_index(shortlist, shape)
            if self.refine > 0 and self.refine_simulations > 0:
                # The best of thousands of noisy estimates is mostly the luckiest: estimate the
                # shortlist again on more, fresh deals and choose on those estimates.
                rates, values, spread, gap = resimulate(cards, clues,
                                                          self.refine_simulations)
                # Only the allowed (untold, short enough) ones: with fewer allowed candidates
                # than the shortlist, told clues were in it and won on the fresh estimate.
                again = self._order(rates, values, allowed2[cards, clues], spread, best, gap)
                cards, clues = cards[again], clues[again]
            cards, clues = cards[: self.runner_ups + 1], clues[: self.runner_ups + 1]
        search_rate = float(result.guess_rate[cards[0], clues[0]])
        if self.confirm_simulations > 0:  # an estimate the choice did not depend on
            rates, values, _, _ = resimulate(cards, clues, self.confirm_simulations)
        else:
            rates = result.guess_rate[cards, clues]
            values = result.expected_points[cards, clues]
        simulated = None
        if self.unseen_minds is not None:  # what the prediction means among unsimulated minds
            simulated = rates
            rates = np.asarray(self.unseen_minds(rates))
        summary = [{
            "card": hand[int(c)], "clue": texts[int(k)],
            "guess_rate": round(float(r), 4), "expected_points": round(float(v), 4),
            "source": sources[int(k)],
        } for c, k, r, v in zip(cards, clues, rates, values, strict=True)]
        info: dict[str, Any] = {
            "mode": "policy" if self.policy is not None else self.mode,
            "target_guess_rate": self.target_guess_rate if self.mode == "target" else None,
            "expected_points": summary[0]["expected_points"],
            "search_guess_rate": round(search_rate, 4),
            "source": summary[0]["source"],
            "candidates": int(result.guess_rate.size),
            "runner_ups": summary[1:],
        }
        if self.objective == "margin":  # expected_points above is then the expected lead
            info["objective"] = "margin"
        if simulated is not None and self.unseen_minds is not None:
            aimed, reachable = self.unseen_minds.aim(self.target_guess_rate)
            info["unseen_minds"] = {"aimed_at": round(aimed, 4), "reachable": reachable,
                                    "simulated_guess_rate": round(float(simulated[0]), 4)}
        return StoryDecision(hand[int(cards[0])], texts[int(clues[0])], float(rates[0]),
                             float(values[0]), info, features, chosen)


def _spread(result: SimulationResult, mode: str) -> np.ndarray | None:
    """The spread of the guess rate across a population's members (``None``: no population);
    in target mode, for a storyteller that read its table, across the opponents it faces (the
    target is for each of them)."""
    if not isinstance(result, PopulationResult):
        return None
    return result.spread_of(by_seat=mode == "target")


def _top(values: np.ndarray, mask: np.ndarray, count: int) -> list[int]:
    index = np.flatnonzero(mask)
    if len(index) == 0 or count < 1:
        return []
    best = index[np.argsort(-values[index], kind="stable")[:count]]
    return [int(i) for i in best]
