"""Load test of the web tables: many tables at once, each one scripted person and bots.

Starts ``dixit-ai serve`` on a free loopback port (or uses ``--url``), opens ``--tables`` tables in
parallel, each with one person (a WebSocket client that always plays its first card, says a short
clue and votes for the first card it may) and bots in the other seats, and plays every game to its
end. It prints the latency from each of the person's moves to the state message that shows it
(p50, p95, max), the errors, and checks that no event was lost: every client must see every event
number once, in order, and the last one must match the game record.

    python scripts/load_test_web.py                       # 20 tables, 4 seats, whole games
    python scripts/load_test_web.py --tables 2 --score-limit 6 --json load.json
    python scripts/load_test_web.py --bot clip-greedy,random,random --runs 3   # clip bots

It also prints the server's warm-up time (its cold start: every offered bot made ready), the
latency of the first bot move after warm-up, and, with ``--runs``, the server's resident memory
after each run of every table.

Exit status 1 on any error or lost event, or when ``--max-p95-ms`` is given and exceeded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from dixit_ai.cli.common import check_at_least

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Args:
    """The load test's settings."""

    tables: int = 20
    """Tables playing at the same time."""
    seats: int = 4
    """Seats per table: one scripted person, bots in the rest."""
    bot: str = "random"
    """The bots' registry names, one for every bot seat or one for all (comma-separated)."""
    runs: int = 1
    """Runs of ``--tables`` games on the same server (memory is printed after each)."""
    bot_workers: int = 2
    """The server's ``--bot-workers`` (threads deciding bots' moves)."""
    edition: str = "refresh-2021"
    """Edition of the rules."""
    score_limit: int = 30
    """Points that end a game (30: whole games of the 2021 rules)."""
    deck: str = "dream"
    """Deck spec."""
    seed: int = 0
    """Table ``i`` gets seed ``seed + i``."""
    bot_delay: float = 0.0
    """Seconds each bot waits before it moves (0: as fast as the server goes)."""
    fast_commits: bool = False
    """Run the server with ``--fast-commits`` (no disk sync per commit)."""
    url: str | None = None
    """Use a running server instead of starting one."""
    timeout: float = 300.0
    """Seconds the whole test may take."""
    max_p95_ms: float | None = None
    """Fail when the p95 latency exceeds this."""
    json: str | None = None
    """Also write the results here."""


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    defaults = Args()
    docs = {"tables": "tables playing at once", "seats": "seats per table (1 person, bots)",
            "bot": "bots' registry names (comma-separated: one per bot seat, or one)",
            "runs": "runs of all tables on the same server",
            "bot_workers": "server's threads deciding bots' moves",
            "edition": "edition of the rules",
            "score_limit": "points that end a game", "deck": "deck spec",
            "seed": "table i gets seed SEED + i", "bot_delay": "seconds a bot waits to move",
            "url": "use this running server", "timeout": "seconds the test may take",
            "max_p95_ms": "fail above this p95 latency", "json": "write results here"}
    for name, help_text in docs.items():
        value = getattr(defaults, name)
        kind = type(value) if value is not None else (float if name == "max_p95_ms" else str)
        parser.add_argument(f"--{name.replace('_', '-')}", type=kind, default=value,
                            help=f"{help_text} (default {value})")
    parser.add_argument("--fast-commits", action="store_true",
                        help="server without a disk sync per commit")
    args = parser.parse_args()
    try:  # before the server starts: no table or no run measures nothing (and exited 0)
        check_at_least(args, (("tables", 1), ("runs", 1), ("bot_workers", 1)))
    except ValueError as error:
        parser.error(str(error))
    return Args(**vars(args))


