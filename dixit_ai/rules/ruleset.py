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
from typing import TYPE_CHECKING, Any, Literal

from dixit_ai.rules.errors import SharedRulesChanged as SharedRulesChanged
from dixit_ai.rules.teams import partner_seat, team_index

DeckExhaustedPolicy = Literal["end", "reshuffle"]
FirstStoryteller = Literal["seat0", "random"]
SingleVoteBonusWhen = Literal["found", "some_found"]
Mode = Literal["standard", "party"]

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
        single_vote_bonus: Extra points, where a second vote is available, for a guesser who
            found the storyteller's card with a single vote (when: ``single_vote_bonus_when``).
        single_vote_bonus_when: ``"found"``: whenever such a guesser found the card, the case
            where every guesser found it included (the Odyssey text read literally: the point is
            a bullet of its own, after the cases); ``"some_found"``: only when some but not all
            guessers found it (the narrower reading).
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
        teams: Play the team variant (teams of two, partners opposite; "Team Dixit" of the
            Odyssey rulebook): one card per guessing team on the board, given by one partner,
            the other partner votes; the storyteller's teammate gives a card too and neither
            votes; basic voting and scoring at every size (one vote, no single-vote point), the
            team bonus capped at ``team_bonus_cap``.
        teams_allowed: Whether the edition has a team variant.
        min_team_players: Fewest players for the team variant (three teams: with two, the only
            voting team either finds the card or not, and the storyteller can never score).
        team_bonus_cap: Most bonus points a team earns in one round in the team variant (the
            rulebook's basic rules: 3).
        mode: ``"standard"``, or ``"party"`` for Dixit Party (Odyssey rulebook): the clue comes
            before the storyteller sees the hand, everyone plays and votes (own card allowed),
            the storyteller also places a red token, points are the number of players voting
            for the same image (at most ``party_points_cap``), hands are passed to the left.
        party_allowed: Whether the edition has the Dixit Party variant.
        min_party_players: Fewest players for Dixit Party.
        hand_size_party: Cards in hand in Dixit Party.
        party_points_cap: Most points a Dixit Party voter scores in one round.
        rounds_per_player: The game ends after every player has told this many times
            (``None``: no such end). The team variant and Dixit Party default to 1 (and to no
            score limit), as their rules state.
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
    single_vote_bonus_when: SingleVoteBonusWhen = "found"
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
    team_bonus_cap: int | None = 3
    mode: Mode = "standard"
    party_allowed: bool = False
    min_party_players: int = 6
    hand_size_party: int = 5
    party_points_cap: int = 5
    rounds_per_player: int | None = None
    max_clue_length: int = MAX_CLUE_LENGTH

    if TYPE_CHECKING:  # set in __post_init__; not parameters (no dataclass fields at run time)
        is_party: bool = False
        is_variant: bool = False

    def __post_init__(self) -> None:
        # Flags read on every step of every game: which game these rules play.
        object.__setattr__(self, "is_party", self.mode == "party")
        object.__setattr__(self, "is_variant", self.teams is True or self.mode == "party")

    # ------------------------------------------------------------------ construction

    @classmethod
    def edition(cls, name: str, **overrides: Any) -> RuleSet:
        """The rules of edition ``name``, with ``overrides`` replacing any parameter.

        ``teams=True`` plays Team Dixit and ``mode="party"`` Dixit Party (both in the Odyssey
        editions); either also sets ``score_limit=None`` and ``rounds_per_player=1`` unless
        those are overridden too.

        Raises:
            ValueError: for an unknown edition, an unknown parameter, or a combination the
                rules do not allow (the message names the limit), a variant that no allowed
                player count can play (``min_team_players`` or ``min_party_players`` above
                ``max_players``) included.
        """
        try:
            # Types too: 1 == True, and only True may set a bool field.
            key = (name, tuple(sorted((k, type(v), v) for k, v in overrides.items())))
            cached = _MADE.get(key)
        except TypeError:  # an unhashable value: checked (and refused) below
            key, cached = None, None
        if cached is not None:
            rules, made = cached
            if rules.parameters() != made:
                # Frozen, but object.__setattr__ reaches through: code in this process (an
                # agent made outside a game, say) changed the rules every game shares. They are
                # put back, and this game refused: games played since were not of these rules.
                changed = ", ".join(f"{k} {made[k]!r} -> {v!r}"
                                    for k, v in rules.parameters().items() if made.get(k) != v)
                for field, value in made.items():
                    object.__setattr__(rules, field, value)
                raise SharedRulesChanged(
                    f"the shared rules of {name} were changed in place by code in this process "
                    f"({changed}); they are put back, but games played since then were not "
                    f"played by {name}'s rules")
            return rules
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
        if overrides.get("teams") is True or overrides.get("mode") == "party":
            # Team Dixit and Dixit Party end when each player has told once, not at 30 points.
            params.update(score_limit=None, rounds_per_player=1)
        params.update(overrides)
        rules = cls(name=name, **params)
        rules._validate()
        if key is not None and len(_MADE) < 1024 and cls is RuleSet:
            # Rules are immutable: the same edition and overrides give one shared object.
            _MADE[key] = (rules, rules.parameters())
        return rules

    def replace(self, **overrides: Any) -> RuleSet:
        """A copy of these rules with ``overrides`` applied and checked.

        Turning the team variant or Dixit Party on also brings its end (each player tells once,
        no score limit), and turning it off (``teams=False``, ``mode="standard"``) brings back
        the edition's end, unless ``overrides`` set ``score_limit`` or ``rounds_per_player``.

        Raises:
            ValueError: as :meth:`edition` does.
        """
        base = self.parameters()
        turning_on = (overrides.get("teams") is True and not self.teams) or (
            overrides.get("mode") == "party" and self.mode != "party")
        turning_off = (overrides.get("teams") is False and self.teams) or (
            overrides.get("mode") == "standard" and self.mode == "party")
        if turning_on or turning_off:
            # The end comes from the edition (as edition() builds it), not from these rules.
            base.pop("score_limit")
            base.pop("rounds_per_player")
            base = {k: v for k, v in base.items()
                    if v != _EDITION_PARAMETERS[self.name].get(k, _DEFAULTS[k])}
        return RuleSet.edition(self.name, **{**base, **overrides})

    def parameters(self) -> dict[str, Any]:
        """Every parameter but the edition's name, as a JSON-ready dict."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "name"
        }

    def _validate(self) -> None:
        for name, allowed in (("on_deck_exhausted", ("end", "reshuffle")),
                              ("first_storyteller", ("seat0", "random")),
                              ("single_vote_bonus_when", ("found", "some_found")),
                              ("mode", ("standard", "party"))):
            value = getattr(self, name)
            if not isinstance(value, str) or value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, "
                                 f"not {value!r}")
        for name in _BOOL_FIELDS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"{name} must be True or False, not {value!r}")
        for name, low, optional in _INT_FIELDS:
            value = getattr(self, name)
            if value is None and optional:
                continue
            what = f"None or an int >= {low}" if optional else f"an int >= {low}"
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be {what}, not {value!r}")
        for name, (high, why) in _INT_CEILINGS.items():
            value = getattr(self, name)
            if value is not None and value > high:
                raise ValueError(f"{name} must be at most {high:,}, not {value!r}: {why}")
        if not 3 <= self.min_players <= self.max_players <= 12:
            raise ValueError(
                f"player range {self.min_players}-{self.max_players} is invalid: "
                "Dixit needs at least 3 players and at most 12 (the largest board)"
            )
        for name, hand in (("cards_per_guesser", "hand_size"),
                           ("cards_per_guesser_3p", "hand_size_3p")):
            if getattr(self, name) > getattr(self, hand):
                raise ValueError(f"{name} ({getattr(self, name)}) exceeds {hand} "
                                 f"({getattr(self, hand)})")
        if self.teams and not self.teams_allowed:
            raise ValueError(
                f"the team variant exists only in odyssey-2011 and odyssey-2024, "
                f"not in {self.name}"
            )
        if self.mode == "party" and not self.party_allowed:
            raise ValueError(
                f"Dixit Party exists only in odyssey-2011 and odyssey-2024, not in {self.name}"
            )
        if self.teams and self.mode == "party":
            raise ValueError("the team variant and Dixit Party cannot be combined")
        if self.min_team_players % 2 or self.min_team_players < 6:
            raise ValueError(
                f"min_team_players must be even and at least 6, not {self.min_team_players}")
        # A variant no allowed player count can play (its limits count only when it is on).
        if self.teams:
            if self.min_team_players > self.max_players:
                raise ValueError(
                    f"min_team_players ({self.min_team_players}) exceeds max_players "
                    f"({self.max_players}): no player count can play the team variant")
            low = max(self.min_players, self.min_team_players)
            if low + low % 2 > self.max_players:
                raise ValueError(
                    f"the team variant needs an even number of players from {low} "
                    f"(min_players {self.min_players}, min_team_players "
                    f"{self.min_team_players}) to max_players ({self.max_players}): there is none")
        if self.mode == "party" and self.min_party_players > self.max_players:
            raise ValueError(
                f"min_party_players ({self.min_party_players}) exceeds max_players "
                f"({self.max_players}): no player count can play Dixit Party")
        if self.score_limit is None and self.rounds_per_player is None and (
            not self.end_on_last_card and self.on_deck_exhausted == "reshuffle"
        ):
            raise ValueError(
                "these rules never end the game: set score_limit, rounds_per_player, "
                "end_on_last_card=True or on_deck_exhausted='end'"
            )
        if self.second_vote_from is not None and self.second_vote_from < 3:
            raise ValueError(
                f"second_vote_from must be None or at least 3, not {self.second_vote_from}"
            )
        ends_by_score_alone = self.rounds_per_player is None and (
            not self.end_on_last_card and self.on_deck_exhausted == "reshuffle")
        if ends_by_score_alone and not self.can_score():
            raise ValueError(
                "these rules never end the game: no round can award a point (storyteller, "
                "finder, all-or-none, solo and single-vote points are 0 and bonus votes are "
                f"capped at 0), so no one reaches score_limit {self.score_limit}; give one of "
                "them points, or set rounds_per_player, end_on_last_card=True or "
                "on_deck_exhausted='end'"
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
        if self.mode == "party" and n_players < self.min_party_players:
            raise ValueError(
                f"Dixit Party is for {self.min_party_players}-{self.max_players} players, "
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
        if self.mode == "party":
            return self.hand_size_party
        return self.hand_size_3p if n_players == 3 else self.hand_size

    def cards_per_guesser_for(self, n_players: int) -> int:
        """Cards each guesser (each card-giving player) plays in a game of ``n_players``."""
        if self.is_variant:
            return 1
        return self.cards_per_guesser_3p if n_players == 3 else self.cards_per_guesser

    def votes_per_guesser(self, n_players: int) -> int:
        """The most votes a guesser may cast (1, or 2 where a second vote is allowed).

        The team variant and Dixit Party have one vote at every size.
        """
        if self.second_vote_from is None or n_players < self.second_vote_from:
            return 1
        return 1 if self.is_variant else 2

    def board_size(self, n_players: int) -> int:
        """Cards on the board each round.

        Base game: the storyteller's and every guesser's. Team variant: the storyteller's, the
        teammate's and one per other team. Dixit Party: one per player.
        """
        if self.teams:
            return n_players // 2 + 1
        if self.mode == "party":
            return n_players
        return 1 + (n_players - 1) * self.cards_per_guesser_for(n_players)

    def can_score(self) -> bool:
        """Whether some round can award someone a point: Dixit Party always can (a player's
        image scores its voters); else a points parameter above 0, or bonus votes not capped
        at 0."""
        if self.mode == "party":
            return True
        solo = self.three_player_solo_points
        cap = self.bonus_cap_for()
        return (self.storyteller_points > 0 or self.finder_points > 0
                or self.all_or_none_points > 0
                or (solo is not None and solo > 0 and self.min_players <= 3)
                or (self.single_vote_bonus > 0 and self.second_vote_from is not None)
                or cap is None or cap > 0)

    def bonus_cap_for(self) -> int | None:
        """The cap on a player's (or team's) bonus points per round under these rules."""
        return self.team_bonus_cap if self.teams else self.bonus_cap

    def n_rounds_for(self, n_players: int) -> int | None:
        """Rounds after which the game ends (each player told ``rounds_per_player`` times)."""
        return None if self.rounds_per_player is None else n_players * self.rounds_per_player

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
        return team_index(seat, n_players) if self.teams else seat

    def partner_of(self, seat: int, n_players: int) -> int | None:
        """The partner of ``seat`` in the team variant (the seat opposite), else ``None``."""
        return partner_seat(seat, n_players) if self.teams else None


_MADE: dict[tuple[str, tuple[tuple[str, type, Any], ...]], tuple[RuleSet, dict[str, Any]]] = {}
"""Checked rules by edition and overrides (``RuleSet.edition`` is called once per game)."""

_DEFAULTS: dict[str, Any] = {}  # filled below: each field's class default

_BOOL_FIELDS: tuple[str, ...] = ("end_on_last_card", "teams", "teams_allowed", "party_allowed")
_INT_FIELDS: tuple[tuple[str, int, bool], ...] = (
    # (field, lowest allowed value, whether None is allowed)
    ("min_players", 3, False),
    ("max_players", 3, False),
    ("hand_size", 1, False),
    ("hand_size_3p", 1, False),
    ("hand_size_teams", 1, False),
    ("hand_size_party", 1, False),
    ("cards_per_guesser", 1, False),
    ("cards_per_guesser_3p", 1, False),
    ("second_vote_from", 3, True),
    ("single_vote_bonus", 0, False),
    ("bonus_cap", 0, True),
    ("team_bonus_cap", 0, True),
    ("three_player_solo_points", 0, True),
    ("storyteller_points", 0, False),
    ("finder_points", 0, False),
    ("all_or_none_points", 0, False),
    ("party_points_cap", 1, False),
    ("score_limit", 1, True),
    ("rounds_per_player", 1, True),
    ("min_team_players", 6, False),
    ("min_party_players", 3, False),
    ("max_clue_length", 1, False),
)

_INT_CEILINGS: dict[str, tuple[int, str]] = {
    "score_limit": (1_000, "a game to more points than that never ends in practice (with a "
                           "reshuffled deck it runs on for ever)"),
    "rounds_per_player": (100, "a game of more storytelling turns than that never ends in "
                               "practice"),
}
"""The highest values of the fields that set how long a game lasts, each with why: a game to
1,000 points takes hundreds of rounds at any table, and 100 storytelling turns each up to 1,200
rounds."""


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
        "party_allowed": True,
    },
    "odyssey-2024": {
        "min_players": 3,
        "max_players": 12,
        "second_vote_from": 3,
        "single_vote_bonus": 1,
        "teams_allowed": True,
        "party_allowed": True,
    },
}
_DEFAULTS.update({f.name: f.default for f in dataclasses.fields(RuleSet) if f.name != "name"})
