"""Private web tables: people play Dixit in the browser and bots take the empty seats.

``create_app(db_path)`` builds the FastAPI application (the ``[web]`` extra); ``dixit-ai serve``
runs it with uvicorn. The pieces, from the bottom up:

- :mod:`dixit_ai.web.session`: one table's game as a replayable event log over the pure rules;
- :mod:`dixit_ai.web.messages`: what a seat is told, built from that seat's view alone;
- :mod:`dixit_ai.web.store`: SQLite persistence (WAL; every event committed before it is
  acknowledged);
- :mod:`dixit_ai.web.manager`: tables, seats, tokens, bots, timers and the message hub;
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
