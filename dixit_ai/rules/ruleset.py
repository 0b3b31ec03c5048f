"""Editions of Dixit as data.

A :class:`RuleSet` carries every parameter that differs between the printed editions (see the
README's "Rules" section, synthesised from the rulebooks). ``RuleSet.edition(name, **overrides)``
builds one edition's rules and checks the combination; ``rules.check_players(n)`` and
``rules.check_deck(n, deck_size)`` check a game's player count and deck against them.

>>> rules = RuleSet.edition("refresh-2021")
>>> rules.score_limit, rules.hand_size_for(3), rules.votes_per_guesser(5)
(30, 7, 1)
>>> RuleSet.edition("odyssey-2011").votes_per_guesser(7)
2
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

DeckExhaustedPolicy = Literal["end", "reshuffle"]
FirstStoryteller = Literal["seat0", "random"]

EDITIONS: tuple[str, ...] = ("original-2008", "refresh-2021", "odyssey-2011", "odyssey-2024")

MAX_CLUE_LENGTH = 200
"""The longest clue, in characters, that the harness accepts (all editions)."""


@dataclass(frozen=True)
class RuleSet:
    """The rules of one edition, with any overrides applied.

    Attributes:
        name: The edition's name, one of :data:`EDITIONS`.
        min_players: Fewest players the edition allows.
        max_players: Most players the edition allows.
        hand_size: Cards in hand in a game of 4 or more players.
        hand_size_3p: Cards in hand in a 3-player game.
        hand_size_teams: Cards in hand in the team variant.
        cards_per_guesser: Cards each guesser plays in a game of 4 or more players.
        cards_per_guesser_3p: Cards each guesser plays in a 3-player game.
        second_vote_from: Player count from which a guesser may cast a second vote on another
            card (``None``: never).
        single_vote_bonus: Extra points, when a second vote is available and some but not all
            guessers found the storyteller's card, for a guesser who found it with a single vote.
        bonus_cap: Most bonus points (votes drawn to one's own cards) a player or team earns in
            one round (``None``: no cap).
        three_player_solo_points: In a 3-player game where exactly one guesser finds the card,
            what the storyteller and that guesser score instead of 3 (``None``: no such rule).
        storyteller_points: The storyteller's points when some but not all guessers found the card.
        finder_points: A finder's points when some but not all guessers found the card.
        all_or_none_points: Each guesser's points when all or none found the card.
        score_limit: The game ends at the end of a round in which a player (or team) has at least
            this many points (``None``: no track end).
        end_on_last_card: The game ends after the round in which the last card of the draw pile
            is drawn (the 2008 rule).
        on_deck_exhausted: What happens when the draw pile cannot refill every hand: ``"end"``
            the game ends after that round; ``"reshuffle"`` the discard pile is shuffled into a
            new draw pile and the game goes on.
        first_storyteller: ``"seat0"``, or ``"random"`` (drawn from the game's seeded RNG).
        teams: Play the team variant (teams of two, partners opposite).
        teams_allowed: Whether the edition has a team variant.
        min_team_players: Fewest players for the team variant (three teams: with two, the only
            voting team either finds the card or not, and the storyteller can never score).
        max_clue_length: The longest clue accepted, in characters.
    """

    name: str
    min_players: int
    max_players: int
    hand_size: int = 6
    hand_size_3p: int = 7
    hand_size_teams: int = 4
    cards_per_guesser: int = 1
    cards_per_guesser_3p: int = 2
    second_vote_from: int | None = None
    single_vote_bonus: int = 0
    bonus_cap: int | None = None
    three_player_solo_points: int | None = None
    storyteller_points: int = 3
    finder_points: int = 3
    all_or_none_points: int = 2
    score_limit: int | None = 30
    end_on_last_card: bool = False
    on_deck_exhausted: DeckExhaustedPolicy = "reshuffle"
    first_storyteller: FirstStoryteller = "seat0"
    teams: bool = False
    teams_allowed: bool = False
    min_team_players: int = 6
    max_clue_length: int = MAX_CLUE_LENGTH

    # ------------------------------------------------------------------ construction

    @classmethod
    def edition(cls, name: str, **overrides: Any) -> RuleSet:
        """The rules of edition ``name``, with ``overrides`` replacing any parameter.

        Raises:
            ValueError: for an unknown edition, an unknown parameter, or a combination the
                rules do not allow (the message names the limit).
        """
        if name not in _EDITION_PARAMETERS:
            raise ValueError(
                f"unknown edition {name!r}: choose one of {', '.join(EDITIONS)}"
            )
        known = {f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")}
        unknown = sorted(set(overrides) - known)
        if unknown:
            raise ValueError(
                f"unknown rule parameter(s) {', '.join(unknown)} for {name}: "
                f"valid parameters are {', '.join(sorted(known - {'name'}))}"
            )
        if "name" in overrides:
            raise ValueError("the edition is chosen by its name, not overridden")
        params = dict(_EDITION_PARAMETERS[name])
        params.update(overrides)
        rules = cls(name=name, **params)
        rules._validate()
        return rules

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy of these rules with ``overrides`` applied and checked."""
        return RuleSet.edition(self.name, **{**self.parameters(), **overrides})

    def parameters(self) -> dict[str, Any]:
        """Every parameter but the edition's name, as a JSON-ready dict."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "name"
        }

    def _validate(self) -> None:
        if self.on_deck_exhausted not in ("end", "reshuffle"):
            raise ValueError(
                f"on_deck_exhausted must be 'end' or 'reshuffle', not {self.on_deck_exhausted!r}"
            )
        if self.first_storyteller not in ("seat0", "random"):
            raise ValueError(
                f"first_storyteller must be 'seat0' or 'random', not {self.first_storyteller!r}"
            )
        if not 3 <= self.min_players <= self.max_players:
            raise ValueError(
                f"player range {self.min_players}-{self.max_players} is invalid: "
                "Dixit needs at least 3 players"
            )
        for name in ("hand_size", "hand_size_3p", "hand_size_teams",
                     "cards_per_guesser", "cards_per_guesser_3p"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        for name, hand in (("cards_per_guesser", "hand_size"),
                           ("cards_per_guesser_3p", "hand_size_3p")):
            if getattr(self, name) > getattr(self, hand):
                raise ValueError(f"{name} ({getattr(self, name)}) exceeds {hand} "
                                 f"({getattr(self, hand)})")
        if self.teams and self.cards_per_guesser > self.hand_size_teams:
            raise ValueError(f"cards_per_guesser ({self.cards_per_guesser}) exceeds "
                             f"hand_size_teams ({self.hand_size_teams})")
        if self.teams and not self.teams_allowed:
            raise ValueError(
                f"the team variant exists only in odyssey-2011, not in {self.name}"
            )
        if self.score_limit is not None and self.score_limit < 1:
            raise ValueError(f"score_limit must be None or at least 1, not {self.score_limit}")
        if self.score_limit is None and not self.end_on_last_card and (
            self.on_deck_exhausted == "reshuffle"
        ):
            raise ValueError(
                "these rules never end the game: set score_limit, end_on_last_card=True "
                "or on_deck_exhausted='end'"
            )
        if self.bonus_cap is not None and self.bonus_cap < 0:
            raise ValueError(f"bonus_cap must be None or at least 0, not {self.bonus_cap}")
        if self.second_vote_from is not None and self.second_vote_from < 3:
            raise ValueError(
                f"second_vote_from must be None or at least 3, not {self.second_vote_from}"
            )
        if not 1 <= self.max_clue_length <= 10_000:
            raise ValueError(
                f"max_clue_length must be between 1 and 10000, not {self.max_clue_length}"
            )

    # ------------------------------------------------------------------ per player count

    def check_players(self, n_players: int) -> None:
        """Raise ``ValueError`` unless ``n_players`` may play under these rules."""
        if not isinstance(n_players, int) or isinstance(n_players, bool):
            raise ValueError(f"the number of players must be an int, not {n_players!r}")
        if not self.min_players <= n_players <= self.max_players:
            raise ValueError(
                f"{self.name} is for {self.min_players}-{self.max_players} players, "
                f"not {n_players}"
            )
        if self.teams:
            if n_players % 2:
                raise ValueError(
                    f"the team variant needs an even number of players (teams of 2), "
                    f"not {n_players}"
                )
            if n_players < self.min_team_players:
                raise ValueError(
                    f"the team variant needs at least {self.min_team_players} players "
                    f"({self.min_team_players // 2} teams), not {n_players}"
                )

    def hand_size_for(self, n_players: int) -> int:
        """Cards dealt to each player in a game of ``n_players``."""
        if self.teams:
            return self.hand_size_teams
        return self.hand_size_3p if n_players == 3 else self.hand_size

    def cards_per_guesser_for(self, n_players: int) -> int:
        """Cards each guesser plays in a game of ``n_players``."""
        return self.cards_per_guesser_3p if n_players == 3 else self.cards_per_guesser

    def votes_per_guesser(self, n_players: int) -> int:
        """The most votes a guesser may cast (1, or 2 where a second vote is allowed)."""
        if self.second_vote_from is not None and n_players >= self.second_vote_from:
            return 2
        return 1

    def board_size(self, n_players: int) -> int:
        """Cards on the board each round: the storyteller's and every guesser's."""
        return 1 + (n_players - 1) * self.cards_per_guesser_for(n_players)

    def min_deck_size(self, n_players: int) -> int:
        """Fewest cards a deck needs for these rules: a full hand for every player."""
        return n_players * self.hand_size_for(n_players)

    def check_deck(self, n_players: int, deck_size: int) -> None:
        """Raise ``ValueError`` naming how many cards are missing if the deck is too small."""
        self.check_players(n_players)
        need = self.min_deck_size(n_players)
        if deck_size < need:
            raise ValueError(
                f"a deck of {deck_size} cards is too small for {n_players} players in "
                f"{self.name}: {n_players} hands of {self.hand_size_for(n_players)} need "
                f"{need} cards ({need - deck_size} missing)"
            )

    # ------------------------------------------------------------------ teams

    def n_teams(self, n_players: int) -> int:
        """Number of scoring units: teams in the team variant, else players."""
        return n_players // 2 if self.teams else n_players

    def team_of(self, seat: int, n_players: int) -> int:
        """The scoring unit of ``seat``: partners sit opposite (seats ``i`` and ``i + n/2``)."""
        return seat % (n_players // 2) if self.teams else seat


_BASE_2008: dict[str, Any] = {
    "min_players": 3,
    "max_players": 6,
    "three_player_solo_points": 4,
    "score_limit": None,
    "end_on_last_card": True,
    "on_deck_exhausted": "end",
}
_EDITION_PARAMETERS: dict[str, dict[str, Any]] = {
    "original-2008": _BASE_2008,
    "refresh-2021": {"min_players": 3, "max_players": 8},
    "odyssey-2011": {
        "min_players": 3,
        "max_players": 12,
        "second_vote_from": 7,
        "single_vote_bonus": 1,
        "bonus_cap": 3,
        "teams_allowed": True,
    },
    "odyssey-2024": {
        "min_players": 3,
        "max_players": 12,
        "second_vote_from": 3,
        "single_vote_bonus": 1,
    },
}
