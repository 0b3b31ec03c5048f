"""``ClipAgent``: guesser, decoy picker and storyteller over one embedder, as one ``Agent``.

How an agent gets the deck: it is configured with one (``deck``: a deck spec such as
``"dream"`` or ``"dream:size=300,seed=7"``, a ``Deck``, or ready :class:`PlayerResources`), which
must be the game's deck; the match runner does not hand decks to agents. The deck and the
embedder are loaded at the agent's first decision (or ``describe()``), and card and vocabulary
embeddings come from the on-disk embedding cache, shared by every agent of the process. A card id
outside the agent's deck raises an error that says so.

What an agent knows: only its :class:`~dixit_ai.rules.View` and what it remembers of earlier
views. Cards it has not seen, from which a storyteller deals the opponents' simulated hands, are
the deck minus its hand, the discard pile, the board and its own played cards. It also
remembers the revealed rounds (``view.last_round``): an opponent who played card ``d`` as a decoy
for clue ``X`` held no card more similar to ``X`` than ``d`` at that time, so such a card is in
its hand now only if it drew it since (:meth:`ClipAgent.hand_weights`), which the storyteller's
simulated deals take into account. That memory lives in :mod:`models.players.hand_inference`;
the minds and fitted files the agent decides with (its population, their guess models, the
files it names in ``describe()``) in :mod:`models.players.agent_minds`.

The calibration file (``models/data/guess_model.json``) names the embedder fingerprint it was
fitted for; an agent over another embedder warns (:class:`CalibrationMismatchWarning`) and still
uses it, since similarities of another model live on another scale: refit it with
``scripts/fit_calibration.py --embedder NAME``. The guess-model files' helpers live in
:mod:`models.players.guess_files`; ``DEFAULT_CALIBRATION`` and ``CalibrationMismatchWarning``
are named here too, as they were before that module was split off.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dixit_ai.agents import Choice, Story
from dixit_ai.rules import RuleSet, View
from models.players import agent_minds, hand_inference
from models.players.agent_minds import names_list, population_names
from models.players.decoy import DecoyPicker
from models.players.guess_files import DEFAULT_CALIBRATION as DEFAULT_CALIBRATION
from models.players.guess_files import (
    CalibrationMismatchWarning as CalibrationMismatchWarning,
)
from models.players.guess_files import (
    check_calibration_embedder,
    check_policy_embedder,
    load_guess_model,
    resolve_path,
)
from models.players.guesser import ClipGuesser

# HAND_ODDS_FLOOR was defined here before the hand inference was split off; still named here.
from models.players.hand_inference import HAND_ODDS_FLOOR as HAND_ODDS_FLOOR
from models.players.panel_models import load_member_resources
from models.players.policy import LinearCluePolicy
from models.players.population import member_reach
from models.players.resources import PlayerResources, single_threaded
from models.players.second_vote import second_vote_reach
from models.players.simulation import GuessModel, temperature_scale
from models.players.storyteller import ClipStoryteller, Mode, StoryDecision
from models.players.table_reading import TableBelief, read_table
from models.players.teller_reading import StorytellerReader, load_reader

ODYSSEY_REACH = second_vote_reach(RuleSet.edition("odyssey-2024"), 8)
"""The second vote's reach with Odyssey's printed points (finder 3, single-vote bonus 1): the
agent checks its beliefs against it when it is made (other points are checked as they are met)."""


class ClipAgent:
    """An embedding-model player (see the module docstring for how it gets the deck).

    Args:
        name: The display name.
        embedder: A model name for :func:`models.load_embedder`, or an ``Embedder``.
        deck: The game's deck: a spec, a ``Deck``, or :class:`PlayerResources`.
        vocabulary: ``"default"`` (the shipped vocabulary), a file path, or a list of clues.
        vocabulary_size: Use only this many clues (``None``: all).
        device: Where a named embedder runs.
        calibration: ``"default"`` (the fitted ``models/data/guess_model.json`` when present),
            a path to a fitted guess model, or ``None`` (built-in parameters).
        guess_temperature: Overrides the guess model's temperature.
        guess_bias: Overrides the guess model's bias.
        vote_temperature: ``0``: vote for the most similar card; ``> 0``: sample.
        second_vote: Consider a second vote where the edition allows it.
        bluff: The decoy picker's bluff knob, in ``[0, 1]``.
        mode: The storyteller's ``"target"`` or ``"expected_points"``.
        objective: What the storyteller's points are: ``"points"`` (its own) or ``"margin"``
            (its points minus the others' mean in the round; see :class:`ClipStoryteller`).
        target_guess_rate: The storyteller's target.
        n_simulations: Deals simulated per storyteller decision.
        pair_clues: Pair clues per hand card.
        tolerance: See :class:`ClipStoryteller`.
        avoid_repeats: Never tell the same clue twice in a game.
        policy: Path to a learned policy checkpoint (``scripts/train_storyteller.py``).
        policy_greedy: Whether the policy picks its most probable candidate (else samples).
        text_generator: Path to a local causal language model proposing extra clues.
        infer_hands: The storyteller deals the opponents' simulated hands with what earlier
            rounds revealed about them (:meth:`hand_weights`); else uniformly.
        population: The minds the storyteller simulates (:mod:`models.players.population`):
            embedder names (a list or a comma-separated string; ``"self"`` is this agent's own
            embedder with the guess model the population file fits for it, which describes
            how *other* minds vote as seen through it; ``"copy"`` is a copy of this agent, with
            its own calibration: the mind of a table of its own kind), or ``None``: copies of
            itself. A member that reads captions (ground truth) is refused.
        population_calibration: Per-member guess models fitted from cross-play records
            (``"default"``: ``models/data/population.json`` when present; ``"wide"``:
            ``models/data/population_wide.json``, the fit with lite1-zeroshot; a path;
            ``None``: the built-in guess model for members other than itself).
        population_temperature_scale: Multiplies every simulated member's fitted temperature
            (not a ``copy``'s, which keeps this agent's own calibration); below 1, members vote
            more sharply than fitted. The fit's temperatures are fitted to how *other* models
            vote, so they absorb the disagreement between minds as noise; a storyteller that
            models that disagreement by the members themselves (``aim="each"`` or ``"rms"``)
            would count it twice. ``clip-calibrated`` uses 0.5, chosen on development items
            (README).
        robustness: See :class:`ClipStoryteller`.
        unseen_minds: With a population in target mode: a file
            (:mod:`models.players.unseen_minds`, ``scripts/fit_unseen_minds.py``) mapping the
            storyteller's predictions to the rates minds it did not simulate find; it aims and
            predicts by it. The map is refused unless fitted for this storyteller's population,
            population fit, temperature scale, aim, tolerance, robustness and table mix.
        aim: See :class:`ClipStoryteller` (``"each"`` or ``"rms"``: in target mode, every
            member's rate).
        table_mix: See :class:`ClipStoryteller`.
        read_table: With a population: the storyteller learns which minds sit at the table from
            their revealed votes (:mod:`models.players.table_reading`) and simulates those;
            ``table_mix`` is then its prior odds of a table of one kind.
        read_storytellers: The guesser learns each storyteller's mind from its revealed stories
            (:mod:`models.players.teller_reading`) and votes by what that mind would mean;
            needs ``vote_temperature=0``. Not in team games or Dixit Party.
        reading_minds: The minds it reads storytellers with, besides its own embedder (first):
            embedder names (a list or a comma-separated string; ``None``: the embedders of
            ``population``). Ground-truth readers are refused.
        reading_calibration: The population fit holding each reading mind's guess model
            (``None``: ``population_calibration``).
        reading_votes: The guesser reads each player's votes too (a player guesses with the
            mind it tells with), not only its stories.
        reading_decoys: The guesser reads each player's decoys too.
        reading_embeds: A reading mind without vectors of a clue (a person's free text, a
            caption) embeds it with its own text tower, loaded at the first such clue (its
            package must be installed); else such rounds are not read.
        belief_temperature: The temperature of the guesser's beliefs (which board card is the
            storyteller's), by which it decides on Odyssey's second vote; ``None``: the guess
            model's temperature. The guess model describes how copies *vote* (for the default
            agents the fit's floor, 0.001, since they vote for their most similar card), not
            how often their most similar card is the storyteller's: fitted to that
            (``scripts/fit_calibration.py`` prints it), beliefs are some 20 times softer
            (0.019 on refresh-2021 games, 0.026 on odyssey-2024 ones). The storyteller's
            simulated guessers (copies, a population's members, sharp voters) cast the second
            vote by the same beliefs. Refused where the noisy simulation cannot represent them:
            more than 29 times its guess model's temperature (then use ``sharp_voters``).
        sharp_voters: The storyteller simulates its copies as sharp voters, each voting for
            its most similar card with no noise (:mod:`models.players.sharp_voters`), the guess
            model giving only the second vote's margin. For tables of deterministic clip
            guessers where the deal is nearly known (Odyssey at 12 players, README); not with
            ``population`` or ``vote_temperature > 0``.
        seed: When given, the agent's generator derives from ``(seed, seat)`` instead of the
            match's stream.
    """

    def __init__(
        self,
        *,
        name: str = "clip",
        embedder: Any = "default",
        deck: Any = "dream",
        vocabulary: Any = "default",
        vocabulary_size: int | None = None,
        device: str = "cpu",
        calibration: str | None = "default",
        guess_temperature: float | None = None,
        guess_bias: float | None = None,
        vote_temperature: float = 0.0,
        second_vote: bool = True,
        bluff: float = 0.0,
        mode: Mode = "target",
        target_guess_rate: float = 0.5,
        n_simulations: int = 64,
        pair_clues: int = 12,
        tolerance: float = 0.02,
        avoid_repeats: bool = True,
        policy: str | None = None,
        policy_greedy: bool = True,
        text_generator: str | None = None,
        infer_hands: bool = True,
        population: Any = None,
        population_calibration: str | None = "default",
        population_temperature_scale: float = 1.0,
        robustness: float = 0.0,
        unseen_minds: str | None = None,
        aim: str = "mean",
        table_mix: float = 0.0,
        read_table: bool = False,
        read_storytellers: bool = False,
        reading_minds: Any = None,
        reading_calibration: str | None = None,
        reading_votes: bool = True,
        reading_decoys: bool = True,
        reading_embeds: bool = False,
        seed: int | None = None,
        sharp_voters: bool = False,
        belief_temperature: float | None = None,
        objective: str = "points",
    ) -> None:
        self.name = name
        self.embedder = embedder
        self.deck = deck
        self.vocabulary = vocabulary
        self.vocabulary_size = vocabulary_size
        self.device = device
        self.model, self.calibration = load_guess_model(calibration, guess_temperature,
                                                        guess_bias)
        if belief_temperature is not None:
            belief_temperature = temperature_scale(belief_temperature,
                                                   f"{name}: belief_temperature")
            if not sharp_voters:  # its simulation's copies read at the guess model's
                try:              # temperature and believe at this one (Odyssey's points)
                    member_reach(ODYSSEY_REACH, self.model.temperature, belief_temperature)
                except ValueError as error:
                    raise ValueError(f"{name}: belief_temperature: {error}") from None
        self.guesser = ClipGuesser(temperature=vote_temperature,
                                   belief_temperature=(self.model.temperature
                                                       if belief_temperature is None
                                                       else belief_temperature),
                                   second_vote=second_vote)
        self.decoys = DecoyPicker(bluff=bluff)
        self.policy_path = policy
        generator = None
        if text_generator is not None:
            from models.players.textgen import LocalClueGenerator

            generator = LocalClueGenerator(text_generator)
        self.storyteller = ClipStoryteller(
            mode=mode, target_guess_rate=target_guess_rate, n_simulations=n_simulations,
            pair_clues=pair_clues, tolerance=tolerance,
            policy=(LinearCluePolicy.load(resolve_path(policy), greedy=policy_greedy)
                    if policy else None),
            generator=generator, robustness=robustness, table_mix=table_mix, aim=aim,
            sharp_voters=sharp_voters, belief_temperature=belief_temperature,
            objective=objective,  # type: ignore[arg-type]  # checked by the storyteller
        )
        self.population: list[Any] | None = population_names(population)
        if sharp_voters and self.population:
            raise ValueError(f"{name}: sharp_voters simulates copies of this agent; it cannot "
                             f"simulate a population of minds (population={population!r})")
        if sharp_voters and vote_temperature > 0:
            raise ValueError(f"{name}: sharp_voters simulates copies that vote for their most "
                             f"similar card; this agent samples its votes "
                             f"(vote_temperature={vote_temperature}: use 0)")
        self.population_calibration = population_calibration
        self.population_temperature_scale = temperature_scale(
            population_temperature_scale, f"{name}: population_temperature_scale")
        self.unseen_minds_path = unseen_minds
        if unseen_minds is not None:
            from models.players.unseen_minds import UnseenMindMap

            if not self.population or mode != "target":
                raise ValueError(f"{name}: unseen_minds corrects a population storyteller in "
                                 f"target mode (population={population!r}, mode={mode!r})")
            self.storyteller.unseen_minds = UnseenMindMap.load(resolve_path(unseen_minds))
            self.storyteller.unseen_minds.check_settings(self.unseen_minds_settings(), name)
        if read_table and not self.population:
            raise ValueError(f"{name}: read_table needs a population of minds to tell apart "
                             "(population=...)")
        self.read_table = bool(read_table)
        if read_storytellers and vote_temperature > 0:
            raise ValueError(f"{name}: read_storytellers votes for the most probable card; it "
                             f"cannot sample (vote_temperature={vote_temperature}: use 0)")
        self.read_storytellers = bool(read_storytellers)
        self.reading_minds: list[Any] = (
            names_list(reading_minds) if reading_minds is not None else
            [n for n in self.population or [] if n not in ("copy", "self")])
        if self.read_storytellers and not self.reading_minds:
            raise ValueError(f"{name}: read_storytellers needs minds besides its own to tell "
                             "storytellers apart (reading_minds=... or population=...)")
        self.reading_calibration = (population_calibration if reading_calibration is None
                                    else reading_calibration)
        self.reading_votes = bool(reading_votes)
        self.reading_decoys = bool(reading_decoys)
        self.reading_embeds = bool(reading_embeds)
        self._reader: StorytellerReader | None = None
        self._revealed: dict[int, Any] = {}
        self._evidence: dict[int, Any] = {}
        self._population: list[tuple[PlayerResources, GuessModel]] | None = None
        self._fits: list[dict[str, Any]] | None = None
        self.avoid_repeats = avoid_repeats
        self.infer_hands = infer_hands
        self.seed = seed
        self.seat = -1
        self.rng: np.random.Generator | None = None
        self._resources: PlayerResources | None = None
        self._calibration_arg = calibration
        self._calibration_checked = guess_temperature is not None and guess_bias is not None
        self._history: dict[int, Any] = {}
        self._piles: dict[int, int] = {}
        self._told: set[str] = set()
        self._seen_played: set[int] = set()
        self.last_story: StoryDecision | None = None

    # ------------------------------------------------------------------ resources

    @property
    def resources(self) -> PlayerResources:
        """Card and clue vectors, loaded on first use."""
        if self._resources is None:
            self._resources = load_member_resources(self.embedder, self.deck, self.vocabulary,
                                                    self.vocabulary_size, self.device)
        if not self._calibration_checked:
            self._calibration_checked = True
            check_calibration_embedder(self._calibration_arg, self._resources.fingerprint)
            check_policy_embedder(self.policy_path, self._resources.fingerprint)
        return self._resources

    @property
    def population_members(self) -> list[tuple[PlayerResources, GuessModel]] | None:
        """``(resources, guess model)`` of every simulated mind (``None``: copies of itself)."""
        if not self.population:
            return None
        if self._population is None:
            from models.players.population_fit import load_population_fit

            fit = load_population_fit(self.population_calibration)
            self._population = agent_minds.population_members(
                self.population, fit, self.resources, self.model, agent=self.name,
                deck=self.deck, vocabulary=self.vocabulary,
                vocabulary_size=self.vocabulary_size, device=self.device,
                temperature_scale=self.population_temperature_scale)
        return self._population

    @property
    def storyteller_reader(self) -> StorytellerReader:
        """The guesser's reading of storytellers (:mod:`models.players.teller_reading`)."""
        if self._reader is None:
            self._reader = load_reader(
                self.reading_minds, self.resources, calibration=self.reading_calibration,
                deck=self.deck, vocabulary=self.vocabulary,
                vocabulary_size=self.vocabulary_size, device=self.device,
                votes=self.reading_votes, decoys=self.reading_decoys,
                embed=self.reading_embeds)
        return self._reader

    def unseen_minds_settings(self) -> dict[str, Any]:
        """The settings an unseen-minds map must have been fitted under to serve this
        storyteller (:data:`models.players.unseen_minds.SETTINGS`)."""
        return agent_minds.unseen_minds_settings(
            self.population, self.population_calibration, self.population_temperature_scale,
            self.storyteller)

    def simulation_embedders(self) -> list[str]:
        """Fingerprints of every embedder this storyteller's simulation uses."""
        if not self.population:
            return [self.resources.fingerprint]
        members = self.population_members or []
        return list(dict.fromkeys(r.fingerprint for r, _ in members))

    def simulation_fits(self) -> list[dict[str, Any]]:
        """Every fitted file this storyteller's decisions use, with the voters it records it
        was fitted on (``voter_models``; ``None``: it does not say) and the SHA-256 of its
        bytes: its calibration, its population fit (with a population) and its policy
        checkpoint, as ``{"kind", "file", "sha256", "voters"}``
        (:func:`models.bench.panel.check_held_out` reads them).

        Raises:
            ValueError: a file's record of voters is malformed; the message names the file.
        """
        if self._fits is None:
            self._fits = agent_minds.fitted_files(
                self._calibration_arg, self.population, self.population_calibration,
                self.policy_path, self.unseen_minds_path)
        return [dict(fit) for fit in self._fits]

    def _generator(self) -> np.random.Generator:
        if self.rng is None:
            raise RuntimeError(f"{self.name}: reset(seat=..., rng=...) must be called first")
        return self.rng

    def unseen_cards(self, view: View) -> list[int]:
        """Cards this seat has not seen: the deck minus hand, discard, board and own cards."""
        return hand_inference.unseen_cards(view, self.resources.card_ids)

    def _remember(self, view: View) -> None:
        """Keep the revealed rounds (forgetting them when the discard pile was reshuffled)."""
        hand_inference.remember(view, history=self._history, piles=self._piles,
                                revealed=self._revealed)

    def hand_weights(self, view: View, unseen: list[int]) -> np.ndarray | None:
        """Relative odds that each opponent (seat order after this one) holds each unseen card
        (:func:`models.players.hand_inference.hand_weights`): ``None`` when nothing is known, in
        team games and once the discard pile was reshuffled."""
        return hand_inference.hand_weights(view, unseen, seat=self.seat, history=self._history,
                                           piles=self._piles, resources=lambda: self.resources)

    # ------------------------------------------------------------------ the protocol

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        self.seat = seat
        self.rng = rng if self.seed is None else np.random.default_rng([self.seed, seat])
        self._told = set()
        self._history = {}
        self._revealed = {}
        self._evidence = {}
        self._piles = {}
        self.last_story = None
        if self._reader is not None:
            self._reader.reset()

    def table_belief(self, view: View) -> TableBelief | None:
        """What the storyteller has read of its opponents' minds from every revealed round of
        this game (``None``: not reading; a team or Dixit Party game, whose votes follow other
        rules; or a game where guessers play two cards, whose population simulation takes each
        member alone)."""
        members = self.population_members
        if (not self.read_table or not members or view.rules.teams or view.rules.is_party
                or view.cards_to_play > 1):
            return None
        return read_table(list(self._revealed.values()), seat=self.seat,
                          n_players=view.n_players, members=members,
                          table_mix=self.storyteller.table_mix, memo=self._evidence)

    # Each decision runs numpy's BLAS (and torch) on one thread: its numbers, and so the move
    # and the record, do not depend on the thread count of the process that plays the game
    # (see models.players.resources.single_threaded).

    def tell(self, view: View) -> Story:
        with single_threaded():
            return self._tell(view)

    def play(self, view: View) -> Choice:
        with single_threaded():
            return self._play(view)

    def vote(self, view: View) -> Choice:
        with single_threaded():
            return self._vote(view)

    def _tell(self, view: View) -> Story:
        self._remember(view)
        unseen = self.unseen_cards(view)
        table = self.table_belief(view)
        decision = self.storyteller.decide(
            view, self.resources, self.model, self._generator(),
            told=self._told if self.avoid_repeats else frozenset(),
            unseen=unseen,
            hand_weights=self.hand_weights(view, unseen) if self.infer_hands else None,
            population=self.population_members, belief=table)
        if table is not None:
            decision.info["table"] = table.summary(
                [str(n) if isinstance(n, str) else n.fingerprint[:12]
                 for n in self.population or []])
        self._told.add(decision.clue)
        self.last_story = decision
        kind = "word" if " " not in decision.clue else "sentence"
        return Story(card=decision.card, clue=decision.clue, clue_kind=kind,
                     predicted_guess_rate=round(decision.guess_rate, 4), info=decision.info)

    def _play(self, view: View) -> Choice:
        self._remember(view)
        if view.clue is None:
            raise ValueError("play() needs the clue")
        resources = self.resources
        hand_sims = resources.clue_similarities(view.clue, view.hand)
        unseen_sims = None
        if self.decoys.bluff > 0:
            unseen = self.unseen_cards(view)
            unseen_sims = resources.clue_similarities(view.clue, unseen) if unseen else None
        picks, info = self.decoys.pick(hand_sims, view.cards_to_play, unseen_sims,
                                       clue=view.clue)
        return Choice(tuple(view.hand[i] for i in picks), info)

    def _vote(self, view: View) -> Choice:
        self._remember(view)
        if view.clue is None or not view.board:
            raise ValueError("vote() needs the clue and the board")
        legal = view.legal_vote_positions()
        if self.read_storytellers and not view.rules.teams and not view.rules.is_party:
            beliefs, note = self.storyteller_reader.beliefs(
                list(self._revealed.values()), clue=view.clue, board=view.board, legal=legal,
                storyteller=view.storyteller, seat=self.seat,
                hand_size=view.rules.hand_size_for(view.n_players))
            votes, info = self.guesser.vote_beliefs(beliefs, legal, rules=view.rules,
                                                    max_votes=view.max_votes)
            info["reading"] = note
            return Choice(votes, info)
        sims = self.resources.clue_similarities(view.clue, view.board)
        votes, info = self.guesser.vote(sims, legal, rules=view.rules,
                                        max_votes=view.max_votes, rng=self._generator(),
                                        clue=view.clue)
        if self.read_storytellers:
            info["reading"] = "not read: team and Dixit Party votes follow other rules"
        return Choice(votes, info)

    def describe(self) -> dict[str, Any]:
        story = self.storyteller
        resources = self.resources
        return {
            "name": self.name, "class": "ClipAgent",
            "embedder": resources.fingerprint,
            "deck": resources.deck_name,
            "vocabulary": {"name": resources.vocabulary.name, "size": len(resources.vocabulary),
                           "fingerprint": resources.vocabulary.fingerprint[:16]},
            "guess_model": {"temperature": self.model.temperature, "bias": self.model.bias,
                            "correlation": self.model.correlation,
                            "source": self.calibration},
            "infer_hands": self.infer_hands,
            "vote_temperature": self.guesser.temperature,
            "bluff": self.decoys.bluff,
            "mode": story.mode, "target_guess_rate": story.target_guess_rate,
            "objective": story.objective,
            "n_simulations": story.n_simulations, "pair_clues": story.pair_clues,
            "policy": self.policy_path,
            # A member given as loaded resources (tests, the bench) is named by its fingerprint:
            # the record holds what the minds were, not their vectors.
            "population": None if self.population is None else [
                member if isinstance(member, str)
                else {"fingerprint": getattr(member, "fingerprint", type(member).__name__)}
                for member in self.population],
            "population_temperature_scale": self.population_temperature_scale,
            "robustness": story.robustness,
            "unseen_minds": self.unseen_minds_path,
            "aim": story.aim,
            "table_mix": story.table_mix,
            "sharp_voters": story.sharp_voters,
            "belief_temperature": self.guesser.belief_temperature,
            "read_table": self.read_table,
            "read_storytellers": self.read_storytellers,
            "reading_minds": (self.storyteller_reader.names if self.read_storytellers
                              else None),
            "reading_calibration": self.reading_calibration if self.read_storytellers else None,
            "reading_votes": self.reading_votes if self.read_storytellers else None,
            "reading_decoys": self.reading_decoys if self.read_storytellers else None,
            "reading_embeds": self.reading_embeds if self.read_storytellers else None,
            "simulation_embedders": self.simulation_embedders(),
            "simulation_fits": self.simulation_fits(),
            "seed": self.seed,
        }
