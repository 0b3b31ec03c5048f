"""The reveal's reasons worded for every reader: each seat's reasons come twice, for the seat's
own reader ("bonus: 2 votes on your card") and for the others, with a mark where the page puts
the seat's name ("bonus: 2 votes on Bea's card"); Team Dixit's are the team's ("Bea's team's
card": the card may be the partner's). The same points, in the same order."""

from __future__ import annotations

import re

from dixit_ai.rules import Game, RuleSet
from dixit_ai.web.messages import NAME_MARK, round_payload
from tests.rules.helpers import scored_rounds

SECOND_PERSON = re.compile(r"\b(you|your)\b", re.IGNORECASE)


def test_the_others_rows_name_their_seat_and_never_say_you() -> None:
    cells = [("refresh-2021", 4, {}), ("original-2008", 3, {}),
             ("odyssey-2011", 6, {"teams": True}), ("odyssey-2011", 6, {"mode": "party"})]
    named_seen = teams_seen = 0
    for edition, n, overrides in cells:
        rules = RuleSet.edition(edition, **overrides)
        for result in scored_rounds(Game(rules, n, range(84), seed=n), n):
            payload = round_payload(rules, n, result)
            for own, named in zip(payload["reasons"], payload["reasons_named"], strict=True):
                assert [r["points"] for r in own] == [r["points"] for r in named]
                for line in named:
                    assert not SECOND_PERSON.search(line["reason"]), line
                    named_seen += NAME_MARK in line["reason"]
                    if rules.teams and NAME_MARK in line["reason"]:
                        assert f"{NAME_MARK}'s team" in line["reason"], line
                        teams_seen += 1
    assert named_seen and teams_seen
