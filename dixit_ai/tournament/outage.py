"""An HTTP agent's server outage stops a tournament, resumably, instead of becoming forfeits.

An agent whose endpoint stops answering (connection refused, closed or cut off, a timeout, an
HTTP 5xx: an :class:`~dixit_ai.agents.http_transport.EndpointError` whose ``unreachable`` is
true, raised once the agent's own retries are spent) fails every decision from then on: under
``forfeit`` a run would record hundreds of forfeits and rank the agent last, under ``abort``
every game aborted, and ``--resume`` would play none of them again, since they are recorded.
So a :class:`GamePlayer` counts, per entrant
and process, the decisions in a row that failed that way; at :data:`MAX_ENDPOINT_FAILURES` the
decision raises :class:`EndpointOutage` instead of failing: the game in play is not recorded,
the run stops (exit 1 with the resume advice), and ``--resume`` plays it, and the rest, once the
endpoint answers again. Any decision of the entrant that ends otherwise (an answer, even an
invalid one, or an endpoint error that is no outage, such as HTTP 4xx: the endpoint is up)
starts the count again.

Games that ended before the count was reached keep their failures, as recorded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from dixit_ai.agents.http_transport import EndpointError
from dixit_ai.match import StopsTheGame

MAX_ENDPOINT_FAILURES = 5
"""Decisions in a row of one entrant (in one process) that failed to reach its endpoint, at
which the tournament stops (resumable); ``GamePlayer(endpoint_failures=...)`` takes another."""


class EndpointOutage(StopsTheGame):
    """An entrant's endpoint failed :data:`MAX_ENDPOINT_FAILURES` decisions in a row: the game
    in play is not recorded and the run stops, to be resumed once the endpoint answers."""


@dataclass
class OutageCount:
    """Per entrant label, the decisions in a row that failed with an endpoint error."""

    limit: int = MAX_ENDPOINT_FAILURES
    failed: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        check_endpoint_failures(self.limit)

    def ended(self, label: str, error: BaseException | None) -> None:
        """Count a decision of ``label`` that ended (``error``: how it failed, else ``None``).

        Raises:
            EndpointOutage: the ``limit``-th endpoint failure in a row (from ``error``).
        """
        with self.lock:
            if not (isinstance(error, EndpointError) and error.unreachable):
                self.failed[label] = 0
                return
            count = self.failed.get(label, 0) + 1
            self.failed[label] = count
        if count >= self.limit:
            raise EndpointOutage(
                f"{label}: {count} decisions in a row could not get an answer from its endpoint "
                f"(the last: {type(error).__name__}: {error}); the run stops here (at most "
                f"{self.limit} such failures in a row, tournament.outage.MAX_ENDPOINT_FAILURES) "
                "and the game in play is not recorded: once the endpoint answers again, "
                "resume the run, which plays it and the rest") from error

    def __getstate__(self) -> dict[str, object]:
        return {"limit": self.limit, "failed": dict(self.failed)}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.limit = state["limit"]  # type: ignore[assignment]
        self.failed = state["failed"]  # type: ignore[assignment]
        self.lock = threading.Lock()


def check_endpoint_failures(value: object) -> None:
    """Refuse a limit that is not an int of at least 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"endpoint_failures must be an int of at least 1, not {value!r}")
