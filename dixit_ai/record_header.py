"""A game record's header checked field by field: the types and values every reader relies on,
and, for a replay, every field and rule parameter the game is rebuilt from.

:func:`check_header` is what :meth:`dixit_ai.records.GameRecord.from_dict` runs on every header it
reads, and :func:`dixit_ai.replay.replay_record` (with ``complete=True``) on every header it
rebuilds a game from.
"""

from __future__ import annotations

from dataclasses import fields
from numbers import Integral
from typing import Any

from dixit_ai.json_fields import shown
from dixit_ai.rules import EDITIONS, RuleSet

READABLE_FORMATS: tuple[int, ...] = (1, 2)
"""The record formats :meth:`GameRecord.from_dict` reads."""


class BrokenHeader(ValueError):
    """A record's header has a field of the wrong type or value, or lacks one (the message
    names it)."""


HEADER_FIELDS: tuple[str, ...] = ("format", "edition", "rules", "n_players", "seed", "deck",
                                  "agents", "on_failure", "max_rounds", "versions")
"""The fields every writer has put in a record's header since format 1. A header may hold more
(``tournament``, ``simulation``, ``web``, ``engine``...); :func:`dixit_ai.replay.replay_record`
refuses one that lacks any of these."""

_FORMAT_1_RULES = frozenset({
    "min_players", "max_players", "hand_size", "hand_size_3p", "hand_size_teams",
    "cards_per_guesser", "cards_per_guesser_3p", "second_vote_from", "single_vote_bonus",
    "bonus_cap", "three_player_solo_points", "storyteller_points", "finder_points",
    "all_or_none_points", "score_limit", "end_on_last_card", "on_deck_exhausted",
    "first_storyteller", "teams", "teams_allowed", "min_team_players", "max_clue_length"})

RULE_PARAMETERS: dict[int, frozenset[str]] = {
    1: _FORMAT_1_RULES,
    2: _FORMAT_1_RULES | {"single_vote_bonus_when", "team_bonus_cap", "mode", "party_allowed",
                          "min_party_players", "hand_size_party", "party_points_cap",
                          "rounds_per_player"},
}
"""The rule parameters (``RuleSet.parameters()``) that each record format writes in
``header.rules``. :func:`dixit_ai.replay.replay_record` refuses a record that lacks one of its
format's: a missing parameter is not taken for the edition's default (which may have changed
since). Format-1 records may lack those format 2 added, which they did not play: they are read as
format 1 played them (see :data:`RECORD_FORMAT`)."""

_RULE_NAMES = frozenset(f.name for f in fields(RuleSet)) - {"name"}
"""Every rule parameter a header's ``rules`` may hold."""

def _is_int(value: Any) -> bool:
    return isinstance(value, Integral) and not isinstance(value, bool)


def check_header(header: Any, *, complete: bool = False) -> None:
    """Refuse a record header whose fields have the wrong type or value, naming the field
    (``header.on_failure must be 'abort' or 'forfeit', not 'explode'``).

    Every field present is checked: ``format``, ``edition`` (one of
    :data:`dixit_ai.rules.EDITIONS`), ``rules`` (rule parameters by name, which must make rules
    of that edition), ``deck`` (an object; its ``card_ids`` a list of integers, ``size`` a
    non-negative integer, ``spec`` a string or null, ``name`` and ``fingerprint`` strings),
    ``on_failure`` (``"abort"`` or ``"forfeit"``), ``max_rounds`` (null or an integer of at least 1)
    and ``versions`` (an object of version strings).

    :meth:`GameRecord.from_dict` calls it as it reads a record. The fields the game is rebuilt
    from, which :func:`dixit_ai.replay.replay_record` checks against the rules (``n_players``,
    ``seed``, ``agents``, ``tournament``, and ``rules`` that are not an object), are left to it:
    a record read for analysis may lack them or hold them of another type.

    Args:
        header: A record's ``header``.
        complete: What a replay needs (:func:`dixit_ai.replay.replay_record` passes it): also
            refuse a header that lacks a field of :data:`HEADER_FIELDS`, ``rules`` that are not
            an object or lack a parameter of the record's format (:data:`RULE_PARAMETERS`), or a
            deck with no ``card_ids``.

    Raises:
        ValueError: the message names the field and what was expected.
    """
    if not isinstance(header, dict):
        raise BrokenHeader(f"'header' must be an object, not {type(header).__name__}")
    if complete:
        missing = [name for name in HEADER_FIELDS if name not in header]
        if missing:
            raise BrokenHeader(f"header lacks field(s) {', '.join(map(repr, missing))} (a record's "
                               f"header has {', '.join(HEADER_FIELDS)})")
    version = header.get("format")
    if "format" in header and (not _is_int(version) or version not in READABLE_FORMATS):
        raise BrokenHeader(f"header.format must be one of {', '.join(map(str, READABLE_FORMATS))}, "
                           f"not {shown(version, 60)}")
    edition = header.get("edition")
    if "edition" in header and (not isinstance(edition, str) or edition not in EDITIONS):
        raise BrokenHeader(f"header.edition must be one of {', '.join(map(repr, EDITIONS))}, not "
                           f"{shown(edition, 60)}")
    if "rules" in header:
        _check_rules(header["rules"], edition, version, complete=complete)
    if "deck" in header:
        _check_deck(header["deck"], complete=complete)
    if "on_failure" in header and header["on_failure"] not in ("abort", "forfeit"):
        raise BrokenHeader(f"header.on_failure must be 'abort' or 'forfeit', not "
                           f"{shown(header['on_failure'], 60)}")
    limit = header.get("max_rounds")
    if limit is not None and (not _is_int(limit) or limit < 1):
        raise BrokenHeader("header.max_rounds must be null (no limit) or an integer of at least 1, "
                           f"not {shown(limit, 60)}")
    if "versions" in header:
        versions = header["versions"]
        if not isinstance(versions, dict) or not all(
                isinstance(value, str) for value in versions.values()):
            raise BrokenHeader(f"header.versions must be an object of package versions "
                               f"({{\"dixit-ai\": \"1.0\", ...}}), not {shown(versions, 60)}")


