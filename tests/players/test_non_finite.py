"""Non-finite similarities never become a move: the guesser and the decoy picker raise on them
(naming the clue and the positions), and the match runner records the failure."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from dixit_ai import play_game
from dixit_ai.agents import RandomAgent, Story
from dixit_ai.rules import RuleSet
from models.players import ClipAgent, ClipGuesser, DecoyPicker
from tests.players.conftest import vector_resources

NAN_CLUE = "zyzzyva quokka"


def test_the_guesser_refuses_non_finite_similarities() -> None:
    rules = RuleSet.edition("refresh-2021")
    rng = np.random.default_rng(0)
    sims = np.asarray([np.nan, 0.2, np.nan, 0.4])
    for guesser in (ClipGuesser(), ClipGuesser(temperature=0.1)):
        with pytest.raises(ValueError, match=r"'whale' are not finite.*board position\(s\) 0, 2"):
            guesser.vote(sims, [0, 1, 2, 3], rules=rules, max_votes=1, rng=rng, clue="whale")
    with pytest.raises(ValueError, match=r"not finite"):
        ClipGuesser().vote(np.full(4, np.inf), [1, 2], rules=rules, max_votes=1, rng=rng)
    with pytest.raises(ValueError, match=r"beliefs.*not finite"):
        ClipGuesser().vote_beliefs(np.asarray([np.nan, 0.5]), [0, 1], rules=rules, max_votes=1)
    # A non-finite similarity of a position it may not vote for (its own card) is not its input.
    votes, _ = ClipGuesser().vote(np.asarray([np.nan, 0.2, 0.9]), [1, 2], rules=rules,
                                  max_votes=1, rng=rng)
    assert votes == (2,)


def test_the_decoy_picker_refuses_non_finite_similarities() -> None:
    with pytest.raises(ValueError, match=r"'whale' are not finite.*hand card\(s\) 0, 1, 2"):
        DecoyPicker().pick(np.full(3, np.nan), 1, clue="whale")
    with pytest.raises(ValueError, match=r"unseen cards.*not finite"):
        DecoyPicker(bluff=0.5).pick(np.asarray([0.1, 0.2]), 1, np.asarray([0.3, np.nan]))
    assert DecoyPicker().pick(np.asarray([0.1, 0.3, 0.2]), 1)[0] == [1]


class NanTeller(RandomAgent):
    """Tells a clue whose similarities come out NaN (a broken text model)."""

    def tell(self, view: Any) -> Story:
        return Story(card=view.hand[0], clue=NAN_CLUE)


def test_a_game_records_the_failure_instead_of_voting_the_first_position() -> None:
    resources = vector_resources()
    healthy = resources.clue_similarities

    def similarities(clue: str, cards: Any) -> np.ndarray:
        sims = healthy(clue, cards)
        return np.full(len(sims), np.nan) if clue == NAN_CLUE else sims

    resources.clue_similarities = similarities  # type: ignore[method-assign]
    agents: list[Any] = [NanTeller()] + [
        ClipAgent(deck=resources, calibration=None, n_simulations=8, pair_clues=2,
                  name=f"clip{seat}") for seat in (1, 2, 3)]
    record = play_game(agents, edition="refresh-2021", deck=list(resources.card_ids), seed=3,
                       on_failure="forfeit", max_rounds=1)
    failures = {(f.seat, f.phase) for f in record.failures}
    assert {(1, "play"), (2, "play"), (3, "play")} <= failures
    assert {(1, "vote"), (2, "vote"), (3, "vote")} <= failures
    assert all("not finite" in f.reason for f in record.failures)
    json.loads(record.to_json(), parse_constant=lambda name: pytest.fail(f"bare {name}"))
