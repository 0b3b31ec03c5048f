"""Reading the storyteller: which mind tells its clues, learned from what it revealed.

A guesser that ranks the board by its own embedding reads every storyteller as if it thought
as it does; it finds a storyteller of another mind (another image tower, a classifier's
labels) little above chance, although another member of the model family would read that
storyteller well (``scripts/study_who_reads_whom.py``). People learn a storyteller's way of
speaking over a game; so does this guesser. Every revealed round shows the storyteller's card
beside its clue and the board; under each mind of the guesser's population (its own embedder
first, then model-family members) one can say how likely that card was, among the board, for
that clue, and so which mind explains this storyteller's stories.

**The model.** Storyteller ``s`` tells as member ``p`` reads, for the whole game: on a board,
the card it told is ``p``'s guess model over the cards
(:meth:`~models.players.simulation.GuessModel.vote_probabilities`), at ``p``'s fitted
temperature times a *sharpness scale* ``k`` from :data:`TEMPERATURE_SCALES` (a storyteller
whose clues ``p`` reads more, or less, clearly than the other minds it was fitted on); and a
share ``lapse`` of its stories (:data:`~models.players.table_reading.LAPSES`, with their prior)
is tied to no member (a random storyteller, or one no member reads). The prior gives the
guesser's own mind :data:`OWN_PRIOR` and splits the rest evenly over the other members; scales
are equally likely. The posterior over these (a few dozen hypotheses per storyteller) is exact.

**Its votes and decoys.** A player guesses, and plays decoys, with the mind it tells with; so
the rounds it did not tell say something too (:class:`SeatEvidence`). Its votes are read as
:mod:`models.players.table_reading` reads them (each member's guess model, with a lapse and a
bias of its own); its decoys as the best card, in the member's space, of a hand drawn at
random (:func:`decoy_log_likelihoods`), with a lapse of its own. These nuisance parameters hold
for the player for the whole game and are summed out over their priors, so that a player who
votes or plays at random reads as lapses rather than as whichever mind its choices happened to
fit.

**The guess.** The probability that board card ``j`` is the storyteller's, among the cards the
guesser may vote for, is the posterior mean of each hypothesis' probability (the lapse part is
uniform); the guesser votes for the most probable (:meth:`StorytellerBelief.beliefs`). Before
any story of ``s`` is read this is the prior's mixture, mostly its own mind.

Rounds are read only where every member knows the clue's vectors without running a model (as
:mod:`models.players.table_reading` does); at a vote, a member that does not know the clue is
left out of the mixture (the guesser's own embedder always embeds it) and the vote's notes name
it. With ``embed`` (for tables of people, whose clues are free text) every member embeds such a
clue with its own text tower instead, loaded at the first one. The guesser's own stories and
the rounds it cannot see whole are not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.players.simulation import MIN_TEMPERATURE, GuessModel
from models.players.table_reading import (
    BIAS_PRIOR,
    BIASES,
    LAPSE_PRIOR,
    LAPSES,
    logsumexp,
    vote_log_likelihoods,
)

TEMPERATURE_SCALES = (0.25, 0.5, 1.0, 2.0)
"""How much more (``< 1``) or less (``> 1``) sharply a storyteller's cards follow a member's
similarities than that member's fitted guess model says, as a grid."""

OWN_PRIOR = 0.5
"""Prior probability that a storyteller tells as the guesser's own mind (its first member)."""

Members = Sequence[tuple[Any, GuessModel]]
"""The guesser's minds: ``(resources, guess model)`` each, its own embedder first; a member's
resources give ``knows(text)`` and ``clue_similarities(text, cards)``."""


def _scaled(model: GuessModel, scale: float) -> GuessModel:
    return GuessModel(max(model.temperature * scale, MIN_TEMPERATURE), 0.0, model.correlation)


def card_probabilities(sims: Sequence[np.ndarray], models: Sequence[GuessModel],
                       legal: Sequence[int]) -> np.ndarray:
    """``(P, K, len(legal))``: under each member and sharpness scale, the probability that each
    of the ``legal`` board positions holds the storyteller's card, given every member's
    similarities of the clue to the board (``sims``, one row per member)."""
    legal = list(legal)
    out = np.empty((len(models), len(TEMPERATURE_SCALES), len(legal)))
    for p, (row, model) in enumerate(zip(sims, models, strict=True)):
        board = np.asarray(row, dtype=np.float64)[legal]
        for k, scale in enumerate(TEMPERATURE_SCALES):
            out[p, k] = _scaled(model, scale).vote_probabilities(board)
    return out