def _check_rules(rules: Any, edition: Any, version: Any, *, complete: bool) -> None:
    """``header.rules``: see :func:`check_header` (``edition`` and ``version`` are checked)."""
    if not isinstance(rules, dict):
        if not complete:  # refused by the replay, which rebuilds the game from it
            return
        raise BrokenHeader(f"header.rules must be an object of rule parameters "
                           f"({{\"hand_size\": 6, ...}}), not {shown(rules, 60)}")
    unknown = sorted(set(rules) - _RULE_NAMES, key=str)
    if unknown:
        raise BrokenHeader(f"header.rules has unknown rule parameter(s) "
                           f"{', '.join(map(repr, unknown))} (the parameters are those of "
                           "dixit_ai.rules.RuleSet)")
    if complete and version in RULE_PARAMETERS:
        missing = sorted(RULE_PARAMETERS[version] - set(rules))
        if missing:
            raise BrokenHeader(
                     f"header.rules lacks rule parameter(s) {', '.join(map(repr, missing))}: a "
                     f"format-{version} record holds every rule its game was played under, and a "
                     "missing one is not taken for the edition's default")
    if edition in EDITIONS:
        try:
            RuleSet.edition(edition, **rules)
        except (TypeError, ValueError) as error:
            raise BrokenHeader(f"header.rules: {error}") from None


def _check_deck(deck: Any, *, complete: bool) -> None:
    """``header.deck``: see :func:`check_header`."""
    if not isinstance(deck, dict):
        raise BrokenHeader(f"header.deck must be an object (spec, name, fingerprint, size, "
                           f"card_ids), not {shown(deck, 60)}")
    if "card_ids" in deck:
        cards = deck["card_ids"]
        if not isinstance(cards, list):
            raise BrokenHeader(f"header.deck.card_ids must be a list of card ids (integers), not "
                               f"{shown(cards, 60)}")
        for index, card in enumerate(cards):
            if not _is_int(card):
                raise BrokenHeader(f"header.deck.card_ids[{index}] must be a card id (an integer), "
                                   f"not {shown(card, 60)}")
    elif complete:
        raise BrokenHeader("header.deck lacks field 'card_ids' (the deck's card ids, in order)")
    if "size" in deck and (not _is_int(deck["size"]) or deck["size"] < 0):
        raise BrokenHeader("header.deck.size must be a number of cards (an integer of at least 0), "
                           f"not {shown(deck['size'], 60)}")
    if deck.get("spec") is not None and not isinstance(deck["spec"], str):
        raise BrokenHeader(f"header.deck.spec must be a deck spec (a string) or null, not "
                           f"{shown(deck['spec'], 60)}")
    for name in ("name", "fingerprint"):
        if name in deck and not isinstance(deck[name], str):
            raise BrokenHeader(f"header.deck.{name} must be a string, not {shown(deck[name], 60)}")
