"""``ClipAgent``: guesser, decoy picker and storyteller over one embedder, as one ``Agent``.

How an agent gets the deck: it is configured with one (``deck``: a deck spec such as
``"dream"`` or ``"dream:size=300,seed=7"``, a ``Deck``, or ready :class:`PlayerResources`), which
must be the game's deck; the match runner does not hand decks to agents. The deck and the
embedder are loaded at the agent's first decision (or ``describe()``), and card and vocabulary
embeddings come from the on-disk embedding cache, shared by every agent of the process. A card id
outside the agent's deck raises an error that says so.

What an agent knows: only its :class:`~dixit_ai.rules.View` and what it remembers of earlier
views. Cards it has not seen, from which a storyteller deals the opponents' simulated hands, are
the deck minus its hand, the discard pile, the board and its own played cards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from dixit_ai.agents import Choice, Story
from dixit_ai.rules import View
from models.players.decoy import DecoyPicker
from models.players.guesser import ClipGuesser
from models.players.policy import LinearCluePolicy
from models.players.resources import PlayerResources, load_resources
from models.players.simulation import GuessModel
from models.players.storyteller import ClipStoryteller, Mode, StoryDecision

DEFAULT_CALIBRATION = Path(__file__).resolve().parents[1] / "data" / "guess_model.json"
"""The guess model fitted by ``scripts/fit_calibration.py`` for the default embedder."""


def _resolve_path(path: str | Path) -> Path:
    """A path as given, else relative to the repository root (where ``configs/`` lives)."""
    candidate = Path(path)
    if candidate.exists() or candidate.is_absolute():
        return candidate
    return Path(__file__).resolve().parents[2] / candidate


def load_guess_model(calibration: str | Path | None, temperature: float | None,
                     bias: float | None) -> tuple[GuessModel, str]:
    """The guess model from a calibration file and/or explicit parameters, and its source."""
    model, source = GuessModel(), "built-in"
    if calibration == "default":
        if DEFAULT_CALIBRATION.exists():
            model, source = GuessModel.load(DEFAULT_CALIBRATION), str(DEFAULT_CALIBRATION.name)
    elif calibration is not None:
        path = _resolve_path(calibration)
        model, source = GuessModel.load(path), str(path)
    if temperature is not None or bias is not None:
        model = GuessModel(model.temperature if temperature is None else float(temperature),
                           model.bias if bias is None else float(bias))
        source += " (overridden)"
    return model, source


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
        target_guess_rate: The storyteller's target.
        n_simulations: Deals simulated per storyteller decision.
        pair_clues: Pair clues per hand card.
        tolerance: See :class:`ClipStoryteller`.
        avoid_repeats: Never tell the same clue twice in a game.
        policy: Path to a learned policy checkpoint (``scripts/train_storyteller.py``).
        policy_greedy: Whether the policy picks its most probable candidate (else samples).
        text_generator: Path to a local causal language model proposing extra clues.
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
        seed: int | None = None,
    ) -> None:
        self.name = name
        self.embedder = embedder
        self.deck = deck
        self.vocabulary = vocabulary
        self.vocabulary_size = vocabulary_size
        self.device = device
        self.model, self.calibration = load_guess_model(calibration, guess_temperature,
                                                        guess_bias)
        self.guesser = ClipGuesser(temperature=vote_temperature,
                                   belief_temperature=self.model.temperature,
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
            policy=(LinearCluePolicy.load(_resolve_path(policy), greedy=policy_greedy)
                    if policy else None),
            generator=generator,
        )
        self.avoid_repeats = avoid_repeats
        self.seed = seed
        self.seat = -1
        self.rng: np.random.Generator | None = None
        self._resources: PlayerResources | None = None
        self._told: set[str] = set()
        self._seen_played: set[int] = set()
        self.last_story: StoryDecision | None = None

    # ------------------------------------------------------------------ resources

    @property
    def resources(self) -> PlayerResources:
        """Card and clue vectors, loaded on first use."""
        if self._resources is None:
            self._resources = load_resources(self.embedder, self.deck, self.vocabulary,
                                             self.vocabulary_size, self.device)
        return self._resources

    def _generator(self) -> np.random.Generator:
        if self.rng is None:
            raise RuntimeError(f"{self.name}: reset(seat=..., rng=...) must be called first")
        return self.rng

    def unseen_cards(self, view: View) -> list[int]:
        """Cards this seat has not seen: the deck minus hand, discard, board and own cards."""
        seen = set(view.hand) | set(view.discard) | set(view.board) | set(view.my_cards)
        return [card for card in self.resources.card_ids if card not in seen]

    # ------------------------------------------------------------------ the protocol

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        self.seat = seat
        self.rng = rng if self.seed is None else np.random.default_rng([self.seed, seat])
        self._told = set()
        self.last_story = None

    def tell(self, view: View) -> Story:
        decision = self.storyteller.decide(
            view, self.resources, self.model, self._generator(),
            told=self._told if self.avoid_repeats else frozenset(),
            unseen=self.unseen_cards(view))
        self._told.add(decision.clue)
        self.last_story = decision
        kind = "word" if " " not in decision.clue else "sentence"
        return Story(card=decision.card, clue=decision.clue, clue_kind=kind,
                     predicted_guess_rate=round(decision.guess_rate, 4), info=decision.info)

    def play(self, view: View) -> Choice:
        if view.clue is None:
            raise ValueError("play() needs the clue")
        resources = self.resources
        hand_sims = resources.clue_similarities(view.clue, view.hand)
        unseen_sims = None
        if self.decoys.bluff > 0:
            unseen = self.unseen_cards(view)
            unseen_sims = resources.clue_similarities(view.clue, unseen) if unseen else None
        picks, info = self.decoys.pick(hand_sims, view.cards_to_play, unseen_sims)
        return Choice(tuple(view.hand[i] for i in picks), info)

    def vote(self, view: View) -> Choice:
        if view.clue is None or not view.board:
            raise ValueError("vote() needs the clue and the board")
        resources = self.resources
        sims = resources.clue_similarities(view.clue, view.board)
        votes, info = self.guesser.vote(sims, view.legal_vote_positions(), rules=view.rules,
                                        max_votes=view.max_votes, rng=self._generator())
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
                            "source": self.calibration},
            "vote_temperature": self.guesser.temperature,
            "bluff": self.decoys.bluff,
            "mode": story.mode, "target_guess_rate": story.target_guess_rate,
            "n_simulations": story.n_simulations, "pair_clues": story.pair_clues,
            "policy": self.policy_path,
            "seed": self.seed,
        }
