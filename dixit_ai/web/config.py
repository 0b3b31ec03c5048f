"""What a server offers: decks, bots, limits, and their checks.

The host decides what tables may use (:class:`ServerConfig`: the decks by name, the bots, the
clean-up time); a creator chooses among those
(:func:`dixit_ai.web.table_config.parse_config` checks a create-table request against them).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from dixit_ai.agents import agent_spec, list_agents
from dixit_ai.agents import party_problem as agent_party_problem
from dixit_ai.rules import EDITIONS, RuleSet

BOT_DELAY_RANGE = (0.0, 60.0)
"""Seconds a bot may wait before each move (``serve --bot-delay``): a pause people can follow,
never one that stalls a table."""
MAX_DECK_OPTIONS = 32
DEFAULT_DECKS = {"dream": "dream"}


class WebError(Exception):
    """A request the server refuses; nothing changed. ``status`` is the HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# ---------------------------------------------------------------------- the host's offer


DEFAULT_BOTS: tuple[str, ...] = ("random", "clip-greedy", "clip-sharp", "clip-expected",
                                 "clip-obvious", "clip-cryptic", "party-embedding")
"""The bots a server offers when the host lists none: the default model's players (warmed from
the shipped embeddings in seconds) and random; ``--bot NAME`` offers any other registry agent."""


