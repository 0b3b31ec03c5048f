"""Playing a schedule: in this process, on a pool of local processes, or on Ray actors.

Every backend hands a :class:`~dixit_ai.tournament.player.GamePlayer` the scheduled games and
gets each game's record back as one line of JSON. A player makes each agent once (from its
registry name) and reuses it for every game, calling ``reset(seat=..., rng=...)`` at the start of
each game as :func:`~dixit_ai.match.play_game` does; an agent that plays two seats of one game
gets a second instance. Each game's randomness comes from its own seed, so which worker plays
which game changes nothing: the records, and so the results, are the same for any backend and any
number of workers (byte for byte).

Results come back **in schedule order** (the parent writes them as they arrive), so a run's
``games.jsonl`` is identical however it was computed.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from dixit_ai.agents import AgentSpec, prepare_agents
from dixit_ai.agents.registry import agent_specs, install_agent_specs
from dixit_ai.tournament.config import TournamentConfig
from dixit_ai.tournament.player import GamePlayer, InPlay
from dixit_ai.tournament.schedule import ScheduledGame

Backend = Literal["local", "ray"]
BACKENDS: tuple[str, ...] = ("local", "ray")

MAX_WORKERS = 1024
"""The most workers of a run (local processes or Ray actors): each makes its own agents (a model
in memory each), so more would exhaust a machine, or a cluster's object store, before the first
game."""

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Set to 1 in worker processes (unless already set) so that N workers use N cores, not N^2."""


# ---------------------------------------------------------------------- local processes

_WORKER: GamePlayer | None = None
_WORKER_ERROR: BaseException | None = None
_STARTS: Any = None  # a queue: (game index, pid, time) as each game starts in this worker