@dataclass
class TableResult:
    """What one scripted person measured."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lost: int = 0
    events_seen: int = 0
    events_in_record: int = 0
    rounds: int = 0
    final_scores: list[int] = field(default_factory=list)


def move(game: dict[str, Any], seat: int) -> dict[str, Any]:
    if game["phase"] == "tell":
        return {"type": "tell", "card": game["hand"][0], "clue": f"load {game['round']}"}
    if game["phase"] == "play":
        return {"type": "play", "cards": game["hand"][:game["cards_to_play"]]}
    return {"type": "vote", "positions": game["legal_vote_positions"][:1]}


async def one_table(index: int, base: str, args: Args) -> TableResult:
    result = TableResult()
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        response = await http.post("/api/tables", json={
            "name": f"load-{index}", "seats": args.seats, "edition": args.edition,
            "deck": "load", "bots": bot_list(args), "score_limit": args.score_limit,
            "seed": args.seed + index, "experiment": True})
        response.raise_for_status()
        made = response.json()
        async with connect(base.replace("http", "ws", 1) + "/ws", max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
            await ws.send(json.dumps({"type": "start", "ref": 0}))
            refs = 0
            sent_at: dict[int, float] = {}      # ref -> when the move left
            acked: dict[int, tuple[int, float]] = {}  # ref -> (event, sent at)
            arrived: dict[int, float] = {}      # event -> when its state arrived first
            last_event = 0
            done_for: set[tuple[int, str]] = set()
            while True:
                text = await ws.recv()
                now = time.perf_counter()
                message = json.loads(text)
                kind = message["type"]
                if kind == "error":
                    result.errors.append(message["message"])
                    continue
                if kind == "ack":
                    if message["ref"] in sent_at:
                        acked[message["ref"]] = (message["event"], sent_at.pop(message["ref"]))
                elif kind == "state":
                    event = message["event"]
                    if event > last_event + 1:
                        result.lost += event - last_event - 1
                    if event > last_event:
                        last_event = event
                        result.events_seen += 1
                    arrived.setdefault(event, now)
                for ref, (event, started) in list(acked.items()):
                    if event in arrived:
                        result.latencies.append(arrived[event] - started)
                        del acked[ref]
                if kind != "state":
                    continue
                game = message["game"]
                if game is None:
                    continue
                if game["phase"] == "over":
                    break
                key = (game["round"], game["phase"])
                if made["seat"] in game["pending"] and key not in done_for:
                    done_for.add(key)
                    refs += 1
                    action = move(game, made["seat"])
                    action["ref"] = refs
                    sent_at[refs] = time.perf_counter()
                    await ws.send(json.dumps(action))
        record = (await http.get(f"/api/tables/{made['table_id']}/record.json")).json()
    result.rounds = len(record["rounds"])
    result.final_scores = record["final_scores"]
    # Each round: the storyteller's tell, every guesser's play, every vote.
    result.events_in_record = sum(len([p for p in r["played"] if p]) + len(r["votes"])
                                  for r in record["rounds"])
    if last_event != result.events_in_record:
        result.errors.append(f"table {index}: saw {last_event} events, the record has "
                             f"{result.events_in_record}")
    return result


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def bot_list(args: Args) -> list[str]:
    names = [n.strip() for n in args.bot.split(",") if n.strip()]
    return names if len(names) > 1 else names * (args.seats - 1)


def start_server(args: Args, folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, "-m", "dixit_ai.cli", "serve", "--port", str(port),
               "--db", str(folder / "load.sqlite3"), "--bot-delay", str(args.bot_delay),
               "--log-level", "warning", "--deck", f"load={args.deck}",
               "--bot-workers", str(args.bot_workers)]
    for name in sorted(set(bot_list(args))):
        command += ["--bot", name]
    if args.fast_commits:
        command.append("--fast-commits")
    process = subprocess.Popen(command, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{base}/api/options", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.1)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def wait_for_bots(base: str, timeout: float) -> float:
    """Seconds until the server says every offered bot is warm (its cold start)."""
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while time.perf_counter() - started < timeout:
            bots = (await http.get("/api/options")).json()["bots"]
            if any(b["status"] == "failed" for b in bots):
                raise SystemExit(f"a bot failed to warm up: {bots}")
            if all(b["status"] == "ready" for b in bots):
                return time.perf_counter() - started
            await asyncio.sleep(0.2)
    raise SystemExit("the bots did not warm up in time")


async def first_bot_move(base: str, args: Args) -> float:
    """Seconds from a person's clue to the first bot move answering it, on a fresh table.

    Also renders the deck's cards for the first time (once per machine): not part of the test.
    """
    async with httpx.AsyncClient(base_url=base, timeout=300) as http:
        made = (await http.post("/api/tables", json={
            "name": "probe", "seats": args.seats, "deck": "load", "edition": args.edition,
            "bots": bot_list(args)})).json()
        headers = {"X-Seat-Token": made["token"]}
        await http.post("/api/action", json={"type": "start"}, headers=headers)
        game = (await http.get("/api/state", headers=headers)).json()["game"]
        started = time.perf_counter()
        told = (await http.post("/api/action", headers=headers, json={
            "type": "tell", "card": game["hand"][0], "clue": "probe"})).json()["event"]
        # Every 5 ms for the first 2 s (400 requests: the figure is tens of milliseconds), then
        # backing off to 0.1 s, within the server's limit on a seat's HTTP requests
        # (http_requests_per_minute, 1,200 by default).
        pause = 0.005
        while True:
            answer = await http.get("/api/state", headers=headers)
            if answer.status_code != 200:
                raise RuntimeError(f"GET /api/state answered {answer.status_code}: "
                                   f"{answer.json().get('error', answer.text)}")
            if answer.json()["event"] > told:
                return time.perf_counter() - started
            await asyncio.sleep(pause)
            if time.perf_counter() - started > 2.0:
                pause = min(pause * 1.5, 0.1)


def server_rss_mb(process: subprocess.Popen[bytes] | None) -> float | None:
    """The server's resident memory (MB), from /proc (Linux)."""
    if process is None:
        return None
    try:
        for line in Path(f"/proc/{process.pid}/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


async def run_all(base: str, args: Args) -> list[TableResult | BaseException]:
    tasks = [one_table(i, base, args) for i in range(args.tables)]
    return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True),
                                  timeout=args.timeout)


