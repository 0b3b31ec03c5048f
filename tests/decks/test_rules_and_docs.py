"""A deck too small for a game is refused by the rules; the modules' examples run."""

from __future__ import annotations

import doctest
import importlib
import re

import pytest

from dixit_ai.decks import load_deck


def test_a_deck_too_small_for_a_game_is_refused_with_the_number_missing() -> None:
    from dixit_ai.rules import RuleSet

    rules = RuleSet.edition("original-2008")
    deck = load_deck("dream:size=20")
    with pytest.raises(ValueError, match=r"\d+ missing") as caught:
        rules.check_deck(6, len(deck))
    missing = int(re.search(r"(\d+) missing", str(caught.value)).group(1))  # type: ignore[union-attr]
    assert missing == rules.min_deck_size(6) - len(deck) > 0
    rules.check_deck(6, len(load_deck("dream")))  # the default deck is big enough


@pytest.mark.parametrize(
    "module", ["dixit_ai.decks", "dixit_ai.decks.captions", "dixit_ai.decks.specs"]
)
def test_doctests(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
