"""Private web tables: people play Dixit in the browser and bots take the empty seats.

``create_app(db_path, server=ServerConfig(...))`` builds the FastAPI application (the ``[web]``
extra); ``dixit-ai serve`` runs it with uvicorn. The pieces, from the bottom up:

- :mod:`dixit_ai.web.session`: one table's game as a replayable event log over the pure rules;
- :mod:`dixit_ai.web.messages`: what a seat (or a spectator) is told, built from a view alone;
- :mod:`dixit_ai.web.fairness`: secret seeds, their commitment and its check;
- :mod:`dixit_ai.web.config`: what the host offers (decks, bots, clean-up) and the bounds of
  every option a table may ask for;
- :mod:`dixit_ai.web.store`: SQLite persistence (WAL; every event committed before it is
  acknowledged; one server per database);
- :mod:`dixit_ai.web.table`: one table in memory;
- :mod:`dixit_ai.web.manager`: moves in and the life of a table, made of
  :mod:`~dixit_ai.web.lobby` (seats, tokens, recovery, rematch),
  :mod:`~dixit_ai.web.persistence` (writes, restoring, idle clean-up),
  :mod:`~dixit_ai.web.bots` (warm-up, bots' memory), :mod:`~dixit_ai.web.timers` (clocks),
  :mod:`~dixit_ai.web.connections` (sockets and messages) and :mod:`~dixit_ai.web.cards`;
- :mod:`dixit_ai.web.app`: the HTTP and WebSocket routes and the page (``static/``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":  # imports FastAPI only when asked for
        from dixit_ai.web.app import create_app

        return create_app
    raise AttributeError(f"module 'dixit_ai.web' has no attribute {name!r}")
