"""SQLite persistence of web tables: tables, seats, every game event, and game records.

The database runs in WAL mode. Every write is one transaction that is committed before the caller
acknowledges anything, so a server killed at any moment (SIGKILL included) restarts on the same
file with every accepted action. ``durable=True`` (the default) also syncs each commit to disk
(``synchronous=FULL``), which survives a power cut too; ``durable=False`` (``NORMAL``) survives a
killed process but may lose the last commits on a power cut, and commits far faster.

Seat tokens and recovery codes are never stored: only their SHA-256 digests are.

One server per database: a :class:`Store` holds an exclusive lock on ``<db>.lock`` (``flock``)
from the moment it opens, before anything is read, so a second server on the same file refuses
at once (:class:`DatabaseInUse`) instead of restoring every table and then failing.

One :class:`Store` holds one connection, used from one thread at a time (the web manager sends
every call through a single-thread executor).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

Statement = tuple[str, tuple[Any, ...]]
"""One SQL statement with its parameters."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    invite TEXT NOT NULL UNIQUE,
    config TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables(id),
    seat INTEGER NOT NULL,
    name TEXT,
    token_hash TEXT UNIQUE,
    PRIMARY KEY (table_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id),
    idx INTEGER NOT NULL,
    data TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (table_id, idx)
);
CREATE TABLE IF NOT EXISTS records (
    table_id TEXT PRIMARY KEY REFERENCES tables(id),
    record TEXT NOT NULL
);
"""


MIGRATIONS: tuple[tuple[str, str, str], ...] = (
    ("seats", "recovery_hash", "ALTER TABLE seats ADD COLUMN recovery_hash TEXT"),
)
"""Columns added since the first schema: ``(table, column, statement)``."""


class DatabaseInUse(OSError):
    """Another server holds the database."""


class NotATablesDatabase(ValueError):
    """The database file cannot be read, or is not a dixit-ai tables database."""


SCHEMA_COLUMNS: dict[str, frozenset[str]] = {
    "tables": frozenset({"id", "invite", "config", "seed", "status", "created"}),
    "seats": frozenset({"table_id", "seat", "name", "token_hash"}),
    "events": frozenset({"table_id", "idx", "data", "created"}),
    "records": frozenset({"table_id", "record"}),
}
"""The columns each table of :data:`SCHEMA` has had from the start (a database missing one is
not a tables database; :data:`MIGRATIONS` add the later ones)."""


def schema_problem(db: sqlite3.Connection) -> str | None:
    """Why the open database ``db`` cannot be served, or None: an empty database (a new one)
    and one with the tables of :data:`SCHEMA` can; a file SQLite cannot read (not a database,
    damaged, not readable), or a database of other tables, cannot. Reads only its schema.

    Returns:
        ``"is not a dixit-ai tables database (WHY); HINT"`` or ``"cannot be read (WHY); HINT"``
        (the database's path goes first).
    """
    not_ours = ("is not a dixit-ai tables database ({}); give another --db, or move the file "
                "away to start a new database there")
    try:
        names = [str(row[0]) for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        if not names:
            return None
        if not set(names) & set(SCHEMA_COLUMNS):
            shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
            return not_ours.format(f"an SQLite database of other tables: {shown}")
        for table, wanted in SCHEMA_COLUMNS.items():
            if table not in names:
                continue
            columns = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
            missing = sorted(wanted - columns)
            if missing:
                return not_ours.format(f"its table {table!r} has no column {missing[0]!r}")
    except sqlite3.DatabaseError as error:
        if getattr(error, "sqlite_errorname", "") in ("SQLITE_NOTADB", "SQLITE_CORRUPT"):
            return not_ours.format(f"SQLite: {error}")
        return f"cannot be read (SQLite: {error}); check its permissions, or give another --db"
    return None


def not_a_tables_database(path: Path, problem: str) -> NotATablesDatabase:
    """The error refusing the database ``path`` for ``problem`` (:func:`schema_problem`)."""
    return NotATablesDatabase(f"{path} {problem}")


def check_database(path: str | Path) -> None:
    """Check that an existing database file can be served before the server starts (a clear
    early refusal instead of a failed start); a missing file is a new database. Reads only the
    schema, takes no lock and leaves no file behind (a server may hold the database meanwhile:
    SQLite lets it be read).

    Raises:
        NotATablesDatabase: not a regular file, not an SQLite database (or damaged, or not
            readable), or a database of other tables.
    """
    path = Path(path)
    if not path.exists():
        return
    if not path.is_file():
        raise not_a_tables_database(path, "is not a regular file; give the path of a database "
                                          "file, or of one to create")
    try:
        db = sqlite3.connect(str(path), isolation_level=None)
    except sqlite3.Error as error:
        raise not_a_tables_database(path, f"cannot be read (SQLite: {error}); check its "
                                          f"permissions, or give another --db") from None
    try:
        problem = schema_problem(db)
    finally:
        db.close()
    if problem is not None:
        raise not_a_tables_database(path, problem)


def ensure_free(path: str | Path) -> None:
    """Check that no server holds the database ``path`` (a clear early refusal).

    Raises:
        DatabaseInUse: another server holds it.
    """
    Store.acquire_lock(Path(path)).close()


def token_digest(token: str) -> str:
    """The SHA-256 hex digest under which a seat token is stored (any text: one that is not
    valid Unicode, such as a lone surrogate from a JSON escape, has a digest no token has)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class StoredTable:
    """One table as read back from the database."""

    id: str
    invite: str
    config: dict[str, Any]
    seed: int
    status: str
    seats: list[tuple[int, str | None, str | None]]
    events: list[dict[str, Any]]
    record: str | None
    updated: float = 0.0
    """When the table last changed (its newest event, or its creation)."""
    recovery: list[str | None] | None = None
    """Per seat, the digest of its recovery code."""


class Store:
    """The database of one server.

    Args:
        path: The SQLite file (created if missing).
        durable: Sync every commit to disk (``synchronous=FULL``); see the module docstring.
    """

    def __init__(self, path: str | Path, *, durable: bool = True) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._lock_file = self.acquire_lock(self.path)
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                       isolation_level=None)
        except BaseException:
            self._release_lock()
            raise
        try:
            self._open(durable)
        except BaseException:  # a failed start keeps neither the connection nor the lock
            self._db.close()
            self._release_lock()
            raise

    def _open(self, durable: bool) -> None:
        """Check the schema, then set the connection up and bring the schema up to date.

        Raises:
            NotATablesDatabase: the file is not a tables database (see :func:`schema_problem`).
        """
        problem = schema_problem(self._db)
        if problem is not None:
            raise not_a_tables_database(self.path, problem)
        mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise OSError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        for table, column, statement in MIGRATIONS:
            columns = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                self._db.execute(statement)

    def _release_lock(self) -> None:
        fcntl.flock(self._lock_file, fcntl.LOCK_UN)
        self._lock_file.close()

    @staticmethod
    def acquire_lock(path: Path) -> IO[str]:
        """Take the exclusive lock of database ``path`` (the open lock file holds it).

        Raises:
            DatabaseInUse: another server holds it.
        """
        lock_path = path.with_name(path.name + ".lock")
        handle = open(lock_path, "a+", encoding="utf-8")  # held while serving
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise DatabaseInUse(
                f"{path} is in use by another dixit-ai server (pid {holder}; lock "
                f"{lock_path}): stop it first, or use another --db") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        return handle

    def close(self) -> None:
        """Close the connection and release the database's lock."""
        with self._lock:
            self._db.close()
        self._release_lock()

    def _transaction(self, statements: Sequence[Statement]) -> None:
        error = self.run_batches([statements])[0]
        if error is not None:
            raise error

    def run_batches(self, batches: Sequence[Sequence[Statement]]) -> list[Exception | None]:
        """Run several writes in one transaction: one commit (one disk sync) for them all.

        Each batch is all or nothing (a savepoint): a batch that fails is rolled back alone and
        its error returned in its place; the others are committed together (group commit).
        """
        errors: list[Exception | None] = []
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for batch in batches:
                    self._db.execute("SAVEPOINT batch")
                    try:
                        for sql, params in batch:
                            self._db.execute(sql, params)
                    except sqlite3.Error as error:
                        self._db.execute("ROLLBACK TO batch")
                        errors.append(error)
                    else:
                        errors.append(None)
                    self._db.execute("RELEASE batch")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        return errors

    # ------------------------------------------------------------------ writes

    @staticmethod
    def create_table_statements(table_id: str, invite: str, config: dict[str, Any], seed: int,
                                n_seats: int, creator_name: str, creator_token: str
                                ) -> list[Statement]:
        """Insert a table in the lobby with its seats; the creator takes seat 0."""
        statements: list[Statement] = [(
            "INSERT INTO tables (id, invite, config, seed, status, created) "
            "VALUES (?, ?, ?, ?, 'lobby', ?)",
            (table_id, invite, json.dumps(config, sort_keys=True), seed, time.time()))]
        for seat in range(n_seats):
            name, digest = ((creator_name, token_digest(creator_token)) if seat == 0
                            else (None, None))
            statements.append(("INSERT INTO seats (table_id, seat, name, token_hash) "
                               "VALUES (?, ?, ?, ?)", (table_id, seat, name, digest)))
        return statements

    @staticmethod
    def insert_table_statements(table_id: str, invite: str, config: dict[str, Any], seed: int,
                                seats: Sequence[tuple[str | None, str | None, str | None]]
                                ) -> list[Statement]:
        """Insert a table in the lobby whose seats ``(name, token digest, recovery digest)``
        are already known (a rematch: the same people, their same tokens)."""
        statements: list[Statement] = [(
            "INSERT INTO tables (id, invite, config, seed, status, created) "
            "VALUES (?, ?, ?, ?, 'lobby', ?)",
            (table_id, invite, json.dumps(config, sort_keys=True), seed, time.time()))]
        for seat, (name, digest, recovery) in enumerate(seats):
            statements.append(("INSERT INTO seats (table_id, seat, name, token_hash, "
                               "recovery_hash) VALUES (?, ?, ?, ?, ?)",
                               (table_id, seat, name, digest, recovery)))
        return statements

    @staticmethod
    def config_statements(table_id: str, config: dict[str, Any]) -> list[Statement]:
        """Replace a table's stored settings (a rematch's link is added to them)."""
        return [("UPDATE tables SET config = ? WHERE id = ?",
                 (json.dumps(config, sort_keys=True), table_id))]

    @staticmethod
    def seat_statements(table_id: str, seat: int, name: str | None, token: str | None
                        ) -> list[Statement]:
        """A person takes (``name`` and ``token``) or frees (``None``) a seat of the lobby."""
        digest = None if token is None else token_digest(token)
        return [("UPDATE seats SET name = ?, token_hash = ? WHERE table_id = ? AND seat = ?",
                 (name, digest, table_id, seat))]

    @staticmethod
    def recovery_statements(table_id: str, seat: int, code: str | None) -> list[Statement]:
        """Set (or clear) a seat's recovery code."""
        digest = None if code is None else token_digest(code)
        return [("UPDATE seats SET recovery_hash = ? WHERE table_id = ? AND seat = ?",
                 (digest, table_id, seat))]

    @staticmethod
    def token_statements(table_id: str, seat: int, digest: str | None) -> list[Statement]:
        """Give a seat a new token digest (a recovered seat, or one moved to a rematch)."""
        return [("UPDATE seats SET token_hash = ? WHERE table_id = ? AND seat = ?",
                 (digest, table_id, seat))]

    @staticmethod
    def status_statements(table_id: str, status: str) -> list[Statement]:
        """Change a table's status (``"closed"``: cleaned up while idle)."""
        return [("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))]

    @staticmethod
    def event_statements(table_id: str, index: int, event: dict[str, Any],
                         status: str | None = None) -> list[Statement]:
        """Append event ``index`` of a table (and change its status)."""
        statements: list[Statement] = [(
            "INSERT INTO events (table_id, idx, data, created) VALUES (?, ?, ?, ?)",
            (table_id, index, json.dumps(event, sort_keys=True), time.time()))]
        if status is not None:
            statements.append(("UPDATE tables SET status = ? WHERE id = ?", (status, table_id)))
        return statements

    @staticmethod
    def record_statements(table_id: str, record_json: str, status: str) -> list[Statement]:
        """Store a finished game's record and the table's final status."""
        return [("INSERT OR REPLACE INTO records (table_id, record) VALUES (?, ?)",
                 (table_id, record_json)),
                ("UPDATE tables SET status = ? WHERE id = ?", (status, table_id))]

    def write(self, statements: Sequence[Statement]) -> None:
        """Run one write in its own transaction.

        Raises:
            sqlite3.Error: the write failed; nothing of it was kept.
        """
        self._transaction(statements)

    # ------------------------------------------------------------------ reads

    def load_tables(self, *, idle_before: float | None = None) -> list[StoredTable]:
        """Every table to serve, with its seats, events (in order) and record.

        Closed tables are left out, and so are finished ones last changed before
        ``idle_before`` (a time): their records stay readable (:meth:`load_record`).
        """
        with self._lock:
            updated = dict(self._db.execute(
                "SELECT t.id, MAX(t.created, COALESCE(MAX(e.created), 0)) FROM tables t "
                "LEFT JOIN events e ON e.table_id = t.id GROUP BY t.id").fetchall())
            rows = [row for row in self._db.execute(
                "SELECT id, invite, config, seed, status FROM tables WHERE status != 'closed' "
                "ORDER BY created").fetchall()
                if idle_before is None or row[4] != "over" or updated[row[0]] >= idle_before]
            wanted = {row[0] for row in rows}
            seats: dict[str, list[tuple[int, str | None, str | None]]] = {}
            recovery: dict[str, list[str | None]] = {}
            for table_id, seat, name, digest, code in self._db.execute(
                    "SELECT table_id, seat, name, token_hash, recovery_hash FROM seats "
                    "ORDER BY table_id, seat"):
                if table_id in wanted:
                    seats.setdefault(table_id, []).append((seat, name, digest))
                    recovery.setdefault(table_id, []).append(code)
            events: dict[str, list[dict[str, Any]]] = {}
            for table_id, data in self._db.execute(
                    "SELECT table_id, data FROM events ORDER BY table_id, idx"):
                if table_id in wanted:
                    events.setdefault(table_id, []).append(json.loads(data))
            records = {table_id: record for table_id, record in self._db.execute(
                "SELECT table_id, record FROM records") if table_id in wanted}
        return [StoredTable(id=row[0], invite=row[1], config=json.loads(row[2]), seed=row[3],
                            status=row[4], seats=seats.get(row[0], []),
                            events=events.get(row[0], []), record=records.get(row[0]),
                            updated=float(updated[row[0]]), recovery=recovery.get(row[0]))
                for row in rows]

    def load_record(self, table_id: str) -> str | None:
        """A finished game's record, loaded or not."""
        with self._lock:
            row = self._db.execute("SELECT record FROM records WHERE table_id = ?",
                                   (table_id,)).fetchone()
        return None if row is None else str(row[0])

    def table_of_token(self, digest: str) -> tuple[str, str] | None:
        """``(table_id, status)`` of the table whose seat has the token ``digest``."""
        with self._lock:
            row = self._db.execute(
                "SELECT t.id, t.status FROM seats s JOIN tables t ON t.id = s.table_id "
                "WHERE s.token_hash = ?", (digest,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def count_events(self, table_id: str) -> int:
        """How many events a table has (for tests and checks)."""
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM events WHERE table_id = ?",
                                        (table_id,)).fetchone()[0])

    def journal_mode(self) -> str:
        """The connection's journal mode (``"wal"``)."""
        with self._lock:
            return str(self._db.execute("PRAGMA journal_mode").fetchone()[0])
