"""Timing: the time spent in model inference, apart from everything else a run does
(:class:`InferenceTimer`), and the panel bench's storytelling decisions (:func:`time_decisions`).
"""

from __future__ import annotations

import statistics
import threading
import time
from types import TracebackType
from typing import Any

import numpy as np

from models.base import Embedder


class InferenceTimer:
    """While active, adds up the time every embedder spends encoding images and texts.

    Every embedder encodes through :meth:`models.base.Embedder._run` (the batched forward
    passes); the timer wraps that one method for the duration of a ``with`` block, so cache
    hits, which never reach it, cost no inference time. Not re-entrant.

    >>> with InferenceTimer() as timer:
    ...     pass
    >>> timer.seconds, timer.items
    (0.0, 0)
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.items = 0
        self.calls = 0
        self._lock = threading.Lock()
        self._original: Any = None

    def __enter__(self) -> InferenceTimer:
        original = Embedder._run
        self._original = original
        timer = self

        def timed(embedder: Embedder, items: list[Any], *args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(embedder, items, *args, **kwargs)
            finally:
                with timer._lock:
                    timer.seconds += time.perf_counter() - start
                    timer.items += len(items)
                    timer.calls += 1

        Embedder._run = timed  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        Embedder._run = self._original  # type: ignore[method-assign]

    def to_dict(self) -> dict[str, Any]:
        return {"inference_s": round(self.seconds, 4), "items_encoded": self.items,
                "encode_calls": self.calls}


def time_decisions(crowd: dict[str, Any], n: int, aimed: dict[str, Any] | None = None
                   ) -> dict[str, dict[str, float]]:
    """Median wall and CPU milliseconds of a storytelling decision: target 0.5 (``clip-greedy``)
    and expected points (``clip-expected-self``), each simulating itself (``self``,
    ``expected-self``) and the population (``population``, ``expected-population``), and the
    population storyteller that reads its table (``expected-reading``: ``clip-reader``, its
    simulated deals laid out by its belief; in a first round, the prior), and the registry's
    ``clip-expected`` as it is configured there (``clip-expected``)."""
    from dixit_ai.agents import make_agent

    out = {}
    for label, name, kwargs in (("self", "clip-greedy", {}),
                                ("population", "clip-greedy", {**crowd, **(aimed or {})}),
                                ("expected-self", "clip-expected-self", {}),
                                ("expected-population", "clip-expected-self", crowd),
                                ("expected-reading", "clip-reader", crowd),
                                ("clip-expected", "clip-expected", {})):
        agent = make_agent(name, **kwargs)
        ids = list(agent.resources.card_ids)  # type: ignore[attr-defined]  # CLIP players
        wall, cpu, _story = time_tells(agent, storyteller_views(ids, n, seed=7))
        out[label] = {"wall_ms": 1000 * statistics.median(wall),
                      "cpu_ms": 1000 * statistics.median(cpu)}
    return out


def storyteller_views(card_ids: list[int], n: int, *, seed: int,
                      edition: str = "refresh-2021", n_players: int = 5) -> list[Any]:
    """The storyteller's views of the first rounds of ``n`` games on ``card_ids`` (5-player
    refresh-2021 unless told), game ``i`` dealt by ``default_rng([seed, i])``."""
    from dixit_ai.rules import RuleSet, new_game, observe

    rules = RuleSet.edition(edition)
    views = []
    for i in range(n):
        state = new_game(rules, n_players, card_ids, np.random.default_rng([seed, i]))
        views.append(observe(state, state.storyteller))
    return views


def time_tells(agent: Any, views: list[Any]) -> tuple[list[float], list[float], Any]:
    """Wall and CPU seconds of ``agent``'s tell on each view, and its last story.

    Each view is told once first, untimed, so that what a first decision embeds and caches (the
    pair clues of its hand) is not timed; then each is timed with the agent reset on
    ``default_rng(i)``.
    """
    for view in views:
        agent.reset(seat=view.seat, rng=np.random.default_rng(0))
        agent.tell(view)
    wall, cpu = [], []
    story = None
    for i, view in enumerate(views):
        agent.reset(seat=view.seat, rng=np.random.default_rng(i))
        start, cpu_start = time.perf_counter(), time.process_time()
        story = agent.tell(view)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - cpu_start)
    return wall, cpu, story
