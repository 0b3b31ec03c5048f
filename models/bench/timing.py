"""Time spent in model inference, apart from everything else a run does."""

from __future__ import annotations

import threading
import time
from types import TracebackType
from typing import Any

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
