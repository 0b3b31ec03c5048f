"""What a table may ask for: a create-table request checked against the host's offer
(:class:`~dixit_ai.web.config.ServerConfig`) and against the bounds below, naming the limit in
every refusal. Nothing a creator sends is ever read as a path or a deck spec.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from dixit_ai.rules import EDITIONS, RuleSet
from dixit_ai.rules.text import text_problem
from dixit_ai.web.config import ServerConfig, WebError, check_bots, party_problem

MAX_NAME_LENGTH = 40
MAX_TITLE_LENGTH = 60
SCORE_LIMIT_RANGE = (1, 300)
"""Points a table may play to."""
MOVE_TIMER_RANGE = (1, 3600)
"""Seconds of a move timer (0 or none: no timer)."""
LEAVE_GRACE_RANGE = (0, 86400)
"""Seconds a disconnected person has before a bot takes over."""
ROUNDS_PER_PLAYER_RANGE = (1, 10)
"""Times each player tells in a game that ends by rounds (Team Dixit, Dixit Party)."""
RULE_INT_RANGE = (0, 300)
"""Every other integer rule a table may override."""
VARIANTS: tuple[str, ...] = ("standard", "teams", "party")
"""A table's variant: the basic game, Team Dixit (``teams=True``) or Dixit Party
(``mode="party"``); the team variant and Party exist in the Odyssey editions."""
EDITION_FACTS: tuple[str, ...] = ("teams_allowed", "party_allowed", "min_team_players",
                                  "min_party_players", "min_players", "max_players")
"""Rule parameters that say what an edition is; a table may not override them."""

@dataclass(frozen=True)
class TableConfig:
    """A table's settings, chosen by its creator among what the host offers.

    Attributes:
        title: The table's name.
        edition: The edition of the rules.
        n_players: Seats at the table (the creator's included).
        rules: Rule overrides (``{"score_limit": 20}``, ...).
        deck: The deck spec (the host's, looked up by ``deck_name``).
        bots: For seats 1..n-1, the bot (registry name) that plays the seat if no person takes it.
        takeover: Whether a bot takes over a person's seat when they leave, disconnect for longer
            than ``leave_grace`` seconds, or let the move timer run out.
        takeover_bot: The bot that takes a person's seat over.
        move_timer: Seconds each person has to act in a phase (``None``: no timer).
        leave_grace: Seconds a disconnected person has to come back before a bot takes over.
        deck_name: The offered deck's name.
        experiment: The creator fixed the seed (a replay or an experiment); every player is told,
            and the seed is public from the start.
    """

    title: str
    edition: str
    n_players: int
    rules: dict[str, Any]
    deck: str
    bots: tuple[str, ...]
    takeover: bool
    takeover_bot: str
    move_timer: float | None
    leave_grace: float
    deck_name: str | None = None
    experiment: bool = False

    @functools.cached_property
    def ruleset(self) -> RuleSet:
        """The table's rules (built once)."""
        return RuleSet.edition(self.edition, **self.rules)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (stored in the database)."""
        data = asdict(self)
        data["bots"] = list(self.bots)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TableConfig:
        """Rebuild from :meth:`to_json` (older rows lack the newer fields)."""
        known = {f.name for f in fields(cls)}
        return cls(**{**{k: v for k, v in data.items() if k in known},
                      "bots": tuple(data["bots"])})


def text_field(value: object, what: str, *, default: str | None = None,
               limit: int = 200) -> str:
    """Non-empty text of at most ``limit`` characters (``default`` when missing), one line that
    shows what it holds (:func:`dixit_ai.rules.text.text_problem`)."""
    if value is None and default is not None:
        return default
    if not isinstance(value, str) or not value.strip():
        raise WebError(400, f"{what} must be non-empty text")
    problem = text_problem(value.strip())
    if problem is not None:
        raise WebError(400, f"{what} {problem}")
    if len(value.strip()) > limit:
        raise WebError(400, f"{what} has {len(value.strip())} characters; the limit is {limit}")
    return value.strip()


def number_field(value: object, what: str, bounds: tuple[float, float], *,
                 integer: bool = False) -> float:
    """A number within ``bounds`` (inclusive); the error names the bounds."""
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int | float) or (
            isinstance(value, float) and not math.isfinite(value)):
        raise WebError(400, f"{what} must be a number between {low:g} and {high:g}, "
                            f"not {value!r}")
    if integer and isinstance(value, float) and not value.is_integer():
        raise WebError(400, f"{what} must be a whole number between {low:g} and {high:g}, "
                            f"not {value!r}")
    if not low <= value <= high:  # exact for any int: no float conversion, which overflows
        shown = f"{value:g}" if abs(value) <= 1e300 else "a number of more than 300 digits"
        raise WebError(400, f"{what} must be between {low:g} and {high:g}, not {shown}")
    return float(value)


def _rules_overrides(data: Mapping[str, Any]) -> dict[str, Any]:
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise WebError(400, "rules must be an object of rule parameters")
    rules = dict(rules)
    if "score_limit" in data:
        rules["score_limit"] = data["score_limit"]
    variant = data.get("variant")
    if variant is not None:
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise WebError(400, f"variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
        for key in ("teams", "mode"):
            if key in rules:
                raise WebError(400, f"give the variant or the rule {key!r}, not both")
        if variant == "teams":
            rules["teams"] = True
        elif variant == "party":
            rules["mode"] = "party"
    if "rounds_per_player" in data:
        rules["rounds_per_player"] = data["rounds_per_player"]
    known = {f.name: f for f in fields(RuleSet)}
    for key, value in rules.items():
        if key not in known or key == "name":
            raise WebError(400, f"unknown rule {key!r}")
        if key in EDITION_FACTS:
            raise WebError(400, f"rule {key!r} is a fact of the edition; a table cannot "
                                "change it")
        if key == "teams" and not isinstance(value, bool):
            raise WebError(400, f"teams must be true or false, not {value!r}")
        if key == "mode" and value not in ("standard", "party"):
            raise WebError(400, f"mode must be 'standard' or 'party', not {value!r}")
        if isinstance(value, bool) or value is None or not isinstance(value, int | float):
            continue  # RuleSet checks the type
        bounds = (SCORE_LIMIT_RANGE if key == "score_limit" else ROUNDS_PER_PLAYER_RANGE
                  if key == "rounds_per_player" else RULE_INT_RANGE)
        rules[key] = int(number_field(value, key, bounds, integer=True))
    return rules


def parse_config(data: Mapping[str, Any], server: ServerConfig | None = None) -> TableConfig:
    """Check a create-table request against ``server``'s offer and return the table's settings.

    Raises:
        WebError: (400) a bad edition, seat count, rule, bot, timer or deck, or a number out of
            its bounds (the message names them).
    """
    server = server or ServerConfig()
    edition = data.get("edition", "refresh-2021")
    if edition not in EDITIONS:
        raise WebError(400, f"unknown edition {edition!r}: choose one of {', '.join(EDITIONS)}")
    n_players = data.get("seats", 4)
    if isinstance(n_players, bool) or not isinstance(n_players, int):
        raise WebError(400, f"seats must be an integer, not {n_players!r}")
    rules = _rules_overrides(data)
    try:
        ruleset = RuleSet.edition(edition, **rules)
        ruleset.check_players(n_players)
    except (ValueError, TypeError) as error:
        raise WebError(400, str(error)) from None
    offered = server.offered_bots()
    bots = data.get("bots", "random" if "random" in offered else offered[0])
    if isinstance(bots, str):
        bots = [bots] * (n_players - 1)
    if not isinstance(bots, list) or len(bots) != n_players - 1:
        raise WebError(400, f"bots must name one bot for each of the {n_players - 1} other "
                            "seats")
    takeover_bot = data.get("takeover_bot") or (bots[0] if bots else offered[0])
    check_bots([*bots, takeover_bot], offered)
    if ruleset.is_party:
        for name in dict.fromkeys([*bots, takeover_bot]):
            problem = party_problem(name)
            if problem:
                raise WebError(400, problem)
    timer = data.get("move_timer")
    move_timer = None if timer in (None, 0) else number_field(timer, "move_timer",
                                                               MOVE_TIMER_RANGE)
    takeover = data.get("takeover", True)
    if not isinstance(takeover, bool):
        raise WebError(400, f"takeover must be true or false, not {takeover!r}")
    if move_timer is not None and not takeover:
        raise WebError(400, "a move timer needs takeover: a bot plays for whoever runs out "
                            "of time")
    grace = number_field(data.get("leave_grace", 30), "leave_grace", LEAVE_GRACE_RANGE)
    experiment = data.get("experiment", False)
    if not isinstance(experiment, bool):
        raise WebError(400, f"experiment must be true or false, not {experiment!r}")
    deck_name = data.get("deck", next(iter(server.decks)))
    spec = server.deck_spec(deck_name)
    return TableConfig(
        title=text_field(data.get("title"), "title", default="Dixit table",
                         limit=MAX_TITLE_LENGTH),
        edition=edition, n_players=n_players, rules=ruleset.parameters(),
        deck=spec, bots=tuple(bots), takeover=takeover, takeover_bot=takeover_bot,
        move_timer=move_timer, leave_grace=grace, deck_name=str(deck_name),
        experiment=experiment)