def story_log_likelihood(sims: Sequence[np.ndarray], models: Sequence[GuessModel],
                         legal: Sequence[int], teller_position: int) -> np.ndarray:
    """``(P, K, len(LAPSES))``: the log-probability of one revealed story (the storyteller's
    card at ``teller_position`` among the ``legal`` positions) under each hypothesis.

    Raises:
        ValueError: ``teller_position`` is not among ``legal``.
    """
    legal = list(legal)
    if teller_position not in legal:
        raise ValueError(f"the storyteller's card at position {teller_position} is not among "
                         f"the positions read ({legal})")
    found = card_probabilities(sims, models, legal)[:, :, legal.index(teller_position)]
    lapses = np.asarray(LAPSES)
    return np.log((1.0 - lapses) * found[:, :, None] + lapses / len(legal))


def log_prior(n_members: int, own_prior: float = OWN_PRIOR) -> np.ndarray:
    """``(P, K, len(LAPSES))``: the prior of the module docstring, as logs.

    Raises:
        ValueError: ``own_prior`` is outside (0, 1], or below 1 with one member only.
    """
    if n_members < 1:
        raise ValueError("reading storytellers needs at least one mind")
    if not 0.0 < own_prior <= 1.0 or (n_members == 1 and own_prior != 1.0):
        raise ValueError(f"own_prior must be in (0, 1] (1 with a single mind), not {own_prior}")
    minds = np.full(n_members, (1.0 - own_prior) / max(n_members - 1, 1))
    minds[0] = own_prior
    lapses = np.asarray(LAPSE_PRIOR) / np.sum(LAPSE_PRIOR)
    with np.errstate(divide="ignore"):
        prior = (np.log(minds)[:, None, None] - np.log(len(TEMPERATURE_SCALES))
                 + np.log(lapses)[None, None, :])
    return np.repeat(prior, len(TEMPERATURE_SCALES), axis=1)


@dataclass(frozen=True)
class StorytellerBelief:
    """A guesser's posterior over the mind of one storyteller.

    Attributes:
        posterior: ``(P, K, len(LAPSES))``: over member, sharpness scale and lapse.
        stories: Stories of this storyteller read.
        votes: Its votes read (when it guessed).
        decoys: Rounds of its decoys read.
        unread: Its revealed stories not read (a clue some member has no vectors of).
    """

    posterior: np.ndarray
    stories: int = 0
    votes: int = 0
    decoys: int = 0
    unread: int = 0

    @classmethod
    def of(cls, log_joint: np.ndarray, stories: int = 0, votes: int = 0, decoys: int = 0,
           unread: int = 0) -> StorytellerBelief:
        """The belief from the prior's and the evidence's summed log-probabilities."""
        posterior = np.exp(log_joint - log_joint.max())
        return cls(posterior / posterior.sum(), stories=stories, votes=votes, decoys=decoys,
                   unread=unread)

    @property
    def minds(self) -> np.ndarray:
        """``(P,)``: the probability that the storyteller tells as each member (lapses
        included)."""
        return np.asarray(self.posterior.sum(axis=(1, 2)))

    @property
    def lapse(self) -> float:
        """The expected share of its stories tied to no member."""
        return float((self.posterior * np.asarray(LAPSES)).sum())

    def beliefs(self, sims: Sequence[np.ndarray | None], models: Sequence[GuessModel],
                legal: Sequence[int]) -> np.ndarray:
        """``(len(legal),)``: the probability that each legal position holds the storyteller's
        card (see the module docstring).

        Args:
            sims: Per member, the similarities of the clue to the board, or ``None`` for a
                member that does not know the clue (left out: the posterior is renormalised
                over the others).
            models: Per member, its guess model.
            legal: The positions the guesser may vote for.

        Raises:
            ValueError: no member knows the clue, or ``sims`` and ``models`` differ in length.
        """
        if len(sims) != len(models):
            raise ValueError(f"{len(sims)} members' similarities for {len(models)} members")
        known = [(p, row) for p, row in enumerate(sims) if row is not None]
        if not known:
            raise ValueError("no member of the guesser's population knows the clue")
        weights = self.posterior[[p for p, _ in known]]
        weights = weights / weights.sum()
        probs = card_probabilities([row for _, row in known], [models[p] for p, _ in known],
                                   legal)
        lapses = np.asarray(LAPSES)
        found = (weights * (1.0 - lapses)).sum(axis=2)                     # (P', K)
        mixture = (np.einsum("pk,pkj->j", found, probs)
                   + float((weights * lapses).sum()) / len(list(legal)))
        return np.asarray(mixture / mixture.sum())

    def summary(self, names: Sequence[str]) -> dict[str, Any]:
        """For a vote's ``info``: the storyteller's likely minds and its lapse share."""
        return {"stories_read": self.stories, "votes_read": self.votes,
                "decoys_read": self.decoys,
                "unread_stories": self.unread,
                "minds": {n: round(float(p), 3) for n, p in zip(names, self.minds, strict=True)
                          if p >= 0.01},
                "lapse": round(self.lapse, 3)}