@dataclass(frozen=True)
class ServerConfig:
    """What the host offers every table of a server.

    Attributes:
        decks: The decks a table may use, by name (``{"dream": "dream", "small":
            "dream:size=60"}``); a table names one, never a spec.
        bots: The bots (registry names) tables may seat; ``None``: :data:`DEFAULT_BOTS` whose
            dependencies are installed (the panel members and population storytellers are
            offered only when listed: warming each loads another model, minutes when cold).
        idle_cleanup: Seconds after which an idle table leaves memory (finished games) or is
            closed (abandoned lobbies and games); its events and record stay in the database.
            ``None``: never.
        reveal_seconds: The longest a person may read a reveal before their move timer starts
            anyway (the page shows the countdown).
        allow_fixed_seeds: Whether a creator may fix the seed of a table marked as an
            experiment (every player is told).
        tables_per_minute: The most tables one client address may open in 60 seconds
            (``0``: no limit). Behind a reverse proxy every client has the proxy's address:
            raise it, or turn it off. Card requests that render a deck's images (a deck's
            first card, or one whose images were dropped for others') are counted apart
            under the same limit.
        seat_requests_per_minute: The most seat requests (joining, recovering a seat with
            its code, asking the creator for a seat) one client address may send in 60
            seconds (``0``: no limit); a flood would fill other people's tables and their
            creators' lists. Unknown seat tokens and records of tables not in memory (each
            looked up in the database) are counted apart under the same limit.
        socket_messages_per_minute: The most messages one WebSocket may send in 60 seconds
            (``0``: no limit): seats' and spectators' sockets, and those that have not said
            hello yet. A page sends a few a minute (its moves, one ``seen`` per reveal, a click
            on *Earlier rounds* or a reaction); past the limit each message is answered with
            an error (429) naming it, and a socket that sends as many again within the minute
            is closed (1008). Each socket counts apart: behind a proxy too.
        seat_connections_per_minute: The most sockets opened for one seat of a table in 60
            seconds (``0``: no limit): each connection and each close sends every socket at
            the table the new state, so a seat reconnecting in a loop would flood the others.
            A page reconnects after a back-off of at least half a second, with a few tabs;
            past the limit a connection is refused (429, closed 4429) and the page tries again
            ten seconds later.
        http_requests_per_minute: The most requests one seat of a table may send over plain
            HTTP (``/api/state``, ``/api/action``, ``/api/history``) in 60 seconds, and the
            most spectator states (``/api/watch/...``) one client address may ask of one table
            (``0``: no limit). Each builds the seat's whole state (or the game's history)
            on the event loop every table shares, and a move waits for the table's lock; the
            page asks for the state once as it opens and then uses its socket, and a script
            polling ten times a second sends 600; past the limit a request is refused (429)
            before any work, and nothing changes.
        sockets_awaiting_hello_per_address: The most WebSockets one client address may hold
            open before their hello (``0``: no limit). A page says hello as its socket opens;
            a socket that says nothing holds a connection (and its memory) until the hello's
            deadline, so a script opening thousands would hold thousands (pages opening at
            once from one address, a load test's tables, hold a few dozen for a moment: the
            default is the default of ``tables_per_minute``). A socket counts
            from its opening until its hello (its first JSON message) is read or it closes; past
            the limit a socket is refused (429, closed 4429) and the page tries again ten
            seconds later. Behind a reverse proxy every client has the proxy's address:
            raise it, or turn it off.
        seat_control_changes_per_minute: The most times one seat of a table may hand itself
            to a bot (``leave``) or take itself back (``reclaim``) during a game in 60 seconds
            (``0``: no limit). Each change is an event written to the table's log and
            record and sends every socket at the table the state; a person leaves and comes
            back a few times a game. Past the limit the message is refused (429, naming the
            limit) and nothing changes; a refused leave or reclaim is not counted.

    Every limit is counted in the memory of the one server process (``dixit-ai serve`` runs
    one; a restart forgets the counts).
    """

    decks: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_DECKS))
    bots: tuple[str, ...] | None = None
    idle_cleanup: float | None = None
    reveal_seconds: float = 60.0
    allow_fixed_seeds: bool = True
    tables_per_minute: int = 60
    seat_requests_per_minute: int = 60
    socket_messages_per_minute: int = 600
    seat_connections_per_minute: int = 60
    http_requests_per_minute: int = 1200
    sockets_awaiting_hello_per_address: int = 60
    seat_control_changes_per_minute: int = 6

    def __post_init__(self) -> None:
        if not isinstance(self.decks, Mapping):
            raise ValueError(f"decks must be a table of NAME = SPEC entries, not "
                             f"{self.decks!r}")
        if not self.decks:
            raise ValueError("a server must offer at least one deck")
        if len(self.decks) > MAX_DECK_OPTIONS:
            raise ValueError(f"{len(self.decks)} decks offered; the limit is {MAX_DECK_OPTIONS}")
        for name, spec in self.decks.items():
            if not isinstance(name, str) or not name or not name.replace("-", "").replace(
                    "_", "").isalnum() or len(name) > 40:
                raise ValueError(f"deck name {name!r}: use 1-40 letters, digits, '-' or '_'")
            if not isinstance(spec, str) or not spec.strip():
                raise ValueError(f"deck {name!r}: the spec must be non-empty text")
        if self.bots is not None:
            if isinstance(self.bots, str) or not isinstance(self.bots, Sequence) or not all(
                    isinstance(name, str) and name for name in self.bots):
                raise ValueError(f"bots must be a list of bot names, not {self.bots!r}")
            object.__setattr__(self, "bots", tuple(self.bots))
            if not self.bots:
                raise ValueError("a server must offer at least one bot")
        for name, value in (("idle_cleanup", self.idle_cleanup),
                            ("reveal_seconds", self.reveal_seconds)):
            if value is not None and (isinstance(value, bool) or not isinstance(
                    value, int | float) or not math.isfinite(value)):
                raise ValueError(f"{name} must be a number of seconds, not {value!r}")
        if self.idle_cleanup is not None and not self.idle_cleanup > 0:
            raise ValueError(f"idle_cleanup must be above 0 seconds, not {self.idle_cleanup}")
        if not 0 < self.reveal_seconds <= 3600:
            raise ValueError(f"reveal_seconds must be in (0, 3600], not {self.reveal_seconds}")
        for name, count in (("tables_per_minute", self.tables_per_minute),
                            ("seat_requests_per_minute", self.seat_requests_per_minute),
                            ("socket_messages_per_minute",
                             self.socket_messages_per_minute),
                            ("seat_connections_per_minute",
                             self.seat_connections_per_minute),
                            ("http_requests_per_minute", self.http_requests_per_minute),
                            ("sockets_awaiting_hello_per_address",
                             self.sockets_awaiting_hello_per_address),
                            ("seat_control_changes_per_minute",
                             self.seat_control_changes_per_minute)):
            if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                raise ValueError(f"{name} must be a whole number, at least 0 (0: no limit), "
                                 f"not {count!r}")
        if not isinstance(self.allow_fixed_seeds, bool):
            raise ValueError(f"allow_fixed_seeds must be true or false, not "
                             f"{self.allow_fixed_seeds!r}")

    def offered_bots(self) -> list[str]:
        """The bots offered, in order (:data:`DEFAULT_BOTS` that can play, when not listed)."""
        if self.bots is not None:
            return list(self.bots)
        known = {spec.name for spec in list_agents()}
        return [name for name in DEFAULT_BOTS if name in known and bot_problem(name) is None]

    def deck_spec(self, name: object) -> str:
        """The spec of the offered deck ``name``.

        Raises:
            WebError: (400) not an offered deck (the message lists them).
        """
        if not isinstance(name, str) or name not in self.decks:
            raise WebError(400, f"deck {name!r} is not offered here: choose one of "
                                f"{', '.join(self.decks)}")
        return self.decks[name]