def main() -> int:
    args = parse_args()
    folder = Path(tempfile.mkdtemp(prefix="dixit-load-"))
    process = None
    base = args.url
    if base is None:
        process, base = start_server(args, folder)
    outcomes: list[TableResult | BaseException] = []
    memory: list[float | None] = []
    try:
        warm_seconds = asyncio.run(wait_for_bots(base, args.timeout))
        first_move = asyncio.run(first_bot_move(base, args))
        print(f"bots warm {warm_seconds:.1f} s after the server answered; first bot move "
              f"after warm-up: {first_move * 1000:.0f} ms")
        started = time.perf_counter()
        for run in range(args.runs):
            outcomes += asyncio.run(run_all(base, args))
            memory.append(server_rss_mb(process))
            print(f"run {run + 1}/{args.runs}: server memory {memory[-1]} MB")
        elapsed = time.perf_counter() - started
    finally:
        if process is not None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=20)
        shutil.rmtree(folder, ignore_errors=True)  # the server's database, once it has stopped
    results = [o for o in outcomes if isinstance(o, TableResult)]
    failures = [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    latencies = [x * 1000 for r in results for x in r.latencies]
    errors = failures + [e for r in results for e in r.errors]
    lost = sum(r.lost for r in results)
    rounds = sum(r.rounds for r in results)
    events = sum(r.events_in_record for r in results)
    summary: dict[str, Any] = {
        "tables": args.tables, "seats": args.seats, "bot": args.bot, "edition": args.edition,
        "score_limit": args.score_limit, "bot_delay": args.bot_delay,
        "durable_commits": not args.fast_commits, "games_completed": len(results),
        "rounds": rounds, "events": events, "seconds": round(elapsed, 2),
        "events_per_s": round(events / elapsed, 1) if elapsed else None,
        "moves_measured": len(latencies),
        "p50_ms": round(statistics.median(latencies), 2) if latencies else None,
        "p95_ms": round(percentile(latencies, 0.95), 2) if latencies else None,
        "max_ms": round(max(latencies), 2) if latencies else None,
        "errors": len(errors), "lost_events": lost, "cpus": os.cpu_count(),
        "warm_up_s": round(warm_seconds, 2), "first_bot_move_ms": round(first_move * 1000, 1),
        "server_rss_mb": memory, "runs": args.runs,
    }
    print(f"{len(results)}/{args.tables * args.runs} games completed ({rounds} rounds, "
          f"{events} events) "
          f"in {elapsed:.1f} s; {summary['events_per_s']} events/s")
    print(f"latency from a person's move to its broadcast over {len(latencies)} moves: "
          f"p50 {summary['p50_ms']} ms, p95 {summary['p95_ms']} ms, max {summary['max_ms']} ms")
    print(f"errors: {len(errors)}; lost events: {lost}; server memory after each run: "
          f"{memory} MB")
    for error in errors[:10]:
        print(f"  error: {error}")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    bad = bool(errors) or lost > 0 or len(results) != args.tables * args.runs
    if args.max_p95_ms is not None and (summary["p95_ms"] or 0) > args.max_p95_ms:
        print(f"p95 {summary['p95_ms']} ms is over the limit of {args.max_p95_ms} ms")
        bad = True
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