def decoy_log_likelihoods(columns: Sequence[np.ndarray], rows: Sequence[Sequence[int]],
                          hand_size: int) -> np.ndarray:
    """``(P, len(LAPSES))``: the log-likelihood of one player's decoys under each member and
    lapse (the share of its decoys played at random), relative to cards played at random.

    A player of mind ``p`` plays the card of its hand most similar to the clue in ``p``'s
    space (the decoy picker, ``bluff=0``). Its hand is unknown; as ``hand_size`` cards drawn
    at random from the deck, the chance that a decoy ``d`` is the best of them, relative to a
    card played at random, is ``hand_size * F_p(d) ** (hand_size - 1)``, ``F_p(d)`` the share
    of the deck's other cards less similar to the clue than ``d`` in ``p``'s space.

    Args:
        columns: Per member, the similarities of the clue to every card of its deck.
        rows: Per member, the decoys' rows in its deck.
        hand_size: Cards in a hand.
    """
    lapses = np.asarray(LAPSES)
    out = np.zeros((len(columns), len(LAPSES)))
    for p, (column, decoys) in enumerate(zip(columns, rows, strict=True)):
        column = np.asarray(column, dtype=np.float64)
        for row in decoys:
            below = float((column < column[row]).sum()) / max(len(column) - 1, 1)
            odds = hand_size * max(below, 1.0 / len(column)) ** (hand_size - 1)
            out[p] += np.log((1.0 - lapses) * odds + lapses)
    return out


@dataclass
class SeatEvidence:
    """What revealed rounds say of one player's mind, kept apart by kind, each with the
    nuisance parameters that hold for that player for the whole game.

    Attributes:
        story: ``(P, K, len(LAPSES))``: its stories (:func:`story_log_likelihood`), summed.
        vote: ``(P, len(LAPSES), len(BIASES))``: its votes
            (:func:`~models.players.table_reading.vote_log_likelihoods`), summed.
        decoy: ``(P, len(LAPSES))``: its decoys (:func:`decoy_log_likelihoods`), summed.
        stories, votes, decoys: How many of each were read.
    """

    story: np.ndarray
    vote: np.ndarray
    decoy: np.ndarray
    stories: int = 0
    votes: int = 0
    decoys: int = 0

    @classmethod
    def empty(cls, n_members: int) -> SeatEvidence:
        return cls(np.zeros((n_members, len(TEMPERATURE_SCALES), len(LAPSES))),
                   np.zeros((n_members, len(LAPSES), len(BIASES))),
                   np.zeros((n_members, len(LAPSES))))

    def add(self, other: SeatEvidence) -> None:
        self.story = self.story + other.story
        self.vote = self.vote + other.vote
        self.decoy = self.decoy + other.decoy
        self.stories += other.stories
        self.votes += other.votes
        self.decoys += other.decoys

    def log_joint(self, own_prior: float) -> np.ndarray:
        """``(P, K, len(LAPSES))``: the prior (:func:`log_prior`) plus the stories, plus the
        votes' and the decoys' evidence for each member (their own lapse and bias summed out
        over their priors: they say nothing of a storyteller's sharpness)."""
        n_members = len(self.story)
        lapse = np.log(np.asarray(LAPSE_PRIOR) / np.sum(LAPSE_PRIOR))
        bias = np.log(np.asarray(BIAS_PRIOR) / np.sum(BIAS_PRIOR))
        votes = logsumexp((self.vote + lapse[None, :, None] + bias[None, None, :]
                           ).reshape(n_members, -1), axis=1)
        decoys = logsumexp(self.decoy + lapse[None, :], axis=1)
        return (log_prior(n_members, own_prior) + self.story
                + (votes + decoys)[:, None, None])