def _exit_with_parent(parent: int, interval: float = 0.5) -> None:
    """End this worker process soon after its parent dies (a killed run leaves no workers)."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _init_worker(config: TournamentConfig, parent: int | None = None, go: Any = None,
                 abort: Any = None, starts: Any = None,
                 specs: dict[str, AgentSpec] | None = None) -> None:
    """Start a pool worker: install the parent's registry entries of the agents (``specs``: an
    agent registered in code in the parent is not registered in a spawned process), import the
    agents' code, wait for ``go`` (the parent has prepared the agents' embeddings: the worker
    must not compute them again), then make the agents.

    An error here is kept and raised by the first game, so that the parent gets it as is (an
    initializer that raises only breaks the pool, with a generic message).
    """
    global _WORKER, _WORKER_ERROR, _STARTS
    _STARTS = starts
    if parent is not None:
        _exit_with_parent(parent)
    try:
        from dixit_ai.agents import import_agent_code

        if specs is not None:
            install_agent_specs(specs)

        for entry in config.agents:  # the slow part of a start, done while the parent prepares
            import_agent_code(entry.agent)
        if go is not None:
            go.wait()
        if abort is not None and abort.is_set():
            raise RuntimeError("the tournament stopped before this worker played")
        _WORKER = GamePlayer(config)
        _WORKER.warm_up()
    except Exception as error:
        _WORKER_ERROR = error


def _worker_started() -> None:
    """A no-op task: submitting one starts a pool worker at once."""


def _play_in_worker(game: ScheduledGame) -> str:
    if _WORKER_ERROR is not None:
        raise _WORKER_ERROR
    if _WORKER is None:  # pragma: no cover - the pool's initializer sets it
        raise RuntimeError("worker used before its initializer ran")
    if _STARTS is not None:
        _STARTS.put((game.index, os.getpid(), time.time()))
    return _WORKER.play(game)


@contextmanager
def _single_threaded_children() -> Iterator[None]:
    """Set the thread-count variables for processes started inside the block."""
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, "1")
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def play_local(config: TournamentConfig, games: Sequence[ScheduledGame], *,
               workers: int = 1, player: GamePlayer | None = None,
               idle: Callable[[], None] | None = None,
               prepare: Callable[[], None] | None = None,
               in_play: InPlay | None = None) -> Iterator[str]:
    """Yield each game's record (JSON), in the order of ``games``.

    ``workers`` processes play: this one (with ``player`` if given, so a caller can reuse its
    loaded agents) and ``workers - 1`` started in a pool (``spawn``: nothing of this process's
    state, threads or loaded models is inherited), each making its agents once. Games are
    handed out one at a time to whoever is free, so that no process idles while games remain;
    this process plays a game whenever it is not writing records. A worker that cannot start
    (an agent that cannot be made) fails the run with its error.

    ``idle`` is called once, in this process, when it has no game left to play and waits for
    the workers' last ones (a caller can do there what it will need next, such as imports).
    ``prepare`` is called once before any game (the agents' one-time embeddings); the pool's
    workers start before it and do their imports meanwhile, but make their agents only after
    it (so that nothing is embedded twice). ``in_play`` is kept up to date with the games
    being played (here and in the workers).
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if not games:
        return
    player = player or GamePlayer(config)
    spawned = min(workers, len(games)) - 1
    if spawned == 0:
        if prepare is not None:
            prepare()
        for game in games:
            yield _play_here(player, game, in_play)
        return
    yield from _play_with_pool(config, games, spawned, player, idle, prepare, in_play)


def _play_here(player: GamePlayer, game: ScheduledGame, in_play: InPlay | None) -> str:
    """``player.play(game)`` in this process, kept in ``in_play`` while it plays."""
    if in_play is None:
        return player.play(game)
    in_play.started(game.index, "this process")
    try:
        return player.play(game)
    finally:
        in_play.finished(game.index)


@dataclass
class _Handout:
    """Games of a run handed out in schedule order to this process and to the pool's workers."""

    games: Sequence[ScheduledGame]
    next: int = 0
    stopped: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def claim(self) -> int | None:
        """The position of the next game nobody plays yet, or ``None``."""
        with self.lock:
            if self.stopped or self.next >= len(self.games):
                return None
            self.next += 1
            return self.next - 1

    def stop(self) -> None:
        """Hand out no more games."""
        with self.lock:
            self.stopped = True

    def left(self) -> int:
        with self.lock:
            return len(self.games) - self.next


def _game_ended(in_play: InPlay, index: int, _: Future[str]) -> None:
    in_play.finished(index)


def _feed_pool(executor: ProcessPoolExecutor, handout: _Handout, spawned: int,
               futures: dict[int, Future[str]], ready: threading.Condition,
               in_play: InPlay | None = None) -> None:
    """Keep the pool's workers busy: a game each, and one more queued while many games are left
    (so that a worker never waits for this process to hand it the next); ``ready`` is
    notified as games finish."""
    running: set[Future[str]] = set()

    def finished(_: Future[str]) -> None:
        with ready:
            ready.notify_all()

    while True:
        # Near the end, a game queued behind another one could leave this process idle.
        depth = 2 if handout.left() > 2 * (spawned + 1) else 1
        while len(running) < spawned * depth:
            position = handout.claim()
            if position is None:
                break
            try:
                future = executor.submit(_play_in_worker, handout.games[position])
            except RuntimeError as error:  # a broken pool, or shut down: the run ended
                future = Future()
                future.set_exception(error)
            with ready:
                futures[position] = future
                ready.notify_all()
            future.add_done_callback(finished)
            if in_play is not None:
                future.add_done_callback(functools.partial(
                    _game_ended, in_play, handout.games[position].index))
            running.add(future)
        if not running:
            return
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        running -= done
        if any(future.cancelled() or future.exception() is not None for future in done):
            handout.stop()  # the run fails at that game: play no further ones
            return


def _listen_for_starts(starts: Any, in_play: InPlay, stop: threading.Event) -> None:
    """Move the workers' start notices (game index, pid, time) into ``in_play``."""
    import queue

    while not stop.is_set():
        try:
            index, pid, at = starts.get(timeout=0.2)
        except queue.Empty:
            continue
        except (EOFError, OSError, ValueError):  # the queue is closed: the run ended
            return
        in_play.started(index, f"worker process {pid}", at)


def _play_with_pool(config: TournamentConfig, games: Sequence[ScheduledGame], spawned: int,
                    player: GamePlayer, idle: Callable[[], None] | None,
                    prepare: Callable[[], None] | None = None,
                    in_play: InPlay | None = None) -> Iterator[str]:
    """:func:`play_local` with ``spawned`` pool workers beside this process."""
    handout = _Handout(games)
    futures: dict[int, Future[str]] = {}
    mine: dict[int, str | Exception] = {}
    ready = threading.Condition()
    context = multiprocessing.get_context("spawn")
    go, abort = context.Event(), context.Event()
    starts = context.Queue() if in_play is not None else None
    stop_listening = threading.Event()
    listener = (threading.Thread(target=_listen_for_starts, name="tournament-starts",
                                 daemon=True, args=(starts, in_play, stop_listening))
                if in_play is not None else None)
    with _single_threaded_children():  # a worker starts at each submission, up to `spawned`
        executor = ProcessPoolExecutor(spawned, mp_context=context, initializer=_init_worker,
                                       initargs=(config, os.getpid(), go, abort, starts,
                                                 _specs(config)))
        feeder = threading.Thread(target=_feed_pool, name="tournament-feeder", daemon=True,
                                  args=(executor, handout, spawned, futures, ready, in_play))
        if listener is not None:
            listener.start()
        try:
            for _ in range(spawned):  # start them now: their imports overlap `prepare`
                executor.submit(_worker_started)
            try:
                if prepare is not None:
                    prepare()
            except BaseException:
                abort.set()
                raise
            finally:
                go.set()
            feeder.start()
            for position in range(len(games)):
                while position not in mine:
                    with ready:
                        future = futures.pop(position, None)
                    if future is None:
                        if not _play_one(handout, player, mine, in_play):
                            with ready:  # handed to the feeder, not submitted yet
                                ready.wait(0.05)
                        continue
                    # Play on here while that game is still being played in a worker.
                    while not future.done() and _play_one(handout, player, mine, in_play):
                        pass
                    if idle is not None and not future.done() and not handout.stopped:
                        idle()  # nothing left to play here: the last games are the workers'
                        idle = None
                    mine[position] = future.result()  # a worker's error is raised here
                result = mine.pop(position)
                if isinstance(result, Exception):
                    raise result
                yield result
        finally:
            handout.stop()
            go.set()  # a worker still waiting must not wait for ever
            executor.shutdown(wait=True, cancel_futures=True)
            if feeder.ident is not None:  # started (prepare may have failed before)
                feeder.join()
            stop_listening.set()
            if listener is not None:
                listener.join()
            if starts is not None:
                starts.close()


def _specs(config: TournamentConfig) -> dict[str, AgentSpec]:
    """The registry entries of the tournament's agents, for its workers."""
    return agent_specs({entry.agent for entry in config.agents})


def _play_one(handout: _Handout, player: GamePlayer, mine: dict[int, str | Exception],
              in_play: InPlay | None = None) -> bool:
    """Claim the next game and play it here; ``False`` when none is left.

    An error is kept in ``mine`` (and raised when the run reaches that game, after the
    records before it), and no further game is handed out.
    """
    position = handout.claim()
    if position is None:
        return False
    try:
        mine[position] = _play_here(player, handout.games[position], in_play)
    except Exception as error:
        mine[position] = error
        handout.stop()
    return True


# ---------------------------------------------------------------------- Ray

def ray_module() -> Any:
    """``import ray``, or an ImportError that names the extra to install."""
    try:
        import ray
    except ImportError as error:
        raise ImportError(
            "--backend ray needs Ray; install it with: pip install 'dixit-ai[dist]' "
            f"({error})") from error
    return ray


def play_ray(config: TournamentConfig, games: Sequence[ScheduledGame], *, workers: int = 1,
             address: str | None = None) -> Iterator[str]:
    """Yield each game's record (JSON), in the order of ``games``, played by Ray actors.

    Uses the running Ray if this process already called ``ray.init``; otherwise calls
    ``ray.init(address)``: with no address, Ray joins the cluster named by ``RAY_ADDRESS`` or
    started on this machine with ``ray start``, else starts a local one with ``workers`` CPUs.
    ``workers`` actors (one CPU each) make their agents once and play games handed out in turn.
    The machines of a cluster need dixit-ai (and the agents' extras) installed.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    if not games:
        return
    ray = ray_module()
    from ray.util import ActorPool

    started_here = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None and not os.environ.get("RAY_ADDRESS"):
            try:
                ray.init(num_cpus=workers, **options)
            except (ValueError, RuntimeError):  # a `ray start` cluster exists: join it
                ray.init(**options)
        else:
            ray.init(address=address, **options)
        started_here = True
    actors: list[Any] = []
    try:
        remote_player = ray.remote(num_cpus=1)(_RayPlayer)
        specs = _specs(config)
        actors = [remote_player.remote(config, specs)
                  for _ in range(min(workers, len(games)))]
        pool = ActorPool(actors)
        yield from pool.map(lambda actor, game: actor.play.remote(game), list(games))
    finally:
        for actor in actors:
            ray.kill(actor)
        if started_here:
            ray.shutdown()


class _RayPlayer:
    """The Ray actor: one :class:`GamePlayer`, warmed up when the actor starts."""

    def __init__(self, config: TournamentConfig,
                 specs: dict[str, AgentSpec] | None = None) -> None:
        if specs is not None:
            install_agent_specs(specs)
        self.player = GamePlayer(config)
        self.player.warm_up()

    def play(self, game: ScheduledGame) -> str:
        return self.player.play(game)


def check_backend(backend: str, workers: int, address: str | None) -> None:
    """Raise ``ValueError`` for an unknown backend, a worker count below 1 or above
    :data:`MAX_WORKERS`, or an address without Ray; ``ImportError`` (naming the extra) for Ray
    when it is not installed."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers!r}")
    if workers > MAX_WORKERS:
        raise ValueError(f"workers must be at most {MAX_WORKERS:,}, not {workers:,}")
    if address is not None and backend != "ray":
        raise ValueError("--address is for --backend ray")
    if backend == "ray":
        ray_module()  # before any run folder is made: a missing extra is named at once


def play_games(config: TournamentConfig, games: Sequence[ScheduledGame], *,
               backend: Backend = "local", workers: int = 1, address: str | None = None,
               player: GamePlayer | None = None,
               log: Callable[[str], None] | None = None,
               idle: Callable[[], None] | None = None,
               in_play: InPlay | None = None) -> Iterator[str]:
    """Yield the records (JSON) of ``games`` in order, on the chosen backend.

    ``log`` gets a line per one-time step of the agents' preparation (see
    :func:`dixit_ai.agents.prepare_agents`); ``idle`` is for local workers (see
    :func:`play_local`); ``in_play`` is kept up to date with the games being played (local
    backend only: Ray's actors do not report when a game starts).
    """
    check_backend(backend, workers, address)

    def prepare() -> None:
        """The embeddings the agents need, computed here once, before any worker makes its
        agents."""
        prepare_agents([(entry.agent, entry.kwargs) for entry in config.agents],
                       deck=config.deck, progress=log)

    if backend == "ray":
        if games:
            prepare()
        return play_ray(config, games, workers=workers, address=address)
    return play_local(config, games, workers=workers, player=player, idle=idle,
                      prepare=prepare, in_play=in_play)