def check_bot_delay(value: object, what: str = "bot_delay") -> float:
    """The seconds a bot waits before each move, checked: a finite number within
    :data:`BOT_DELAY_RANGE` (the one check of ``serve --bot-delay`` and of
    :class:`~dixit_ai.web.manager.TableManager`'s ``bot_delay``).

    Raises:
        ValueError: not a number, not finite (nan, inf) or out of the range; the message names
            ``what`` and the range.
    """
    low, high = BOT_DELAY_RANGE
    if isinstance(value, bool) or not isinstance(value, int | float) or not (
            low <= value <= high):  # nan fails every comparison; exact for any int
        if isinstance(value, float):
            shown = f"{value:g}"
        elif isinstance(value, int) and abs(value) > 10**300:
            shown = "a number of more than 300 digits"
        else:
            shown = repr(value)
        raise ValueError(f"{what} must be a number of seconds from {low:g} to {high:g}, "
                         f"not {shown}")
    return float(value)


def too_small_for_any_game(n_cards: int) -> str | None:
    """Why a deck of ``n_cards`` cannot be offered (no edition's smallest game fits in it), or
    ``None``: a host offering it would learn so only when a table is refused."""
    need, edition = min((RuleSet.edition(name).min_deck_size(RuleSet.edition(name).min_players),
                         name) for name in EDITIONS)
    if n_cards >= need:
        return None
    players = RuleSet.edition(edition).min_players
    return (f"{n_cards} card{'s' if n_cards != 1 else ''} is too small for any game (the "
            f"smallest, {edition} with {players} players, needs {need})")


def parse_deck_option(text: str) -> tuple[str, str]:
    """``"NAME=SPEC"`` (the ``--deck`` option) as ``(name, spec)``; a bare ``folder:PATH`` is
    named after its folder, another bare spec after its kind (``dream``).

    Raises:
        ValueError: an empty name or spec.
    """
    name, sep, spec = text.partition("=")
    if not sep or ":" in name or "+" in name:   # a bare spec (dream:size=60 has its own "=")
        spec = text
        kind, _, rest = text.partition(":")
        # a bare folder is named after the folder (two folders are two decks); a bare
        # composite or dream spec by its kind, as before
        name = (Path(rest.strip()).expanduser().name if kind.strip() == "folder" and rest.strip()
                else kind)
        name = re.sub(r"[^\w-]+", "-", name).strip("-")[:40]
        if "+" in text or not name:
            raise ValueError(f"--deck {text!r}: name this deck, NAME=SPEC (e.g. "
                             f"mine={text.strip()}): a bare spec names only a dream or folder "
                             "deck")
    name, spec = name.strip(), spec.strip()
    if not name or not spec:
        raise ValueError(f"--deck {text!r}: expected NAME=SPEC, e.g. small=dream:size=60")
    return name, spec