def round_evidence(past: Any, *, seat: int, members: Members, votes: bool = True,
                   decoys: int = 0, embed: bool = False) -> dict[int, SeatEvidence] | None:
    """What one revealed round says of its players' minds, by seat: the storyteller's story
    (over the board less the reader's own card(s)) and, with ``votes``, every other voter's
    vote (a player guesses with the mind it tells with) and, with ``decoys`` (the hand size;
    0: not read), its decoys; the reader's own are left out. ``None`` when some member has no
    vectors of the clue (the round is not read), unless ``embed``: then such a member embeds
    it with its own text tower (loading it)."""
    if not embed and not all(resources.knows(past.clue) for resources, _ in members):
        return None
    board = list(past.board)
    sims = [resources.clue_similarities(past.clue, board) for resources, _ in members]
    models = [model for _, model in members]
    teller = past.board_owner.index(past.storyteller)
    out: dict[int, SeatEvidence] = {}

    def of(player: int) -> SeatEvidence:
        return out.setdefault(player, SeatEvidence.empty(len(members)))

    if past.storyteller != seat:
        legal = [i for i, owner in enumerate(past.board_owner) if owner != seat]
        evidence = of(past.storyteller)
        evidence.story = story_log_likelihood(sims, models, legal, teller)
        evidence.stories = 1
    if votes:
        for voter, chosen in enumerate(past.votes):
            if not chosen or voter in (seat, past.storyteller):
                continue
            legal = [i for i, owner in enumerate(past.board_owner) if owner != voter]
            evidence = of(voter)
            evidence.vote = vote_log_likelihoods(sims, models, legal, teller, chosen)
            evidence.votes = 1
    if decoys > 1:
        columns = [resources.clue_column(past.clue) for resources, _ in members]
        for player, cards in enumerate(past.played):
            if not cards or player in (seat, past.storyteller):
                continue
            evidence = of(player)
            evidence.decoy = decoy_log_likelihoods(
                columns, [resources.rows(cards) for resources, _ in members], decoys)
            evidence.decoys = 1
    return out


def read_storyteller(rounds: Sequence[Any], *, storyteller: int, seat: int, members: Members,
                     own_prior: float = OWN_PRIOR, votes: bool = True, decoys: int = 0,
                     embed: bool = False,
                     memo: dict[int, dict[int, SeatEvidence] | None] | None = None
                     ) -> StorytellerBelief:
    """The reader's (``seat``'s) belief about ``storyteller``'s mind from revealed rounds
    (:func:`round_evidence` of each, summed by kind: :meth:`SeatEvidence.log_joint`).

    Args:
        rounds: Revealed rounds (:class:`dixit_ai.rules.RoundResult`), any order.
        storyteller: The seat whose mind is read.
        seat: The reader's seat.
        members: The reader's minds, its own first.
        own_prior: See :data:`OWN_PRIOR`.
        votes: Read its votes too, not only its stories.
        decoys: Read its decoys too, as hands of this many cards (0: not read).
        embed: A member without vectors of a clue embeds it (else the round is not read).
        memo: Keeps each round's evidence by round number between calls of one game.
    """
    memo = {} if memo is None else memo
    total = SeatEvidence.empty(len(members))
    unread = 0
    for past in rounds:
        if past.round not in memo:
            memo[past.round] = round_evidence(past, seat=seat, members=members, votes=votes,
                                              decoys=decoys, embed=embed)
        evidence = memo[past.round]
        if evidence is None:
            unread += past.storyteller == storyteller
        elif storyteller in evidence:
            total.add(evidence[storyteller])
    return StorytellerBelief.of(total.log_joint(own_prior), stories=total.stories,
                                votes=total.votes, decoys=total.decoys, unread=unread)


