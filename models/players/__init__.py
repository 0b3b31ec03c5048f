"""Embedding-model players: guesser, decoy picker and storyteller, as one ``ClipAgent``.

Registry entries (``configs/agents/clip-*.yaml``) make :class:`ClipAgent` by name::

    >>> from dixit_ai.agents import make_agent
    >>> agent = make_agent("clip-greedy")  # doctest: +SKIP

The pieces are usable alone: :class:`ClipGuesser`, :class:`DecoyPicker`,
:class:`ClipStoryteller`, the guess model and the simulation (:mod:`models.players.simulation`),
the vocabulary (:mod:`models.players.vocabulary`) and calibration
(:mod:`models.players.calibration`). Other minds: the guesser panel (:mod:`models.players.panel`,
:mod:`models.players.panel_models`), the population storyteller's simulation
(:mod:`models.players.population`) and the baseline storytellers
(:mod:`models.players.baselines`).
"""

from __future__ import annotations

from models.players.agent import ClipAgent
from models.players.decoy import DecoyPicker
from models.players.guesser import ClipGuesser
from models.players.panel import PANELS, PanelMember, resolve_panel
from models.players.policy import LinearCluePolicy
from models.players.population import PopulationResult, simulate_population
from models.players.population_fit import PopulationFit
from models.players.resources import PlayerResources, from_vectors, load_resources
from models.players.simulation import GuessModel, SimulationResult, simulate
from models.players.storyteller import ClipStoryteller, StoryDecision
from models.players.vocabulary import Vocabulary, load_vocabulary

__all__ = [
    "PANELS",
    "ClipAgent",
    "ClipGuesser",
    "ClipStoryteller",
    "DecoyPicker",
    "GuessModel",
    "LinearCluePolicy",
    "PanelMember",
    "PlayerResources",
    "PopulationFit",
    "PopulationResult",
    "SimulationResult",
    "StoryDecision",
    "Vocabulary",
    "from_vectors",
    "load_resources",
    "load_vocabulary",
    "resolve_panel",
    "simulate",
    "simulate_population",
]