def load_server_config(path: str | Path, **overrides: Any) -> ServerConfig:
    """Read a server's TOML config file; keyword ``overrides`` win over the file.

    The file::

        idle_cleanup = 86400      # seconds
        reveal_seconds = 60
        allow_fixed_seeds = true
        tables_per_minute = 60          # per client address; 0: no limit
        seat_requests_per_minute = 60
        socket_messages_per_minute = 600  # per WebSocket; 0: no limit
        seat_connections_per_minute = 60  # per seat of a table; 0: no limit
        http_requests_per_minute = 1200   # per seat (state, action, history); 0: no limit
        sockets_awaiting_hello_per_address = 60  # per address, before hello; 0: no limit
        seat_control_changes_per_minute = 6      # per seat: leave, reclaim; 0: no limit
        bots = ["random", "clip-greedy"]

        [decks]
        dream = "dream"
        small = "dream:size=60"

    Raises:
        ValueError: an unknown key or a bad value (the message names the file).
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ValueError(f"{path}: {error}") from None
    known = {f.name for f in fields(ServerConfig)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(known))}")
    if "bots" in data:
        bots = data["bots"]
        if not isinstance(bots, list):  # a bare name would be read letter by letter
            raise ValueError(f"{path}: bots must be a list of bot names (bots = [\"random\"]), "
                             f"not {bots!r}")
        data["bots"] = tuple(bots)
        problem = bots_problem(bots)
        if problem:
            raise ValueError(f"{path}: bots: {problem}")
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        return ServerConfig(**data)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{path}: {error}") from None


def bot_problem(name: str) -> str | None:
    """Why the bot ``name`` cannot play here (unknown, or its extra is not installed), or None."""
    try:
        spec = agent_spec(name)
    except ValueError as error:
        return str(error)
    package = spec.entry_point.partition(":")[0].split(".")[0]
    if importlib.util.find_spec(package) is None:
        hint = f"; install it with: pip install 'dixit-ai[{spec.extra}]'" if spec.extra else ""
        return f"bot {name!r} needs {package!r}, which is not installed{hint}"
    return None


def bots_problem(names: Sequence[object]) -> str | None:
    """Why a server cannot offer the bots ``names`` (a name that is not text, given twice,
    unknown, or whose extra is not installed), or None: the one check of ``serve``'s
    ``--bot`` flags and of its config file's ``bots``."""
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name:
            return f"bots must be a list of bot names, and {name!r} is not one"
        if name in seen:
            return f"bot {name!r} is listed twice"
        seen.add(name)
        problem = bot_problem(name)
        if problem:
            return problem
    return None


def check_bots(names: Iterable[object], offered: Sequence[str]) -> None:
    """Every name is a bot this server offers.

    Raises:
        WebError: (400) a bot not offered here, or not installed.
    """
    for name in names:
        if not isinstance(name, str):
            raise WebError(400, f"a bot is named by text, not {name!r}")
        if name not in offered:
            raise WebError(400, f"bot {name!r} is not offered here: choose one of "
                                f"{', '.join(offered)}")
        problem = bot_problem(name)
        if problem:
            raise WebError(400, problem)


def party_problem(name: str) -> str | None:
    """Why the bot ``name`` cannot play Dixit Party (no ``announce``/``red_token``), or None.

    Reads the bot's class (not an instance: no model is loaded):
    :func:`dixit_ai.agents.party_problem`.
    """
    try:
        return agent_party_problem(name)
    except (ImportError, AttributeError) as error:
        return f"bot {name!r} cannot be loaded: {error}"


def server_config_from_options(*, config: str | Path | None = None,
                               decks: Sequence[str] | None = None,
                               bots: Sequence[str] | None = None,
                               idle_cleanup: float | None = None,
                               reveal_seconds: float | None = None) -> ServerConfig:
    """The :class:`ServerConfig` of ``dixit-ai serve``'s options (a config file, then flags).

    Raises:
        ValueError: a bad file, deck option or value; an unknown or uninstalled bot.
    """
    overrides: dict[str, Any] = {"idle_cleanup": idle_cleanup,
                                 "reveal_seconds": reveal_seconds}
    if decks:
        offered: dict[str, str] = {}
        for text in decks:
            name, spec = parse_deck_option(text)
            if name in offered:
                raise ValueError(f"--deck {name!r} is given twice")
            offered[name] = spec
        overrides["decks"] = offered
    if bots:
        problem = bots_problem(bots)
        if problem:
            raise ValueError(f"--bot: {problem}")
        overrides["bots"] = tuple(bots)
    if config is not None:
        return load_server_config(config, **overrides)
    return ServerConfig(**{k: v for k, v in overrides.items() if v is not None})