class StorytellerReader:
    """A guesser's reading of every storyteller of one game (see the module docstring).

    Args:
        members: The guesser's minds, its own embedder first (it embeds any clue).
        names: A name per member, for the notes.
        own_prior: See :data:`OWN_PRIOR`.
        votes: Read each player's votes too, not only its stories.
        decoys: Read each player's decoys too.
        embed: A mind without vectors of a clue (a person's free text) embeds it with its own
            text tower, loaded at the first such clue; else such rounds are not read, and such
            a mind is left out of a vote.
    """

    def __init__(self, members: Members, names: Sequence[str], own_prior: float = OWN_PRIOR,
                 votes: bool = True, decoys: bool = False, embed: bool = False) -> None:
        if len(names) != len(members):
            raise ValueError(f"{len(names)} names for {len(members)} minds")
        log_prior(len(members), own_prior)  # checks them
        self.members = list(members)
        self.names = list(names)
        self.own_prior = own_prior
        self.votes = votes
        self.decoys = decoys
        self.embed = embed
        self._memo: dict[int, dict[int, SeatEvidence] | None] = {}

    def reset(self) -> None:
        """Forget the game's stories (a new game)."""
        self._memo = {}

    def belief(self, rounds: Sequence[Any], *, storyteller: int, seat: int, hand_size: int = 6
               ) -> StorytellerBelief:
        """:func:`read_storyteller` of ``storyteller`` from ``rounds`` (hands of ``hand_size``
        cards, for the decoys), remembered per round."""
        return read_storyteller(rounds, storyteller=storyteller, seat=seat,
                                members=self.members, own_prior=self.own_prior,
                                votes=self.votes, decoys=hand_size if self.decoys else 0,
                                embed=self.embed, memo=self._memo)

    def beliefs(self, rounds: Sequence[Any], *, clue: str, board: Sequence[int],
                legal: Sequence[int], storyteller: int, seat: int, hand_size: int = 6
                ) -> tuple[np.ndarray, dict[str, Any]]:
        """The probability that each of the ``legal`` positions of ``board`` holds
        ``storyteller``'s card for ``clue``, and notes for the vote's record (the minds it
        reads the storyteller as, and any member left out because it does not know the clue).
        """
        belief = self.belief(rounds, storyteller=storyteller, seat=seat, hand_size=hand_size)
        cards = list(board)
        sims: list[np.ndarray | None] = []
        left_out = []
        for p, (resources, _) in enumerate(self.members):
            if p == 0 or self.embed or resources.knows(clue):
                sims.append(resources.clue_similarities(clue, cards))
            else:
                sims.append(None)
                left_out.append(self.names[p])
        beliefs = belief.beliefs(sims, [model for _, model in self.members], legal)
        note = belief.summary(self.names)
        if left_out:
            note["left_out"] = left_out
        return beliefs, note


def load_reader(names: Sequence[Any], own: Any, *, calibration: Any, deck: Any,
                vocabulary: Any = None, vocabulary_size: int | None = None,
                device: str = "cpu", own_prior: float = OWN_PRIOR, votes: bool = True,
                decoys: bool = False, embed: bool = False) -> StorytellerReader:
    """A :class:`StorytellerReader` over the guesser's own resources ``own`` and the embedders
    ``names`` (model-family names; one with ``own``'s embedder is skipped), each with the guess
    model that the population fit ``calibration`` (a name of
    :data:`~models.players.population.SHIPPED_POPULATION_FILES` or a path) holds for it.

    Raises:
        ValueError: a member reads ground truth, is named twice, or has no fitted guess model
            (the reading needs how each mind votes on other minds' clues); no fit is named; no
            member but ``own`` is left.
    """
    from models.players.panel_models import load_member_resources, refuse_ground_truth
    from models.players.population_fit import load_population_fit

    fit = load_population_fit(calibration)
    if fit is None:
        raise ValueError("reading storytellers needs a population fit (reading_calibration: "
                         "'default', 'wide' or a path): each mind's temperature on other "
                         "minds' clues")
    from models.players.resources import PlayerResources

    members, labels = [own], ["self"]
    for name in names:
        refuse_ground_truth(name, "a guesser may not read storytellers with it")
        if isinstance(name, PlayerResources):
            resources, label = name, name.fingerprint[:12]
        elif isinstance(deck, PlayerResources):
            raise ValueError(f"reading mind {name!r} needs its own vectors of the cards, and "
                             "the deck was given as ready vectors: pass the minds' "
                             "PlayerResources, or a deck spec")
        else:
            resources = load_member_resources(name, deck, vocabulary, vocabulary_size, device)
            label = str(name)
        if resources.fingerprint == own.fingerprint:
            continue
        if resources.fingerprint in [m.fingerprint for m in members]:
            raise ValueError(f"reading mind {label!r} is named twice")
        members.append(resources)
        labels.append(label)
    if len(members) < 2:
        raise ValueError(f"reading storytellers needs a mind besides the guesser's own: "
                         f"{list(names)} has none")
    models = []
    for resources, label in zip(members, labels, strict=True):
        entry = fit.members.get(resources.fingerprint)
        if entry is None:
            raise ValueError(
                f"reading mind {label!r} ({resources.fingerprint[:20]}) has no guess model in "
                f"the population fit {calibration!r} (it holds "
                f"{sorted(m.get('name', f) for f, m in fit.members.items())}): fit one with "
                "scripts/fit_calibration.py --population, or choose a fit that holds it")
        models.append(fit.model_for(resources.fingerprint, GuessModel()))
    return StorytellerReader(list(zip(members, models, strict=True)), labels, own_prior, votes,
                             decoys, embed)
