"""Who plays a tournament's run folder: one process holds it while it plays (a lock on the
folder), so that a second ``--resume`` does not append the same games, and an analysis can tell
that the run it reads is being played."""

from __future__ import annotations

import os
from pathlib import Path

from dixit_ai.tournament.store import ResumeError


def _lock_folder(folder: Path, *, exclusive: bool) -> int | None:
    """A descriptor of ``folder`` holding a lock on it (exclusive, or shared), released when
    the descriptor is closed or the process ends. ``None``: locks are not available here (no
    ``fcntl``, or a file system without them), and nothing is held.

    Raises:
        BlockingIOError: another process holds a lock that conflicts with it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    handle = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(handle, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except OSError as error:
        os.close(handle)
        if isinstance(error, BlockingIOError):
            raise
        return None  # a file system without locks
    return handle


def lock_run(folder: Path) -> int | None:
    """Hold ``folder`` as the run this process plays (an exclusive lock on the folder, released
    when the returned descriptor is closed, or when the process ends however it ends), so that
    a second ``--resume`` of it does not play and append the same games. ``None``: locks are not
    available here (no ``fcntl``, or a file system without them), and nothing is held.

    Raises:
        ResumeError: another process holds the run.
    """
    try:
        return _lock_folder(folder, exclusive=True)
    except BlockingIOError:
        raise ResumeError(f"{folder}: another process is playing this run (it holds the "
                          "folder); wait for it to end, or stop it, then resume") from None


def run_in_play(folder: Path) -> bool:
    """Whether another process holds ``folder`` as the run it plays (:func:`lock_run`); the
    check takes and drops a shared lock, so it never holds the run. ``False`` where locks are
    not available."""
    try:
        handle = _lock_folder(folder, exclusive=False)
    except BlockingIOError:
        return True
    if handle is not None:
        os.close(handle)  # closing drops the shared lock
    return False
