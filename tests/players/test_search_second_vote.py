"""Where the storyteller simulates Odyssey's second vote: not in the broad search of every
candidate (first votes only, the cheap stage), but in the refine and confirmation stages, on
the few candidates left, so that the choice and the recorded prediction count a finder by either
vote (``ClipStoryteller.search_second_vote``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import models.players.storyteller as storyteller_module
from dixit_ai.rules import RuleSet
from models.players.simulation import GuessModel, second_vote_reach
from models.players.storyteller import ClipStoryteller
from tests.players.conftest import storyteller_opening, vector_resources


def _spy(monkeypatch: pytest.MonkeyPatch, name: str) -> list[tuple[int, float]]:
    """Records (candidates simulated, second_vote) of every call to the storyteller's ``name``
    (``simulate`` or ``simulate_population``)."""
    calls: list[tuple[int, float]] = []
    real = getattr(storyteller_module, name)

    def spy(hands: Any, *args: Any, second_vote: float = 0.0, **kwargs: Any) -> Any:
        first = hands[0] if isinstance(hands, list) else hands
        calls.append((int(np.asarray(first).size), second_vote))
        return real(hands, *args, second_vote=second_vote, **kwargs)

    monkeypatch.setattr(storyteller_module, name, spy)
    return calls


def _decide(teller: ClipStoryteller, edition: str, n_players: int,
            population: bool) -> tuple[int, float]:
    resources = vector_resources(n_cards=150, n_clues=120, seed=3)
    members = None
    if population:
        others = [vector_resources(n_cards=150, n_clues=120, seed=s) for s in (4, 5)]
        members = [(resources, GuessModel(0.03, -0.3, 1.0)), (others[0], GuessModel(0.05)),
                   (others[1], GuessModel(0.06, 0.1, 0.0))]
    rules = RuleSet.edition(edition)
    _, view, unseen = storyteller_opening(resources, rules, n_players, 5)
    teller.decide(view, resources, GuessModel(0.03), np.random.default_rng(1),
                  unseen=unseen, population=members)
    return len(view.hand) * len(resources.vocabulary), second_vote_reach(rules, n_players)


@pytest.mark.parametrize("population", [False, True])
@pytest.mark.parametrize(("edition", "n_players"), [("odyssey-2024", 4), ("odyssey-2011", 8)])
def test_the_broad_search_counts_first_votes_and_the_last_stages_both(
        monkeypatch, edition, n_players, population):
    calls = _spy(monkeypatch, "simulate_population" if population else "simulate")
    teller = ClipStoryteller(pair_clues=0, n_simulations=8, refine=6, refine_simulations=16,
                             sharp_shortlist=4, confirm_simulations=16)
    candidates, reach = _decide(teller, edition, n_players, population)
    assert reach > 0
    # The broad search (every candidate), then the refine stage and the confirmation (the
    # shortlist, the choice and its runner-ups).
    assert len(calls) == 3 and calls[0][0] == candidates
    assert all(size < candidates for size, _ in calls[1:])
    assert [vote for _, vote in calls] == [0.0, reach, reach]


@pytest.mark.parametrize("population", [False, True])
def test_the_broad_search_may_count_the_second_vote_too(monkeypatch, population):
    calls = _spy(monkeypatch, "simulate_population" if population else "simulate")
    teller = ClipStoryteller(pair_clues=0, n_simulations=8, refine=6, refine_simulations=16,
                             sharp_shortlist=4, confirm_simulations=16, search_second_vote=True)
    _, reach = _decide(teller, "odyssey-2024", 4, population)
    assert [vote for _, vote in calls] == [reach] * 3


def test_without_refine_or_confirmation_the_search_counts_the_second_vote(monkeypatch):
    """With no later stage, the search's estimate is the choice's and the prediction's: it
    counts both votes."""
    calls = _spy(monkeypatch, "simulate")
    teller = ClipStoryteller(pair_clues=0, n_simulations=8, refine=0, confirm_simulations=0)
    _, reach = _decide(teller, "odyssey-2024", 4, False)
    assert [vote for _, vote in calls] == [reach]
