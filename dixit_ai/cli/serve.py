"""``dixit-ai serve``: private web tables where people play and bots take the empty seats."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

from dixit_ai.cli.common import EXIT_FAILED

WEB_EXTRA_HINT = "pip install 'dixit-ai[web]'"


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the web tables server (people play, bots fill empty seats)",
        description="Serve the page and API of private Dixit tables with FastAPI on uvicorn. "
                    "Tables, seats and every move are kept in an SQLite database: stop or "
                    f"kill the server and start it again on the same --db to resume every "
                    f"game. Needs the [web] extra ({WEB_EXTRA_HINT}).")
    parser.add_argument("--host", default="127.0.0.1",
                        help="interface to listen on (default %(default)s; 0.0.0.0 for a LAN)")
    parser.add_argument("--port", type=int, default=8000, help="port (default %(default)s)")
    parser.add_argument("--db", type=Path, default=Path("dixit.sqlite3"),
                        help="SQLite database file (default %(default)s)")
    parser.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                        help="seconds a bot waits before each move, so people can follow "
                             "(0 to 60; default %(default)s)")
    parser.add_argument("--bot-workers", type=int, default=2,
                        help="threads in which bots decide (default %(default)s)")
    parser.add_argument("--fast-commits", action="store_true",
                        help="do not sync each commit to disk (survives a killed server, "
                             "not a power cut)")
    parser.add_argument("--deck", action="append", default=None, metavar="NAME=SPEC",
                        help="a deck tables may use, by name (repeat; default dream=dream); "
                             "tables can use no other")
    parser.add_argument("--bot", action="append", default=None, metavar="NAME",
                        help="a bot tables may seat (repeat; default: random, the clip-* "
                             "players and party-embedding); each is warmed up at start")
    parser.add_argument("--idle-cleanup", type=float, default=None, metavar="SECONDS",
                        help="drop tables idle this long from memory (records kept)")
    parser.add_argument("--reveal-seconds", type=float, default=None, metavar="SECONDS",
                        help="longest reading time of a reveal before a move timer starts "
                             "(default 60)")
    parser.add_argument("--config", type=Path, default=None, metavar="FILE",
                        help="a TOML file of the above (decks, bots, idle_cleanup, "
                             "reveal_seconds, allow_fixed_seeds, tables_per_minute, "
                             "seat_requests_per_minute, socket_messages_per_minute, "
                             "seat_connections_per_minute, http_requests_per_minute, "
                             "sockets_awaiting_hello_per_address, "
                             "seat_control_changes_per_minute; 0: no limit); flags win. The "
                             "limits are counted in this one "
                             "process's memory")
    parser.add_argument("--log-level", default="info",
                        choices=("critical", "error", "warning", "info", "debug"),
                        help="uvicorn's log level (default %(default)s)")
    parser.set_defaults(func=run)


def check_db(path: Path) -> None:
    """Refuse a database path the server could not open, before anything starts.

    Raises:
        ValueError: the folder does not exist, or the path is a folder.
    """
    folder = path.expanduser().parent
    if not folder.is_dir():
        raise ValueError(f"--db {path}: the folder {folder} does not exist; create it first "
                         f"(mkdir -p {folder}) or give another path")
    if path.expanduser().is_dir():
        raise ValueError(f"--db {path} is a folder; give the database file's path, e.g. "
                         f"{path / 'dixit.sqlite3'}")


def check_decks(decks: dict[str, str], source: str) -> None:
    """Load every offered deck once, so that a bad spec is refused before anything starts.

    Raises:
        ValueError: a deck that cannot be loaded, or too small for any game; the message names
            it and where it was given.
    """
    from dixit_ai.decks import load_deck
    from dixit_ai.web.config import too_small_for_any_game

    for name, spec in decks.items():
        try:
            deck = load_deck(spec)
        except (ValueError, OSError) as error:
            raise ValueError(f"{source} {name}={spec}: {error}") from None
        problem = too_small_for_any_game(len(deck.card_ids))
        if problem:
            raise ValueError(f"{source} {name}={spec}: {problem}")


def check_port(host: str, port: int) -> None:
    """Refuse an address the server could not listen on, before anything is created: bind
    it as uvicorn will (address reuse on, IPv6 sockets IPv6 only), then let it go.

    Raises:
        ValueError: the host is unknown or not this machine's, or the port is taken (or not
            open to this user).
    """
    import errno
    import socket

    try:
        addresses = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                       flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise ValueError(f"--host {host}: {error.strerror}") from None
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind(address)
            except OSError as error:
                hint = ("another program listens there; stop it or give another --port"
                        if error.errno == errno.EADDRINUSE else "give another --host or --port")
                raise ValueError(f"cannot listen on {host}:{port} ({error.strerror}): "
                                 f"{hint}") from None


def run(args: argparse.Namespace) -> int:
    args.db = args.db.expanduser()  # one path for every check and for the server ('~/t.db')
    check_db(args.db)
    missing = [name for name in ("fastapi", "uvicorn", "websockets")
               if importlib.util.find_spec(name) is None]
    if missing:
        print(f"dixit-ai serve: error: {', '.join(missing)} not installed; install the web "
              f"extra with: {WEB_EXTRA_HINT}", file=sys.stderr)
        return 2
    if not 0 < args.port < 65536:
        raise ValueError(f"--port must be between 1 and 65535, not {args.port}")
    if args.bot_workers < 1:
        raise ValueError(f"--bot-workers must be at least 1, not {args.bot_workers}")
    import uvicorn

    from dixit_ai.web.app import MAX_SOCKET_FRAME_BYTES, create_app
    from dixit_ai.web.config import check_bot_delay, server_config_from_options
    from dixit_ai.web.store import DatabaseInUse, check_database, ensure_free

    check_bot_delay(args.bot_delay, "--bot-delay")

    server = server_config_from_options(config=args.config, decks=args.deck, bots=args.bot,
                                        idle_cleanup=args.idle_cleanup,
                                        reveal_seconds=args.reveal_seconds)
    check_decks(server.decks, "--deck" if args.deck else f"--config {args.config}: deck")
    check_port(args.host, args.port)
    db = args.db
    check_database(args.db)  # not a tables database: refused before any lock file is made
    new_files = [path for path in (db, *(db.with_name(db.name + end)
                                         for end in ("-wal", "-shm", ".lock")))
                 if not path.exists()]
    try:
        ensure_free(args.db)
    except DatabaseInUse as error:
        print(f"dixit-ai serve: error: {error}", file=sys.stderr)
        return 2
    app = create_app(args.db, durable=not args.fast_commits, bot_delay=args.bot_delay,
                     bot_workers=args.bot_workers, server=server)
    print(f"dixit-ai tables on http://{args.host}:{args.port}/ (database {args.db})",
          flush=True)
    try:
        uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level,
                    ws="websockets-sansio", ws_max_size=MAX_SOCKET_FRAME_BYTES)
    except SystemExit as stop:  # uvicorn's own status (3) when the server did not start
        if stop.code in (0, None):
            raise
        # A start that failed keeps no new database and no new lock file (an old database
        # is kept, with its journal).
        lock = db.with_name(db.name + ".lock")
        for path in new_files:
            if db in new_files or path == lock:
                path.unlink(missing_ok=True)
        print("dixit-ai serve: error: the server did not start (its log above says why)",
              file=sys.stderr)
        return EXIT_FAILED
    return 0
