"""The lobby: tables opened, seats taken and recovered, tokens, spectator links, rematches.

A seat is held by its token (the browser keeps it; the database keeps only its SHA-256). A
person who lost it gets a new one with the seat's recovery code, shown once when they sat down.
A rematch moves every person's token to a new table with the same seats and a new secret seed.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from dixit_ai.match import resolve_deck
from dixit_ai.web.config import ServerConfig, WebError
from dixit_ai.web.fairness import check_seed, draw_salt, draw_seed
from dixit_ai.web.names import person_name, same_name
from dixit_ai.web.store import token_digest
from dixit_ai.web.table import Table
from dixit_ai.web.table_config import TableConfig, parse_config

if TYPE_CHECKING:
    from dixit_ai.decks import Deck
    from dixit_ai.web.bots import Warmup
    from dixit_ai.web.limits import RateLimiter
    from dixit_ai.web.store import Store


def recovery_code() -> str:
    """A seat's recovery code: 12 letters and digits in three groups (about 60 bits)."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    raw = "".join(secrets.choice(alphabet) for _ in range(12))
    return "-".join(raw[i:i + 4] for i in range(0, 12, 4))


class LobbyMixin:
    """The lobby of :class:`~dixit_ai.web.manager.TableManager` (mixed in)."""

    store: Store
    server: ServerConfig
    warmup: Warmup
    tables: dict[str, Table]
    _by_invite: dict[str, str]
    _by_watch: dict[str, str]
    _by_token: dict[str, tuple[str, int]]
    client_limits: RateLimiter
    _work: Callable[..., Any]
    _db: Callable[..., Any]
    _deck: Callable[[str], Deck]
    _write: Callable[..., Any]
    _register: Callable[[Table], None]
    _stored_config: Callable[[Table], dict[str, Any]]
    send: Callable[..., None]
    _broadcast: Callable[..., None]
    _meta: Callable[..., dict[str, Any]]

    # ------------------------------------------------------------------ lobby

    def count_request(self, client: str | None,
                      kind: Literal["tables", "seats", "tokens", "records", "renders"]
                      ) -> None:
        """Count one request of the client address ``client`` (None: not known, not counted)
        against the server's limit of its kind: new tables, seat requests (joining,
        recovering a seat, asking the creator for one), deck renders (counted apart under the
        new tables' limit: a table's first card renders its deck), unknown seat tokens (each
        looked up in the database's one thread; counted apart, under the seat requests'
        limit), or records of tables not in memory (each looked up there too; apart, under
        the same limit).

        Raises:
            WebError: (429) the client reached the limit (the message names it).
        """
        if kind == "tables":
            per_minute, what = self.server.tables_per_minute, "new tables from one address"
        elif kind == "renders":   # a deck's card images, rendered for a card asked
            per_minute = self.server.tables_per_minute
            what = "deck renders (card images not kept) from one address"
        elif kind == "seats":
            per_minute = self.server.seat_requests_per_minute
            what = ("seat requests (joining, recovering a seat, asking for one) from one "
                    "address")
        elif kind == "tokens":
            per_minute = self.server.seat_requests_per_minute
            what = "unknown seat tokens from one address"
        else:
            per_minute = self.server.seat_requests_per_minute
            what = "look-ups of tables not in memory (records) from one address"
        if client is not None:
            self.client_limits.take_per_minute((kind, client), per_minute, what)

    async def create_table(self, data: Mapping[str, Any], *, client: str | None = None
                           ) -> dict[str, Any]:
        """Create a table; its creator takes seat 0. Returns ids, invite, seat token and the
        seat's recovery code.

        Raises:
            WebError: (400) bad settings; (403) a fixed seed not allowed; (429) ``client`` (an
                address) opened too many tables this minute; nothing was created.
        """
        config = parse_config(data, self.server)
        name = person_name(data.get("name"))
        self.warmup.check([*config.bots, config.takeover_bot], party=config.ruleset.is_party)
        if data.get("seed") is not None:
            if not config.experiment:
                raise WebError(400, "the seed may be fixed only on a table marked as an "
                                    "experiment (\"experiment\": true), whose players are all "
                                    "shown the seed; leave it out for a fair, secret deal")
            if not self.server.allow_fixed_seeds:
                raise WebError(403, "this server does not allow fixed seeds")
            try:
                seed = check_seed(data["seed"])
            except ValueError as error:
                raise WebError(400, str(error)) from None
        else:
            seed = draw_seed()
        self.count_request(client, "tables")

        def load() -> dict[str, Any]:
            deck = self._deck(config.deck)
            config.ruleset.check_deck(config.n_players, len(deck.card_ids))
            return resolve_deck(deck)[1]

        try:
            deck_entry = await self._work(load)
        except (ValueError, OSError) as error:
            raise WebError(400, f"deck {config.deck_name!r}: {error}") from None
        table = Table(id=secrets.token_urlsafe(12), invite=secrets.token_hex(16),
                      config=config, seed=seed, deck_entry=deck_entry, salt=draw_salt(),
                      watch=secrets.token_hex(16),
                      names=[name] + [None] * (config.n_players - 1),
                      tokens=[None] * config.n_players, recovery=[None] * config.n_players)
        token = secrets.token_urlsafe(24)
        code = recovery_code()
        table.tokens[0] = token_digest(token)
        table.recovery[0] = token_digest(code)
        await self._write(self.store.create_table_statements(
            table.id, table.invite, self._stored_config(table), seed, config.n_players, name,
            token) + self.store.recovery_statements(table.id, 0, code))
        self._register(table)
        return {"table_id": table.id, "invite": table.invite, "seat": 0, "token": token,
                "recovery_code": code, "watch": table.watch}

    def table_for_invite(self, invite: object) -> Table:
        """The table an invite opens.

        Raises:
            WebError: (404) no such invite.
        """
        table_id = self._by_invite.get(invite) if isinstance(invite, str) else None
        if table_id is None:
            raise WebError(404, "no table has this invite link")
        return self.tables[table_id]

    def table_for_watch(self, watch: object) -> Table:
        """The table a spectator link shows.

        Raises:
            WebError: (404) no such link.
        """
        table_id = self._by_watch.get(watch) if isinstance(watch, str) else None
        if table_id is None:
            raise WebError(404, "no table has this spectator link")
        return self.tables[table_id]

    def invite_summary(self, invite: str) -> dict[str, Any]:
        """What someone holding the invite sees before joining: the table, its seats, and its
        read-only spectator link (the lobby shows it too: a spectator sees only what is public,
        and an invite holder could take a seat anyway)."""
        table = self.table_for_invite(invite)
        return {"table": self._meta(table, include_invite=False),
                "watch_path": None if table.watch is None else f"/watch/{table.watch}"}

    async def join(self, invite: str, data: Mapping[str, Any], *, client: str | None = None
                   ) -> dict[str, Any]:
        """Take the first free seat of an invite's table; returns the seat, its token and its
        recovery code.

        Raises:
            WebError: (404) bad invite; (409) the game started or the table is full; (429)
                ``client`` (an address) sent too many seat requests this minute.
        """
        table = self.table_for_invite(invite)
        name = person_name(data.get("name"))
        self.count_request(client, "seats")
        async with table.lock:
            if table.status != "lobby":
                raise WebError(409, "the game at this table has already started; you can "
                                    "watch it instead")
            free = [seat for seat, taken in enumerate(table.names) if taken is None]
            if not free:
                raise WebError(409, "the table is full")
            for taken in table.names:
                if taken is not None and same_name(taken, name):
                    raise WebError(409, f"{taken!r} already sits at this table: choose another "
                                        "name, so that nobody is taken for someone else")
            seat = free[0]
            token = secrets.token_urlsafe(24)
            code = recovery_code()
            await self._write(self.store.seat_statements(table.id, seat, name, token)
                              + self.store.recovery_statements(table.id, seat, code))
            stale = table.tokens[seat]
            if stale:   # never two keys to one seat
                self._by_token.pop(stale, None)
            table.names[seat] = name
            table.tokens[seat] = token_digest(token)
            table.recovery[seat] = token_digest(code)
            self._by_token[token_digest(token)] = (table.id, seat)
            table.touch()
            self._broadcast(table)
        return {"table_id": table.id, "seat": seat, "token": token, "recovery_code": code}

    async def recover(self, invite: str, data: Mapping[str, Any], *,
                      client: str | None = None) -> dict[str, Any]:
        """Give a seat a new token for its recovery code (a lost link); the old token stops
        working and the code stays valid.

        Raises:
            WebError: (404) bad invite; (400) no seat number; (403) a wrong code; (429)
                ``client`` (an address) sent too many seat requests this minute.
        """
        table = self.table_for_invite(invite)
        seat, code = data.get("seat"), data.get("code")
        if isinstance(seat, bool) or not isinstance(seat, int) or not (
                0 <= seat < table.config.n_players):
            raise WebError(400, f"seat must be a seat number 0-{table.config.n_players - 1}, "
                                f"not {seat!r}")
        if not isinstance(code, str) or not code.strip():
            raise WebError(400, "the recovery code is needed")
        self.count_request(client, "seats")   # guesses at a code count too
        async with table.lock:
            expected = table.recovery[seat] if seat < len(table.recovery) else None
            if expected is None or not secrets.compare_digest(
                    expected, token_digest(code.strip().lower())):
                raise WebError(403, "this recovery code does not open that seat")
            token = secrets.token_urlsafe(24)
            digest = token_digest(token)
            await self._write(self.store.token_statements(table.id, seat, digest))
            old = table.tokens[seat]
            if old:
                self._by_token.pop(old, None)
            table.tokens[seat] = digest
            self._by_token[digest] = (table.id, seat)
            for connection in table.connections.pop(seat, set()):
                self.send(table, seat, connection, {
                    "type": "error", "status": 401,
                    "message": "this seat was recovered with its code in another browser"})
        return {"table_id": table.id, "seat": seat, "token": token}

    def token_opens(self, token: object, table: Table, seat: int) -> bool:
        """Whether ``token`` opens ``seat`` of ``table`` now (checked again under the table's
        lock by whatever waited for it: a token given up, recovered or given away meanwhile
        opens nothing)."""
        return isinstance(token, str) and self._by_token.get(
            token_digest(token)) == (table.id, seat)

    def check_token(self, token: object, table: Table, seat: int) -> None:
        """Refuse a message whose seat token (when it came with one) no longer opens ``seat``
        of ``table``: called as the message is carried out, under the lock where it waits.

        Raises:
            WebError: (401) the token no longer opens the seat; nothing changed.
        """
        if token is not None and not self.token_opens(token, table, seat):
            raise WebError(401, "this seat token is no longer valid here")

    async def authenticate(self, token: object, *, client: str | None = None
                           ) -> tuple[Table, int]:
        """The table and seat of a seat token.

        A known token is found in memory; an unknown one is looked up in the database (for
        its table's 410) in the database's thread, never on the event loop, where every table
        would wait for it. An address's unknown tokens count against the seat requests'
        limit (``client``: the address; the look-ups share the thread every write goes
        through).

        Raises:
            WebError: (401) a missing or unknown token; (410) its table was cleaned up; (429)
                ``client`` sent too many unknown tokens this minute.
        """
        if not isinstance(token, str) or not token:
            raise WebError(401, "a seat token is needed")
        digest = token_digest(token)
        found = self._by_token.get(digest)
        if found is None:
            self.count_request(client, "tokens")
            gone = await self._db(self.store.table_of_token, digest)
            if gone is not None:
                raise WebError(410, f"this table was cleaned up after being idle; its record "
                                    f"stays at /api/tables/{gone[0]}/record.json")
            raise WebError(401, "this seat token is not valid (it may have been given up)")
        return self.tables[found[0]], found[1]

    # ------------------------------------------------------------------ rematch

    async def _rematch(self, table: Table, seat: int) -> None:
        """The creator opens a new table with the same people in the same seats and a new
        secret seed; every seat's token (and recovery code) moves to it, the finished table
        keeps its record."""
        if seat != 0:
            raise WebError(403, "only the table's creator can ask for a rematch")
        if table.status != "over" or table.session is None:
            raise WebError(409, "a rematch comes after the game is over")
        if table.rematch is not None:
            raise WebError(409, "this table already has a rematch")
        config = TableConfig.from_json({**table.config.to_json(), "experiment": False})
        plans = table.session.seats
        names = [plan.name if plan.controller == "human" else None for plan in plans]
        new = Table(id=secrets.token_urlsafe(12), invite=secrets.token_hex(16), config=config,
                    seed=draw_seed(), deck_entry=table.deck_entry, salt=draw_salt(),
                    watch=secrets.token_hex(16), names=names,
                    tokens=[table.tokens[s] if names[s] else None for s in range(len(names))],
                    recovery=[table.recovery[s] if names[s] else None
                              for s in range(len(names))])
        table.rematch = new.id
        statements = []
        for s in range(len(names)):
            statements += self.store.token_statements(table.id, s, None)
        statements += self.store.insert_table_statements(
            new.id, new.invite, self._stored_config(new), new.seed,
            list(zip(new.names, new.tokens, new.recovery, strict=True)))
        statements += self.store.config_statements(table.id, self._stored_config(table))
        try:
            await self._write(statements)
        except Exception:
            table.rematch = None
            raise
        table.tokens = [None] * len(names)
        self._register(new)
        moved = {"type": "moved", "table_id": new.id, "watch_path": f"/watch/{new.watch}"}
        for s, connections in list(table.connections.items()):
            for connection in list(connections):
                self.send(table, s, connection, moved)
        for connection in list(table.spectators):
            self.send(table, -1, connection, moved)

